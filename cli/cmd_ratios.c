/* cmd_ratios.c - memprof ratios: the article's ratio table (and everyday ratios) for a
 * recording, per program, object, symbol or source line, with 95% intervals. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "mp_events.h"
#include "mp_perfdata.h"
#include "mp_ratios.h"

static const char ratios_usage[] =
	"[-i FILE] [--level program|dso|symbol|line|region|thread] [--sort RATIO] [RATIO...]\n"
	"       memprof ratios --record-cmd [--pmu MODEL] [RATIO...] [-- COMMAND...]\n"
	"       memprof ratios --list | --check";
static const char ratios_summary[] =
	"Compute memory ratios (L1D Miss Rate, IPC, ...) from a recording. Each event's count is\n"
	"the sum of its sample periods, so events recorded with different overruns compare;\n"
	"each value carries a 95% interval from its sample counts. Below program level each\n"
	"ratio's places come by its numerator's count (the misses), highest first. A simulated\n"
	"recording (memprof record --sim) is marked SIMULATED and its values are exact.";

struct ropts {
	const char *input, *level, *sort, *ratios, *baseline, *pmu, *symfs, *kallsyms;
	int csv, json, record_cmd, list, check, counters, top, force, list_baselines;
	uint64_t min_samples;
};

/* The baseline beside the values: a second recording, or a set of shipped values
 * (baselines.tsv: program level only). */
struct base_src {
	mp_ratio_run *run;                    /* --baseline FILE */
	const struct mp_ratio_baseline *set;  /* --baseline shipped[:NAME] */
	int exact;                            /* the set's workload is the recording's */
	int other_geometry;                   /* both simulated, with other caches */
	char geometry[256];                   /* the recording's caches, when other_geometry */
};

/* ---- output helpers -------------------------------------------------------------------- */

/* A number, null when it is not finite. */
static void json_num(struct cli_json *j, const char *key, double v)
{
	if (isfinite(v))
		cli_json_value(j, key, "%.17g", v);
	else
		cli_json_value(j, key, "null");
}

/* ---- evaluation ------------------------------------------------------------------------ */

static void counts_str(const struct mp_ratio_row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%.0f/%.0f", r->num, r->den);
}

static const char *const level_names[] = { "program", "dso", "symbol", "line", "region", "thread" };

static const char *level_name(enum mp_ratio_level l)
{
	return level_names[l];
}

static int parse_level(const char *s, enum mp_ratio_level *l)
{
	const char *const *n = level_names;
	for (int i = 0; i < (int)(sizeof(level_names) / sizeof(level_names[0])); i++)
		if (!strcmp(s, n[i]) || (i == 2 && !strcmp(s, "sym")) ||
		    (i == 3 && !strcmp(s, "srcline"))) {
			*l = (enum mp_ratio_level)i;
			return 0;
		}
	return -1;
}

/* The record command for one missing ratio (using its preferred variant). */
static void record_line(const struct mp_ratio_binding *b, const char *workload,
			struct mp_buf *out)
{
	const struct mp_ratio_variant *v = b->var;
	const char *name = b->def->name;
	struct mp_err err = { 0, "" };
	struct mp_buf tmp = { 0 };
	if (!v)
		return;
	mp_ratio_record_cmd(&v, &name, 1, v->model, 0, 0, workload, &tmp, &err);
	/* keep only the command lines, not the "# run" comments */
	for (char *p = tmp.data; p && *p;) {
		char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (*p != '#') {
			mp_buf_append(out, p, n);
			mp_buf_append(out, "\n", 1);
		}
		p = e ? e + 1 : p + n;
	}
	mp_buf_fini(&tmp);
}

static const struct mp_ratio_def *find_ratio(const mp_ratio_set *set, const char *name)
{
	const struct mp_ratio_def *d = mp_ratio_set_find(set, name);
	if (d)
		return d;
	char hint[128] = "";
	size_t best = 3;
	for (size_t i = 0; i < mp_ratio_set_count(set); i++) {
		const struct mp_ratio_def *c = mp_ratio_set_get(set, i);
		size_t dist = mp_edit_distance(c->id, name, MP_EDIT_FOLD_SEP);
		if (strcasestr(c->id, name) || strcasestr(c->name, name))
			dist = dist < 2 ? dist : 2;
		if (dist < best) {
			best = dist;
			snprintf(hint, sizeof(hint), " (did you mean %s?)", c->id);
		}
	}
	cli_error("ratios", "unknown ratio '%s'%s; memprof ratios --list shows the %zu known ratios",
		  name, hint, mp_ratio_set_count(set));
	return NULL;
}

/* ---- --list, --check, --record-cmd ------------------------------------------------------ */

/* 1 when this machine shows no CPU PMU (a VM, a CI runner): hardware events cannot be
 * recorded here, only simulated ones. */
static int host_without_pmu(void)
{
	struct mp_evopts eo;
	struct mp_host_caps caps;
	memset(&eo, 0, sizeof(eo));
	mp_events_host_caps(&eo, &caps);
	return caps.has_cpu_pmu == 0;
}

static const char no_pmu_hint[] =
	"this machine has no hardware PMU, so these commands fail here; the simulated ratios can be\n"
	"recorded with memprof record --sim (memprof ratios --record-cmd --pmu cachegrind prints them)";

static int do_list(const mp_ratio_set *set)
{
	printf("%-26s %-28s %s\n", "id", "name", "models (status)");
	for (size_t i = 0; i < mp_ratio_set_count(set); i++) {
		const struct mp_ratio_def *d = mp_ratio_set_get(set, i);
		printf("%-26s %-28s", d->id, d->name);
		for (size_t k = 0; k < d->nv; k++)
			printf(" %s%s", d->v[k].model, d->v[k].status == MP_RATIO_APPROX ? "~" : "");
		printf("\n");
	}
	printf("\n~ = approximate equivalent (see the note: memprof ratios --list NAME)\n");
	return 0;
}

static void describe(const struct mp_ratio_def *d)
{
	printf("%s (%s)  from %s:%u%s\n", d->name, d->id, d->src, d->line,
	       d->article ? "  [the article's table]" : "");
	if (d->what[0])
		printf("  what: %s\n", d->what);
	if (d->high[0])
		printf("  high: %s\n", d->high);
	if (d->low[0])
		printf("  low:  %s\n", d->low);
	if (d->has_threshold)
		printf("  flagged when %s %g\n", d->threshold_below ? "<" : ">", d->threshold);
	for (size_t k = 0; k < d->nv; k++) {
		printf("  %-18s %-6s %s\n", d->v[k].model,
		       d->v[k].status == MP_RATIO_EXACT ? "exact" : "approx", mp_formula_src(d->v[k].f));
		if (d->v[k].note[0])
			printf("  %-18s        note: %s\n", "", d->v[k].note);
	}
}

struct check_ctx {
	const char *model;
	char first_err[MP_ERR_MSG_MAX];
};

static int check_known(void *ctx, const char *name)
{
	struct check_ctx *c = ctx;
	struct perf_event_attr a;
	struct mp_err err = { 0, "" };
	if (mp_ratio_resolve_events(NULL, name, c->model, &a, &err) == 0)
		return 1;
	snprintf(c->first_err, sizeof(c->first_err), "%s", err.msg);
	return 0;
}

static int do_check(const mp_ratio_set *set)
{
	int bad = 0, checked = 0;
	for (size_t i = 0; i < mp_ratio_set_count(set); i++) {
		const struct mp_ratio_def *d = mp_ratio_set_get(set, i);
		for (size_t k = 0; k < d->nv; k++) {
			struct check_ctx c = { d->v[k].model, "" };
			struct mp_err err = { 0, "" };
			checked++;
			if (mp_formula_check(d->v[k].f, check_known, &c, &err)) {
				cli_error("ratios", "%s (%s)", err.msg, c.first_err);
				bad++;
			}
		}
	}
	if (!bad)
		printf("%d formulas of %zu ratios: every event resolves for its model\n", checked,
		       mp_ratio_set_count(set));
	return bad ? 1 : 0;
}

static int do_record_cmd(const mp_ratio_set *set, const struct ropts *o, char **names,
			 int nnames, const char *workload)
{
	char host[64];
	struct mp_evopts eo;
	const char *model = o->pmu, *keys[8];
	size_t nk, n = 0;
	const struct mp_ratio_variant **vars;
	const char **rn;
	struct mp_buf out = { 0 };
	struct mp_err err = { 0, "" };
	int rc = 0;

	memset(&eo, 0, sizeof(eo));
	eo.pmu_model = o->pmu;
	if (!model)
		model = mp_events_host_model(&eo, host, sizeof(host));
	nk = mp_ratio_models_for(model, keys, 8);
	/* simulated: only cachegrind formulas can be recorded with --sim (no perf fallback) */
	int sim = !strcmp(model, "cachegrind");
	struct mp_buf nosim = { 0 };
	if (sim)
		nk = 1;
	size_t total = nnames ? (size_t)nnames : mp_ratio_set_count(set);
	vars = calloc(total ? total : 1, sizeof(*vars));
	rn = calloc(total ? total : 1, sizeof(*rn));
	if (!vars || !rn) {
		free(vars);
		free(rn);
		cli_error("ratios", "out of memory");
		return 1;
	}
	for (size_t i = 0; i < total; i++) {
		const struct mp_ratio_def *d = nnames ? find_ratio(set, names[i]) :
						       mp_ratio_set_get(set, i);
		const struct mp_ratio_variant *v = NULL;
		if (!d) {
			rc = CLI_EXIT_USAGE;
			goto out;
		}
		for (size_t k = 0; k < nk && !v; k++)
			for (size_t j = 0; j < d->nv && !v; j++)
				if (!strcmp(d->v[j].model, keys[k]))
					v = &d->v[j];
		if (!v && sim) {
			mp_buf_printf(&nosim, "%s%s", nosim.len ? ", " : "", d->name);
			continue;
		}
		if (!v) {
			printf("# %s: no formula for %s (nor for perf's generic events)\n", d->name, model);
			continue;
		}
		vars[n] = v;
		rn[n++] = d->name;
	}
	if (n && mp_ratio_record_cmd(vars, rn, n, model, (unsigned)o->counters, 0, workload,
				     &out, &err)) {
		cli_error("ratios", "%s", err.msg);
		rc = 1;
		goto out;
	}
	if (nosim.len)
		printf("# cannot be simulated at all (no cachegrind formula; they need a hardware PMU): %s\n",
		       nosim.data);
	if (!sim && !o->pmu && out.len && host_without_pmu()) {
		for (const char *p = no_pmu_hint; *p;) {
			const char *e = strchr(p, '\n');
			size_t len = e ? (size_t)(e - p) : strlen(p);
			printf("# %.*s\n", (int)len, p);
			p += len + (e ? 1 : 0);
		}
	}
	if (out.data)
		fputs(out.data, stdout);
out:
	mp_buf_fini(&nosim);
	mp_buf_fini(&out);
	free(vars);
	free(rn);
	return rc;
}

/* ---- the table ------------------------------------------------------------------------- */

static void fmt_val(const struct mp_ratio_def *d, const struct mp_ratio_value *v, char *buf,
		    size_t len)
{
	char t[48];
	if (!v->defined) {
		snprintf(buf, len, "-");
		return;
	}
	mp_ratio_format_value(d, v->value, t, sizeof(t));
	snprintf(buf, len, "%s%s", v->few ? "~" : "", t);
}

static void fmt_ival(const struct mp_ratio_def *d, const struct mp_ratio_value *v, char *buf,
		     size_t len)
{
	char a[48], b[48];
	if (!v->defined) {
		snprintf(buf, len, "%s", "");
		return;
	}
	if (v->exact) {
		snprintf(buf, len, "[exact count]"); /* counted, or simulated */
		return;
	}
	mp_ratio_format_value(d, v->lo, a, sizeof(a));
	mp_ratio_format_value(d, v->hi, b, sizeof(b));
	snprintf(buf, len, "[%s, %s]", a, b);
}

static void fmt_change(const struct mp_ratio_row *r, char *buf, size_t len)
{
	if (!r->have_base || !r->base.defined || !r->v.defined)
		snprintf(buf, len, "-");
	else if (r->base.value == 0)
		snprintf(buf, len, r->v.value == 0 ? "+0.0%%" : "new");
	else
		snprintf(buf, len, "%+.1f%%", (r->v.value - r->base.value) / fabs(r->base.value) * 100);
}

static void flags_str(const struct mp_ratio_result *rr, const struct mp_ratio_row *r, char *buf, size_t len)
{
	const struct mp_ratio_def *d = rr->def;
	char skew[160] = "";
	if (r->v.skew > 0)
		snprintf(skew, sizeof(skew), "  skewed x%.2f (throttled or lost samples)", r->v.skew);
	else if (r->v.unchecked)
		snprintf(skew, sizeof(skew), "  unchecked: overrun at its minimum, no exact count (throttling?)");
	snprintf(buf, len, "%s%s%s%s", !r->v.few ? "" : r->v.exact ? "  few counts" : "  few samples", skew,
		 r->v.flagged ? (d->threshold_below ? "   <==== WARNING (below threshold)" :
					"   <==== WARNING (above threshold)") : "",
		 r->v.cold ? "   (above threshold: cold misses only, each once)" : "");
}

/* The one line that says a file's counts were simulated ("" for measured files). */
static void sim_desc(const mp_ratio_run *run, char *buf, size_t len)
{
	const char *sim = mp_ratio_run_simulated(run);
	const char *i1 = mp_ratio_run_meta(run, MP_META_SIM_I1), *d1 = mp_ratio_run_meta(run, MP_META_SIM_D1);
	const char *ll = mp_ratio_run_meta(run, MP_META_SIM_LL);
	buf[0] = 0;
	if (!sim)
		return;
	snprintf(buf, len, "counts from valgrind's %s cache simulation (I1 %s D1 %s LL %s), not measured by a PMU",
		 sim, i1 ? i1 : "?", d1 ? d1 : "?", ll ? ll : "?");
}

static void print_text(mp_ratio_run *run, const struct base_src *base, enum mp_ratio_level lvl,
		       struct mp_ratio_result *rr, size_t nrr, size_t npl, const struct ropts *o,
		       struct mp_buf *missing)
{
	int any_exact = 0, sim = mp_ratio_run_simulated(run) != NULL;
	char sd[512];
	for (size_t i = 0; i < nrr; i++)
		any_exact |= rr[i].exact_counts;

	sim_desc(run, sd, sizeof(sd));
	printf("# file: %s  model: %s%s%s%s  level: %s\n", mp_ratio_run_path(run),
	       mp_ratio_run_model(run), mp_ratio_run_cpu(run)[0] ? (sim ? " (simulated; recorded on " : " (") : "",
	       mp_ratio_run_cpu(run), mp_ratio_run_cpu(run)[0] ? ")" : "", level_name(lvl));
	if (base && base->run)
		printf("# baseline: %s  model: %s%s\n", mp_ratio_run_path(base->run),
		       mp_ratio_run_model(base->run),
		       mp_ratio_run_simulated(base->run) ? "  (SIMULATED)" : "");
	else if (base) {
		printf("# baseline: shipped %s  model: %s  workload: %s  (%s)%s\n", base->set->name,
		       base->set->model, base->set->workload, base->set->source,
		       base->exact ? "" : "; another workload: the nearest set of this model");
		if (base->other_geometry)
			printf("# note: this recording simulated other caches (%s) than the baseline's: values differ by the caches too (record --sim --I1/--D1/--LL set them)\n",
			       base->geometry);
	}
	if (sim) {
		printf("# SIMULATED: %s\n", sd);
		printf("# counts: exact simulated counts at every level (no sampling: no intervals); '~' = an event (or a sum of events) counted fewer than %llu times, not 0; a threshold is not a WARNING when its misses are cold ones (each once, on another instruction), nor a '> 0' threshold below 1e-04; counts = numerator/denominator\n",
		       (unsigned long long)o->min_samples);
	} else {
		printf("# counts: %s; 95%% intervals from the sample counts (Poisson); '~' = fewer than %llu samples\n",
		       any_exact ? "exact counts from the file (program level)" :
				   "sums of sample periods (events with different overruns compare)",
		       (unsigned long long)o->min_samples);
	}
	if (mp_ratio_run_lost(run))
		printf("# lost samples: %llu (counts are low where samples were lost)\n",
		       (unsigned long long)mp_ratio_run_lost(run));
	if (lvl != MP_RATIO_PROGRAM && !o->sort)
		printf("# order: by the count of each ratio's numerator, highest first (--sort RATIO: by a ratio's value)\n");

	if (lvl == MP_RATIO_PROGRAM) {
		if (nrr && sim)
			printf("\n%-27s %12s  %23s  %s%s\n", "ratio", "value", "counts",
			       base ? "baseline     change  " : "", "formula (model, status)");
		else if (nrr)
			printf("\n%-27s %12s  %-27s %11s  %s%s\n", "ratio", "value", "95% interval",
			       "samples", base ? "baseline     change  " : "", "formula (model, status)");
		for (size_t i = 0; i < nrr; i++) {
			const struct mp_ratio_row *r = &rr[i].rows[0];
			char val[64], iv[128], fl[192], bv[64] = "-", ch[32], cn[64];
			fmt_val(rr[i].def, &r->v, val, sizeof(val));
			fmt_ival(rr[i].def, &r->v, iv, sizeof(iv));
			flags_str(&rr[i], r, fl, sizeof(fl));
			if (sim) {
				counts_str(r, cn, sizeof(cn));
				printf("%-27s %12s  %23s  ", rr[i].def->name, val, cn);
			} else {
				printf("%-27s %12s  %-27s %11s  ", rr[i].def->name, val, iv,
				       rr[i].samples_prog);
			}
			if (base) {
				if (r->have_base)
					fmt_val(rr[i].def, &r->base, bv, sizeof(bv));
				fmt_change(r, ch, sizeof(ch));
				printf("%-12s %-8s ", bv, ch);
			}
			printf("%s (%s, %s)%s\n", mp_formula_src(rr[i].b.var->f), rr[i].b.var->model,
			       rr[i].b.var->status == MP_RATIO_EXACT ? "exact" : "approx", fl);
		}
	} else {
		for (size_t i = 0; i < nrr; i++) {
			const struct mp_ratio_result *x = &rr[i];
			size_t shown = 0;
			printf("\n%s = %s (%s, %s)%s\n", x->def->name, mp_formula_src(x->b.var->f),
			       x->b.var->model, x->b.var->status == MP_RATIO_EXACT ? "exact" : "approx",
			       sim ? "  SIMULATED" : "");
			if (sim)
				printf("  %12s  %23s  %s%s\n", "value", "counts",
				       base ? "baseline     change   " : "", level_name(lvl));
			else
				printf("  %12s  %-27s %11s  %s%s\n", "value", "95% interval", "samples",
				       base ? "baseline     change   " : "", level_name(lvl));
			for (size_t k = 0; k < npl; k++) {
				const struct mp_ratio_row *r = &x->rows[x->perm[k]];
				char val[64], iv[128], fl[192], smp[128], bv[64] = "-", ch[32];
				if (!r->v.defined)
					continue;
				if (o->top && shown >= (size_t)o->top)
					break;
				shown++;
				fmt_val(x->def, &r->v, val, sizeof(val));
				fmt_ival(x->def, &r->v, iv, sizeof(iv));
				flags_str(x, r, fl, sizeof(fl));
				if (sim) {
					counts_str(r, smp, sizeof(smp));
					printf("  %12s  %23s  ", val, smp);
				} else {
					mp_ratio_samples_str(&x->b, r->place->cells, smp, sizeof(smp));
					printf("  %12s  %-27s %11s  ", val, iv, smp);
				}
				if (base) {
					if (r->have_base)
						fmt_val(x->def, &r->base, bv, sizeof(bv));
					fmt_change(r, ch, sizeof(ch));
					printf("%-12s %-8s ", bv, ch);
				}
				if (lvl == MP_RATIO_DSO || lvl == MP_RATIO_REGION || lvl == MP_RATIO_THREAD)
					printf("%s%s\n", r->place->label, fl);
				else if (lvl == MP_RATIO_SYMBOL)
					printf("%s  [%s]%s\n", r->place->label, r->place->dso ? r->place->dso : "?", fl);
				else
					printf("%s  %s  [%s]%s\n", r->place->label,
					       r->place->sym ? r->place->sym : "?",
					       r->place->dso ? r->place->dso : "?", fl);
			}
			if (!shown)
				printf("  (no place with samples of the denominator)\n");
		}
	}
	if (missing->len)
		printf("\nnot computable from this recording:\n%s", missing->data);
	if (!nrr && !missing->len)
		printf("\nno ratio selected\n");
}

static void print_csv(mp_ratio_run *run, const struct base_src *base, enum mp_ratio_level lvl,
		      struct mp_ratio_result *rr, size_t nrr, size_t npl)
{
	char sd[512] = "";
	const char *sim = mp_ratio_run_simulated(run);
	if (sim) {
		const char *i1 = mp_ratio_run_meta(run, MP_META_SIM_I1), *d1 = mp_ratio_run_meta(run, MP_META_SIM_D1);
		const char *ll = mp_ratio_run_meta(run, MP_META_SIM_LL);
		snprintf(sd, sizeof(sd), "SIMULATED by valgrind's %s (I1 %s D1 %s LL %s)", sim,
			 i1 ? i1 : "?", d1 ? d1 : "?", ll ? ll : "?");
		/* the same banner as the text, on stderr as memprof report --csv's: a csv
		 * starts with its header row (the simulated column says it on every row) */
		char line[512];
		sim_desc(run, line, sizeof(line));
		fprintf(stderr, "memprof ratios: SIMULATED: %s\n", line);
	}
	printf("ratio_id,ratio,level,place,dso,symbol,value,lo,hi,samples,few,exact,flagged,model,status,numerator,denominator,simulated%s\n",
	       base ? ",baseline,change" : "");
	for (size_t i = 0; i < nrr; i++) {
		const struct mp_ratio_result *x = &rr[i];
		for (size_t k = 0; k < npl; k++) {
			const struct mp_ratio_row *r = &x->rows[x->perm[k]];
			char smp[128], ch[32];
			if (!r->v.defined)
				continue;
			mp_ratio_samples_str(&x->b, r->place->cells, smp, sizeof(smp));
			cli_csv_str(stdout, x->def->id);
			putchar(',');
			cli_csv_str(stdout, x->def->name);
			printf(",%s,", level_name(lvl));
			cli_csv_str(stdout, r->place->label);
			putchar(',');
			cli_csv_str(stdout, r->place->dso);
			putchar(',');
			cli_csv_str(stdout, r->place->sym);
			printf(",%.17g,%.17g,%.17g,%s,%d,%d,%d,%s,%s,%.17g,%.17g,", r->v.value, r->v.lo,
			       r->v.hi, smp, r->v.few, r->v.exact, r->v.flagged, x->b.var->model,
			       x->b.var->status == MP_RATIO_EXACT ? "exact" : "approx", r->num, r->den);
			cli_csv_str(stdout, sd);
			if (base) {
				fmt_change(r, ch, sizeof(ch));
				if (r->have_base && r->base.defined)
					printf(",%.17g,%s", r->base.value, ch);
				else
					printf(",,");
			}
			putchar('\n');
		}
	}
}

static void json_sim(struct cli_json *j, const char *key, const mp_ratio_run *run)
{
	static const char *const keys[] = { MP_META_SIM_I1, MP_META_SIM_D1, MP_META_SIM_LL, MP_META_SIM_VALGRIND };
	static const char *const names[] = { "I1", "D1", "LL", "valgrind" };
	const char *sim = mp_ratio_run_simulated(run);
	char sd[512];
	if (!sim) {
		cli_json_value(j, key, "null");
		return;
	}
	sim_desc(run, sd, sizeof(sd));
	cli_json_open(j, key, '{', CLI_JSON_INLINE);
	cli_json_string(j, "by", sim);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *v = mp_ratio_run_meta(run, keys[i]);
		if (v)
			cli_json_string(j, names[i], v);
	}
	cli_json_string(j, "note", sd);
	cli_json_close(j);
}

/* One place's value of a ratio, with its interval, counts and flags. */
static void json_place(struct cli_json *j, const struct mp_ratio_result *x,
		       const struct mp_ratio_row *r, enum mp_ratio_level lvl, int base)
{
	cli_json_open(j, NULL, '{', CLI_JSON_INLINE);
	cli_json_string(j, "place", r->place->label);
	if (r->place->dso)
		cli_json_string(j, "dso", r->place->dso);
	if (r->place->sym)
		cli_json_string(j, "symbol", r->place->sym);
	if (lvl == MP_RATIO_LINE) {
		cli_json_string(j, "srcfile", r->place->srcfile);
		cli_json_value(j, "line", "%u", r->place->line);
	}
	if (lvl == MP_RATIO_THREAD) {
		cli_json_value(j, "pid", "%d", (int32_t)r->place->pid);
		cli_json_value(j, "tid", "%d", (int32_t)r->place->tid);
		cli_json_string(j, "comm", r->place->comm ? r->place->comm : "");
	}
	json_num(j, "value", r->v.value);
	json_num(j, "lo", r->v.lo);
	json_num(j, "hi", r->v.hi);
	json_num(j, "numerator", r->num);
	json_num(j, "denominator", r->den);
	cli_json_open(j, "samples", '[', CLI_JSON_INLINE);
	for (size_t e = 0; e < x->b.n; e++)
		if (x->b.ev[e] >= 0)
			cli_json_value(j, NULL, "%llu",
				       (unsigned long long)r->place->cells[x->b.ev[e]].samples);
	cli_json_close(j);
	cli_json_open(j, "counts", '[', CLI_JSON_INLINE);
	for (size_t e = 0; e < x->b.n; e++)
		if (x->b.ev[e] >= 0)
			json_num(j, NULL, r->place->cells[x->b.ev[e]].period);
	cli_json_close(j);
	cli_json_bool(j, "few", r->v.few);
	cli_json_bool(j, "exact", r->v.exact);
	cli_json_bool(j, "flagged", r->v.flagged);
	if (r->v.skew > 0)
		json_num(j, "skew", r->v.skew);
	if (r->v.unchecked)
		cli_json_bool(j, "unchecked", 1);
	if (base && r->have_base && r->base.defined)
		json_num(j, "baseline", r->base.value);
	cli_json_close(j);
}

static void print_json(mp_ratio_run *run, const struct base_src *base, enum mp_ratio_level lvl,
		       struct mp_ratio_result *rr, size_t nrr, size_t npl, const struct mp_ratio_missing *miss, size_t nmiss,
		       const char *workload, const struct ropts *o)
{
	struct cli_json j;
	cli_json_start(&j, stdout, ":", ",", 0);
	cli_json_open(&j, NULL, '{', CLI_JSON_INLINE);
	cli_json_string(&j, "file", mp_ratio_run_path(run));
	cli_json_string(&j, "model", mp_ratio_run_model(run));
	cli_json_string(&j, "cpu", mp_ratio_run_cpu(run));
	json_sim(&j, "simulated", run);
	cli_json_string(&j, "level", level_name(lvl));
	cli_json_value(&j, "min_samples", "%llu", (unsigned long long)o->min_samples);
	if (base && base->run) {
		cli_json_string(&j, "baseline", mp_ratio_run_path(base->run));
		json_sim(&j, "baseline_simulated", base->run);
	} else if (base) {
		char nm[300];
		snprintf(nm, sizeof(nm), "shipped:%s", base->set->name);
		cli_json_string(&j, "baseline", nm);
		cli_json_open(&j, "baseline_shipped", '{', CLI_JSON_INLINE);
		cli_json_string(&j, "model", base->set->model);
		cli_json_string(&j, "workload", base->set->workload);
		cli_json_string(&j, "source", base->set->source);
		cli_json_bool(&j, "same_workload", base->exact);
		if (mp_ratio_run_simulated(run))
			cli_json_bool(&j, "same_geometry", !base->other_geometry);
		cli_json_close(&j);
	}
	cli_json_open(&j, "ratios", '[', CLI_JSON_INLINE);
	for (size_t i = 0; i < nrr; i++) {
		const struct mp_ratio_result *x = &rr[i];
		cli_json_open(&j, NULL, '{', CLI_JSON_INLINE);
		cli_json_string(&j, "id", x->def->id);
		cli_json_string(&j, "name", x->def->name);
		cli_json_string(&j, "formula", mp_formula_src(x->b.var->f));
		cli_json_string(&j, "model", x->b.var->model);
		cli_json_string(&j, "status", x->b.var->status == MP_RATIO_EXACT ? "exact" : "approx");
		cli_json_open(&j, "places", '[', CLI_JSON_INLINE);
		for (size_t k = 0; k < npl; k++) {
			const struct mp_ratio_row *r = &x->rows[x->perm[k]];
			if (r->v.defined)
				json_place(&j, x, r, lvl, base != NULL);
		}
		cli_json_close(&j);
		cli_json_close(&j);
	}
	cli_json_close(&j);
	cli_json_open(&j, "missing", '[', CLI_JSON_INLINE);
	for (size_t i = 0; i < nmiss; i++) {
		struct mp_buf cmd = { 0 };
		if (miss[i].def && !miss[i].b.var && mp_ratio_run_simulated(run))
			continue; /* listed under not_simulable */
		cli_json_open(&j, NULL, '{', CLI_JSON_INLINE);
		cli_json_string(&j, "id", miss[i].def->id);
		cli_json_string(&j, "name", miss[i].def->name);
		cli_json_string(&j, "missing", miss[i].b.missing);
		record_line(&miss[i].b, workload, &cmd);
		if (cmd.len && cmd.data[cmd.len - 1] == '\n')
			cmd.data[--cmd.len] = 0;
		cli_json_string(&j, "record", cmd.data ? cmd.data : "");
		mp_buf_fini(&cmd);
		cli_json_close(&j);
	}
	cli_json_close(&j);
	if (mp_ratio_run_simulated(run)) {
		cli_json_open(&j, "not_simulable", '[', CLI_JSON_INLINE);
		for (size_t i = 0; i < nmiss; i++)
			if (!miss[i].b.var)
				cli_json_string(&j, NULL, miss[i].def->id);
		cli_json_close(&j);
	}
	cli_json_close(&j);
	putchar('\n');
}

/* The ratios asked for (all when names is empty); 2 on an unknown name. */
static int pick_defs(const mp_ratio_set *set, char **names, int nnames,
		     const struct mp_ratio_def ***out, size_t *n)
{
	const struct mp_ratio_def **defs = calloc(mp_ratio_set_count(set) + (size_t)nnames + 1,
						  sizeof(*defs));
	*out = defs;
	*n = 0;
	if (!defs) {
		cli_error("ratios", "out of memory");
		return 1;
	}
	for (int i = 0; i < nnames; i++)
		if (!(defs[(*n)++] = find_ratio(set, names[i])))
			return CLI_EXIT_USAGE;
	if (!nnames)
		for (size_t i = 0; i < mp_ratio_set_count(set); i++)
			defs[(*n)++] = mp_ratio_set_get(set, i);
	return 0;
}

/* What is not computable and why, with the commands that record it. */
static void missing_text(const struct mp_ratio_table *t, const mp_ratio_run *run,
			 const char *workload, struct mp_buf *missing)
{
	struct mp_buf nosim = { 0 };

	for (size_t i = 0; i < t->nmiss; i++) {
		const struct mp_ratio_missing *m = &t->miss[i];
		if (m->nosim) {
			mp_buf_printf(&nosim, "%s%s", nosim.len ? ", " : "", m->def->name);
		} else if (m->b.var) {
			mp_buf_printf(missing, "  %s: the recording has no %s (%s, %s); record it with:\n    ",
				      m->def->name, m->b.missing, m->b.var->model,
				      m->b.var->status == MP_RATIO_EXACT ? "exact" : "approx");
			record_line(&m->b, workload, missing);
		} else {
			mp_buf_printf(missing, "  %s: %s\n", m->def->name, m->b.missing);
		}
	}
	if (nosim.len)
		mp_buf_printf(missing, "  cannot be simulated at all (no cachegrind formula; they need a hardware PMU): %s\n",
			      nosim.data);
	else if (missing->len && !mp_ratio_run_simulated(run) && host_without_pmu())
		mp_buf_printf(missing, "  %s\n", "this machine has no hardware PMU: memprof record --sim records the simulated ratios "
			      "(memprof ratios --record-cmd --pmu cachegrind prints the command)");
	mp_buf_fini(&nosim);
}

static int open_run(const char *path, const struct mp_ratio_run_opts *ro, const char *what,
		    mp_ratio_run **run, struct mp_ratio_source *src, const char **keys)
{
	struct mp_err err = { 0, "" };

	*run = mp_ratio_run_open(path, ro, &err);
	if (!*run || mp_ratio_run_source(*run, ro->level, keys, 8, src, &err)) {
		cli_error("ratios", "%s%s", what, err.msg);
		return 1;
	}
	return 0;
}

/* ratios -i A -i B: every recording opened, their sources summed (mp_ratio_source_sum). */
struct many_runs {
	size_t n;
	mp_ratio_run **runs;
	struct mp_ratio_source *srcs;
	const char **names;
	const char *(*keys)[8]; /* each run's variant keys */
	char *list;
	struct mp_ratio_sum sum;
};

static void many_free(struct many_runs *m)
{
	for (size_t i = 0; m->runs && i < m->n; i++)
		mp_ratio_run_free(m->runs[i]);
	mp_ratio_sum_fini(&m->sum);
	free(m->runs);
	free(m->srcs);
	free(m->names);
	free((void *)m->keys);
	free(m->list);
	memset(m, 0, sizeof(*m));
}

static int open_many(const char *inputs, const struct mp_ratio_run_opts *ro, struct many_runs *m,
		     struct mp_ratio_source *src)
{
	struct mp_err err = { 0, "" };
	size_t n = 1;
	for (const char *p = inputs; *p; p++)
		n += *p == ',';
	m->list = strdup(inputs);
	m->runs = calloc(n, sizeof(*m->runs));
	m->srcs = calloc(n, sizeof(*m->srcs));
	m->names = calloc(n, sizeof(*m->names));
	m->keys = calloc(n, sizeof(*m->keys));
	if (!m->list || !m->runs || !m->srcs || !m->names || !m->keys) {
		cli_error("ratios", "out of memory");
		return 1;
	}
	for (char *s = m->list, *tok; (tok = strsep(&s, ","));) {
		m->names[m->n] = tok;
		if (open_run(tok, ro, "", &m->runs[m->n], &m->srcs[m->n], m->keys[m->n])) {
			m->n++;
			return 1;
		}
		m->n++;
	}
	if (mp_ratio_source_sum(m->srcs, m->names, m->n, &m->sum, &err)) {
		cli_error("ratios", "%s", err.msg);
		return 1;
	}
	*src = m->sum.src;
	return 0;
}

/* "shipped" or "shipped:NAME": the baseline is a set of shipped values, not a file */
static int is_shipped(const char *b)
{
	return b && (!strcmp(b, "shipped") || !strncmp(b, "shipped:", 8));
}

/* --baseline shipped[:NAME]: the set for the recording (its model and workload), its values
 * beside the program level's. 0, or 1 with the error said. */
static int shipped_baseline(const char *arg, mp_ratio_run *run, enum mp_ratio_level lvl,
			    struct mp_ratio_table *t, mp_ratio_baselines *bl, struct base_src *bs)
{
	const char *name = arg[7] == ':' ? arg + 8 : NULL;
	bs->set = mp_ratio_baselines_pick(bl, name, mp_ratio_run_model(run),
					  mp_ratio_run_workload(run), &bs->exact);
	if (!bs->set) {
		if (name)
			cli_error("ratios", "--baseline %s: no shipped baseline named '%s' (memprof ratios --list-baselines names them)",
				  arg, name);
		else
			cli_error("ratios", "--baseline shipped: no shipped baseline for model %s (memprof ratios --list-baselines names them; shipped:NAME picks one)",
				  mp_ratio_run_model(run));
		return 1;
	}
	if (name)
		bs->exact = 1;
	/* A simulated set names its caches in its source ("..., I1 S,A,L D1 S,A,L LL S,A,L"):
	 * a recording simulated with others is compared with a note saying so. */
	const char *i1 = mp_ratio_run_meta(run, MP_META_SIM_I1), *d1 = mp_ratio_run_meta(run, MP_META_SIM_D1);
	const char *ll = mp_ratio_run_meta(run, MP_META_SIM_LL);
	if (mp_ratio_run_simulated(run) && strstr(bs->set->source, " D1 ")) {
		snprintf(bs->geometry, sizeof(bs->geometry), "I1 %s D1 %s LL %s", i1 ? i1 : "?",
			 d1 ? d1 : "?", ll ? ll : "?");
		bs->other_geometry = !strstr(bs->set->source, bs->geometry);
	}
	for (size_t i = 0; i < t->n && lvl == MP_RATIO_PROGRAM; i++) {
		struct mp_ratio_row *r = &t->r[i].rows[0];
		double v;
		if (!mp_ratio_baseline_value(bl, bs->set, t->r[i].def->id, &v))
			continue;
		r->have_base = 1;
		memset(&r->base, 0, sizeof(r->base));
		r->base.defined = 1;
		r->base.value = r->base.lo = r->base.hi = v;
		r->base.exact = 1;
	}
	return 0;
}

static int list_baselines(void)
{
	struct mp_err err = { 0, "" };
	mp_ratio_baselines *bl = mp_ratio_baselines_builtin(&err);
	if (!bl) {
		cli_error("ratios", "%s", err.msg);
		return 1;
	}
	printf("%-26s %-18s %-30s %s\n", "name", "model", "workload", "ratios, source");
	for (size_t i = 0; i < mp_ratio_baselines_count(bl); i++) {
		const struct mp_ratio_baseline *s = mp_ratio_baselines_get(bl, i);
		printf("%-26s %-18s %-30s %zu, %s\n", s->name, s->model, s->workload, s->n, s->source);
	}
	mp_ratio_baselines_free(bl);
	return 0;
}

static int analyze(const mp_ratio_set *set, const struct ropts *o, char **names, int nnames)
{
	struct mp_ratio_run_opts ro;
	struct mp_ratio_table_opts to;
	struct mp_ratio_source src, bsrc;
	struct mp_ratio_table t = { 0 };
	struct mp_err err = { 0, "" };
	mp_ratio_run *run = NULL, *base = NULL;
	mp_ratio_baselines *bl = NULL;
	struct base_src bs = { 0 };
	int shipped = is_shipped(o->baseline);
	struct many_runs many = { 0 };
	struct mp_buf missing = { 0 };
	const char *keys[8], *bkeys[8];
	const struct mp_ratio_def **defs = NULL;
	int rc;

	memset(&ro, 0, sizeof(ro));
	memset(&to, 0, sizeof(to));
	if (o->level && parse_level(o->level, &ro.level)) {
		cli_error("ratios", "--level '%s': expected program, dso, symbol, line, region or thread", o->level);
		return CLI_EXIT_USAGE;
	}
	if ((rc = pick_defs(set, names, nnames, &defs, &to.ndefs)) != 0)
		goto out;
	to.defs = defs;
	if (o->sort && !(to.sort = find_ratio(set, o->sort))) {
		rc = CLI_EXIT_USAGE;
		goto out;
	}
	ro.symfs = o->symfs;
	ro.kallsyms = o->kallsyms;
	ro.model = o->pmu;
	to.level = ro.level;
	to.min_samples = o->min_samples;
	if (strchr(o->input, ',')) {
		if ((rc = open_many(o->input, &ro, &many, &src)) != 0)
			goto out;
		run = many.runs[0];
	} else if ((rc = open_run(o->input, &ro, "", &run, &src, keys)) != 0) {
		goto out;
	}
	if (o->baseline && !shipped &&
	    (rc = open_run(o->baseline, &ro, "baseline: ", &base, &bsrc, bkeys)))
		goto out;
	if (shipped && !(bl = mp_ratio_baselines_builtin(&err))) {
		cli_error("ratios", "%s", err.msg);
		rc = 1;
		goto out;
	}
	rc = mp_ratio_table_build(&src, base ? &bsrc : NULL, &to, &t, &err);
	if (rc == -ENOENT && to.sort)
		cli_error("ratios", "--sort %s: that ratio cannot be computed from %s", to.sort->id,
			  o->input);
	else if (rc)
		cli_error("ratios", "%s", err.msg);
	if (rc) {
		rc = 1;
		goto out;
	}
	bs.run = base;
	if (shipped && (rc = shipped_baseline(o->baseline, run, ro.level, &t, bl, &bs)))
		goto out;
	const struct base_src *bp = base || shipped ? &bs : NULL;
	const char *workload = mp_ratio_run_workload(run);
	missing_text(&t, run, workload, &missing);
	if (o->json)
		print_json(run, bp, ro.level, t.r, t.n, t.nplaces, t.miss, t.nmiss, workload, o);
	else if (o->csv)
		print_csv(run, bp, ro.level, t.r, t.n, t.nplaces);
	else {
		if (many.n)
			printf("# %zu recordings summed (places by name, events by attributes): %s\n",
			       many.n, o->input);
		print_text(run, bp, ro.level, t.r, t.n, t.nplaces, o, &missing);
		if (shipped && ro.level != MP_RATIO_PROGRAM)
			printf("# the shipped baselines are program-level values: none beside the places of level %s\n",
			       level_name(ro.level));
	}
	if (o->csv && missing.len)
		fprintf(stderr, "not computable from %s:\n%s", o->input, missing.data);
	rc = nnames > 0 && t.nmiss ? 1 : 0;
out:
	mp_ratio_table_fini(&t);
	free(defs);
	mp_buf_fini(&missing);
	if (many.n)
		many_free(&many);
	else
		mp_ratio_run_free(run);
	mp_ratio_run_free(base);
	mp_ratio_baselines_free(bl);
	return rc;
}

static int ratios_main(int argc, char **argv, char **inputs)
{
	struct ropts o;
	struct mp_err err = { 0, "" };
	int nargs = 0, rc, dd = -1;
	char **workload = NULL;

	memset(&o, 0, sizeof(o));
	o.min_samples = 10;
	o.top = 20;
	const struct cli_opt opts[] = {
		CLI_OPT_INPUTS(inputs),
		CLI_OPT_FORCE(&o.force),
		{ 0, "level", CLI_STR, &o.level, "LEVEL", "program (default), dso, symbol, line, region (record --regions) or thread (per tid, with its comm)" },
		{ 0, "sort", CLI_STR, &o.sort, "RATIO", "order places by this ratio's value, highest first (default: by each ratio's numerator count)" },
		{ 0, "top", CLI_INT, &o.top, "N", "places shown per ratio below program level (default 20, 0 = all)" },
		{ 0, "min-samples", CLI_U64, &o.min_samples, "N", "mark values resting on fewer samples of an event, or simulated counts (default 10)" },
		{ 0, "baseline", CLI_STR, &o.baseline, "FILE", "a second recording: both side by side with the change; or shipped[:NAME], the values memprof ships for the recording's model and workload (--list-baselines)" },
		{ 0, "list-baselines", CLI_FLAG, &o.list_baselines, NULL, "list the shipped baselines (measured fixtures, simulated kernels)" },
		{ 0, "ratios", CLI_STR, &o.ratios, "FILE", "more ratio definitions (after the shipped ones and ~/.config/memprof/ratios)" },
		{ 0, "record-cmd", CLI_FLAG, &o.record_cmd, NULL, "print the memprof record command(s) that measure the ratios" },
		CLI_OPT_PMU(&o.pmu, "for --record-cmd, or instead of the recording's"),
		{ 0, "counters", CLI_INT, &o.counters, "N", "programmable counters for --record-cmd (default: the model's)" },
		{ 0, "list", CLI_FLAG, &o.list, NULL, "list the known ratios (with RATIO: describe it)" },
		{ 0, "check", CLI_FLAG, &o.check, NULL, "check that every formula's events resolve for its model" },
		{ 0, "csv", CLI_FLAG, &o.csv, NULL, "comma-separated output" },
		{ 0, "json", CLI_FLAG, &o.json, NULL, "JSON output" },
		CLI_OPT_SYMFS(&o.symfs),
		CLI_OPT_KALLSYMS(&o.kallsyms),
		{ 0 },
	};

	/* A workload after "--" belongs to --record-cmd; ratio names come before it. */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			dd = i;
			break;
		}
	if (dd > 0) {
		workload = argv + dd + 1;
		argc = dd;
	}
	rc = cli_parse(&cli_cmd_ratios, opts, argc, argv, &nargs);
	if (rc)
		return rc == 1 ? 0 : CLI_EXIT_USAGE;
	o.input = *inputs;
	if (o.csv && o.json) {
		cli_error("ratios", "--csv and --json exclude each other");
		return CLI_EXIT_USAGE;
	}
	if (o.top < 0) {
		cli_error("ratios", "--top %d: must be 0 or more", o.top);
		return CLI_EXIT_USAGE;
	}
	if (o.counters < 0) {
		cli_error("ratios", "--counters %d: must be 1 or more (0: the model's)", o.counters);
		return CLI_EXIT_USAGE;
	}
	if (o.pmu) {
		struct mp_pmu_model pm;
		if (!mp_pmu_model_get(o.pmu, &pm) && mp_events_model_check(o.pmu, &err)) {
			cli_error("ratios", "%s", err.msg);
			return 1;
		}
	}
	mp_ratio_set *set = mp_ratio_set_new();
	if (!set) {
		cli_error("ratios", "out of memory");
		return 1;
	}
	if (mp_ratio_set_load_default(set, o.ratios, &err)) {
		cli_error("ratios", "%s", err.msg);
		mp_ratio_set_free(set);
		return 1;
	}
	if (o.list && nargs) {
		rc = 0;
		for (int i = 1; i <= nargs && !rc; i++) {
			const struct mp_ratio_def *d = find_ratio(set, argv[i]);
			if (!d)
				rc = CLI_EXIT_USAGE;
			else
				describe(d);
		}
	} else if (o.list) {
		rc = do_list(set);
	} else if (o.check) {
		rc = do_check(set);
	} else if (o.list_baselines) {
		rc = list_baselines();
	} else if (o.record_cmd) {
		char wl[4096] = "";
		size_t used = 0;
		for (char **w = workload; w && *w && used < sizeof(wl); w++) {
			int n = snprintf(wl + used, sizeof(wl) - used, "%s%s", used ? " " : "", *w);
			if (n > 0)
				used += (size_t)n;
		}
		rc = do_record_cmd(set, &o, argv + 1, nargs, wl[0] ? wl : NULL);
	} else {
		if (workload) {
			cli_error("ratios", "a command after '--' only goes with --record-cmd");
			mp_ratio_set_free(set);
			return CLI_EXIT_USAGE;
		}
		if (cli_input_ready("ratios", &o.input, o.force) ||
		    (o.baseline && !is_shipped(o.baseline) &&
		     cli_input_owner_ok("ratios", o.baseline, o.force))) {
			mp_ratio_set_free(set);
			return CLI_EXIT_RUNTIME;
		}
		rc = analyze(set, &o, argv + 1, nargs);
	}
	mp_ratio_set_free(set);
	return rc;
}

static int cmd_ratios(int argc, char **argv)
{
	char *inputs = NULL; /* -i FILE, repeated: joined with ',' */
	int rc = ratios_main(argc, argv, &inputs);
	free(inputs);
	return rc;
}

const struct cli_cmd cli_cmd_ratios = {
	"ratios", cmd_ratios, "the memory ratio table (L1D miss rate, IPC, ...) with error bars",
	ratios_usage,
	ratios_summary, 0,
};
