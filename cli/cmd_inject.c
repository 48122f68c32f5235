/* memprof inject --jit: a recording with its JIT code named, as perf inject --jit. The
 * marker mmap of a jitdump file (jit-PID.dump, mmap'ed by the JIT so that the recording
 * names it) is replaced by an MMAP2 of one small ELF object per function the dump loaded
 * (jitted-PID-N.so beside the dump, perf's names and layout): report, annotate, script and
 * the TUI then name JIT'ed code as any other. */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "mp_analyzer.h"
#include "mp_perfdata.h"

#define CMD "inject"

struct inject {
	mp_pd *pd;
	size_t trailer; /* the sample_id trailer of non-sample records */
	int time_off;   /* where the time is in it, -1: none */
	const uint8_t *marker_tr; /* the marker's trailer: the new records' */
	const char *dir;          /* the dump's folder: the objects go there */
	struct mp_buf *out;
	struct mp_err *err;
	size_t ndumps, nloads, nmoves;
	int mono; /* the recording's clock is CLOCK_MONOTONIC, the JITs' */
};

/* An MMAP2 of the object made for code (pgoff: where the code sits in it) at addr. */
static int put_mmap2(struct inject *in, const struct mp_jitdump_info *h,
		     const struct mp_jit_code *c, const char *file)
{
	size_t flen = (strlen(file) + 1 + 7) & ~(size_t)7;
	size_t size = 72 + flen + in->trailer;
	if (size > UINT16_MAX)
		return mp_err_set(in->err, -ENAMETOOLONG, "%s: name too long for a record", file);
	uint8_t *r = calloc(1, size);
	if (!r)
		return mp_err_set(in->err, -ENOMEM, "out of memory");
	struct perf_event_header hd = { PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, (uint16_t)size };
	memcpy(r, &hd, sizeof(hd));
	uint32_t pt[2] = { c->pid, c->tid };
	uint64_t m[3] = { c->addr, c->size, MP_JIT_TEXT_OFF };
	uint32_t prot[2] = { PROT_READ | PROT_EXEC, MAP_PRIVATE };
	memcpy(r + 8, pt, 8);
	memcpy(r + 16, m, 24);
	memcpy(r + 64, prot, 8); /* maj, min, ino, generation: 0 */
	memcpy(r + 72, file, strlen(file));
	uint8_t *tr = r + 72 + flen;
	memcpy(tr, in->marker_tr, in->trailer);
	/* when the code came, on the JIT's clock (CLOCK_MONOTONIC): on a recording of another
	 * clock (perf's default, without -k 1) moved by the difference of the two clocks that
	 * the dump's header and its mmap tell (a few microseconds late, never early: the
	 * header is written first). A TSC time (flags bit 0) keeps the marker's. */
	if (in->time_off >= 0 && !(h->flags & 1)) {
		uint64_t mt;
		memcpy(&mt, tr + in->time_off, 8);
		uint64_t t = in->mono ? c->time : c->time - h->time + mt;
		if (!in->mono && c->time < h->time)
			t = mt;
		memcpy(tr + in->time_off, &t, 8);
	}
	int rc = mp_buf_append(in->out, r, size);
	free(r);
	return rc ? mp_err_set(in->err, rc, "out of memory") : 0;
}

static int obj_path(struct inject *in, const struct mp_jit_code *c, char *buf, size_t n)
{
	if ((size_t)snprintf(buf, n, "%s/jitted-%u-%llu.so", in->dir, c->pid,
			     (unsigned long long)c->index) >= n)
		return mp_err_set(in->err, -ENAMETOOLONG, "%s: path too long for the objects", in->dir);
	return 0;
}

static int on_load(void *ctx, const struct mp_jitdump_info *h, const struct mp_jit_code *c)
{
	struct inject *in = ctx;
	char path[4096];
	int rc = obj_path(in, c, path, sizeof(path));
	if (!rc)
		rc = mp_jit_elf_write(path, (uint16_t)h->elf_mach, c->name, c->code, c->size, in->err);
	if (!rc)
		rc = put_mmap2(in, h, c, path);
	in->nloads += !rc;
	return rc;
}

static int on_move(void *ctx, const struct mp_jitdump_info *h, const struct mp_jit_code *c)
{
	struct inject *in = ctx;
	char path[4096];
	int rc = obj_path(in, c, path, sizeof(path));
	if (rc || access(path, F_OK))
		return rc; /* moved code never loaded here: nothing names it */
	in->nmoves++;
	return put_mmap2(in, h, c, path);
}

/* An MMAP or MMAP2 of a file named jit-PID.dump: the JIT's marker. */
static const char *marker_file(const struct perf_event_header *rec, size_t trailer)
{
	size_t off = rec->type == PERF_RECORD_MMAP ? 40 : rec->type == PERF_RECORD_MMAP2 ? 72 : 0;
	if (!off || rec->size < off + 1 + trailer)
		return NULL;
	const char *f = (const char *)rec + off;
	if (!memchr(f, 0, rec->size - off - trailer))
		return NULL;
	const char *base = strrchr(f, '/');
	base = base ? base + 1 : f;
	int pid, n = 0;
	if (sscanf(base, "jit-%d.dump%n", &pid, &n) != 1 || n <= 0 || base[n])
		return NULL;
	return f;
}

static int rewrite_rec(void *ctx, const struct perf_event_header *rec, struct mp_buf *buf,
		       struct mp_err *err)
{
	struct inject *in = ctx;
	const char *file = marker_file(rec, in->trailer);
	if (!file)
		return 0;
	size_t len;
	char *dump = mp_read_file(file, &len, err);
	if (!dump)
		return err->code ? err->code : -EIO;
	char *dcopy = strdup(file);
	if (!dcopy) {
		free(dump);
		return mp_err_set(err, -ENOMEM, "out of memory");
	}
	in->dir = dirname(dcopy);
	in->marker_tr = (const uint8_t *)rec + rec->size - in->trailer;
	in->out = buf;
	in->err = err;
	const struct mp_jitdump_ops ops = { on_load, on_move };
	int rc = mp_jitdump_parse(dump, len, file, &ops, in, err);
	in->ndumps++;
	free(dcopy);
	free(dump);
	return rc ? rc : 1; /* the marker itself goes, as perf inject drops it */
}

static int cmd_inject(int argc, char **argv)
{
	const char *input = NULL, *output = NULL;
	int jit = 0, force = 0, quiet = 0;
	const struct cli_opt opts[] = {
		CLI_OPT_INPUT(&input),
		{ 'o', "output", CLI_STR, &output, "FILE", "the recording to write (required)" },
		{ 'j', "jit", CLI_FLAG, &jit, NULL,
		  "name JIT'ed code: the jitdump files the recording mmap'ed become objects" },
		CLI_OPT_FORCE(&force),
		{ 'q', "quiet", CLI_FLAG, &quiet, NULL, "no summary" },
		{ CLI_END, NULL, CLI_END, NULL, NULL, NULL },
	};
	int rc = cli_parse(&cli_cmd_inject, opts, argc, argv, NULL);
	if (rc == 1)
		return 0;
	if (rc)
		return CLI_EXIT_USAGE;
	if (!jit) {
		cli_error(CMD, "nothing to inject: give --jit (the one injection memprof does)");
		return CLI_EXIT_USAGE;
	}
	if (!output) {
		cli_error(CMD, "no output: give -o FILE");
		return CLI_EXIT_USAGE;
	}
	if ((rc = cli_input_ready(CMD, &input, force)))
		return rc;
	struct mp_err err = { 0, "" };
	struct inject in = { 0 };
	if (!(in.pd = mp_pd_open(input, &err))) {
		cli_error(CMD, "%s", err.msg);
		return 1;
	}
	in.trailer = mp_pd_trailer(in.pd, &in.time_off);
	const struct perf_event_attr *a0 = &mp_pd_attr(in.pd, 0)->attr;
	in.mono = mp_pd_nattrs(in.pd) && a0->use_clockid && a0->clockid == CLOCK_MONOTONIC;
	rc = mp_pd_rewrite(in.pd, output, rewrite_rec, &in, &err);
	mp_pd_close(in.pd);
	if (rc) {
		cli_error(CMD, "%s", err.msg[0] ? err.msg : mp_strerror(rc));
		return 1;
	}
	if (!quiet)
		fprintf(stderr, "%s: %zu JIT'ed functions of %zu jitdump files named (%zu moves)\n",
			output, in.nloads, in.ndumps, in.nmoves);
	return 0;
}

const struct cli_cmd cli_cmd_inject = {
	"inject", cmd_inject, "name JIT'ed code from jitdump files, as perf inject --jit",
	"--jit [-i FILE] -o FILE",
	"A copy of the recording in which the mmap of each jitdump file (jit-PID.dump, which a "
	"JIT compiler writes and mmaps as perf's jitdump specification says: Java's perf agent, "
	"node --perf-prof, LuaJIT, Wasmtime, ...) is replaced by the mmaps of one small ELF "
	"object per JIT'ed function, written beside the dump as jitted-PID-N.so (perf's names "
	"and layout: perf report reads them too). report, annotate, script and tui on the output "
	"then name the JIT'ed functions. Record with memprof's clock (CLOCK_MONOTONIC, perf's -k "
	"1) so that the functions come before their samples; on another clock their times are "
	"moved by the difference the dump's header and its mmap tell.", 0,
};
