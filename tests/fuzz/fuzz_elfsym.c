/* fuzz_elfsym.c - libFuzzer harness for ELF/DWARF symbolization (issue 18: a mutated ELF
 * once made qsort(NULL, 0) abort the sanitizer build). The input is an object file, put in
 * a memfd and mapped into a fake process as its executable; then every address of the
 * first pages is resolved with source lines and inlines, main is looked up by name, its
 * code read and its line asked for. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "mp_analyzer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	struct mp_err err = { 0 };
	int fd = memfd_create("fuzz_elfsym", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	struct mp_sym_opts so = { .kallsyms = "/dev/null" };
	mp_sym *s = mp_sym_new(&so, NULL, 0, &err);
	if (!s) {
		close(fd);
		return 0;
	}
	struct mp_pd_task t = { .pid = 7, .tid = 7, .comm = "fz", .exec = 1 };
	mp_sym_comm(s, &t);
	struct mp_pd_mmap m = { .pid = 7, .tid = 7, .start = 0x400000, .len = 0x100000,
				.pgoff = 0, .cpumode = PERF_RECORD_MISC_USER, .filename = path,
				.prot = PROT_READ | PROT_EXEC };
	mp_sym_mmap(s, &m);
	volatile uint64_t sum = 0;
	for (uint64_t ip = 0x400000; ip < 0x400000 + 0x3000; ip += 0x33) {
		struct mp_sym_loc loc;
		uint32_t id = mp_sym_map_find(s, 7, PERF_RECORD_MISC_USER, ip);
		mp_sym_resolve(s, id, PERF_RECORD_MISC_USER, ip, 2, &loc);
		sum += strlen(loc.sym) + loc.line + (loc.srcfile ? strlen(loc.srcfile) : 0) +
		       (loc.inline_fn ? strlen(loc.inline_fn) : 0);
	}
	for (size_t i = 0; i < mp_sym_ndsos(s); i++) {
		uint64_t start = 0, len = 0;
		int is64;
		const struct mp_sym_dso_info *d = mp_sym_dso(s, i, 1);
		sum += d ? d->flags : 0;
		sum += (uint64_t)mp_sym_machine(s, i, &is64);
		uint64_t off = 0;
		const char *at = mp_sym_name_at(s, i, 0x1030, &off); /* a PLT entry's place */
		sum += at ? strlen(at) + off : 0;
		if (mp_sym_lookup_name(s, i, "main", &start, &len) == 0) {
			uint8_t code[256];
			const char *file;
			unsigned line;
			sum += (uint64_t)mp_sym_read_code(s, i, start, code, sizeof(code));
			if (mp_sym_srcline(s, i, start, &file, &line) == 0)
				sum += line + strlen(file);
		}
	}
	(void)sum;
	mp_sym_free(s);
	close(fd);
	return 0;
}
