/* fuzz_pdwrite.c - libFuzzer harness for the perf.data writer's round trip: the input
 * becomes a comm name, a command line, meta keys and a run of samples (ip, pid, time,
 * period, cpu: 16 bytes each) written with mp_pdw_*, closed, read back with mp_pd_open and
 * compared: every sample comes back with its fields (order-independent sums), the command
 * line and the attr's name. A mismatch aborts (a finding). */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_perfdata.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

struct sums {
	uint64_t n, ip, period, time, pidcpu;
};

static int on_sample(void *c, const struct mp_pd_sample *s)
{
	struct sums *r = c;
	r->n++;
	r->ip += s->ip;
	r->period += s->period;
	r->time += s->time;
	r->pidcpu += (uint64_t)s->pid * 7 + (uint64_t)s->tid * 3 + s->cpu;
	return 0;
}

static uint64_t get(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	memcpy(&v, p, n < 8 ? n : 8);
	return v;
}

static char dir[64];

static void rm_dir(void)
{
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[128], comm[17] = "", name[33] = "";
	struct mp_err err = { 0 };
	struct sums want = { 0 }, got = { 0 };

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/fuzz_pdwrite.XXXXXX");
		if (!mkdtemp(dir))
			abort();
		atexit(rm_dir);
	}
	if (size < 48)
		return 0;
	/* 16 bytes of comm, 32 of event name (NUL-cut, printable or not), then samples */
	memcpy(comm, data, 16);
	memcpy(name, data + 16, 32);
	data += 48;
	size -= 48;
	if (!name[0])
		strcpy(name, "cpu-clock");
	snprintf(path, sizeof(path), "%s/rt.data", dir);
	mp_pdw *w = mp_pdw_create(path, &err);
	if (!w)
		abort();
	mp_pdw_set_auto_build_ids(w, 0);
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 100000;
	a.sample_type = ST;
	a.sample_id_all = 1;
	a.comm = a.task = a.mmap = 1;
	uint64_t id = 42;
	if (mp_pdw_add_attr(w, &a, &id, 1, name, name))
		abort();
	char *argv[] = { comm, name, NULL };
	mp_pdw_set_cmdline(w, 2, argv);
	for (size_t off = 0; off + 16 <= size && want.n < 4096; off += 16) {
		uint32_t pid = (uint32_t)get(data + off + 8, 2) + 1, cpu = data[off + 10] % 64;
		uint64_t ip = get(data + off, 8), period = get(data + off + 11, 4) + 1;
		uint64_t time = want.n * 1000 + data[off + 15];
		/* IDENTIFIER IP TID TIME CPU PERIOD */
		uint64_t s[7] = { 0, id, ip, (uint64_t)pid | (uint64_t)pid << 32, time, cpu, period };
		struct perf_event_header *h = (void *)s;
		h->type = PERF_RECORD_SAMPLE;
		h->misc = PERF_RECORD_MISC_USER;
		h->size = sizeof(s);
		if (mp_pdw_write(w, s, sizeof(s)))
			abort();
		want.n++;
		want.ip += ip;
		want.period += period;
		want.time += time;
		want.pidcpu += (uint64_t)pid * 7 + (uint64_t)pid * 3 + cpu;
	}
	if (mp_pdw_close(w, &err)) {
		fprintf(stderr, "fuzz_pdwrite: close: %s\n", err.msg);
		abort();
	}
	mp_pd *pd = mp_pd_open(path, &err);
	if (!pd) {
		fprintf(stderr, "fuzz_pdwrite: the written file does not read back: %s\n", err.msg);
		abort();
	}
	if (mp_pd_nattrs(pd) != 1 || strcmp(mp_pd_attr(pd, 0)->name, name)) {
		fprintf(stderr, "fuzz_pdwrite: %zu attrs read back, the first named '%s', not '%s'\n",
			mp_pd_nattrs(pd), mp_pd_nattrs(pd) ? mp_pd_attr(pd, 0)->name : "", name);
		abort();
	}
	struct mp_pd_handler hd = { .ctx = &got, .sample = on_sample };
	if (mp_pd_process(pd, &hd, &err)) {
		fprintf(stderr, "fuzz_pdwrite: read back: %s\n", err.msg);
		abort();
	}
	mp_pd_close(pd);
	if (memcmp(&got, &want, sizeof(got))) {
		fprintf(stderr, "fuzz_pdwrite: %llu samples written, %llu read back (or fields differ)\n",
			(unsigned long long)want.n, (unsigned long long)got.n);
		abort();
	}
	unlink(path);
	return 0;
}
