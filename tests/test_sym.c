/* Unit tests for mp_sym_*: maps from MMAP/COMM/FORK, ELF symbols, DWARF lines, kallsyms.
 * Uses the static, debug-info binary ../shared/perfdata/bin/vector_static_gcc_v9.1.0
 * (values cross-checked with nm -S and addr2line -f -i). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_analyzer.h"
#include "mp_test_fixture.h"

#define VEC_REC_PATH "/rec/dir/vector_static_gcc_v9.1.0"

static char vec_path[4096], par_path[4096]; /* the fixtures, found by main() */
static char symfs[4096];

static int setup_paths(void **state)
{
	(void)state;
	/* a symfs with the binary at its recorded path */
	char tmpl[] = "/tmp/test_sym_XXXXXX";
	if (!mkdtemp(tmpl))
		return -1;
	snprintf(symfs, sizeof(symfs), "%s", tmpl);
	char d[4200], l[4300];
	snprintf(d, sizeof(d), "mkdir -p %s/rec/dir", symfs);
	if (system(d))
		return -1;
	snprintf(l, sizeof(l), "%s%s", symfs, VEC_REC_PATH);
	if (symlink(vec_path, l))
		return -1;
	return 0;
}

static int teardown_paths(void **state)
{
	(void)state;
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", symfs);
	return system(cmd) ? -1 : 0;
}

static struct mp_pd_mmap mk_mmap(uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
				 const char *fn)
{
	struct mp_pd_mmap m;
	memset(&m, 0, sizeof(m));
	m.pid = m.tid = pid;
	m.start = start;
	m.len = len;
	m.pgoff = pgoff;
	m.cpumode = PERF_RECORD_MISC_USER;
	m.filename = fn;
	return m;
}

static mp_sym *new_sym(const char *sfs, const char *kallsyms)
{
	struct mp_sym_opts o = { .symfs = sfs, .kallsyms = kallsyms ? kallsyms : "/dev/null" };
	struct mp_err err = { 0 };
	mp_sym *s = mp_sym_new(&o, NULL, 0, &err);
	assert_non_null(s);
	return s;
}

static int ends_with(const char *s, const char *suf)
{
	size_t a = s ? strlen(s) : 0, b = strlen(suf);
	return s && a >= b && !strcmp(s + a - b, suf);
}

static void mp_sym_resolve__static_exec__main_and_line(void **state)
{
	(void)state;
	mp_sym *s = new_sym(NULL, NULL);
	struct mp_pd_mmap m = mk_mmap(100, 0x400000, 0xc5000, 0, vec_path);
	assert_int_equal(mp_sym_mmap(s, &m), 0);
	uint32_t map = mp_sym_map_find(s, 100, PERF_RECORD_MISC_USER, 0x4014fb);
	assert_int_not_equal(map, MP_SYM_NO_MAP);
	struct mp_sym_loc l;
	mp_sym_resolve(s, map, PERF_RECORD_MISC_USER, 0x4014fb, 1, &l);
	assert_string_equal(l.dso, "vector_static_gcc_v9.1.0");
	assert_string_equal(l.sym, "main");
	assert_int_equal(l.sym_resolved, 1);
	assert_int_equal(l.sym_start, 0x4014e0);
	assert_int_equal(l.sym_size, 0x149);
	assert_int_equal(l.elf_addr, 0x4014fb);
	assert_int_equal(l.addr, 0x14fb); /* perf's map-relative address */
	assert_true(ends_with(l.srcfile, "manual/clients/vector.cpp"));
	assert_int_equal(l.line, 10);
	assert_null(l.inline_fn);
	assert_int_equal(l.level, '.');
	const struct mp_sym_dso_info *d = mp_sym_dso(s, l.dso_idx, 0);
	assert_true(d->flags & MP_DSO_FOUND);
	assert_true(d->flags & MP_DSO_SYMTAB);
	assert_true(d->flags & MP_DSO_DEBUGINFO);
	mp_sym_free(s);
}

static void mp_sym_resolve__inlined_code__own_file_and_line(void **state)
{
	(void)state;
	mp_sym *s = new_sym(NULL, NULL);
	struct mp_pd_mmap m = mk_mmap(100, 0x400000, 0xc5000, 0, vec_path);
	assert_int_equal(mp_sym_mmap(s, &m), 0);
	uint32_t map = mp_sym_map_find(s, 100, PERF_RECORD_MISC_USER, 0x401520);
	struct mp_sym_loc l;
	mp_sym_resolve(s, map, PERF_RECORD_MISC_USER, 0x401520, 2, &l);
	assert_string_equal(l.sym, "main");
	/* addr2line -i: innermost is stl_vector.h:95 inlined into main */
	assert_true(ends_with(l.srcfile, "bits/stl_vector.h"));
	assert_int_equal(l.line, 95);
	assert_non_null(l.inline_fn);
	mp_sym_free(s);
}

/* An inline chain asked again (kept per object and address) is the one the DWARF gives, for
 * every address of main; an ask for fewer frames gets what that ask gives from the DWARF:
 * the first ones, and the outer function only when the chain ends before the limit. (An
 * ask for more than 32 frames is not kept: it is the DWARF's answer, the reference.) */
static void mp_sym_inline_chain__asked_again__as_looked_up(void **state)
{
	(void)state;
	mp_sym *s = new_sym(NULL, NULL);
	struct mp_pd_mmap m = mk_mmap(100, 0x400000, 0xc5000, 0, vec_path);
	assert_int_equal(mp_sym_mmap(s, &m), 0);
	uint32_t ms = mp_sym_map_find(s, 100, PERF_RECORD_MISC_USER, 0x4014e0);
	struct mp_sym_inline a[64], ref[64];
	size_t inlined = 0, deep = 0;
	for (int pass = 0; pass < 2; pass++)
		for (uint64_t ip = 0x4014e0; ip < 0x4014e0 + 0x149; ip++) {
			const char *oa = NULL, *oref = NULL;
			size_t nref = mp_sym_inline_chain(s, ms, ip, ref, 64, &oref);
			for (size_t max = 1; max <= 32; max = max == 2 ? 32 : max + 1) {
				size_t na = mp_sym_inline_chain(s, ms, ip, a, max, &oa);
				assert_int_equal(na, nref < max ? nref : max);
				for (size_t i = 0; i < na; i++) {
					assert_string_equal(a[i].name, ref[i].name);
					assert_int_equal(a[i].call_line, ref[i].call_line);
					assert_true((a[i].call_file == NULL) == (ref[i].call_file == NULL));
					if (a[i].call_file)
						assert_string_equal(a[i].call_file, ref[i].call_file);
				}
				if (nref < max) {
					assert_true((oa == NULL) == (oref == NULL));
					if (oa)
						assert_string_equal(oa, oref);
				} else {
					assert_null(oa);
				}
			}
			if (pass == 1) {
				inlined += nref > 0;
				deep += nref > 1;
			}
		}
	/* main's code has inlined vector and algorithm code, some of it two deep */
	assert_true(inlined > 50);
	assert_true(deep > 0);
	mp_sym_free(s);
}

static void mp_sym_resolve__relocated_map_with_pgoff__file_offset_to_vaddr(void **state)
{
	(void)state;
	mp_sym *s = new_sym(NULL, NULL);
	/* as for a PIE under ASLR: text mapped at a random base, mapping starts at offset
	 * 0x1000 of the file */
	struct mp_pd_mmap m = mk_mmap(7, 0x555555555000, 0xc4000, 0x1000, vec_path);
	assert_int_equal(mp_sym_mmap(s, &m), 0);
	uint64_t ip = 0x555555555000 + (0x418790 - 0x400000 - 0x1000) + 4;
	uint32_t map = mp_sym_map_find(s, 7, PERF_RECORD_MISC_USER, ip);
	struct mp_sym_loc l;
	mp_sym_resolve(s, map, PERF_RECORD_MISC_USER, ip, 0, &l);
	assert_string_equal(l.sym, "__cos_fma");
	assert_int_equal(l.elf_addr, 0x418794);
	assert_int_equal(l.addr, 0x18794);
	mp_sym_free(s);
}

static void mp_sym_resolve__no_map_and_missing_file__address_not_lost(void **state)
{
	(void)state;
	mp_sym *s = new_sym(NULL, NULL);
	struct mp_pd_mmap m = mk_mmap(5, 0x7f0000000000, 0x10000, 0x2000, "/nonexistent/libfoo.so");
	assert_int_equal(mp_sym_mmap(s, &m), 0);
	struct mp_sym_loc l;
	uint32_t map = mp_sym_map_find(s, 5, PERF_RECORD_MISC_USER, 0x7f0000000123);
	assert_int_not_equal(map, MP_SYM_NO_MAP);
	mp_sym_resolve(s, map, PERF_RECORD_MISC_USER, 0x7f0000000123, 1, &l);
	assert_string_equal(l.dso, "libfoo.so");
	assert_string_equal(l.sym, "0x0000000000002123");
	assert_int_equal(l.sym_resolved, 0);
	assert_null(l.srcfile);
	/* another process, and an address in no map */
	assert_int_equal(mp_sym_map_find(s, 6, PERF_RECORD_MISC_USER, 0x7f0000000123),
			 MP_SYM_NO_MAP);
	map = mp_sym_map_find(s, 5, PERF_RECORD_MISC_USER, 0x7f0000010000);
	assert_int_equal(map, MP_SYM_NO_MAP);
	mp_sym_resolve(s, map, PERF_RECORD_MISC_USER, 0x7f0000010000, 1, &l);
	assert_string_equal(l.dso, "[unknown]");
	assert_string_equal(l.sym, "0x00007f0000010000");
	const struct mp_sym_dso_info *d = mp_sym_dso(s, 0, 1);
	assert_false(d->flags & MP_DSO_FOUND);
	mp_sym_free(s);
}

static void mp_sym_map__fork_exec_overlap__perf_semantics(void **state)
{
	(void)state;
	mp_sym *s = new_sym(NULL, NULL);
	struct mp_pd_mmap a = mk_mmap(10, 0x1000, 0x3000, 0, "/x/a.so");
	struct mp_pd_mmap b = mk_mmap(10, 0x2000, 0x1000, 0, "/x/b.so");
	assert_int_equal(mp_sym_mmap(s, &a), 0);
	assert_int_equal(mp_sym_mmap(s, &b), 0);
	struct mp_sym_loc l;
	/* b cut a into [0x1000,0x2000) and [0x3000,0x4000) */
	mp_sym_resolve(s, mp_sym_map_find(s, 10, PERF_RECORD_MISC_USER, 0x1800), 2, 0x1800, 0, &l);
	assert_string_equal(l.dso, "a.so");
	mp_sym_resolve(s, mp_sym_map_find(s, 10, PERF_RECORD_MISC_USER, 0x2800), 2, 0x2800, 0, &l);
	assert_string_equal(l.dso, "b.so");
	mp_sym_resolve(s, mp_sym_map_find(s, 10, PERF_RECORD_MISC_USER, 0x3800), 2, 0x3800, 0, &l);
	assert_string_equal(l.dso, "a.so");
	assert_int_equal(l.addr, 0x2800); /* pgoff of the right part moved with it */

	/* fork: the child sees the parent's maps; a thread shares them */
	struct mp_pd_task f = { .pid = 11, .tid = 11, .ppid = 10, .ptid = 10 };
	assert_int_equal(mp_sym_fork(s, &f), 0);
	assert_int_not_equal(mp_sym_map_find(s, 11, PERF_RECORD_MISC_USER, 0x2800), MP_SYM_NO_MAP);
	struct mp_pd_task c = { .pid = 10, .tid = 10, .comm = "newprog", .exec = 1 };
	assert_int_equal(mp_sym_comm(s, &c), 0);
	assert_string_equal(mp_sym_comm_of(s, 10, 10), "newprog");
	/* after the exec the old maps still name the samples inside execve (perf) and those
	 * the new maps replaced are gone; the child's copy stays as it was */
	struct mp_pd_mmap n = mk_mmap(10, 0x1000, 0x1000, 0, "/x/new");
	assert_int_equal(mp_sym_mmap(s, &n), 0);
	mp_sym_resolve(s, mp_sym_map_find(s, 10, PERF_RECORD_MISC_USER, 0x2800), 2, 0x2800, 0, &l);
	assert_string_equal(l.dso, "b.so");
	/* until a user address is found in the new maps (the new program runs) */
	assert_int_not_equal(mp_sym_map_find(s, 10, PERF_RECORD_MISC_USER, 0x3800), MP_SYM_NO_MAP);
	mp_sym_resolve(s, mp_sym_map_find(s, 10, PERF_RECORD_MISC_USER, 0x1800), 2, 0x1800, 0, &l);
	assert_string_equal(l.dso, "new");
	assert_int_equal(mp_sym_map_find(s, 10, PERF_RECORD_MISC_USER, 0x2800), MP_SYM_NO_MAP);
	assert_int_not_equal(mp_sym_map_find(s, 11, PERF_RECORD_MISC_USER, 0x2800), MP_SYM_NO_MAP);
	/* comm of a thread never named */
	assert_string_equal(mp_sym_comm_of(s, 12, 13), ":13");
	/* the idle task of -a, never named: perf's "swapper" */
	assert_string_equal(mp_sym_comm_of(s, 0, 0), "swapper");
	assert_string_equal(mp_sym_comm_name(s, mp_sym_comm_id(s, 0, 0)), "swapper");
	/* a data mmap (MMAP2 prot without exec) is ignored */
	struct mp_pd_mmap dm = mk_mmap(11, 0x2000, 0x1000, 0, "/x/data.bin");
	dm.prot = 3;
	assert_int_equal(mp_sym_mmap(s, &dm), 0);
	mp_sym_resolve(s, mp_sym_map_find(s, 11, PERF_RECORD_MISC_USER, 0x2800), 2, 0x2800, 0, &l);
	assert_string_equal(l.dso, "b.so");
	mp_sym_free(s);
}

static void mp_sym_resolve__symfs_and_build_id_mismatch(void **state)
{
	(void)state;
	/* found through --symfs at the recorded path */
	mp_sym *s = new_sym(symfs, NULL);
	struct mp_pd_mmap m = mk_mmap(100, 0x400000, 0xc5000, 0, VEC_REC_PATH);
	assert_int_equal(mp_sym_mmap(s, &m), 0);
	struct mp_sym_loc l;
	mp_sym_resolve(s, mp_sym_map_find(s, 100, 2, 0x4014f3), 2, 0x4014f3, 0, &l);
	assert_string_equal(l.sym, "main");
	mp_sym_free(s);

	/* the recording says another build-id: warning, no symbols */
	struct mp_pd_build_id bid = { .pid = -1, .cpumode = PERF_RECORD_MISC_USER, .id_len = 20,
				      .filename = VEC_REC_PATH };
	memset(bid.id, 0xab, 20);
	struct mp_sym_opts o = { .symfs = symfs, .kallsyms = "/dev/null" };
	struct mp_err err = { 0 };
	s = mp_sym_new(&o, &bid, 1, &err);
	assert_non_null(s);
	assert_int_equal(mp_sym_mmap(s, &m), 0);
	mp_sym_resolve(s, mp_sym_map_find(s, 100, 2, 0x4014f3), 2, 0x4014f3, 1, &l);
	assert_string_equal(l.sym, "0x00000000000014f3");
	assert_null(l.srcfile);
	assert_true(mp_sym_dso(s, l.dso_idx, 0)->flags & MP_DSO_BUILDID_MISMATCH);
	mp_sym_free(s);

	/* the right build-id (db3f64e2...) is accepted */
	static const uint8_t good[20] = { 0xdb, 0x3f, 0x64, 0xe2, 0x3e, 0x81, 0xc6, 0x29, 0x54, 0xfc,
					  0xff, 0x03, 0x88, 0xac, 0xee, 0x87, 0x97, 0x60, 0x12, 0x0f };
	memcpy(bid.id, good, 20);
	s = mp_sym_new(&o, &bid, 1, &err);
	assert_non_null(s);
	assert_int_equal(mp_sym_mmap(s, &m), 0);
	mp_sym_resolve(s, mp_sym_map_find(s, 100, 2, 0x4014f3), 2, 0x4014f3, 0, &l);
	assert_string_equal(l.sym, "main");
	mp_sym_free(s);
}

static void mp_sym_resolve__kallsyms_file__kernel_and_module_symbols(void **state)
{
	(void)state;
	char path[] = "/tmp/test_kallsyms_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fprintf(f, "ffffffff81000000 T _text\n"
		   "ffffffff81000100 T do_one\n"
		   "ffffffff81000200 t do_two\n"
		   "ffffffff81000300 D some_data\n"
		   "ffffffff81000400 T memcpy\n"
		   "ffffffff81000400 T __memcpy\n"
		   "ffffffff81000400 T __pi_memcpy\n"
		   "ffffffff81000500 T after_memcpy\n"
		   "ffffffffc0001000 t mod_fn\t[my_mod]\n");
	fclose(f);
	mp_sym *s = new_sym(NULL, path);
	struct mp_pd_mmap k = mk_mmap(UINT32_MAX, 0xffffffff81000000, 0x1000000,
				      0xffffffff81000000, "[kernel.kallsyms]_text");
	k.cpumode = PERF_RECORD_MISC_KERNEL;
	struct mp_pd_mmap mod = mk_mmap(UINT32_MAX, 0xffffffffc0000000, 0x4000, 0,
					"/lib/modules/6.1/kernel/my-mod.ko");
	mod.cpumode = PERF_RECORD_MISC_KERNEL;
	assert_int_equal(mp_sym_mmap(s, &k), 0);
	assert_int_equal(mp_sym_mmap(s, &mod), 0);
	struct mp_sym_loc l;
	uint64_t ip = 0xffffffff81000234;
	mp_sym_resolve(s, mp_sym_map_find(s, 1234, PERF_RECORD_MISC_KERNEL, ip), 1, ip, 1, &l);
	assert_string_equal(l.dso, "[kernel.kallsyms]");
	assert_string_equal(l.sym, "do_two");
	assert_int_equal(l.level, 'k');
	assert_int_equal(l.addr, ip);
	/* three names at one address: the last listed, as perf shows it */
	ip = 0xffffffff81000410;
	mp_sym_resolve(s, mp_sym_map_find(s, 1234, PERF_RECORD_MISC_KERNEL, ip), 1, ip, 1, &l);
	assert_string_equal(l.sym, "__pi_memcpy");
	ip = 0xffffffffc0001010;
	mp_sym_resolve(s, mp_sym_map_find(s, 1234, PERF_RECORD_MISC_KERNEL, ip), 1, ip, 1, &l);
	assert_string_equal(l.dso, "[my_mod]");
	assert_string_equal(l.sym, "mod_fn");
	mp_sym_free(s);

	/* --kallsyms /dev/null: raw addresses */
	s = new_sym(NULL, "/dev/null");
	assert_int_equal(mp_sym_mmap(s, &k), 0);
	ip = 0xffffffff81000234;
	mp_sym_resolve(s, mp_sym_map_find(s, 1, PERF_RECORD_MISC_KERNEL, ip), 1, ip, 1, &l);
	assert_string_equal(l.sym, "0xffffffff81000234");
	mp_sym_free(s);
	unlink(path);
}

/* Without --kallsyms, the kernel symbols come from perf's build-id cache copy of the
 * recorded kernel's (<dir>/[kernel.kallsyms]/<build-id>/kallsyms), not /proc/kallsyms
 * (a made-up build-id: the running kernel's /proc/kallsyms would not have these names);
 * module symbols, after the core kernel's, are parsed when a module needs them. */
static void mp_sym_resolve__kallsyms_build_id_cache__kernel_and_module(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_kcache_XXXXXX", path[256], cmd[600];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/[kernel.kallsyms]/00112233445566778899aabbccddeeff0011"
		 "2233", dir);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	assert_int_equal(system(cmd), 0);
	strcat(path, "/kallsyms");
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "ffffffff81000000 T _text\n"
		   "ffffffff81000100 T cached_one\n"
		   "ffffffff81000200 t cached_two\n"
		   "ffffffffc0001000 t cached_mod_fn\t[my_mod]\n"
		   "ffffffffc0001100 t cached_mod_end\t[my_mod]\n");
	fclose(f);
	struct mp_pd_build_id bid = { .pid = -1, .cpumode = PERF_RECORD_MISC_KERNEL, .id_len = 20,
				      .filename = "[kernel.kallsyms]" };
	for (int i = 0; i < 20; i++)
		bid.id[i] = (uint8_t)(0x11 * (i % 16));
	struct mp_sym_opts o = { .buildid_dir = dir };
	struct mp_err err = { 0 };
	mp_sym *s = mp_sym_new(&o, &bid, 1, &err);
	assert_non_null(s);
	struct mp_pd_mmap k = mk_mmap(UINT32_MAX, 0xffffffff81000000, 0x1000000,
				      0xffffffff81000000, "[kernel.kallsyms]_text");
	k.cpumode = PERF_RECORD_MISC_KERNEL;
	struct mp_pd_mmap mod = mk_mmap(UINT32_MAX, 0xffffffffc0000000, 0x4000, 0,
					"/lib/modules/6.1/kernel/my-mod.ko");
	mod.cpumode = PERF_RECORD_MISC_KERNEL;
	assert_int_equal(mp_sym_mmap(s, &k), 0);
	assert_int_equal(mp_sym_mmap(s, &mod), 0);
	struct mp_sym_loc l;
	uint64_t ip = 0xffffffff81000234;
	mp_sym_resolve(s, mp_sym_map_find(s, 1, PERF_RECORD_MISC_KERNEL, ip), 1, ip, 1, &l);
	assert_string_equal(l.dso, "[kernel.kallsyms]");
	assert_string_equal(l.sym, "cached_two");
	assert_string_equal(mp_sym_dso(s, l.dso_idx, 0)->file, path);
	/* the core kernel's last symbol ends at a page boundary, not at the module's first */
	ip = 0xffffffff81003000;
	mp_sym_resolve(s, mp_sym_map_find(s, 1, PERF_RECORD_MISC_KERNEL, ip), 1, ip, 1, &l);
	assert_string_equal(l.sym, "0xffffffff81003000");
	ip = 0xffffffffc0001010;
	mp_sym_resolve(s, mp_sym_map_find(s, 1, PERF_RECORD_MISC_KERNEL, ip), 1, ip, 1, &l);
	assert_string_equal(l.dso, "[my_mod]");
	assert_string_equal(l.sym, "cached_mod_fn");
	mp_sym_free(s);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* The build-id cache copy is searched where it lies (binary search over its sorted core
 * lines) instead of parsed: every address resolves to what the parsed table gives (name,
 * start, size), with lines that are no symbols (r, A), several names at one address,
 * before the first and past the last symbol; then a module's sample, which parses the
 * whole copy. On this machine's own /proc/kallsyms too, when its addresses are visible.
 * Each address twice (the search's answers are kept by address). */
static void kallsyms_pair(const char *text, size_t len, uint64_t *ips, size_t nips)
{
	char dir[] = "/tmp/test_klazy_XXXXXX", path[256], cmd[600];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/[kernel.kallsyms]/a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4",
		 dir);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	assert_int_equal(system(cmd), 0);
	strcat(path, "/kallsyms");
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
	struct mp_pd_build_id bid = { .pid = -1, .cpumode = PERF_RECORD_MISC_KERNEL, .id_len = 20,
				      .filename = "[kernel.kallsyms]" };
	for (int i = 0; i < 20; i++)
		bid.id[i] = (uint8_t)(0xa1 + i);
	struct mp_err err = { 0 };
	struct mp_sym_opts lo = { .buildid_dir = dir }, fo = { .kallsyms = path };
	mp_sym *lazy = mp_sym_new(&lo, &bid, 1, &err), *full = mp_sym_new(&fo, &bid, 1, &err);
	assert_non_null(lazy);
	assert_non_null(full);
	struct mp_pd_mmap k = mk_mmap(UINT32_MAX, 0, UINT64_MAX, 0, "[kernel.kallsyms]_text");
	k.cpumode = PERF_RECORD_MISC_KERNEL;
	assert_int_equal(mp_sym_mmap(lazy, &k), 0);
	assert_int_equal(mp_sym_mmap(full, &k), 0);
	size_t named = 0;
	/* twice, the second time backwards: the searched copy keeps its answers by address */
	for (size_t j = 0; j < 2 * nips; j++) {
		size_t i = j < nips ? j : 2 * nips - 1 - j;
		struct mp_sym_loc a, b;
		mp_sym_resolve(lazy, mp_sym_map_find(lazy, 1, PERF_RECORD_MISC_KERNEL, ips[i]), 1,
			       ips[i], 0, &a);
		mp_sym_resolve(full, mp_sym_map_find(full, 1, PERF_RECORD_MISC_KERNEL, ips[i]), 1,
			       ips[i], 0, &b);
		if (strcmp(a.sym, b.sym) || a.sym_start != b.sym_start || a.sym_size != b.sym_size)
			fail_msg("%#llx: searched %s %#llx+%llu, parsed %s %#llx+%llu",
				 (unsigned long long)ips[i], a.sym, (unsigned long long)a.sym_start,
				 (unsigned long long)a.sym_size, b.sym, (unsigned long long)b.sym_start,
				 (unsigned long long)b.sym_size);
		assert_string_equal(mp_sym_dso(lazy, a.dso_idx, 0)->file, path);
		named += a.sym_resolved;
	}
	assert_true(named > nips);
	mp_sym_free(lazy);
	mp_sym_free(full);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void mp_sym_resolve__kallsyms_cache_searched__as_parsed(void **state)
{
	(void)state;
	static const char text[] = "0000000000000000 A fixed_percpu_data\n"
				   "ffffffff81000000 T _text\n"
				   "ffffffff81000000 T startup_64\n"
				   "ffffffff81000100 T do_one\n"
				   "ffffffff81000180 r a_rodata_label\n"
				   "ffffffff81000200 t do_two\n"
				   "ffffffff81000300 D some_data\n"
				   "ffffffff81000400 T memcpy\n"
				   "ffffffff81000400 T __memcpy\n"
				   "ffffffff81000400 T __pi_memcpy\n"
				   "ffffffff81000500 T after_memcpy\n"
				   "ffffffff81000600 R rodata_end\n"
				   "ffffffff81000700 b last_bss\n"
				   "ffffffffc0001000 t mod_fn\t[my_mod]\n"
				   "ffffffffc0001100 t mod_end\t[my_mod]\n";
	uint64_t ips[400];
	size_t n = 0;
	for (uint64_t a = 0xffffffff80fffff0; a < 0xffffffff81002100 && n < 400; a += 0x18)
		ips[n++] = a;
	kallsyms_pair(text, sizeof(text) - 1, ips, n);

	/* the modules' symbols, after a core lookup: the copy is parsed whole then */
	char dir[] = "/tmp/test_klazy_XXXXXX", path[256], cmd[600];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/[kernel.kallsyms]/0102030405060708090a0b0c0d0e0f1011121314",
		 dir);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	assert_int_equal(system(cmd), 0);
	strcat(path, "/kallsyms");
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	struct mp_pd_build_id bid = { .pid = -1, .cpumode = PERF_RECORD_MISC_KERNEL, .id_len = 20,
				      .filename = "[kernel.kallsyms]" };
	for (int i = 0; i < 20; i++)
		bid.id[i] = (uint8_t)(i + 1);
	struct mp_sym_opts o = { .buildid_dir = dir };
	struct mp_err err = { 0 };
	mp_sym *s = mp_sym_new(&o, &bid, 1, &err);
	assert_non_null(s);
	struct mp_pd_mmap k = mk_mmap(UINT32_MAX, 0xffffffff81000000, 0x1000000,
				      0xffffffff81000000, "[kernel.kallsyms]_text");
	k.cpumode = PERF_RECORD_MISC_KERNEL;
	struct mp_pd_mmap mod = mk_mmap(UINT32_MAX, 0xffffffffc0000000, 0x4000, 0,
					"/lib/modules/6.1/kernel/my-mod.ko");
	mod.cpumode = PERF_RECORD_MISC_KERNEL;
	assert_int_equal(mp_sym_mmap(s, &k), 0);
	assert_int_equal(mp_sym_mmap(s, &mod), 0);
	struct mp_sym_loc l;
	uint64_t ip = 0xffffffff81000410;
	mp_sym_resolve(s, mp_sym_map_find(s, 1, PERF_RECORD_MISC_KERNEL, ip), 1, ip, 0, &l);
	assert_string_equal(l.sym, "__pi_memcpy");
	assert_int_equal(l.sym_start, 0xffffffff81000400);
	assert_int_equal(l.sym_size, 0x100);
	ip = 0xffffffffc0001010;
	mp_sym_resolve(s, mp_sym_map_find(s, 1, PERF_RECORD_MISC_KERNEL, ip), 1, ip, 0, &l);
	assert_string_equal(l.dso, "[my_mod]");
	assert_string_equal(l.sym, "mod_fn");
	ip = 0xffffffff81000234;
	mp_sym_resolve(s, mp_sym_map_find(s, 1, PERF_RECORD_MISC_KERNEL, ip), 1, ip, 0, &l);
	assert_string_equal(l.sym, "do_two");
	uint64_t st, sz;
	assert_int_equal(mp_sym_lookup_name(s, l.dso_idx, "after_memcpy", &st, &sz), 0);
	assert_int_equal(st, 0xffffffff81000500);
	assert_int_equal(sz, 0x200);
	mp_sym_free(s);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);

	/* this machine's kernel: addresses spread over its core symbols and around them */
	FILE *p = fopen("/proc/kallsyms", "r");
	if (!p)
		return;
	char *buf = NULL, line[512];
	size_t len = 0, cap = 0, nlines = 0;
	uint64_t first = 0, last = 0;
	while (fgets(line, sizeof(line), p)) {
		size_t l2 = strlen(line);
		if (len + l2 + 1 > cap) {
			cap = (len + l2 + 1) * 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		memcpy(buf + len, line, l2);
		len += l2;
		if (!strchr(line, '\t')) {
			uint64_t a = strtoull(line, NULL, 16);
			if (a && !first)
				first = a;
			if (a)
				last = a;
			nlines++;
		}
	}
	fclose(p);
	if (first && last > first) {
		static uint64_t rips[3000];
		size_t m = 0;
		uint64_t step = (last - first) / 2900 + 1;
		for (uint64_t a = first - 64; a < last + 8192 && m < 3000; a += step)
			rips[m] = a + (m * 37) % 64, m++;
		kallsyms_pair(buf, len, rips, m);
	}
	free(buf);
}

static void mp_sym_lookup__name_srcline_code(void **state)
{
	(void)state;
	mp_sym *s = new_sym(NULL, NULL);
	struct mp_pd_mmap m = mk_mmap(100, 0x400000, 0xc5000, 0, vec_path);
	assert_int_equal(mp_sym_mmap(s, &m), 0);
	long di = mp_sym_dso_find(s, "vector_static_gcc_v9.1.0");
	assert_true(di >= 0);
	uint64_t st, sz;
	assert_int_equal(mp_sym_lookup_name(s, (size_t)di, "main", &st, &sz), 0);
	assert_int_equal(st, 0x4014e0);
	assert_int_equal(sz, 0x149);
	assert_int_equal(mp_sym_lookup_name(s, (size_t)di, "no_such_fn", &st, &sz), -ENOENT);
	const char *file;
	unsigned line;
	assert_int_equal(mp_sym_srcline(s, (size_t)di, 0x4014e0, &file, &line), 0);
	assert_int_equal(line, 10);
	uint8_t code[8];
	assert_int_equal(mp_sym_read_code(s, (size_t)di, 0x4014ef, code, 4), 4);
	/* objdump: 4014ef: 48 83 ec 40  sub $0x40,%rsp */
	assert_int_equal(code[0], 0x48);
	assert_int_equal(code[3], 0x40);
	int is64 = 0;
	assert_int_equal(mp_sym_machine(s, (size_t)di, &is64), 62 /* EM_X86_64 */);
	assert_int_equal(is64, 1);
	mp_sym_free(s);
}


/* Debug info elsewhere: a stripped object finds its DWARF through .gnu_debuglink, and one
 * without the link through /usr/lib/debug/.build-id (both under --symfs). */
static void mp_sym_resolve__stripped__debuglink_and_build_id_dirs(void **state)
{
	(void)state;
	if (system("command -v objcopy >/dev/null 2>&1")) {
		skip();
		return;
	}
	char cmd[8192];
	snprintf(cmd, sizeof(cmd),
		 "set -e; cd %s; mkdir -p a b/usr/lib/debug/.build-id/db b/rec;"
		 "objcopy --only-keep-debug %s a/vec.debug;"
		 "objcopy --strip-debug --strip-unneeded %s a/vec;"
		 "objcopy --add-gnu-debuglink=a/vec.debug a/vec;"
		 "cp a/vec.debug b/usr/lib/debug/.build-id/db/3f64e23e81c62954fcff0388acee879760120f.debug;"
		 "objcopy --strip-debug --strip-unneeded %s b/rec/vec",
		 symfs, vec_path, vec_path, vec_path);
	assert_int_equal(system(cmd), 0);
	char sfs[4200];
	struct mp_sym_loc l;
	/* debuglink: the link is looked up beside the object */
	snprintf(sfs, sizeof(sfs), "%s", symfs);
	mp_sym *s = new_sym(sfs, NULL);
	struct mp_pd_mmap m = mk_mmap(100, 0x400000, 0xc5000, 0, "/a/vec");
	assert_int_equal(mp_sym_mmap(s, &m), 0);
	mp_sym_resolve(s, mp_sym_map_find(s, 100, 2, 0x4014fb), 2, 0x4014fb, 1, &l);
	assert_string_equal(l.sym, "main"); /* .symtab comes from the debug file */
	assert_int_equal(l.line, 10);
	const struct mp_sym_dso_info *d = mp_sym_dso(s, l.dso_idx, 0);
	assert_true(ends_with(d->debug_file, "/a/vec.debug"));
	mp_sym_free(s);
	/* build-id directory (the recording's build-id table names the id) */
	snprintf(sfs, sizeof(sfs), "%s/b", symfs);
	static const uint8_t id[20] = { 0xdb, 0x3f, 0x64, 0xe2, 0x3e, 0x81, 0xc6, 0x29, 0x54, 0xfc,
					0xff, 0x03, 0x88, 0xac, 0xee, 0x87, 0x97, 0x60, 0x12, 0x0f };
	struct mp_pd_build_id bid = { .pid = -1, .cpumode = PERF_RECORD_MISC_USER, .id_len = 20,
				      .filename = "/rec/vec" };
	memcpy(bid.id, id, 20);
	struct mp_sym_opts o = { .symfs = sfs, .kallsyms = "/dev/null" };
	struct mp_err err = { 0 };
	s = mp_sym_new(&o, &bid, 1, &err);
	assert_non_null(s);
	struct mp_pd_mmap m2 = mk_mmap(100, 0x400000, 0xc5000, 0, "/rec/vec");
	assert_int_equal(mp_sym_mmap(s, &m2), 0);
	mp_sym_resolve(s, mp_sym_map_find(s, 100, 2, 0x401520), 2, 0x401520, 1, &l);
	assert_string_equal(l.sym, "main");
	assert_int_equal(l.line, 95);
	d = mp_sym_dso(s, l.dso_idx, 0);
	assert_true(d->flags & MP_DSO_DEBUGINFO);
	assert_non_null(strstr(d->debug_file, ".build-id/db/3f64"));
	mp_sym_free(s);
}


/* perf's build-id cache: the recorded object is found there when the path is gone or
 * holds another build (rebuilt since the recording). */
static void mp_sym_resolve__build_id_cache__missing_and_rebuilt(void **state)
{
	(void)state;
	char cmd[12300];
	snprintf(cmd, sizeof(cmd),
		 "set -e; cd %s; mkdir -p cache/.build-id/db/3f64e23e81c62954fcff0388acee879760120f "
		 "root/bin; cp %s cache/.build-id/db/3f64e23e81c62954fcff0388acee879760120f/elf; "
		 "cp %s root/bin/vec",
		 symfs, vec_path, par_path);
	assert_int_equal(system(cmd), 0);
	char cache[4200], root[4200];
	snprintf(cache, sizeof(cache), "%s/cache", symfs);
	snprintf(root, sizeof(root), "%s/root", symfs);
	static const uint8_t id[20] = { 0xdb, 0x3f, 0x64, 0xe2, 0x3e, 0x81, 0xc6, 0x29, 0x54, 0xfc,
					0xff, 0x03, 0x88, 0xac, 0xee, 0x87, 0x97, 0x60, 0x12, 0x0f };
	const char *paths[] = { "/gone/vec", "/bin/vec" };
	for (int k = 0; k < 2; k++) {
		struct mp_pd_build_id bid = { .pid = -1, .cpumode = PERF_RECORD_MISC_USER,
					      .id_len = 20, .filename = paths[k] };
		memcpy(bid.id, id, 20);
		struct mp_sym_opts o = { .symfs = root, .kallsyms = "/dev/null", .buildid_dir = cache };
		struct mp_err err = { 0 };
		mp_sym *s = mp_sym_new(&o, &bid, 1, &err);
		assert_non_null(s);
		struct mp_pd_mmap m = mk_mmap(100, 0x400000, 0xc5000, 0, paths[k]);
		assert_int_equal(mp_sym_mmap(s, &m), 0);
		struct mp_sym_loc l;
		mp_sym_resolve(s, mp_sym_map_find(s, 100, 2, 0x4014fb), 2, 0x4014fb, 1, &l);
		assert_string_equal(l.sym, "main");
		assert_int_equal(l.line, 10);
		const struct mp_sym_dso_info *d = mp_sym_dso(s, l.dso_idx, 0);
		assert_false(d->flags & MP_DSO_BUILDID_MISMATCH);
		assert_true(ends_with(d->file, "120f/elf"));
		mp_sym_free(s);
	}
}

/* qsort() is linked as __wrap_qsort here (-Wl,--wrap=qsort in report.cmake): count the
 * calls with no array, which the C library does not allow even for no elements (UBSan's
 * nonnull check aborts there). */
void __real_qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
void __wrap_qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
static int qsort_null_calls;

void __wrap_qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (!base) {
		qsort_null_calls++;
		return;
	}
	__real_qsort(base, n, size, cmp);
}

/* An object whose DWARF has a line table but no compilation unit with an address range
 * (a data-only file compiled -g): no source line, and no qsort() of a NULL array. */
static void mp_sym_srcline__dwarf_without_cu_ranges__no_line(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_sym_nocu_XXXXXX", cmd[512], obj[300];
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "cd %s && printf 'int mp_data_only = 42;\\n' >d.c && "
		 "cc -g -c d.c -o d.o 2>/dev/null", dir);
	if (system(cmd)) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		assert_int_equal(system(cmd), 0);
		skip();
	}
	snprintf(obj, sizeof(obj), "%s/d.o", dir);
	mp_sym *s = new_sym(NULL, NULL);
	struct mp_pd_mmap m = mk_mmap(100, 0x10000, 0x1000, 0, obj);
	assert_int_equal(mp_sym_mmap(s, &m), 0);
	struct mp_sym_loc l;
	qsort_null_calls = 0;
	mp_sym_resolve(s, mp_sym_map_find(s, 100, PERF_RECORD_MISC_USER, 0x10000),
		       PERF_RECORD_MISC_USER, 0x10000, 1, &l);
	const struct mp_sym_dso_info *d = mp_sym_dso(s, l.dso_idx, 0);
	assert_true(d->flags & MP_DSO_DEBUGINFO); /* a line table is there */
	assert_null(l.srcfile);
	assert_int_equal(l.line, 0);
	const char *f = NULL;
	unsigned line = 0;
	assert_int_equal(mp_sym_srcline(s, l.dso_idx, 0, &f, &line), -ENOENT);
	assert_int_equal(qsort_null_calls, 0);
	mp_sym_free(s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* Debug info and the line tables of the places opened ahead on two threads
 * (mp_sym_prepare_lines, as report --sort srcline does): the same files and lines as
 * opened one by one on first use, for both objects. */
static void mp_sym_prepare_lines__two_objects__lines_as_lazily(void **state)
{
	(void)state;
	mp_sym *s[2] = { new_sym(NULL, NULL), new_sym(NULL, NULL) };
	uint32_t maps[2][2];
	for (int k = 0; k < 2; k++) {
		struct mp_pd_mmap m = mk_mmap(100, 0x400000, 0xc5000, 0, vec_path);
		assert_int_equal(mp_sym_mmap(s[k], &m), 0);
		m = mk_mmap(101, 0x200000, 0x200000, 0, par_path);
		assert_int_equal(mp_sym_mmap(s[k], &m), 0);
		maps[k][0] = mp_sym_map_find(s[k], 100, PERF_RECORD_MISC_USER, 0x4014fb);
		maps[k][1] = mp_sym_map_find(s[k], 101, PERF_RECORD_MISC_USER, 0x201000);
		assert_int_not_equal(maps[k][1], MP_SYM_NO_MAP);
	}
	/* s[0] ahead (with a repeated map and one that is none), s[1] on first use */
	uint32_t list[] = { maps[0][1], MP_SYM_NO_MAP, maps[0][0], maps[0][1] };
	uint64_t ips[] = { 0x201a70, 0x1234, 0x4014fb, 0x201000 };
	mp_sym_prepare_lines(s[0], list, ips, 4);
	int lines[2] = { 0, 0 };
	/* main of vector, worker() of parallel (with lines), and beyond (libc, without) */
	for (uint64_t off = 0; off < 0x40000; off += off < 0x140 ? 3 : 0x1003) {
		for (int o = 0; o < 2; o++) {
			uint64_t ip = (o ? 0x201a70 : 0x4014e0) + off;
			struct mp_sym_loc l[2];
			for (int k = 0; k < 2; k++)
				mp_sym_resolve(s[k], maps[k][o], PERF_RECORD_MISC_USER, ip, 1, &l[k]);
			assert_string_equal(l[0].sym, l[1].sym);
			assert_int_equal(l[0].line, l[1].line);
			assert_true(!l[0].srcfile == !l[1].srcfile);
			if (l[0].srcfile)
				assert_string_equal(l[0].srcfile, l[1].srcfile);
			lines[o] += l[0].line != 0;
		}
	}
	assert_true(lines[0] > 10 && lines[1] > 10);
	struct mp_sym_loc l;
	mp_sym_resolve(s[0], maps[0][0], PERF_RECORD_MISC_USER, 0x4014fb, 1, &l);
	assert_true(ends_with(l.srcfile, "manual/clients/vector.cpp"));
	assert_int_equal(l.line, 10);
	mp_sym_free(s[0]);
	mp_sym_free(s[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mp_sym_resolve__static_exec__main_and_line),
		cmocka_unit_test(mp_sym_resolve__inlined_code__own_file_and_line),
		cmocka_unit_test(mp_sym_inline_chain__asked_again__as_looked_up),
		cmocka_unit_test(mp_sym_resolve__relocated_map_with_pgoff__file_offset_to_vaddr),
		cmocka_unit_test(mp_sym_resolve__no_map_and_missing_file__address_not_lost),
		cmocka_unit_test(mp_sym_map__fork_exec_overlap__perf_semantics),
		cmocka_unit_test(mp_sym_resolve__symfs_and_build_id_mismatch),
		cmocka_unit_test(mp_sym_resolve__kallsyms_file__kernel_and_module_symbols),
		cmocka_unit_test(mp_sym_resolve__kallsyms_build_id_cache__kernel_and_module),
		cmocka_unit_test(mp_sym_resolve__kallsyms_cache_searched__as_parsed),
		cmocka_unit_test(mp_sym_lookup__name_srcline_code),
		cmocka_unit_test(mp_sym_resolve__stripped__debuglink_and_build_id_dirs),
		cmocka_unit_test(mp_sym_resolve__build_id_cache__missing_and_rebuilt),
		cmocka_unit_test(mp_sym_srcline__dwarf_without_cu_ranges__no_line),
		cmocka_unit_test(mp_sym_prepare_lines__two_objects__lines_as_lazily),
	};
	/* nearly every test maps the fixtures (and the group's symfs links one) */
	if (mp_test_fixture(vec_path, sizeof(vec_path), MP_FIXTURE_VECTOR) ||
	    mp_test_fixture(par_path, sizeof(par_path), MP_FIXTURE_PARALLEL))
		return MP_TEST_SKIP;
	return cmocka_run_group_tests(tests, setup_paths, teardown_paths);
}
