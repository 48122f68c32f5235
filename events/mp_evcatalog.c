/* mp_evcatalog.c - memprof list: every event a user can type, with descriptions, unit
 * masks, default and minimum counts, the aliases, and whether the kernel opens it here. */
#include <linux/perf_event.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mp_events_internal.h"
#include "mp_pfm_api.h"

struct cat {
	FILE *f;
	const char *pattern;
	const char *model;   /* the model listed */
	int native;          /* model is this machine's: probing means something */
	struct mp_evopts opts;
	int matched;
	int header_done;
	unsigned flags;
};

static void attr_line(const struct cat *c, const struct mp_event *ev, const char *indent)
{
	if (!(c->flags & MP_LIST_ATTR))
		return;
	fprintf(c->f, "%sattr: type %u config 0x%llx config1 0x%llx config2 0x%llx\n", indent,
		ev->attr.type, (unsigned long long)ev->attr.config,
		(unsigned long long)ev->attr.config1, (unsigned long long)ev->attr.config2);
}

static int matches(const struct cat *c, const char *s)
{
	if (!c->pattern || !*c->pattern)
		return 1;
	if (strpbrk(c->pattern, "*?["))
		return fnmatch(c->pattern, s, FNM_CASEFOLD) == 0;
	return strcasestr(s, c->pattern) != NULL;
}

static void section(struct cat *c, const char *title)
{
	if (!c->header_done) {
		fprintf(c->f, "\n%s\n", title);
		c->header_done = 1;
	}
}

/* "yes", or "no (reason)" from a probe of ev. */
static void here(const struct cat *c, const struct mp_event *ev, char *buf, size_t len)
{
	struct mp_err e = { 0, "" };
	struct mp_host_caps caps;

	if (!c->native && ev->kind == MP_EV_PMU) {
		snprintf(buf, len, "n/a (not this machine's model)");
		return;
	}
	int rc = mp_event_probe(ev, &e);
	if (!rc) {
		snprintf(buf, len, "yes");
		return;
	}
	if (rc == -EINVAL || rc == -EOPNOTSUPP) {
		/* some PMUs count but cannot sample (msr/tsc/) */
		struct mp_event counting = *ev;
		counting.attr.sample_period = 0;
		counting.attr.freq = 0;
		if (!mp_event_probe(&counting, &e)) {
			snprintf(buf, len, "count only (memprof stat)");
			return;
		}
	}
	mp_events_host_caps(&c->opts, &caps);
	switch (-rc) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		snprintf(buf, len, "no (%s)", !caps.has_cpu_pmu && ev->kind != MP_EV_SOFTWARE
						   ? "no hardware counters here"
						   : "not supported by the kernel");
		break;
	case EACCES:
	case EPERM:
		snprintf(buf, len, "no (permission: perf_event_paranoid=%d)", caps.perf_event_paranoid);
		break;
	default:
		snprintf(buf, len, "no (%s)", strerror(-rc));
	}
}

static void counts(const struct mp_event *ev, char *buf, size_t len)
{
	snprintf(buf, len, "%7llu %6llu", (unsigned long long)mp_event_default_count(ev),
		 (unsigned long long)ev->min_count);
}

static void list_generic(struct cat *c)
{
	static const struct { uint32_t type; const char *title; } kinds[] = {
		{ PERF_TYPE_HARDWARE, "Generic hardware events (perf names; the kernel maps them to the host PMU):" },
		{ PERF_TYPE_SOFTWARE, "Software events (counted by the kernel, available without a PMU):" },
	};
	for (size_t k = 0; k < 2; k++) {
		c->header_done = 0;
		for (size_t i = 0; i < mp_generic_nevents; i++) {
			const struct mp_generic *g = &mp_generic_events[i];
			if (g->type != kinds[k].type)
				continue;
			/* print each config once, with its synonyms */
			int first = 1;
			for (size_t j = 0; j < i; j++)
				if (mp_generic_events[j].type == g->type &&
				    mp_generic_events[j].config == g->config)
					first = 0;
			if (!first)
				continue;
			char names[96];
			size_t o = 0;
			int any = 0;
			names[0] = 0;
			for (size_t j = i; j < mp_generic_nevents; j++) {
				const struct mp_generic *s = &mp_generic_events[j];
				if (s->type != g->type || s->config != g->config)
					continue;
				any |= matches(c, s->name);
				o += (size_t)snprintf(names + o, sizeof(names) - o, "%s%s", o ? ", " : "",
						      s->name);
				if (o >= sizeof(names))
					break;
			}
			if (!any)
				continue;
			struct mp_event ev;
			struct mp_err e = { 0, "" };
			if (mp_event_parse(g->name, &c->opts, &ev, &e))
				continue;
			char h[96], cn[32];
			section(c, kinds[k].title);
			if (c->header_done == 1) {
				fprintf(c->f, "  %-46s %-44s %7s %6s  %s\n", "name", "description", "default",
					"min", "opens here");
				c->header_done = 2;
			}
			here(c, &ev, h, sizeof(h));
			counts(&ev, cn, sizeof(cn));
			fprintf(c->f, "  %-46s %-44.44s %s  %s\n", names, g->desc, cn, h);
			attr_line(c, &ev, "      ");
			c->matched++;
		}
	}
	c->header_done = 0;
	unsigned nc, no, nr;
	mp_generic_cache_dims(&nc, &no, &nr);
	for (unsigned ci = 0; ci < nc; ci++)
		for (unsigned oi = 0; oi < no; oi++)
			for (unsigned ri = 0; ri < nr; ri++) {
				char name[64];
				uint64_t cfg = ci | (oi << 8) | ((uint64_t)ri << 16);
				mp_generic_cache_name(cfg, name, sizeof(name));
				if (!mp_generic_cache_valid(cfg) || !matches(c, name))
					continue;
				struct mp_event ev;
				struct mp_err e = { 0, "" };
				if (mp_event_parse(name, &c->opts, &ev, &e))
					continue;
				char h[96], cn[32];
				section(c, "Hardware cache events (perf names: CACHE-OP[-misses]):");
				here(c, &ev, h, sizeof(h));
				counts(&ev, cn, sizeof(cn));
				fprintf(c->f, "  %-46s %-44s %s  %s\n", name, "", cn, h);
				attr_line(c, &ev, "      ");
				c->matched++;
			}
}

static void list_aliases(struct cat *c)
{
	char title[160];
	snprintf(title, sizeof(title),
		 "Portable aliases (the article's Core 2 names, events/aliases.tsv) on %s:", c->model);
	c->header_done = 0;
	size_t n = mp_alias_count();
	for (size_t i = 0; i < n; i++) {
		struct mp_alias_row r;
		if (mp_alias_get(i, &r))
			continue;
		/* one line per alias: the row for this model, else the perf row */
		int first = 1;
		for (size_t j = 0; j < i && first; j++) {
			struct mp_alias_row q;
			if (!mp_alias_get(j, &q) && !strcmp(q.alias, r.alias))
				first = 0;
		}
		if (!first)
			continue;
		if (!matches(c, r.alias))
			continue;
		struct mp_alias_row row;
		int found = mp_alias_find(r.alias, c->model, &row);
		section(c, title);
		char what[700];
		if (found < 0)
			snprintf(what, sizeof(what), "(no %s entry) perf: %s [%s]", c->model, row.event,
				 row.status);
		else if (!strcmp(row.status, "none"))
			snprintf(what, sizeof(what), "none%s%s", row.closest[0] ? "; closest: " : "",
				 row.closest);
		else
			snprintf(what, sizeof(what), "%s [%s]", row.event, row.status);
		fprintf(c->f, "  %-24s -> %s\n", r.alias, what);
		if (row.note[0])
			fprintf(c->f, "  %-24s    %s\n", "", row.note);
		if (strcmp(row.status, "none") && !strstr(row.event, " + ") &&
		    !strstr(row.event, " - ") && strcmp(row.model, "cachegrind")) {
			struct mp_event ev;
			struct mp_err e = { 0, "" };
			if (!mp_event_parse(r.alias, &c->opts, &ev, &e)) {
				char h[96], cn[32];
				here(c, &ev, h, sizeof(h));
				counts(&ev, cn, sizeof(cn));
				fprintf(c->f, "  %-24s    = %s  default/min %s  opens here: %s\n", "",
					ev.resolved, cn, h);
				attr_line(c, &ev, "                              ");
			} else {
				fprintf(c->f, "  %-24s    cannot encode: %s\n", "", e.msg);
			}
		}
		c->matched++;
	}
}

/* Attribute a of event idx into ai if it is a unit mask, with "EVENT:UMASK" in full; 1 if so. */
static int umask_at(const struct mp_pfm_api *pfm, int idx, int a, const char *event,
		    pfm_event_attr_info_t *ai, char *full, size_t len)
{
	memset(ai, 0, sizeof(*ai));
	ai->size = sizeof(*ai);
	if (pfm->get_event_attr_info(idx, a, PFM_OS_PERF_EVENT_EXT, ai) != PFM_SUCCESS ||
	    ai->type != PFM_ATTR_UMASK)
		return 0;
	snprintf(full, len, "%s:%s", event, ai->name);
	return 1;
}

static int pfm_event_cb(int idx, void *ctx)
{
	struct cat *c = ctx;
	const struct mp_pfm_api *pfm = mp_pfm_api();
	pfm_event_info_t ei;
	memset(&ei, 0, sizeof(ei));
	ei.size = sizeof(ei);
	if (!pfm || pfm->get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &ei) != PFM_SUCCESS)
		return 0;
	int name_match = matches(c, ei.name);
	int any_umask = 0;
	for (int a = 0; a < ei.nattrs && !name_match && !any_umask; a++) {
		pfm_event_attr_info_t ai;
		char full[256];
		if (umask_at(pfm, idx, a, ei.name, &ai, full, sizeof(full)))
			any_umask = matches(c, full);
	}
	if (!name_match && !any_umask)
		return 0;
	char title[128];
	snprintf(title, sizeof(title), "%s events (libpfm4; unit masks with ':' or '.'):", c->model);
	section(c, title);
	char spec[256], h[96] = "", cn[32] = "";
	snprintf(spec, sizeof(spec), "%s::%s", c->model, ei.name);
	struct mp_event ev;
	struct mp_err e = { 0, "" };
	if (!mp_event_parse(spec, &c->opts, &ev, &e)) {
		here(c, &ev, h, sizeof(h));
		counts(&ev, cn, sizeof(cn));
		fprintf(c->f, "  %-40s default/min %s  opens here: %s\n", ei.name, cn, h);
		attr_line(c, &ev, "      ");
	} else {
		fprintf(c->f, "  %-40s (needs a unit mask)\n", ei.name);
	}
	if (ei.desc)
		fprintf(c->f, "      %s\n", ei.desc);
	if (ei.equiv)
		fprintf(c->f, "      same as %s\n", ei.equiv);
	for (int a = 0; a < ei.nattrs; a++) {
		pfm_event_attr_info_t ai;
		char full[256];
		if (!umask_at(pfm, idx, a, ei.name, &ai, full, sizeof(full)))
			continue;
		if (!name_match && !matches(c, full))
			continue;
		fprintf(c->f, "      :%-32s %s%s\n", ai.name, ai.desc ? ai.desc : "",
			ai.is_dfl ? " (default)" : "");
	}
	c->matched++;
	return 0;
}

static void list_sysfs(struct cat *c)
{
	char dir[512];
	DIR *d;
	struct dirent *de;

	c->header_done = 0;
	snprintf(dir, sizeof(dir), "%s/bus/event_source/devices", mp_sysfs_root(&c->opts));
	d = opendir(dir);
	if (!d)
		return;
	/* readdir order is arbitrary: collect and sort for a stable listing */
	char **names = NULL;
	size_t n = 0, cap = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char evdir[1024];
		snprintf(evdir, sizeof(evdir), "%s/%s/events", dir, de->d_name);
		DIR *e = opendir(evdir);
		if (!e)
			continue;
		struct dirent *ee;
		while ((ee = readdir(e))) {
			if (ee->d_name[0] == '.' || strchr(ee->d_name, '.'))
				continue; /* skip .scale/.unit companions */
			if (MP_GROW(names, cap, n + 1))
				break;
			char buf[600];
			snprintf(buf, sizeof(buf), "%s/%s/", de->d_name, ee->d_name);
			names[n] = strdup(buf);
			if (names[n])
				n++;
		}
		closedir(e);
	}
	closedir(d);
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *t = names[j];
			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	for (size_t i = 0; i < n; i++) {
		if (matches(c, names[i])) {
			struct mp_event ev;
			struct mp_err e = { 0, "" };
			section(c, "Sysfs PMU events (named by the kernel under bus/event_source/devices):");
			if (!mp_event_parse(names[i], &c->opts, &ev, &e)) {
				char h[96], cn[32];
				struct cat native = *c;
				native.native = 1;
				here(&native, &ev, h, sizeof(h));
				counts(&ev, cn, sizeof(cn));
				fprintf(c->f, "  %-40s type %u config 0x%llx  default/min %s  opens here: %s\n",
					names[i], ev.attr.type, (unsigned long long)ev.attr.config, cn, h);
			} else {
				fprintf(c->f, "  %-40s %s\n", names[i], e.msg);
			}
			c->matched++;
		}
		free(names[i]);
	}
	free(names);
}

int mp_events_list(FILE *f, const char *model, const char *pattern, struct mp_err *err)
{
	return mp_events_list_ex(f, model, pattern, 0, err);
}

int mp_events_model_check(const char *model, struct mp_err *err)
{
	if (!strcmp(model, "perf") || mp_pfm_model_known(model) || mp_pmu_pmuv3(model))
		return 0;
	return mp_err_set(err, -ENOENT, "unknown PMU model '%s' (memprof list --models names them)",
			  model);
}

int mp_events_list_ex(FILE *f, const char *model, const char *pattern, unsigned flags,
		      struct mp_err *err)
{
	struct cat c;
	char host[64], detected[64];
	struct mp_host_caps caps;

	memset(&c, 0, sizeof(c));
	c.f = f;
	c.pattern = pattern;
	c.flags = flags;
	mp_events_host_model(NULL, host, sizeof(host));
	if (model && *model && mp_events_model_check(model, err))
		return err->code;
	c.model = model && *model ? model : host;
	c.opts.pmu_model = c.model;
	if (!mp_pfm_detected(detected, sizeof(detected)))
		snprintf(detected, sizeof(detected), "perf");
	c.native = !strcasecmp(c.model, detected);
	mp_events_host_caps(NULL, &caps);
	fprintf(f, "Events for model %s (this machine: %s; hardware counters: %s%s%s)\n", c.model,
		detected, caps.has_cpu_pmu ? "PMU " : "none, no cpu PMU under ",
		caps.has_cpu_pmu ? caps.cpu_pmu : mp_sysfs_root(NULL),
		caps.has_cpu_pmu ? "" : "/bus/event_source/devices");
	if (mp_pfm_unavailable())
		fprintf(f, "No libpfm4 events: %s\n", mp_pfm_unavailable());
	fprintf(f, "Spellings: perf generic names, MODEL::EVENT:UMASK or EVENT.UMASK, rHEX, PMU/terms/,\n"
		   "  modifiers :u :k :p, NAME:COUNT, oprofile NAME:COUNT:UNITMASK:KERNEL:USER (docs/events.md).\n"
		   "Groups: {EV1,EV2,...}[:MODS] as perf writes them, the modifiers applying to every\n"
		   "  member (all the events of a run form one group anyway); {EV1,EV2,...}:S leader\n"
		   "  sampling: only EV1 samples and each sample reads the group's counts.\n");
	fprintf(f, "Counts (-c): default and minimum per kind of event:\n");
	for (int k = MP_CLS_FREQUENT; k <= MP_CLS_RARE_SW; k++)
		fprintf(f, "  %-28s default %7llu  minimum %6llu\n", mp_ev_class_name((enum mp_evclass)k),
			(unsigned long long)mp_ev_class_default((enum mp_evclass)k),
			(unsigned long long)mp_ev_class_min((enum mp_evclass)k));
	list_generic(&c);
	list_aliases(&c);
	if (strcmp(c.model, "perf")) {
		c.header_done = 0;
		mp_pfm_foreach_event(c.model, pfm_event_cb, &c);
	}
	list_sysfs(&c);
	if (!c.matched)
		return mp_err_set(err, -ENOENT, "no event matches '%s' for model %s",
				  pattern ? pattern : "", c.model);
	return 0;
}

int mp_events_list_models(FILE *f, struct mp_err *err)
{
	char detected[64];
	int n = 0;

	const struct mp_pfm_api *pfm = mp_pfm_api();
	if (!pfm)
		return mp_err_set(err, -MP_ENOTSUP, "%s", mp_pfm_unavailable());
	if (!mp_pfm_detected(detected, sizeof(detected)))
		detected[0] = 0;
	fprintf(f, "libpfm4 PMU models (use with --pmu MODEL or MODEL::EVENT):\n");
	for (int p = 0; p < PFM_PMU_MAX; p++) {
		pfm_pmu_info_t pi;
		memset(&pi, 0, sizeof(pi));
		pi.size = sizeof(pi);
		if (pfm->get_pmu_info((pfm_pmu_t)p, &pi) != PFM_SUCCESS || !pi.name)
			continue;
		fprintf(f, "  %-24s %-44s %s\n", pi.name, pi.desc ? pi.desc : "",
			!strcmp(pi.name, detected) ? "(this machine)" : "");
		n++;
	}
	return n;
}
