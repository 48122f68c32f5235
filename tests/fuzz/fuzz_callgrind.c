/* fuzz_callgrind.c - the simulator's parsers: callgrind output files, valgrind -v logs
 * and mpsim's memory-sample and allocation files. Input whose first byte is 'L' is a
 * valgrind log, 'M' memory samples, 'A' allocation calls (the byte is dropped), anything
 * else a callgrind output file. The parsers read paths, so the input goes through a memfd. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mp_sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mp_err err = { 0, "" };
	int kind = size > 0 && (data[0] == 'L' || data[0] == 'M' || data[0] == 'A') ? data[0] : 0;
	int is_log = kind == 'L';
	int fd = memfd_create("fuzz_callgrind", MFD_CLOEXEC);
	char path[64];

	if (fd < 0)
		return 0;
	if (kind) {
		data++;
		size--;
	}
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (kind == 'M') {
		struct mp_sim_memrec *r = NULL;
		size_t n = 0;
		uint64_t loads, stores;
		if (mp_sim_mem_read(path, &r, &n, &loads, &stores, &err) == 0) {
			uint64_t sum = loads + stores;
			for (size_t i = 0; i < n; i++)
				sum += mp_sim_mem_datasrc(&r[i]);
			(void)sum;
			free(r);
		}
	} else if (kind == 'A') {
		struct mp_sim_allocs a;
		if (mp_sim_allocs_read(path, &a, &err) == 0)
			mp_sim_allocs_fini(&a);
	} else if (is_log) {
		struct mp_sim_load *loads = NULL;
		size_t n = 0;
		if (mp_sim_read_log(path, &loads, &n, &err) == 0)
			mp_sim_loads_free(loads, n);
	} else {
		mp_sim_profile *p = mp_sim_profile_read(path, &err);
		if (p) {
			uint64_t sum = 0;
			const struct mp_sim_cost *c = mp_sim_profile_costs(p);
			for (size_t i = 0; i < mp_sim_profile_ncosts(p); i++)
				sum += c[i].v[0] + c[i].obj;
			for (size_t i = 0; i < mp_sim_profile_nobjs(p); i++)
				sum += (uint64_t)(mp_sim_profile_obj(p, i) != NULL);
			(void)mp_sim_profile_geometry(p);
			(void)mp_sim_profile_cmd(p);
			(void)sum;
			mp_sim_profile_free(p);
		}
	}
	close(fd);
	return 0;
}
