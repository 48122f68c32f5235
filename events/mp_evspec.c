/* mp_evspec.c - one event spec, as perf or oprofile users type it, to a perf_event_attr.
 *
 * NAME[.UMASK...|:UMASK...][:MODS][:COUNT[:UNITMASK[:KERNEL[:USER]]]], model::NAME...,
 * rHEX, PMU/terms/[MODS], and lists of these separated by commas (none inside / / or
 * { }). The resolution order for a name is: perf generic, portable alias (aliases.tsv),
 * libpfm4 event of the model, named sysfs event of any PMU. */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mp_events_internal.h"

#define MAX_FIELDS 24

int mp_ev_strcasecmp_eq(const char *a, const char *b)
{
	return strcasecmp(a, b) == 0;
}

/* ---- classes, defaults and minimums (docs/events.md justifies the numbers) ---- */

uint64_t mp_ev_class_default(enum mp_evclass c)
{
	switch (c) {
	case MP_CLS_FREQUENT: return 100000;
	case MP_CLS_HW: return 10000;
	case MP_CLS_TIMER: return 100000;
	case MP_CLS_FAULTS: return 100;
	case MP_CLS_RARE_SW: return 1;
	}
	return 1;
}

uint64_t mp_ev_class_min(enum mp_evclass c)
{
	switch (c) {
	case MP_CLS_FREQUENT: return 6000;
	case MP_CLS_HW: return 500;
	case MP_CLS_TIMER: return 10000;
	case MP_CLS_FAULTS: return 1;
	case MP_CLS_RARE_SW: return 1;
	}
	return 1;
}

const char *mp_ev_class_name(enum mp_evclass c)
{
	switch (c) {
	case MP_CLS_FREQUENT: return "cycle/instruction counter";
	case MP_CLS_HW: return "hardware event";
	case MP_CLS_TIMER: return "timer (ns)";
	case MP_CLS_FAULTS: return "page faults";
	case MP_CLS_RARE_SW: return "software event";
	}
	return "event";
}

enum mp_evclass mp_ev_class(const struct mp_event *ev)
{
	const struct perf_event_attr *a = &ev->attr;

	if (a->type == PERF_TYPE_SOFTWARE) {
		switch (a->config) {
		case PERF_COUNT_SW_CPU_CLOCK:
		case PERF_COUNT_SW_TASK_CLOCK:
			return MP_CLS_TIMER;
		case PERF_COUNT_SW_PAGE_FAULTS:
		case PERF_COUNT_SW_PAGE_FAULTS_MIN:
			return MP_CLS_FAULTS;
		default:
			return MP_CLS_RARE_SW;
		}
	}
	if (a->type == PERF_TYPE_HARDWARE) {
		switch (a->config) {
		case PERF_COUNT_HW_CPU_CYCLES:
		case PERF_COUNT_HW_INSTRUCTIONS:
		case PERF_COUNT_HW_BUS_CYCLES:
		case PERF_COUNT_HW_REF_CPU_CYCLES:
		case PERF_COUNT_HW_STALLED_CYCLES_FRONTEND:
		case PERF_COUNT_HW_STALLED_CYCLES_BACKEND:
			return MP_CLS_FREQUENT;
		default:
			return MP_CLS_HW;
		}
	}
	if (a->type == PERF_TYPE_HW_CACHE)
		return MP_CLS_HW;
	if (a->type == PERF_TYPE_TRACEPOINT || a->type == PERF_TYPE_BREAKPOINT)
		return MP_CLS_RARE_SW;
	return mp_pmu_frequent_name(ev->resolved) ? MP_CLS_FREQUENT : MP_CLS_HW;
}

uint64_t mp_event_default_count(const struct mp_event *ev)
{
	return mp_ev_class_default(mp_ev_class(ev));
}

/* ---- host model ---- */

/* LIBPFM_FORCE_PMU naming a model libpfm4 lacks here (its arm models exist only in its
 * arm64 build): said once per process, never silently replaced by the host's model. */
static const char *forced_model;
static pthread_once_t forced_once = PTHREAD_ONCE_INIT;

static void forced_check(void)
{
	const char *f = getenv("LIBPFM_FORCE_PMU");

	if (!f || !*f || mp_pfm_model_known(f))
		return;
	if (mp_pmu_pmuv3(f)) {
		forced_model = f;
#if !defined(__aarch64__)
		mp_log(MP_LOG_WARN,
		       "LIBPFM_FORCE_PMU=%s: libpfm4 here has no %s table; memprof names its events from the Arm PMUv3 common events (events/pmu_models.tsv), whose raw codes mean something else on this CPU: use it to read Arm recordings and write Arm record commands, not to count here",
		       f, f);
#endif
		return;
	}
	mp_log(MP_LOG_WARN,
	       "LIBPFM_FORCE_PMU=%s: no such PMU model in libpfm4 here nor in events/pmu_models.tsv (memprof list --models names them); the detected model is used",
	       f);
}

const char *mp_events_host_model(const struct mp_evopts *opts, char *buf, size_t len)
{
	pthread_once(&forced_once, forced_check);
	if (opts && opts->pmu_model && *opts->pmu_model)
		snprintf(buf, len, "%s", opts->pmu_model);
	else if (forced_model)
		snprintf(buf, len, "%s", forced_model);
	else if (!mp_pfm_detected(buf, len))
		snprintf(buf, len, "perf");
	return buf;
}

/* ---- modifiers ---- */

struct mods {
	int u, k, h, p, any;
};

static int is_mod(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!strchr("ukhpGH", *s))
			return 0;
	return 1;
}

static int add_mods(const char *s, struct mods *m)
{
	for (; *s; s++) {
		switch (*s) {
		case 'u': m->u = 1; break;
		case 'k': m->k = 1; break;
		case 'h': m->h = 1; break;
		case 'p': m->p++; break;
		default: break; /* G, H: host/guest, all counted anyway */
		}
	}
	m->any = 1;
	return m->p > 3 ? -1 : 0;
}

static void apply_mods(struct perf_event_attr *a, const struct mods *m)
{
	if (m->u || m->k || m->h) {
		a->exclude_user = !m->u;
		a->exclude_kernel = !m->k;
		a->exclude_hv = !m->h;
	}
	if (m->p)
		a->precise_ip = (unsigned)m->p;
}

static int is_decimal(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *e;
	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	unsigned long long x = strtoull(s, &e, 0);
	if (errno || *e)
		return -1;
	*v = x;
	return 0;
}

static int is_raw(const char *s)
{
	if (s[0] != 'r' || !s[1])
		return 0;
	for (s++; *s; s++)
		if (!isxdigit((unsigned char)*s))
			return 0;
	return 1;
}

/* ---- parsed shape of a name spec ---- */

struct shape {
	char buf[256];
	char *model;            /* before "::", or NULL */
	char *name;
	char *attrs[MAX_FIELDS]; /* unit masks and libpfm modifiers (c=6) */
	size_t nattrs;
	struct mods mods;
	int has_count;
	uint64_t count;
	int has_opmask;         /* oprofile UNITMASK given as a number */
	uint64_t opmask;
	int op_kernel, op_user; /* -1 = not given */
};

static int split_shape(const char *spec, const char *body, struct shape *sh, struct mp_err *err)
{
	char *fields[MAX_FIELDS];
	size_t nf = 0;
	char *p;

	memset(sh, 0, sizeof(*sh));
	sh->op_kernel = sh->op_user = -1;
	if (strlen(body) >= sizeof(sh->buf))
		return mp_err_set(err, -MP_EPARSE, "event '%s': too long", spec);
	strcpy(sh->buf, body);
	p = sh->buf;
	char *dc = strstr(p, "::");
	if (dc) {
		*dc = 0;
		sh->model = p;
		p = dc + 2;
		if (!*sh->model)
			return mp_err_set(err, -MP_EPARSE, "event '%s': empty PMU model before '::'",
					  spec);
	}
	if (strstr(p, "::"))
		return mp_err_set(err, -MP_EPARSE, "event '%s': more than one '::'", spec);
	/* The article's dotted spelling: L2_LINES_IN.SELF.ANY == L2_LINES_IN:SELF:ANY. */
	for (char *q = p; *q; q++)
		if (*q == '.')
			*q = ':';
	for (;;) {
		char *c = strchr(p, ':');
		if (nf == MAX_FIELDS)
			return mp_err_set(err, -MP_EPARSE, "event '%s': too many ':' fields", spec);
		fields[nf++] = p;
		if (!c)
			break;
		*c = 0;
		p = c + 1;
	}
	sh->name = fields[0];
	if (!*sh->name)
		return mp_err_set(err, -MP_EPARSE, "event '%s': empty event name", spec);
	int state = 0, pos = 0;
	for (size_t i = 1; i < nf; i++) {
		char *f = fields[i];
		if (!*f)
			return mp_err_set(err, -MP_EPARSE, "event '%s': empty field after '%s'", spec,
					  fields[i - 1]);
		if (state == 0) {
			if (is_decimal(f)) {
				if (parse_u64(f, &sh->count))
					return mp_err_set(err, -MP_EPARSE, "event '%s': bad count '%s'",
							  spec, f);
				sh->has_count = 1;
				state = 1;
			} else if (is_mod(f)) {
				if (add_mods(f, &sh->mods))
					return mp_err_set(err, -MP_EPARSE,
							  "event '%s': modifier '%s': at most ppp", spec, f);
			} else {
				sh->attrs[sh->nattrs++] = f;
			}
			continue;
		}
		if (state == 2 || (pos == 0 && is_mod(f))) {
			if (!is_mod(f))
				return mp_err_set(err, -MP_EPARSE,
						  "event '%s': '%s' after the modifiers is not a modifier (u, k, h, p)",
						  spec, f);
			if (add_mods(f, &sh->mods))
				return mp_err_set(err, -MP_EPARSE, "event '%s': modifier '%s': at most ppp",
						  spec, f);
			state = 2;
			continue;
		}
		/* oprofile: NAME:COUNT:UNITMASK:KERNEL:USER */
		if (pos == 0) {
			uint64_t v;
			if (isdigit((unsigned char)f[0])) {
				if (parse_u64(f, &v) || v > 0xff)
					return mp_err_set(err, -MP_EPARSE,
							  "event '%s': bad unit mask '%s' (0..0xff or a name)",
							  spec, f);
				if (v) {
					sh->has_opmask = 1;
					sh->opmask = v;
				}
			} else {
				sh->attrs[sh->nattrs++] = f;
			}
		} else if (pos == 1 || pos == 2) {
			if (strcmp(f, "0") && strcmp(f, "1"))
				return mp_err_set(err, -MP_EPARSE,
						  "event '%s': %s flag '%s' must be 0 or 1 (NAME:COUNT:UNITMASK:KERNEL:USER)",
						  spec, pos == 1 ? "kernel" : "user", f);
			if (pos == 1)
				sh->op_kernel = f[0] == '1';
			else
				sh->op_user = f[0] == '1';
		} else {
			return mp_err_set(err, -MP_EPARSE,
					  "event '%s': too many fields after the count: '%s' (NAME:COUNT:UNITMASK:KERNEL:USER)",
					  spec, f);
		}
		pos++;
	}
	return 0;
}

/* ---- resolution ---- */

static int umask_attrs_only(const struct shape *sh, char *out, size_t len, int with_mods)
{
	size_t o = 0;
	int n = 0;
	out[0] = 0;
	for (size_t i = 0; i < sh->nattrs; i++) {
		int is_mod_attr = strchr(sh->attrs[i], '=') != NULL;
		if (is_mod_attr != with_mods)
			continue;
		int w = snprintf(out + o, len - o, ":%s", sh->attrs[i]);
		if (w < 0 || (size_t)w >= len - o)
			return -1;
		o += (size_t)w;
		n++;
	}
	return n;
}

static int is_model_name(const char *m)
{
	return strcmp(m, "perf") && strcmp(m, "cachegrind");
}

/* Encode model::name[:attrs] through libpfm into ev. extra: more ":ATTR" text. */
static int resolve_pfm(const char *spec, const char *model, const char *name,
		       const struct shape *sh, const char *extra, struct mp_event *ev,
		       struct mp_err *err, int quiet_notfound)
{
	char str[600], attrs[400];
	struct mp_pfm_enc enc;
	int rc;

	if (umask_attrs_only(sh, attrs, sizeof(attrs), 0) < 0)
		return mp_err_set(err, -MP_EPARSE, "event '%s': too long", spec);
	size_t al = strlen(attrs);
	if (umask_attrs_only(sh, attrs + al, sizeof(attrs) - al, 1) < 0)
		return mp_err_set(err, -MP_EPARSE, "event '%s': too long", spec);
	if (model)
		snprintf(str, sizeof(str), "%s::%s%s%s", model, name, extra ? extra : "", attrs);
	else
		snprintf(str, sizeof(str), "%s%s%s", name, extra ? extra : "", attrs);
	if (model && !mp_pfm_model_known(model) && mp_pmu_pmuv3(model)) {
		/* An Arm model libpfm4 has no table for here: PMUv3's common events, as data. */
		uint64_t code;
		if (!mp_pmu_pmuv3_code(model, name, &code) || *attrs || (extra && *extra)) {
			if (quiet_notfound)
				return 1;
			return mp_err_set(err, -MP_EPARSE,
					  "event '%s': %s is not one of the Arm PMUv3 common events memprof knows for %s without libpfm4's %s table (events/pmu_models.tsv, pmuv3 rows; raw codes rNN work)",
					  spec, name, model, model);
		}
		ev->attr.type = PERF_TYPE_RAW;
		ev->attr.config = code;
		snprintf(ev->resolved, sizeof(ev->resolved), "%s::%s", model, name);
		for (char *c = ev->resolved + strlen(model) + 2; *c; c++)
			*c = (char)toupper((unsigned char)*c);
		snprintf(ev->pmu, sizeof(ev->pmu), "%s", model);
		return 0;
	}
	rc = mp_pfm_encode(str, &enc);
	if (rc) {
		if (quiet_notfound && rc == -4 /* PFM_ERR_NOTFOUND */)
			return 1;
		char why[400];
		if (model) {
			mp_pfm_diagnose(model, name, sh->attrs, sh->nattrs, rc, why, sizeof(why));
			return mp_err_set(err, -MP_EPARSE, "event '%s': %s", spec, why);
		}
		return mp_err_set(err, -MP_EPARSE, "event '%s': %s", spec, mp_pfm_strerror(rc));
	}
	ev->attr.type = enc.type;
	ev->attr.config = enc.config;
	ev->attr.config1 = enc.config1;
	ev->attr.config2 = enc.config2;
	ev->attr.exclude_user = (unsigned)enc.exclude_user;
	ev->attr.exclude_kernel = (unsigned)enc.exclude_kernel;
	ev->attr.exclude_hv = (unsigned)enc.exclude_hv;
	ev->attr.precise_ip = (unsigned)enc.precise_ip;
	snprintf(ev->resolved, sizeof(ev->resolved), "%s", enc.fstr[0] ? enc.fstr : str);
	if (enc.type == PERF_TYPE_HARDWARE || enc.type == PERF_TYPE_SOFTWARE ||
	    enc.type == PERF_TYPE_HW_CACHE) {
		/* libpfm's perf:: names: say them as perf does ("cpu-clock") */
		struct perf_event_attr plain;
		memset(&plain, 0, sizeof(plain));
		plain.type = enc.type;
		plain.config = enc.config;
		mp_event_attr_name(&plain, ev->resolved, sizeof(ev->resolved));
	}
	snprintf(ev->pmu, sizeof(ev->pmu), "%s", enc.pmu[0] ? enc.pmu : (model ? model : ""));
	return 0;
}

/* Resolve a generic name; 1 = not generic. */
static int resolve_generic(const char *spec, const char *name, const struct shape *sh,
			   struct mp_event *ev, struct mp_err *err)
{
	uint32_t type;
	uint64_t config;
	char canon[128];

	if (!mp_generic_lookup(name, &type, &config, canon, sizeof(canon)))
		return 1;
	if (type == PERF_TYPE_HW_CACHE && !mp_generic_cache_valid(config))
		return mp_err_set(err, -MP_EPARSE,
				  "event '%s': perf has no such cache event ('%s': that cache has no %s operations)",
				  spec, canon,
				  ((config >> 8) & 0xff) == PERF_COUNT_HW_CACHE_OP_WRITE ? "store" : "prefetch");
	if (sh && sh->nattrs)
		return mp_err_set(err, -MP_EPARSE,
				  "event '%s': '%s' is not a modifier (u, k, h, p) or count: the generic event '%s' takes no unit masks",
				  spec, sh->attrs[0], canon);
	if (sh && sh->has_opmask)
		return mp_err_set(err, -MP_EPARSE,
				  "event '%s': unit mask 0x%llx: the generic event '%s' takes no unit masks",
				  spec, (unsigned long long)sh->opmask, canon);
	ev->attr.type = type;
	ev->attr.config = config;
	snprintf(ev->resolved, sizeof(ev->resolved), "%s", canon);
	ev->pmu[0] = 0;
	return 0;
}

static int resolve_alias(const char *spec, const struct shape *sh, const char *model,
			 struct mp_event *ev, struct mp_err *err)
{
	char spelling[300];
	struct mp_alias_row row;
	size_t o;

	o = (size_t)snprintf(spelling, sizeof(spelling), "%s", sh->name);
	for (size_t i = 0; i < sh->nattrs && o < sizeof(spelling); i++)
		if (!strchr(sh->attrs[i], '='))
			o += (size_t)snprintf(spelling + o, sizeof(spelling) - o, ".%s", sh->attrs[i]);
	int found = mp_alias_find(spelling, model, &row);
	if (found == 0)
		return 1;
	char note[256] = "";
	if (found < 0 && is_model_name(model)) {
		/* No table row for this model: its own event of that name comes first. */
		struct mp_err e2 = { 0, "" };
		if (resolve_pfm(spec, model, sh->name, sh, NULL, ev, &e2, 1) == 0)
			return 0;
		memset(ev->resolved, 0, sizeof(ev->resolved));
	}
	if (found < 0) {
		if (!row.model[0])
			return mp_err_set(err, -MP_ENOTSUP,
					  "event '%s': the alias %s has no entry for model %s", spec,
					  row.alias, model);
		snprintf(note, sizeof(note), "no %s entry for model %s, perf generic used%s%s",
			 row.alias, model, row.note[0] ? ": " : "", row.note);
	} else {
		snprintf(note, sizeof(note), "%s", row.note);
	}
	snprintf(ev->alias, sizeof(ev->alias), "%s", row.alias);
	if (!strcmp(row.status, "none") || !strcmp(row.event, "none")) {
		/* The model may still have an event of that very name (nhm LOAD_HIT_PRE). */
		if (is_model_name(model)) {
			struct mp_err e2 = { 0, "" };
			if (resolve_pfm(spec, model, sh->name, sh, NULL, ev, &e2, 1) == 0) {
				ev->alias[0] = 0;
				return 0;
			}
		}
		char closest[300] = "";
		if (row.closest[0])
			snprintf(closest, sizeof(closest), "; closest: %s", row.closest);
		if (found < 0)
			return mp_err_set(err, -MP_ENOTSUP,
					  "event '%s': aliases.tsv has no row of %s for model %s, and perf's generic events have no equivalent (%s)%s",
					  spec, row.alias, model, row.note[0] ? row.note : "no such event",
					  closest);
		return mp_err_set(err, -MP_ENOTSUP,
				  "event '%s': model %s has no equivalent of %s (%s)%s", spec, row.model,
				  row.alias, row.note[0] ? row.note : "no such event", closest);
	}
	if (!strcmp(row.model, "cachegrind"))
		return mp_err_set(err, -MP_ENOTSUP,
				  "event '%s': on cachegrind %s is the simulated count '%s': use --sim", spec,
				  row.alias, row.event);
	if (strstr(row.event, " + ") || strstr(row.event, " - "))
		return mp_err_set(err, -MP_ENOTSUP,
				  "event '%s': on %s, %s is the combination '%s': record those events separately",
				  spec, row.model, row.alias, row.event);
	ev->approx = !strcmp(row.status, "approx") || found < 0;
	snprintf(ev->note, sizeof(ev->note), "%s", note);
	int rc;
	if (!strcmp(row.model, "perf")) {
		rc = resolve_generic(spec, row.event, NULL, ev, err);
		if (rc > 0)
			rc = mp_err_set(err, -MP_EFORMAT, "aliases.tsv: %s for perf: '%s' is no generic event",
					row.alias, row.event);
	} else {
		/* The row's own attributes plus the user's libpfm modifiers (c=2). */
		struct shape sub;
		memset(&sub, 0, sizeof(sub));
		char evbuf[sizeof(row.event)];
		snprintf(evbuf, sizeof(evbuf), "%s", row.event);
		char *colon = strchr(evbuf, ':');
		if (colon)
			*colon = 0;
		for (size_t i = 0; i < sh->nattrs; i++)
			if (strchr(sh->attrs[i], '='))
				sub.attrs[sub.nattrs++] = sh->attrs[i];
		char extra[sizeof(row.event) + 1];
		snprintf(extra, sizeof(extra), "%s%s", colon ? ":" : "", colon ? colon + 1 : "");
		rc = resolve_pfm(spec, row.model, evbuf, &sub, extra, ev, err, 0);
		if (rc < 0)
			mp_err_prefix(err, "alias %s -> %s::%s", row.alias, row.model, row.event);
	}
	if (rc)
		return rc;
	snprintf(ev->alias, sizeof(ev->alias), "%s", row.alias);
	return 0;
}

static int resolve_name(const char *spec, struct shape *sh, const struct mp_evopts *opts,
			struct mp_event *ev, struct mp_err *err)
{
	char host[64];
	const char *model = sh->model;
	int rc;

	if (!model) {
		if (!sh->nattrs && is_raw(sh->name)) {
			if (sh->has_opmask)
				return mp_err_set(err, -MP_EPARSE,
						  "event '%s': a raw event takes no unit mask", spec);
			ev->attr.type = PERF_TYPE_RAW;
			ev->attr.config = strtoull(sh->name + 1, NULL, 16);
			snprintf(ev->resolved, sizeof(ev->resolved), "%s", sh->name);
			return 0;
		}
		/* "L1D:REPLACEMENT" is libpfm's, though bare "l1d" is perf's L1-dcache. */
		struct mp_err gen_err = { 0, "" };
		int generic = resolve_generic(spec, sh->name, sh, ev, &gen_err);
		if (generic == 0 || (generic < 0 && !sh->nattrs)) {
			if (err)
				*err = gen_err;
			return generic;
		}
		mp_events_host_model(opts, host, sizeof(host));
		if (is_model_name(host) && !mp_pfm_model_known(host) && !mp_pmu_pmuv3(host) &&
		    mp_pfm_unavailable())
			return mp_err_set(err, -MP_ENOTSUP, "event '%s': %s", spec,
					  mp_pfm_unavailable());
		if (is_model_name(host) && !mp_pfm_model_known(host) && !mp_pmu_pmuv3(host))
			return mp_err_set(err, -MP_EPARSE,
					  "event '%s': unknown PMU model '%s' (memprof list --models names them)",
					  spec, host);
		rc = resolve_alias(spec, sh, host, ev, err);
		if (rc <= 0)
			return rc;
		if (is_model_name(host)) {
			rc = resolve_pfm(spec, host, sh->name, sh, NULL, ev, err, 1);
			if (rc <= 0)
				goto pfm_done;
			/* Another active libpfm PMU (uncore, RAPL) may know it. */
			if (!opts || !opts->pmu_model) {
				rc = resolve_pfm(spec, NULL, sh->name, sh, NULL, ev, err, 1);
				if (rc <= 0)
					goto pfm_done;
			}
		}
		if (!sh->nattrs) {
			rc = mp_sysfs_find_named(spec, sh->name, opts, ev, err);
			if (rc)
				return rc < 0 ? rc : 0;
		}
		if (generic < 0) {
			if (err)
				*err = gen_err;
			return generic;
		}
		if (!is_model_name(host) && mp_pfm_unavailable())
			return mp_err_set(err, -MP_EPARSE, "event '%s': unknown event (%s)", spec,
					  mp_pfm_unavailable());
		if (!is_model_name(host))
			return mp_err_set(err, -MP_EPARSE,
					  "event '%s': unknown event (no libpfm4 model: only generic, raw and sysfs events here)",
					  spec);
		return resolve_pfm(spec, host, sh->name, sh, NULL, ev, err, 0);
	}
	if (!strcmp(model, "perf")) {
		rc = resolve_generic(spec, sh->name, sh, ev, err);
		if (rc <= 0)
			return rc;
	}
	if (!mp_pfm_model_known(model) && !mp_pmu_pmuv3(model) && mp_pfm_unavailable())
		return mp_err_set(err, -MP_ENOTSUP, "event '%s': %s", spec, mp_pfm_unavailable());
	if (!mp_pfm_model_known(model) && !mp_pmu_pmuv3(model))
		return mp_err_set(err, -MP_EPARSE,
				  "event '%s': unknown PMU model '%s' (memprof list --models names them)",
				  spec, model);
	rc = resolve_pfm(spec, model, sh->name, sh, NULL, ev, err, 0);
pfm_done:
	if (rc)
		return rc;
	if (sh->has_opmask) {
		/* oprofile's numeric unit mask: bits 8-15 of the x86 event select. */
		if (ev->attr.type != PERF_TYPE_RAW)
			return mp_err_set(err, -MP_EPARSE,
					  "event '%s': a numeric unit mask needs an x86 PMU event", spec);
		ev->attr.config = (ev->attr.config & ~0xff00ULL) | (sh->opmask << 8);
		size_t l = strlen(ev->resolved);
		snprintf(ev->resolved + l, sizeof(ev->resolved) - l, ":umask=0x%llx",
			 (unsigned long long)sh->opmask);
	}
	return 0;
}

static void add_suffix(struct mp_event *ev, const struct mods *m, int op_k, int op_u)
{
	char s[8];
	size_t n = 0;
	if (m->u || m->k || m->h || op_k >= 0 || op_u >= 0) {
		int u = !ev->attr.exclude_user, k = !ev->attr.exclude_kernel;
		if (u != k || m->h) {
			if (u)
				s[n++] = 'u';
			if (k)
				s[n++] = 'k';
			if (m->h)
				s[n++] = 'h';
		}
	}
	for (int i = 0; i < m->p; i++)
		s[n++] = 'p';
	s[n] = 0;
	if (n) {
		size_t l = strlen(ev->resolved);
		snprintf(ev->resolved + l, sizeof(ev->resolved) - l, ":%s", s);
	}
}

static int set_period(const char *spec, struct mp_event *ev, int has_count, uint64_t count,
		      const struct mp_evopts *opts, struct mp_err *err)
{
	enum mp_evclass c = mp_ev_class(ev);
	/* the event's own minimum where oprofile's list gives one, else its kind's */
	uint64_t own_min = mp_pmu_event_min(ev->resolved);
	char what[300];
	ev->min_count = own_min ? own_min : mp_ev_class_min(c);
	if (own_min)
		snprintf(what, sizeof(what), "%s (its own, events/pmu_models.tsv)", ev->resolved);
	else
		snprintf(what, sizeof(what), "a %s", mp_ev_class_name(c));
	if (opts && opts->count_only) {
		ev->attr.sample_period = 0;
		ev->attr.freq = 0;
		return 0;
	}
	if (!has_count && opts && opts->default_count) {
		has_count = 1;
		count = opts->default_count;
	}
	if (has_count) {
		if (count == 0)
			return mp_err_set(err, -MP_EPARSE, "event '%s': count 0: the count must be at least %llu",
					  spec, (unsigned long long)ev->min_count);
		if (count < ev->min_count)
			return mp_err_set(err, -MP_EPARSE,
					  "event '%s': count %llu is below the minimum %llu for %s (use %llu or more)",
					  spec, (unsigned long long)count, (unsigned long long)ev->min_count,
					  what, (unsigned long long)ev->min_count);
		if (count >> 63)
			return mp_err_set(err, -MP_EPARSE, "event '%s': count %llu is too large", spec,
					  (unsigned long long)count);
		ev->attr.sample_period = count;
		ev->attr.freq = 0;
		return 0;
	}
	if (opts && opts->freq_hz) {
		ev->attr.freq = 1;
		ev->attr.sample_freq = opts->freq_hz;
		return 0;
	}
	ev->attr.sample_period = mp_ev_class_default(c) > ev->min_count ? mp_ev_class_default(c)
									 : ev->min_count;
	return 0;
}

static void set_kind(struct mp_event *ev)
{
	switch (ev->attr.type) {
	case PERF_TYPE_SOFTWARE:
	case PERF_TYPE_TRACEPOINT:
	case PERF_TYPE_BREAKPOINT:
		ev->kind = MP_EV_SOFTWARE;
		break;
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
		ev->kind = MP_EV_HARDWARE;
		break;
	default:
		ev->kind = MP_EV_PMU;
	}
}

int mp_event_parse(const char *spec, const struct mp_evopts *opts, struct mp_event *ev,
		   struct mp_err *err)
{
	char body[256];
	const char *s = spec;
	int rc;

	memset(ev, 0, sizeof(*ev));
	if (!spec)
		return mp_err_set(err, -EINVAL, "no event given");
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n == 0)
		return mp_err_set(err, -MP_EPARSE, "empty event name");
	if (n >= sizeof(ev->spec))
		return mp_err_set(err, -MP_EPARSE, "event '%.40s...': too long (at most %zu characters)",
				  s, sizeof(ev->spec) - 1);
	memcpy(ev->spec, s, n);
	ev->spec[n] = 0;
	spec = ev->spec;
	for (const char *q = spec; *q; q++)
		if (!isprint((unsigned char)*q) || *q == ' ')
			return mp_err_set(err, -MP_EPARSE, "event '%s': unexpected character 0x%02x",
					  spec, (unsigned char)*q);
	ev->attr.size = sizeof(ev->attr);

	const char *last_slash = strrchr(spec, '/');
	if (last_slash) {
		/* PMU/terms/[mods][:COUNT] */
		uint64_t period = 0;
		int has_period = 0;
		char pmuspec[256];
		size_t pl = (size_t)(last_slash - spec) + 1;
		memcpy(pmuspec, spec, pl);
		pmuspec[pl] = 0;
		rc = mp_sysfs_parse(spec, pmuspec, opts, ev, &period, &has_period, err);
		if (rc)
			return rc;
		struct mods m = { 0, 0, 0, 0, 0 };
		const char *t = last_slash + 1;
		if (*t == ':')
			t++;
		while (*t) {
			char f[64];
			const char *c = strchr(t, ':');
			size_t fl = c ? (size_t)(c - t) : strlen(t);
			if (fl == 0 || fl >= sizeof(f))
				return mp_err_set(err, -MP_EPARSE, "event '%s': bad modifier '%s'", spec, t);
			memcpy(f, t, fl);
			f[fl] = 0;
			if (is_decimal(f)) {
				if (parse_u64(f, &period))
					return mp_err_set(err, -MP_EPARSE, "event '%s': bad count '%s'", spec, f);
				has_period = 1;
			} else if (!is_mod(f) || add_mods(f, &m)) {
				return mp_err_set(err, -MP_EPARSE,
						  "event '%s': '%s' after the PMU terms is not a modifier (u, k, h, p) or count",
						  spec, f);
			}
			t += fl;
			if (*t == ':')
				t++;
		}
		apply_mods(&ev->attr, &m);
		add_suffix(ev, &m, -1, -1);
		set_kind(ev);
		return set_period(spec, ev, has_period, period, opts, err);
	}

	struct mp_err tp_err = { 0, "" };
	rc = mp_tp_parse(spec, opts, ev, &tp_err);
	if (rc < 0 && err)
		*err = tp_err;
	if (rc == 0 && opts && opts->count_only)
		ev->attr.sample_period = 0;
	else if (rc == 0 && opts && (opts->default_count || opts->freq_hz))
		/* perf's: a tracepoint samples every hit unless -c or -F says otherwise */
		return set_period(spec, ev, 0, 0, opts, err);
	if (rc <= 0)
		return rc;
	snprintf(body, sizeof(body), "%s", spec);
	struct shape sh;
	rc = split_shape(spec, body, &sh, err);
	if (rc)
		return rc;
	rc = resolve_name(spec, &sh, opts, ev, err);
	/* A tracepoint's spelling, and tracefs could not be read: say so, unless the name is
	 * perf's generic event ("cycles:foo"), whose own message names the bad part. */
	uint32_t gtype;
	uint64_t gconfig;
	char gcanon[64];
	if (rc && tp_err.code &&
	    !mp_generic_lookup(sh.name, &gtype, &gconfig, gcanon, sizeof(gcanon)))
		return mp_err_set(err, rc, "event '%s': unknown event; %s", spec, tp_err.msg);
	if (rc)
		return rc;
	apply_mods(&ev->attr, &sh.mods);
	if (sh.op_kernel >= 0)
		ev->attr.exclude_kernel = !sh.op_kernel;
	if (sh.op_user >= 0)
		ev->attr.exclude_user = !sh.op_user;
	if (ev->attr.exclude_user && ev->attr.exclude_kernel && !sh.mods.h)
		return mp_err_set(err, -MP_EPARSE, "event '%s': counts neither user nor kernel space",
				  spec);
	add_suffix(ev, &sh.mods, sh.op_kernel, sh.op_user);
	set_kind(ev);
	return set_period(spec, ev, sh.has_count, sh.count, opts, err);
}
