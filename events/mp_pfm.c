/* mp_pfm.c - the libpfm4 side: encode model::EVENT:UMASK strings, name models, explain
 * what libpfm refused. linux/perf_event.h comes first so that libpfm's copy steps aside. */
#include <linux/perf_event.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mp_events_internal.h"
#include "mp_pfm_api.h"

/* Set once, under pfm_once: the loaded functions and why they are not there. */
static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_init_rc = PFM_ERR_NOINIT;
static struct mp_pfm_api pfm_fns;
static struct mp_err pfm_load_err;

#define PFM_SYM(f) { "pfm_" #f, offsetof(struct mp_pfm_api, f) }

static int pfm_load(void)
{
#ifdef MP_PFM_DLOPEN
	static const struct mp_dlib_sym syms[] = {
		PFM_SYM(initialize),     PFM_SYM(strerror),       PFM_SYM(get_pmu_info),
		PFM_SYM(get_event_next), PFM_SYM(find_event),     PFM_SYM(get_event_info),
		PFM_SYM(get_os_event_encoding), PFM_SYM(get_event_attr_info),
	};
	if (!mp_dlib_open(MP_PFM_SONAME, "libpfm4, for PMU models and their events", syms,
			  sizeof(syms) / sizeof(syms[0]), &pfm_fns, &pfm_load_err))
		return -1;
#else
	pfm_fns = (struct mp_pfm_api){ pfm_initialize,     pfm_strerror,   pfm_get_pmu_info,
				       pfm_get_event_next, pfm_find_event, pfm_get_event_info,
				       pfm_get_os_event_encoding, pfm_get_event_attr_info };
#endif
	return 0;
}

static void pfm_do_init(void)
{
	if (pfm_load())
		return;
	/* libpfm reads its environment once, in pfm_initialize(). Encoding for a model that
	 * is not the host's ("skl::L1D:REPLACEMENT" on an AMD machine, memprof list --pmu)
	 * needs LIBPFM_ENCODE_INACTIVE; a user's own setting is kept. */
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 0);
	pfm_init_rc = pfm_fns.initialize();
	if (pfm_init_rc != PFM_SUCCESS)
		mp_err_set(&pfm_load_err, -MP_ENOTSUP, "libpfm4 failed to initialise: %s",
			   pfm_fns.strerror(pfm_init_rc));
}

int mp_pfm_init(void)
{
	pthread_once(&pfm_once, pfm_do_init);
	return pfm_init_rc == PFM_SUCCESS ? 0 : -MP_ENOTSUP;
}

const struct mp_pfm_api *mp_pfm_api(void)
{
	return mp_pfm_init() ? NULL : &pfm_fns;
}

const char *mp_pfm_unavailable(void)
{
	return mp_pfm_init() ? pfm_load_err.msg : NULL;
}

const char *mp_pfm_strerror(int code)
{
	if (mp_pfm_init())
		return pfm_load_err.msg;
	return pfm_fns.strerror(code);
}

static int pmu_info(int p, pfm_pmu_info_t *pi)
{
	memset(pi, 0, sizeof(*pi));
	pi->size = sizeof(*pi);
	return pfm_fns.get_pmu_info((pfm_pmu_t)p, pi);
}

static int find_pmu(const char *model, pfm_pmu_info_t *out)
{
	pfm_pmu_info_t pi;
	for (int p = 0; p < PFM_PMU_MAX; p++)
		if (pmu_info(p, &pi) == PFM_SUCCESS && pi.name && !strcasecmp(pi.name, model)) {
			if (out)
				*out = pi;
			return p;
		}
	return -1;
}

const char *mp_pfm_detected(char *buf, size_t len)
{
	pfm_pmu_info_t pi;
	const char *forced = getenv("LIBPFM_FORCE_PMU");

	if (mp_pfm_init())
		return NULL;
	if (forced && *forced && find_pmu(forced, NULL) >= 0) {
		snprintf(buf, len, "%s", forced);
		return buf;
	}
	for (int p = 0; p < PFM_PMU_MAX; p++) {
		if (pmu_info(p, &pi) != PFM_SUCCESS || !pi.is_present)
			continue;
		if (pi.type != PFM_PMU_TYPE_CORE || !strncmp(pi.name, "perf", 4))
			continue;
		snprintf(buf, len, "%s", pi.name);
		return buf;
	}
	return NULL;
}

int mp_pfm_model_known(const char *model)
{
	if (mp_pfm_init())
		return 0;
	return find_pmu(model, NULL) >= 0;
}

/* Keep "model::EVENT:UMASK" and modifiers that differ from libpfm's defaults (c=6);
 * drop u/k/h/excl/mg/mh/precise, which memprof states with its own suffix. */
static void strip_fstr(const char *in, char *out, size_t len)
{
	static const char *const drop[] = { "u", "k", "h", "excl", "mg", "mh", "precise" };
	const char *sep = strstr(in, "::");
	const char *p = sep ? sep + 2 : in;
	size_t o = 0;

	out[0] = 0;
	if (sep && (size_t)(p - in) < len) {
		memcpy(out, in, (size_t)(p - in));
		o = (size_t)(p - in);
		out[o] = 0;
	}
	for (int first = 1; *p; first = 0) {
		const char *e = strchr(p, ':');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		const char *eq = memchr(p, '=', n);
		int keep = 1;
		if (eq) {
			size_t kl = (size_t)(eq - p);
			if (n == kl + 2 && eq[1] == '0')
				keep = 0;
			for (size_t i = 0; keep && i < sizeof(drop) / sizeof(drop[0]); i++)
				if (strlen(drop[i]) == kl && !strncmp(drop[i], p, kl))
					keep = 0;
		}
		if (keep && o + n + 2 < len) {
			if (!first)
				out[o++] = ':';
			memcpy(out + o, p, n);
			o += n;
			out[o] = 0;
		}
		if (!e)
			break;
		p = e + 1;
	}
}

int mp_pfm_encode(const char *str, struct mp_pfm_enc *enc)
{
	struct perf_event_attr a;
	pfm_perf_encode_arg_t arg;
	char *fstr = NULL;
	int rc;

	memset(enc, 0, sizeof(*enc));
	if (mp_pfm_init())
		return PFM_ERR_NOINIT;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.attr = &a;
	arg.fstr = &fstr;
	rc = pfm_fns.get_os_event_encoding(str, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (rc != PFM_SUCCESS) {
		free(fstr);
		return rc;
	}
	enc->type = a.type;
	enc->config = a.config;
	enc->config1 = a.config1;
	enc->config2 = a.config2;
	enc->exclude_user = a.exclude_user;
	enc->exclude_kernel = a.exclude_kernel;
	enc->exclude_hv = a.exclude_hv;
	enc->precise_ip = a.precise_ip;
	if (fstr) {
		const char *sep = strstr(fstr, "::");
		strip_fstr(fstr, enc->fstr, sizeof(enc->fstr));
		if (sep)
			snprintf(enc->pmu, sizeof(enc->pmu), "%.*s", (int)(sep - fstr), fstr);
	}
	free(fstr);
	return 0;
}

struct suggest {
	const char *want;
	char best[3][96];
	size_t dist[3];
};

static void suggest_add(struct suggest *s, const char *cand)
{
	size_t d = mp_edit_distance(s->want, cand, 0);
	size_t lim = strlen(s->want) / 3 + 1;
	if (d > lim)
		return;
	for (int i = 0; i < 3; i++) {
		if (s->best[i][0] && !strcasecmp(s->best[i], cand))
			return;
		if (!s->best[i][0] || d < s->dist[i]) {
			for (int j = 2; j > i; j--) {
				memcpy(s->best[j], s->best[j - 1], sizeof(s->best[j]));
				s->dist[j] = s->dist[j - 1];
			}
			snprintf(s->best[i], sizeof(s->best[i]), "%s", cand);
			s->dist[i] = d;
			return;
		}
	}
}

static int event_index(const char *model, const char *name)
{
	char full[320];
	snprintf(full, sizeof(full), "%s::%s", model, name);
	return pfm_fns.find_event(full);
}

void mp_pfm_diagnose(const char *model, const char *name, char *const *attrs, size_t nattrs,
		     int code, char *msg, size_t len)
{
	pfm_pmu_info_t pi;
	pfm_event_info_t ei;
	int idx;

	if (mp_pfm_init() || find_pmu(model, &pi) < 0) {
		snprintf(msg, len, "unknown PMU model '%s' (memprof list --models names them)",
			 model);
		return;
	}
	idx = event_index(model, name);
	if (idx < 0) {
		struct suggest s;
		memset(&s, 0, sizeof(s));
		s.want = name;
		for (int i = pi.first_event; i != -1; i = pfm_fns.get_event_next(i)) {
			memset(&ei, 0, sizeof(ei));
			ei.size = sizeof(ei);
			if (pfm_fns.get_event_info(i, PFM_OS_PERF_EVENT_EXT, &ei) == PFM_SUCCESS)
				suggest_add(&s, ei.name);
		}
		for (size_t i = 0; i < mp_alias_count(); i++) {
			struct mp_alias_row r;
			if (!mp_alias_get(i, &r)) {
				char b[64];
				snprintf(b, sizeof(b), "%s", r.alias);
				char *dot = strchr(b, '.');
				if (dot)
					*dot = 0;
				suggest_add(&s, b);
			}
		}
		for (size_t i = 0; i < mp_generic_nevents; i++)
			suggest_add(&s, mp_generic_events[i].name);
		int n = snprintf(msg, len, "unknown event for model %s", model);
		if (s.best[0][0] && n > 0 && (size_t)n < len) {
			n += snprintf(msg + n, len - (size_t)n, " (did you mean %s", s.best[0]);
			for (int i = 1; i < 3 && s.best[i][0] && (size_t)n < len; i++)
				n += snprintf(msg + n, len - (size_t)n, ", %s", s.best[i]);
			if ((size_t)n < len)
				snprintf(msg + n, len - (size_t)n, "?)");
		}
		return;
	}
	memset(&ei, 0, sizeof(ei));
	ei.size = sizeof(ei);
	pfm_fns.get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &ei);
	/* The event exists: find the first attribute libpfm does not know. */
	for (size_t k = 0; k < nattrs; k++) {
		char an[96];
		const char *eq = strchr(attrs[k], '=');
		snprintf(an, sizeof(an), "%.*s", eq ? (int)(eq - attrs[k]) : (int)strlen(attrs[k]),
			 attrs[k]);
		int found = 0;
		for (int a = 0; a < ei.nattrs && !found; a++) {
			pfm_event_attr_info_t ai;
			memset(&ai, 0, sizeof(ai));
			ai.size = sizeof(ai);
			if (pfm_fns.get_event_attr_info(idx, a, PFM_OS_PERF_EVENT_EXT, &ai) ==
				    PFM_SUCCESS &&
			    ai.name && !strcasecmp(ai.name, an))
				found = 1;
		}
		if (found)
			continue;
		int n = snprintf(msg, len, "unknown unit mask '%s' for %s::%s (unit masks:", an,
				 model, ei.name);
		int shown = 0;
		for (int a = 0; a < ei.nattrs && n > 0 && (size_t)n < len; a++) {
			pfm_event_attr_info_t ai;
			memset(&ai, 0, sizeof(ai));
			ai.size = sizeof(ai);
			if (pfm_fns.get_event_attr_info(idx, a, PFM_OS_PERF_EVENT_EXT, &ai) !=
				    PFM_SUCCESS ||
			    ai.type != PFM_ATTR_UMASK)
				continue;
			n += snprintf(msg + n, len - (size_t)n, " %s", ai.name);
			shown++;
		}
		if (n > 0 && (size_t)n < len)
			snprintf(msg + n, len - (size_t)n, "%s)", shown ? "" : " none");
		return;
	}
	snprintf(msg, len, "libpfm cannot encode %s::%s with these unit masks: %s", model,
		 ei.name, pfm_fns.strerror(code));
}

int mp_pfm_foreach_event(const char *model, int (*fn)(int idx, void *ctx), void *ctx)
{
	pfm_pmu_info_t pi;
	int n = 0;

	if (mp_pfm_init() || find_pmu(model, &pi) < 0)
		return -ENOENT;
	for (int i = pi.first_event; i != -1; i = pfm_fns.get_event_next(i)) {
		int rc = fn(i, ctx);
		if (rc < 0)
			return rc;
		n++;
	}
	return n;
}
