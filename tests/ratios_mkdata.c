/* ratios_mkdata.c - write a perf.data file with known samples and periods, for the
 * ratios tests. Reads a spec on stdin, one directive a line:
 *   cpuid STRING                         HEADER_CPUID ("GenuineIntel,6,15,11")
 *   cmdline WORD...                      HEADER_CMDLINE
 *   attr NAME TYPE CONFIG PERIOD         an event (raw: TYPE 4), sample period PERIOD
 *   comm PID NAME [TID]                  the command of thread TID (default PID) of PID
 *   mmap PID START LEN PGOFF PATH        an executable MMAP2 mapping
 *   sample ATTR PID IP N [TID]           N samples of attr index ATTR at IP (period = attr's)
 *                                        in thread TID (default PID)
 *   counts ATTR VALUE                    exact final count of attr ATTR
 * usage: ratios_mkdata OUT.data < spec */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mp_collector.h"

#define ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_PERIOD)

static uint64_t now = 1000;

static int die(const char *msg, unsigned line)
{
	fprintf(stderr, "ratios_mkdata: line %u: %s\n", line, msg);
	return 1;
}

int main(int argc, char **argv)
{
	struct mp_err err = { 0, "" };
	char line[4096];
	unsigned ln = 0;
	uint64_t periods[16];
	int nattrs = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: ratios_mkdata OUT.data < spec\n");
		return 2;
	}
	mp_pdw *w = mp_pdw_create(argv[1], &err);
	if (!w) {
		fprintf(stderr, "ratios_mkdata: %s\n", err.msg);
		return 1;
	}
	while (fgets(line, sizeof(line), stdin)) {
		char a[1024], b[1024];
		unsigned long long x, y, z, v;
		unsigned pid, tid;
		int idx, nf;
		ln++;
		line[strcspn(line, "\n")] = 0;
		if (!line[0] || line[0] == '#')
			continue;
		if (sscanf(line, "cpuid %1023s", a) == 1) {
			mp_pdw_set_string(w, 9, a);
		} else if (!strncmp(line, "cmdline ", 8)) {
			char *args[64];
			int n = 0;
			for (char *t = strtok(line + 8, " "); t && n < 63; t = strtok(NULL, " "))
				args[n++] = t;
			args[n] = NULL;
			mp_pdw_set_cmdline(w, n, args);
		} else if (sscanf(line, "attr %1023s %llu %llx %llu", a, &x, &y, &z) == 4) {
			struct perf_event_attr at;
			uint64_t id = 100 + (uint64_t)nattrs;
			if (nattrs >= 16)
				return die("too many attrs", ln);
			memset(&at, 0, sizeof(at));
			at.size = sizeof(at);
			at.type = (uint32_t)x;
			at.config = y;
			at.sample_period = z;
			at.sample_type = ST;
			at.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
			at.sample_id_all = 1;
			at.disabled = 1;
			at.mmap = at.comm = nattrs == 0;
			if (mp_pdw_add_attr(w, &at, &id, 1, a, a) < 0)
				return die("mp_pdw_add_attr failed", ln);
			periods[nattrs++] = z;
		} else if ((nf = sscanf(line, "comm %u %1023s %u", &pid, a, &tid)) >= 2) {
			struct { struct perf_event_header h; uint32_t pid, tid; char comm[16];
				 uint64_t t[3]; } r;
			memset(&r, 0, sizeof(r));
			r.h.type = PERF_RECORD_COMM;
			r.h.size = sizeof(r);
			r.pid = pid;
			r.tid = nf == 3 ? tid : pid;
			snprintf(r.comm, sizeof(r.comm), "%s", a);
			r.t[0] = (uint64_t)pid | (uint64_t)r.tid << 32;
			r.t[1] = now++;
			r.t[2] = 100;
			mp_pdw_write(w, &r, sizeof(r));
		} else if (sscanf(line, "mmap %u %llx %llx %llx %1023s", &pid, &x, &y, &z, b) == 5) {
			char buf[2048];
			struct perf_event_header *h = (void *)buf;
			size_t fl = (strlen(b) + 1 + 7) & ~(size_t)7, off = sizeof(*h);
			uint32_t *u32;
			uint64_t *u64;
			memset(buf, 0, sizeof(buf));
			h->type = PERF_RECORD_MMAP2;
			u32 = (uint32_t *)(buf + off);
			u32[0] = u32[1] = pid;
			off += 8;
			u64 = (uint64_t *)(buf + off);
			u64[0] = x;  /* start */
			u64[1] = y;  /* len */
			u64[2] = z;  /* pgoff */
			off += 24;
			off += 24;   /* maj, min, ino, ino_generation: zero */
			u32 = (uint32_t *)(buf + off);
			u32[0] = PROT_READ | PROT_EXEC;
			u32[1] = MAP_PRIVATE;
			off += 8;
			memcpy(buf + off, b, strlen(b));
			off += fl;
			u64 = (uint64_t *)(buf + off);
			u64[0] = (uint64_t)pid | (uint64_t)pid << 32;
			u64[1] = now++;
			u64[2] = 100;
			off += 24;
			h->size = (uint16_t)off;
			h->misc = PERF_RECORD_MISC_USER;
			mp_pdw_write(w, buf, off);
		} else if ((nf = sscanf(line, "sample %d %u %llx %llu %u", &idx, &pid, &x, &v, &tid)) >= 4) {
			struct { struct perf_event_header h; uint64_t ip; uint32_t pid, tid;
				 uint64_t time, id, period; } r;
			if (idx < 0 || idx >= nattrs)
				return die("sample: no such attr", ln);
			for (unsigned long long k = 0; k < v; k++) {
				memset(&r, 0, sizeof(r));
				r.h.type = PERF_RECORD_SAMPLE;
				r.h.misc = PERF_RECORD_MISC_USER;
				r.h.size = sizeof(r);
				r.ip = x;
				r.pid = pid;
				r.tid = nf == 5 ? tid : pid;
				r.time = now++;
				r.id = 100 + (uint64_t)idx;
				r.period = periods[idx];
				if (mp_pdw_write(w, &r, sizeof(r)) < 0)
					return die("mp_pdw_write failed", ln);
			}
		} else if (sscanf(line, "counts %d %llu", &idx, &v) == 2) {
			if (idx < 0 || idx >= nattrs)
				return die("counts: no such attr", ln);
			mp_pdw_add_counts(w, idx, 100 + (uint64_t)idx,
					  &(struct mp_counts){ v, 1000000, 1000000 });
		} else {
			return die("bad directive", ln);
		}
	}
	if (mp_pdw_close(w, &err)) {
		fprintf(stderr, "ratios_mkdata: %s\n", err.msg);
		return 1;
	}
	return 0;
}
