/* mp_ratio_events.c - glue to the events module: resolve a formula's event names for a
 * PMU model, and the exact-count table of `memprof stat --ratios`. */
#include "mp_ratios.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_events.h"
#include "mp_perfdata.h"

/* callgrind's quantities (events/pmu_models.tsv, simq rows): the simulator (sim/mp_sim.c)
 * writes an event for a sum of them as PERF_TYPE_RAW with one bit per quantity. */
static int resolve_sim(const char *event, struct perf_event_attr *attr, struct mp_err *err)
{
	int bit = mp_pmu_sim_quantity(event);
	char names[256] = "";
	size_t o = 0;

	if (bit >= 0) {
		memset(attr, 0, sizeof(*attr));
		attr->type = PERF_TYPE_RAW;
		attr->config = mp_pmu_sim_config(1u << bit);
		return 0;
	}
	for (int q = 0; mp_pmu_sim_quantity_name(q) && o < sizeof(names); q++)
		o += (size_t)snprintf(names + o, sizeof(names) - o, "%s%s", q ? ", " : "",
				      mp_pmu_sim_quantity_name(q));
	return mp_err_set(err, -ENOENT, "event '%s': not a simulated quantity (%s)", event, names);
}

int mp_ratio_resolve_events(void *ctx, const char *event, const char *model,
			    struct perf_event_attr *attr, struct mp_err *err)
{
	struct mp_evopts o;
	struct mp_event ev;
	char spec[512];
	int rc;

	(void)ctx;
	if (model && !strcmp(model, "cachegrind"))
		return resolve_sim(event, attr, err);
	memset(&o, 0, sizeof(o));
	o.count_only = 1;
	if (!model || !strcmp(model, "perf") || !strcmp(model, "cachegrind")) {
		snprintf(spec, sizeof(spec), "%s", event);
	} else {
		/* model::EVENT pins the name to the model's table, so the article's Core 2
		 * names are taken as libpfm core events, not as aliases for the host. */
		o.pmu_model = model;
		if (strstr(event, "::"))
			snprintf(spec, sizeof(spec), "%s", event);
		else
			snprintf(spec, sizeof(spec), "%s::%s", model, event);
	}
	rc = mp_event_parse(spec, &o, &ev, err);
	if (rc)
		return rc;
	*attr = ev.attr;
	return 0;
}

int mp_ratio_stat_table(const mp_ratio_set *set, const struct mp_ratio_event *ev, size_t nev,
			const char *model, mp_ratio_resolve_fn resolve, void *rctx,
			struct mp_buf *out, struct mp_err *err)
{
	const char *models[8];
	/* exact counts: the table of one place, the program, with no sample cells */
	struct mp_ratio_place prog = { .label = "program" };
	struct mp_ratio_source src = { .ev = ev, .nev = nev, .models = models,
				       .places = &prog, .nplaces = 1 };
	struct mp_ratio_table_opts to = { .ndefs = mp_ratio_set_count(set),
					  .level = MP_RATIO_PROGRAM, .resolve = resolve,
					  .rctx = rctx };
	struct mp_ratio_table t;
	size_t shown = 0;
	int rc;

	src.nmodels = mp_ratio_models_for(model, models, 8);
	const struct mp_ratio_def **defs = calloc(to.ndefs + 1, sizeof(*defs));
	if (!defs)
		return mp_err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < to.ndefs; i++)
		defs[i] = mp_ratio_set_get(set, i);
	to.defs = defs;
	rc = mp_ratio_table_build(&src, NULL, &to, &t, err);
	for (size_t i = 0; !rc && i < t.n; i++) {
		const struct mp_ratio_result *x = &t.r[i];
		const struct mp_ratio_value *v = &x->rows[0].v;
		char val[64];

		if (!v->exact)
			continue;
		if (!shown++)
			mp_buf_printf(out, "\n %-28s %14s  %s\n", "ratio", "value", "formula");
		if (v->defined)
			mp_ratio_format_value(x->def, v->value, val, sizeof(val));
		else
			snprintf(val, sizeof(val), "-");
		mp_buf_printf(out, " %-28s %14s  %s (%s, %s)%s\n", x->def->name, val,
			      mp_formula_src(x->b.var->f), x->b.var->model,
			      x->b.var->status == MP_RATIO_EXACT ? "exact" : "approx",
			      v->flagged ? "   <==== WARNING" : "");
	}
	if (!rc && !shown)
		mp_buf_printf(out, "\nno ratio can be computed from these events (memprof ratios --list shows what each needs)\n");
	mp_ratio_table_fini(&t);
	free(defs);
	return rc;
}

int mp_ratio_stat_report(const struct mp_ratio_counted *c, size_t n, const char *model,
			 const char *extra, struct mp_buf *out, struct mp_err *err)
{
	mp_ratio_set *set = mp_ratio_set_new();
	struct mp_ratio_event *ev = calloc(n ? n : 1, sizeof(*ev));
	int rc;

	if (!set || !ev) {
		mp_ratio_set_free(set);
		free(ev);
		return mp_err_set(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		ev[i].attr = c[i].attr;
		ev[i].name = c[i].name;
		/* an event that never ran has no count (perf stat's <not counted>) */
		ev[i].has_count = c[i].counts.run > 0 || (c[i].counts.ena == 0 && c[i].counts.val > 0);
		ev[i].count = mp_counts_scaled(&c[i].counts);
	}
	rc = mp_ratio_set_load_default(set, extra, err);
	if (!rc)
		rc = mp_ratio_stat_table(set, ev, n, model, NULL, NULL, out, err);
	mp_ratio_set_free(set);
	free(ev);
	return rc;
}
