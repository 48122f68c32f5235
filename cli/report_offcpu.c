/* report_offcpu.c - memprof report --off-cpu: the time each thread spent off the CPU, per
 * call chain, from a recording of sched:sched_switch with call chains (hotspot's off-CPU
 * cost, perf record --off-cpu's question). A thread's interval starts at its switch-out (a
 * sched_switch sample of that thread: its chain is where it blocked) and ends at its next
 * switch-in: a PERF_RECORD_SWITCH "in" record of the thread (record --switch-events, on
 * by itself with -e sched:sched_switch), a sched_switch sample whose next_pid is the thread
 * (system-wide recordings), or else the thread's next sample of any kind (hotspot's rule;
 * the header says when it was the only one). The intervals are weighed by their
 * nanoseconds in a call graph keyed by command: the table of threads, the table of stacks
 * and --folded come from it. report's filters (--comm, --pid, --tid, --dso, --symbols) keep
 * the intervals whose switch-out sample they keep, by the rule of the normal report's samples
 * (mp_filter_keeps: the thread, its name then, the sampled address's object and symbol). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "memprof/callgraph.h"
#include "report.h"

struct oc_thread {
	uint32_t pid, tid;
	int pending;               /* switched out, not in yet */
	int kept;                  /* the pending switch-out passed the filters */
	int preempted;             /* the pending switch-out's task was runnable */
	struct mp_pd_sample s;     /* the switch-out sample (callchain: ips below) */
	uint64_t *ips;
	size_t nips, cap;
	uint64_t blocked, preempt; /* ns */
	uint64_t n;                /* intervals */
};

struct oc {
	const mp_pd *pd;
	mp_cg *cg;
	const struct mp_pd_tp_event *sw; /* sched_switch's format */
	size_t sw_attr;
	struct oc_thread *th;
	size_t nth, cap;
	struct mp_u64map by_tid;
	uint64_t by_switch, by_next, by_sample; /* how the intervals ended */
	uint64_t unended, nochain;
	const struct mp_filter *filter;
	uint64_t all_ns, nall; /* every interval's, the filters' left-outs too */
	int err;
};

static struct oc_thread *thread_of(struct oc *x, uint32_t pid, uint32_t tid)
{
	int found;
	uint32_t *slot = mp_u64map_slot(&x->by_tid, tid, &found);
	if (!slot)
		return NULL;
	if (found)
		return &x->th[*slot];
	if (MP_GROW_ZERO(x->th, x->cap, x->nth + 1)) {
		mp_u64map_unslot(&x->by_tid, slot);
		return NULL;
	}
	*slot = (uint32_t)x->nth;
	x->th[x->nth].pid = pid;
	x->th[x->nth].tid = tid;
	return &x->th[x->nth++];
}

/* The pending interval of tid ended at time t: its nanoseconds added under its stack. */
static int close_at(struct oc *x, mp_sym *sym, uint32_t tid, uint64_t t, uint64_t *how)
{
	const uint32_t *i = mp_u64map_get(&x->by_tid, tid);
	if (!i || !x->th[*i].pending)
		return 0;
	struct oc_thread *th = &x->th[*i];
	th->pending = 0;
	if (t < th->s.time)
		return 0;
	uint64_t ns = t - th->s.time;
	x->all_ns += ns;
	x->nall++;
	if (!th->kept)
		return 0;
	th->s.period = ns;
	if (th->preempted)
		th->preempt += ns;
	else
		th->blocked += ns;
	th->n++;
	(*how)++;
	return mp_cg_add_chain(x->cg, sym, &th->s, th->ips, th->nips);
}

/* Do the filters keep the switch-out sample s, as report keeps a sample? */
static int oc_keeps(const struct oc *x, mp_sym *sym, const struct mp_pd_sample *s)
{
	const struct mp_filter *f = x->filter;
	if (!mp_filter_any(f))
		return 1;
	struct mp_sym_loc L = { .dso_idx = UINT32_MAX };
	if (f->dsos || f->syms)
		mp_sym_resolve(sym, mp_sym_map_find(sym, s->pid, s->cpumode, s->ip), s->cpumode,
			       s->ip, 0, &L);
	return mp_filter_keeps(f, sym, f->comms ? mp_sym_comm_of(sym, s->pid, s->tid) : NULL,
			       s->pid, s->tid, L.dso_idx, L.sym);
}

static int oc_sample(void *ctx, mp_sym *sym, const struct mp_pd_sample *s, const uint64_t *ips,
		     size_t nips)
{
	struct oc *x = ctx;
	uint64_t prev = 0, next = 0, state = 0;
	int is_sw = s->attr_idx == x->sw_attr && s->raw &&
		    !mp_pd_tp_num(x->sw, "prev_pid", s->raw, s->raw_size, &prev) &&
		    !mp_pd_tp_num(x->sw, "next_pid", s->raw, s->raw_size, &next);
	int rc;
	/* the thread runs (its sample), or is switched in (a switch to it) */
	if ((rc = close_at(x, sym, s->tid, s->time, &x->by_sample)))
		return rc;
	if (is_sw && next && (rc = close_at(x, sym, (uint32_t)next, s->time, &x->by_next)))
		return rc;
	if (!is_sw || !prev || (uint32_t)prev != s->tid)
		return 0;
	struct oc_thread *th = thread_of(x, s->pid, s->tid);
	if (!th || MP_GROW(th->ips, th->cap, nips + 1))
		return -ENOMEM;
	mp_pd_tp_num(x->sw, "prev_state", s->raw, s->raw_size, &state);
	th->pending = 1;
	/* runnable: no state bit below TASK_REPORT_MAX (0x80 before 5.14's 0x100) */
	th->preempted = (state & 0x7f) == 0;
	th->s = *s;
	th->s.raw = NULL;
	th->s.callchain = NULL;
	th->s.user_stack = NULL;
	th->s.regs_user = NULL;
	th->s.branch = NULL;
	th->kept = oc_keeps(x, sym, s);
	if (!th->kept)
		return 0;
	memcpy(th->ips, ips, nips * sizeof(*ips));
	th->nips = nips;
	x->nochain += nips < 2;
	return 0;
}

/* The session's symbol context is one object for the whole file: the one the samples came
 * with places the stacks of intervals that a switch record ends. */
struct oc_run {
	struct oc *x;
	mp_sym *sym;
};

static int run_sample(void *ctx, mp_sym *sym, const struct mp_pd_sample *s, const uint64_t *ips,
		      size_t nips)
{
	struct oc_run *r = ctx;
	r->sym = sym;
	return oc_sample(r->x, sym, s, ips, nips);
}

static int run_switch(void *ctx, const struct mp_pd_switch *w)
{
	struct oc_run *r = ctx;
	/* a pending interval exists only after a sample: r->sym is set then */
	if (w->out || !w->tid || !r->sym)
		return 0;
	return close_at(r->x, r->sym, w->tid, w->time, &r->x->by_switch);
}

/* --- output -------------------------------------------------------------------------- */

struct oc_stack {
	char *text;     /* leaf first, " <- " between frames */
	const char *comm;
	uint64_t ns, n;
};

struct oc_stacks {
	struct oc_stack *v;
	size_t n, cap;
	size_t attr;
};

static int take_stack(void *ctx, const struct mp_cg_stack *st)
{
	struct oc_stacks *o = ctx;
	if (o->attr >= st->nattrs || !st->c[o->attr].samples)
		return 0;
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m)
		return -ENOMEM;
	char nb[4096];
	for (size_t i = st->nframes; i-- > 0;) {
		const struct mp_cg_frame *f = &st->frames[i];
		/* an unresolved frame by its address (--folded: [unknown], as perf script) */
		fprintf(m, "%s%s", i + 1 < st->nframes ? " <- " : "", cli_nl(f->sym, nb, sizeof(nb)));
	}
	if (fclose(m) || !text || MP_GROW(o->v, o->cap, o->n + 1)) {
		free(text);
		return -ENOMEM;
	}
	o->v[o->n++] = (struct oc_stack){ text, st->comm, st->c[o->attr].period,
					  st->c[o->attr].samples };
	return 0;
}

static int by_ns(const void *a, const void *b)
{
	const struct oc_stack *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	return strcmp(x->text, y->text);
}

static int th_by_ns(const void *a, const void *b)
{
	const struct oc_thread *x = a, *y = b;
	uint64_t tx = x->blocked + x->preempt, ty = y->blocked + y->preempt;
	if (tx != ty)
		return tx < ty ? 1 : -1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* total: the time the filters keep; base: the percentages' (all of it, or with
 * --percentage relative the time kept, as report's). */
static void print_text(const struct report_opts *o, struct oc *x, mp_sym *sym, uint64_t total,
		       uint64_t base)
{
	char nb[64];
	uint64_t nint = x->by_switch + x->by_next + x->by_sample;
	size_t nth = 0;
	for (size_t i = 0; i < x->nth; i++)
		nth += x->th[i].n > 0;
	printf("# memprof report --off-cpu of %s\n", o->input);
	printf("# off-CPU time: from each thread's switch-out (a sched:sched_switch sample, its call "
	       "chain) to its next switch-in\n");
	printf("# total %.3f ms in %" PRIu64 " intervals of %zu threads; ends: %" PRIu64
	       " switch-in records, %" PRIu64 " switches to the thread, %" PRIu64
	       " next samples of the thread\n",
	       total / 1e6, nint, nth, x->by_switch, x->by_next, x->by_sample);
	if (mp_filter_any(&o->filter))
		printf("# the filters keep %.3f ms (%" PRIu64 " intervals) of %.3f ms (%" PRIu64
		       " intervals); percentages of %s\n",
		       total / 1e6, nint, x->all_ns / 1e6, x->nall,
		       base == x->all_ns ? "all of it" : "the time kept (--percentage relative)");
	if (x->by_sample && !x->by_switch && !x->by_next)
		printf("# WARNING: no switch-in records (record --switch-events, or -a): an interval "
		       "ends at the thread's next sample and includes its time on the CPU until then\n");
	if (x->unended)
		printf("# %" PRIu64 " switch-outs never followed by a switch-in (the thread ended, or "
		       "the recording did) are not counted\n", x->unended);
	if (x->nochain)
		printf("# %" PRIu64 " switch-outs without a call chain (record with -g)\n", x->nochain);
	printf("#\n# Threads\n#\n# %8s %12s %12s %14s %9s  %s\n", "Off-CPU", "Time (ms)",
	       "Blocked (ms)", "Preempted (ms)", "Switches", "Command/TID");
	qsort(x->th, x->nth, sizeof(*x->th), th_by_ns);
	for (size_t i = 0; i < x->nth; i++) {
		const struct oc_thread *t = &x->th[i];
		if (!t->n)
			continue;
		printf("  %7.2f%% %12.3f %12.3f %14.3f %9" PRIu64 "  %s/%u\n",
		       report_pct(t->blocked + t->preempt, base), (t->blocked + t->preempt) / 1e6,
		       t->blocked / 1e6, t->preempt / 1e6, t->n,
		       cli_nl(mp_sym_comm_of(sym, t->pid, t->tid), nb, sizeof(nb)), t->tid);
	}
}

static int print_stacks(const struct report_opts *o, struct oc *x, uint64_t base)
{
	struct oc_stacks st = { .attr = x->sw_attr };
	struct mp_cg_iter_opts io = { 0 };
	int rc = mp_cg_foreach_stack(x->cg, &io, take_stack, &st);
	if (!rc) {
		qsort(st.v, st.n, sizeof(*st.v), by_ns);
		printf("#\n# Stacks (where each thread blocked: leaf first)\n#\n# %8s %12s %9s  "
		       "%-16s %s\n", "Off-CPU", "Time (ms)", "Switches", "Command", "Stack");
		char nb[64];
		for (size_t i = 0; i < st.n; i++) {
			double pct = report_pct(st.v[i].ns, base);
			if (pct < o->threshold)
				continue;
			printf("  %7.2f%% %12.3f %9" PRIu64 "  %-16s %s\n", pct, st.v[i].ns / 1e6,
			       st.v[i].n, cli_nl(st.v[i].comm ? st.v[i].comm : "", nb, sizeof(nb)),
			       st.v[i].text);
		}
	}
	for (size_t i = 0; i < st.n; i++)
		free(st.v[i].text);
	free(st.v);
	return rc;
}

/* The recording's sched:sched_switch attr and its format; 0, or 1 after one line. */
static int find_switch(const struct report_opts *o, const mp_pd *pd, const mp_pd_trace *t,
		       struct oc *x)
{
	for (size_t i = 0; i < mp_pd_nattrs(pd); i++) {
		const struct mp_pd_attr *a = mp_pd_attr(pd, i);
		const struct mp_pd_tp_event *e =
			a->attr.type == PERF_TYPE_TRACEPOINT ? mp_pd_trace_event(t, a->attr.config) : NULL;
		if (e && !strcmp(e->system, "sched") && !strcmp(e->name, "sched_switch")) {
			x->sw = e;
			x->sw_attr = i;
			if (mp_pd_tp_num(e, "prev_pid", NULL, 0, &(uint64_t){ 0 }) == -ENOENT ||
			    mp_pd_tp_num(e, "next_pid", NULL, 0, &(uint64_t){ 0 }) == -ENOENT) {
				cli_error(REPORT_CMD, "%s: --off-cpu: sched:sched_switch's format has no "
					  "numeric prev_pid and next_pid", o->input);
				return 1;
			}
			return 0;
		}
	}
	cli_error(REPORT_CMD, "%s: --off-cpu: the recording has no sched:sched_switch samples "
		  "(record them with call chains: memprof record -e sched:sched_switch -g CMD)",
		  o->input);
	return 1;
}

int report_offcpu(const struct report_opts *o)
{
	struct mp_err err = { 0 };
	struct oc x = { .filter = &o->filter };
	struct oc_run r = { .x = &x };
	mp_pd_trace *t = NULL;
	mp_session *ss = NULL;
	char *bdir = NULL;
	int rc = 1;
	mp_pd *pd = mp_pd_open(o->input, &err);
	if (!pd) {
		cli_error(REPORT_CMD, "%s", err.msg);
		return 1;
	}
	int tracepoints = 0;
	for (size_t i = 0; i < mp_pd_nattrs(pd); i++)
		tracepoints |= mp_pd_attr(pd, i)->attr.type == PERF_TYPE_TRACEPOINT;
	if (tracepoints && !(t = mp_pd_trace_open(pd, &err))) {
		cli_error(REPORT_CMD, "%s", err.msg);
		mp_pd_close(pd);
		return 1;
	}
	if (find_switch(o, pd, t, &x)) {
		mp_pd_close(pd);
		goto out;
	}
	struct mp_cg_opts co = { .want_comm = 1, .max_stack = o->max_stack > 0 ? (unsigned)o->max_stack : 0 };
	if (!(x.cg = mp_cg_new(&co))) {
		mp_pd_close(pd);
		cli_error(REPORT_CMD, "out of memory");
		goto out;
	}
	bdir = cli_buildid_dir(o->symfs);
	struct mp_session_opts so = { .symfs = o->symfs, .kallsyms = o->kallsyms,
				      .buildid_dir = bdir, .no_srcline = 1, .no_hist = 1,
				      .chains = 1, .sample = run_sample, .task_switch = run_switch,
				      .sample_ctx = &r, .pd = pd };
	x.pd = pd;
	if (!(ss = mp_session_new(o->input, &so, &err))) {
		cli_error(REPORT_CMD, "%s", err.msg[0] ? err.msg : "out of memory");
		goto out;
	}
	mp_sym *sym = mp_session_sym(ss);
	uint64_t total = 0;
	for (size_t i = 0; i < x.nth; i++) {
		total += x.th[i].blocked + x.th[i].preempt;
		x.unended += x.th[i].pending && x.th[i].kept;
	}
	int relative = o->percentage && !strcmp(o->percentage, "relative");
	uint64_t base = relative ? total : x.all_ns;
	if (mp_cg_resolve(x.cg, sym, 0)) {
		cli_error(REPORT_CMD, "out of memory");
		goto out;
	}
	if (o->folded)
		rc = report_cg_folded(stdout, x.cg, x.sw_attr, 1, 0) ? 1 : 0;
	else {
		print_text(o, &x, sym, total, base);
		rc = print_stacks(o, &x, base) ? 1 : 0;
	}
	if (rc)
		cli_error(REPORT_CMD, "out of memory");
	if (fflush(stdout) || ferror(stdout)) {
		cli_error(REPORT_CMD, "writing the report: %s", strerror(errno));
		rc = 1;
	}
out:
	for (size_t i = 0; i < x.nth; i++)
		free(x.th[i].ips);
	free(x.th);
	mp_u64map_fini(&x.by_tid);
	mp_cg_free(x.cg);
	mp_session_free(ss);
	mp_pd_trace_free(t);
	free(bdir);
	return rc;
}
