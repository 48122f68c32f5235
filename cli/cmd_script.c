/* cmd_script.c - memprof script: each sample of a recording with its call chain, as perf
 * script prints them (frame-pointer chains as recorded, --call-graph dwarf stacks
 * unwound, LBR call stacks stitched: the session's chains), with inlined frames where
 * perf 6.1 shows them (DWARF-unwound chains; every chain with --inline). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mp_analyzer.h"
#include "script.h"

#define CMD "script"
#define SCRIPT_MAX_INLINE 64
#define SCRIPT_MAX_STACK 127 /* perf script's default --max-stack */

static const char script_usage[] =
	"[-i FILE] [--symfs DIR] [-k FILE] [--inline | --no-inline] [-G] [--max-stack N]\n"
	"[--csv | -F FIELDS]";
static const char script_summary[] =
	"Print every sample of FILE with its call chain, leaf first, as perf script does: one\n"
	"line per sample (command, pid/tid, time, period, event), then one line per frame\n"
	"(address, symbol+offset, object). Chains come from frame pointers as recorded, from\n"
	"the user stack of --call-graph dwarf recordings (unwound with libdw) and from the LBR\n"
	"call stack of --call-graph lbr recordings; functions inlined at a frame show before it,\n"
	"marked (inlined), in DWARF-unwound chains as perf 6.1 (--inline: in every chain). --csv: one row per sample (comm, pid, tid, cpu, time in ns, event,\n"
	"period, address, object, symbol, offset, and the call chain leaf first as symbols\n"
	"joined with ';'), for scripts. -F: the fields perf script -F names, printed as perf\n"
	"prints them (comm,tid,pid,time,cpu,event,ip,sym,symoff,dso,addr,data_src,weight,\n"
	"ins_lat,phys_addr,data_page_size,period,trace), one line per sample. A tracepoint's\n"
	"sample shows its fields after the event, decoded from the recording's tracing data as\n"
	"perf script prints them (sched_switch: prev_comm=... prev_state=S ==> next_comm=...).";

struct script_ctx {
	const mp_pd *pd;
	mp_sym *sym;
	const uint64_t *ips; /* the sample's chain (borrowed from the session) */
	size_t nips;
	FILE *out;
	int inline_, no_inline, no_chain, csv;
	unsigned max_stack; /* frames of a chain shown, the leaf-most (0: all) */
	int inl;             /* the sample being printed shows inlined functions */
	int write_failed;
	struct mp_buf chain; /* --csv: the row's chain */
	mp_pd_trace *trace;  /* the tracepoints' formats (NULL: none recorded) */
	struct mp_buf tbuf;
};

/* The frame at ip resolved into *loc; inl[] gets the functions inlined there (none for
 * kernel frames or where the sample shows none: x->inl), their number returned. */
static size_t frame_resolve(struct script_ctx *x, uint32_t pid, uint16_t cpumode, uint64_t ip,
			    struct mp_sym_loc *loc, const char **inl)
{
	uint32_t map = mp_sym_map_find(x->sym, pid, cpumode, ip);
	mp_sym_resolve(x->sym, map, cpumode, ip, 0, loc);
	if (!x->inl || loc->kernel)
		return 0;
	return mp_sym_inlines(x->sym, map, ip, inl, SCRIPT_MAX_INLINE);
}

static void print_frame(struct script_ctx *x, uint32_t pid, uint16_t cpumode, uint64_t ip)
{
	struct mp_sym_loc loc;
	const char *inl[SCRIPT_MAX_INLINE];
	size_t n = frame_resolve(x, pid, cpumode, ip, &loc, inl);
	char b1[4096], b2[4096];
	for (size_t i = 0; i < n; i++)
		fprintf(x->out, "\t%16" PRIx64 " %s (inlined)\n", loc.addr,
			cli_nl(inl[i], b1, sizeof(b1)));
	if (loc.sym_resolved)
		fprintf(x->out, "\t%16" PRIx64 " %s+0x%" PRIx64 " (%s)\n", loc.addr,
			cli_nl(loc.sym, b1, sizeof(b1)), loc.elf_addr - loc.sym_start,
			cli_nl(loc.dso, b2, sizeof(b2)));
	else
		fprintf(x->out, "\t%16" PRIx64 " [unknown] (%s)\n", loc.addr,
			cli_nl(loc.dso, b2, sizeof(b2)));
}

/* --csv: one row per sample; the chain's frames (inlined ones first) as symbols. */
static void chain_add(struct script_ctx *x, uint32_t pid, uint16_t cpumode, uint64_t ip)
{
	struct mp_sym_loc loc;
	const char *inl[SCRIPT_MAX_INLINE];
	size_t n = frame_resolve(x, pid, cpumode, ip, &loc, inl);
	for (size_t i = 0; i < n; i++)
		mp_buf_printf(&x->chain, "%s%s", x->chain.len ? ";" : "", inl[i]);
	mp_buf_printf(&x->chain, "%s%s", x->chain.len ? ";" : "",
		      loc.sym_resolved ? loc.sym : "[unknown]");
}

/* Each frame of s's call chain, leaf first, given to frame() with the mode (kernel or user)
 * the chain's context markers set; frames after an unknown context are left out, and those
 * past x->max_stack addresses (markers not counted), as perf script cuts chains. */
static void chain_each(struct script_ctx *x, const struct mp_pd_sample *s,
		       void (*frame)(struct script_ctx *, uint32_t, uint16_t, uint64_t))
{
	const uint64_t *ips = x->ips;
	size_t n = x->nips;
	uint16_t mode = s->cpumode;
	size_t left = x->max_stack ? x->max_stack : SIZE_MAX;
	for (size_t i = 0; i < n && left; i++) {
		if (ips[i] >= (uint64_t)PERF_CONTEXT_MAX) {
			mode = ips[i] == (uint64_t)PERF_CONTEXT_KERNEL ? PERF_RECORD_MISC_KERNEL
			       : ips[i] == (uint64_t)PERF_CONTEXT_USER ? PERF_RECORD_MISC_USER
								       : 0;
			continue;
		}
		left--;
		if (mode)
			frame(x, s->pid, mode, ips[i]);
	}
}

static int sample_csv(struct script_ctx *x, const struct mp_pd_sample *s)
{
	const struct mp_pd_attr *a = mp_pd_attr(x->pd, s->attr_idx);
	uint32_t map = mp_sym_map_find(x->sym, s->pid, s->cpumode, s->ip);
	struct mp_sym_loc loc;
	mp_sym_resolve(x->sym, map, s->cpumode, s->ip, 0, &loc);
	cli_csv_str(x->out, mp_sym_comm_of(x->sym, s->pid, s->tid));
	fprintf(x->out, ",%d,%d,%u,%" PRIu64 ",", (int32_t)s->pid, (int32_t)s->tid, s->cpu, s->time);
	cli_csv_str(x->out, a && a->name ? a->name : "?");
	fprintf(x->out, ",%" PRIu64 ",0x%" PRIx64 ",", s->period, loc.addr);
	cli_csv_str(x->out, loc.dso);
	fputc(',', x->out);
	cli_csv_str(x->out, loc.sym_resolved ? loc.sym : "[unknown]");
	if (loc.sym_resolved)
		fprintf(x->out, ",0x%" PRIx64 ",", loc.elf_addr - loc.sym_start);
	else
		fputs(",,", x->out);
	x->chain.len = 0;
	if (!x->no_chain)
		chain_each(x, s, chain_add);
	if (x->chain.len)
		mp_buf_append(&x->chain, "", 1);
	cli_csv_str(x->out, x->chain.len ? x->chain.data : "");
	fputc('\n', x->out);
	return ferror(x->out) ? -EIO : 0;
}

static int sample_text(struct script_ctx *x, const struct mp_pd_sample *s)
{
	const struct mp_pd_attr *a = mp_pd_attr(x->pd, s->attr_idx);
	char b1[64], b2[512];
	const char *tp = script_trace_text(x->trace, x->pd, s, &x->tbuf);
	/* pid and tid signed, as perf: a task that had exited when sampled is -1 */
	fprintf(x->out, "%s %d/%d %" PRIu64 ".%06" PRIu64 ": %" PRIu64 " %s:%s%s\n",
		cli_nl(mp_sym_comm_of(x->sym, s->pid, s->tid), b1, sizeof(b1)), (int32_t)s->pid,
		(int32_t)s->tid, s->time / 1000000000,
		(s->time % 1000000000) / 1000, s->period, cli_nl(a && a->name ? a->name : "?", b2, sizeof(b2)),
		tp ? " " : "", tp ? tp : "");
	if (x->no_chain)
		print_frame(x, s->pid, s->cpumode, s->ip);
	else
		chain_each(x, s, print_frame);
	fputc('\n', x->out);
	return ferror(x->out) ? -EIO : 0;
}

static int on_sample(void *c, mp_sym *sym, const struct mp_pd_sample *s, const uint64_t *ips,
		     size_t nips)
{
	struct script_ctx *x = c;
	const struct mp_pd_attr *a = mp_pd_attr(x->pd, s->attr_idx);
	/* inlined functions as perf 6.1's script shows them: in chains unwound from a
	 * --call-graph dwarf stack (its fp chains have none; --inline: every chain). Looking
	 * them up in every frame of an inline-rich object made the default slower than perf */
	x->inl = !x->no_inline &&
		 (x->inline_ || (!x->no_chain && a && (a->attr.sample_type & PERF_SAMPLE_STACK_USER)));
	x->sym = sym;
	x->ips = ips;
	x->nips = nips;
	int rc = x->csv ? sample_csv(x, s) : sample_text(x, s);
	x->write_failed = rc == -EIO;
	return rc;
}

static int script_run(const char *input, const char *symfs, const char *kallsyms,
		      const char *adir, struct script_fields *fields, struct script_ctx *x);

static int cmd_script(int argc, char **argv)
{
	const char *input = NULL, *symfs = NULL, *kallsyms = NULL, *fields = NULL, *archive = NULL;
	struct script_fields sf = { 0 };
	int inline_ = 0, no_inline = 0, no_chain = 0, csv = 0, force = 0;
	int max_stack = SCRIPT_MAX_STACK;
	const struct cli_opt opts[] = {
		CLI_OPT_INPUT(&input),
		CLI_OPT_FORCE(&force),
		CLI_OPT_SYMFS(&symfs),
		CLI_OPT_KALLSYMS(&kallsyms),
		{ 0, "inline", CLI_FLAG, &inline_, NULL,
		  "the functions inlined at each frame in every chain (default: in DWARF-unwound "
		  "chains, as perf 6.1)" },
		CLI_OPT_ARCHIVE(&archive),
		{ 0, "no-inline", CLI_FLAG, &no_inline, NULL,
		  "do not show the functions inlined at each frame" },
		{ 0, "max-stack", CLI_INT, &max_stack, "N",
		  "print at most N addresses of each call chain, the leaf-most, 0 for all "
		  "(default 127, perf script's: its default kernel.perf_event_max_stack)" },
		{ 'G', "hide-call-graph", CLI_FLAG, &no_chain, NULL,
		  "only the sample's own address, no call chain (as perf script -G)" },
		{ 0, "csv", CLI_FLAG, &csv, NULL,
		  "one comma-separated row per sample: comm,pid,tid,cpu,time,event,period,addr,dso,"
		  "symbol,offset,chain (the chain's symbols leaf first, joined with ';')" },
		{ 'F', "fields", CLI_STR, &fields, "FIELDS",
		  "print these of perf script's fields, as it prints them: comm,tid,pid,time,cpu,"
		  "event,ip,sym,symoff,dso,addr,data_src,weight,ins_lat,phys_addr,data_page_size,"
		  "period,trace (ip: the sample's own address, no call chain; trace: a tracepoint's fields)" },
		{ CLI_END, NULL, CLI_END, NULL, NULL, NULL },
	};
	int nargs = 0;
	int rc = cli_parse(&cli_cmd_script, opts, argc, argv, &nargs);
	if (rc == 1)
		return 0;
	if (rc)
		return CLI_EXIT_USAGE;
	if (cli_input_arg(CMD, &input, nargs, argv))
		return CLI_EXIT_USAGE;
	if (inline_ && no_inline) {
		cli_error(CMD, "--inline and --no-inline exclude each other");
		return CLI_EXIT_USAGE;
	}
	if (max_stack < 0) {
		cli_error(CMD, "--max-stack %d: must be 0 (all) or more", max_stack);
		return CLI_EXIT_USAGE;
	}
	if (fields && (csv || script_fields_parse(fields, &sf))) {
		if (csv)
			cli_error(CMD, "-F and --csv exclude each other");
		return CLI_EXIT_USAGE;
	}
	if (!input && !(input = cli_default_input_of(CMD)))
		return CLI_EXIT_RUNTIME;
	if (cli_input_owner_ok(CMD, input, force))
		return CLI_EXIT_RUNTIME;
	/* an unreadable --kallsyms is a warning here (the kernel's frames unresolved) */
	if (cli_sym_paths_ok(CMD, symfs, NULL))
		return CLI_EXIT_RUNTIME;
	/* --archive: its objects and kernel symbols, as report's */
	char *adir = NULL, *akall = NULL;
	if (archive && cli_archive_use(CMD, archive, input, &adir, &akall))
		return 1;
	if (!kallsyms)
		kallsyms = akall;
	struct script_ctx x = { .out = stdout, .inline_ = inline_, .no_inline = no_inline,
				.no_chain = no_chain, .csv = csv, .max_stack = (unsigned)max_stack };
	rc = script_run(input, symfs, kallsyms, adir, fields ? &sf : NULL, &x);
	cli_archive_done(&adir, &akall);
	return rc;
}

/* The samples of input printed (fields: -F's). The exit status. */
static int script_run(const char *input, const char *symfs, const char *kallsyms,
		      const char *adir, struct script_fields *fields, struct script_ctx *x)
{
	int rc;
	struct mp_err err = { 0 };
	mp_pd *pd = mp_pd_open(input, &err);
	if (!pd) {
		cli_error(CMD, "%s", err.msg);
		return 1;
	}
	x->pd = pd;
	if (fields)
		return script_fields_run(pd, input, symfs, kallsyms, adir, fields);
	if (x->csv)
		printf("comm,pid,tid,cpu,time,event,period,addr,dso,symbol,offset,chain\n");
	else
		x->trace = script_trace_open(pd);
	char *bdir = adir ? strdup(adir) : cli_buildid_dir(symfs);
	struct mp_session_opts so = { .symfs = symfs, .kallsyms = kallsyms, .buildid_dir = bdir,
				      .no_hist = 1, .chains = !x->no_chain, .sample = on_sample,
				      .sample_ctx = x, .pd = pd };
	mp_session *ss = mp_session_new(input, &so, &err); /* the file read: printed */
	if (!ss) {
		fflush(stdout);
		cli_error(CMD, "%s", x->write_failed ? "cannot write the output" : err.msg);
	}
	rc = ss && !fflush(stdout) ? 0 : 1;
	mp_buf_fini(&x->chain);
	mp_buf_fini(&x->tbuf);
	mp_pd_trace_free(x->trace);
	mp_session_free(ss);
	free(bdir);
	return rc;
}

const struct cli_cmd cli_cmd_script = {
	CMD, cmd_script, "print each sample with its call chain (as perf script)", script_usage,
	script_summary, 0,
};
