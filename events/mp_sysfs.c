/* mp_sysfs.c - PMUs the kernel publishes under <root>/bus/event_source/devices/: their
 * type, the format/ files that place terms into config/config1/config2, and the named
 * events/ (cpu/mem-loads/, armv8_pmuv3/inst_retired/). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mp_events_internal.h"

const char *mp_sysfs_root(const struct mp_evopts *opts)
{
	const char *r = opts && opts->sysfs_root ? opts->sysfs_root : getenv("MEMPROF_SYSFS_ROOT");
	return r && *r ? r : "/sys";
}

static int read_small(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;
	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = 0;
	return (int)n;
}

static void pmu_dir(const struct mp_evopts *opts, const char *pmu, char *buf, size_t len)
{
	snprintf(buf, len, "%s/bus/event_source/devices/%s", mp_sysfs_root(opts), pmu);
}

/* One format: which configN word, and up to 8 bit ranges, low bits first. */
struct fmt {
	int word;
	int nr;
	int lo[8], hi[8];
};

static int parse_format(const char *text, struct fmt *f)
{
	const char *p = text;
	memset(f, 0, sizeof(*f));
	if (!strncmp(p, "config2:", 8))
		f->word = 2, p += 8;
	else if (!strncmp(p, "config1:", 8))
		f->word = 1, p += 8;
	else if (!strncmp(p, "config:", 7))
		f->word = 0, p += 7;
	else
		return -1;
	while (*p && f->nr < 8) {
		char *e;
		long lo = strtol(p, &e, 10), hi = lo;
		if (e == p)
			return -1;
		p = e;
		if (*p == '-') {
			hi = strtol(p + 1, &e, 10);
			if (e == p + 1)
				return -1;
			p = e;
		}
		if (lo < 0 || hi > 63 || hi < lo)
			return -1;
		f->lo[f->nr] = (int)lo;
		f->hi[f->nr] = (int)hi;
		f->nr++;
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return f->nr ? 0 : -1;
}

static __u64 *word_of(struct perf_event_attr *a, int w)
{
	return w == 0 ? &a->config : w == 1 ? &a->config1 : &a->config2;
}

/* Place value into the format's bit ranges; -1 when it does not fit. */
static int place(struct perf_event_attr *a, const struct fmt *f, uint64_t v)
{
	__u64 *w = word_of(a, f->word);
	for (int i = 0; i < f->nr; i++) {
		int bits = f->hi[i] - f->lo[i] + 1;
		uint64_t mask = bits == 64 ? ~0ULL : ((1ULL << bits) - 1);
		*w &= ~(mask << f->lo[i]);
		*w |= (v & mask) << f->lo[i];
		v = bits == 64 ? 0 : v >> bits;
	}
	return v ? -1 : 0;
}

static int fmt_bits(const struct fmt *f)
{
	int n = 0;
	for (int i = 0; i < f->nr; i++)
		n += f->hi[i] - f->lo[i] + 1;
	return n;
}

/* List the format names of a PMU into buf ("event, umask, ..."). */
static void list_formats(const struct mp_evopts *opts, const char *pmu, char *buf, size_t len)
{
	char dir[512];
	DIR *d;
	struct dirent *de;
	size_t o = 0;

	buf[0] = 0;
	pmu_dir(opts, pmu, dir, sizeof(dir));
	strncat(dir, "/format", sizeof(dir) - strlen(dir) - 1);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d)) && o + 2 < len) {
		if (de->d_name[0] == '.')
			continue;
		int n = snprintf(buf + o, len - o, "%s%s", o ? ", " : "", de->d_name);
		if (n < 0)
			break;
		o += (size_t)n;
	}
	closedir(d);
}

static int parse_terms(const char *spec, const char *pmu, const char *terms, int depth,
		       const struct mp_evopts *opts, struct perf_event_attr *a, uint64_t *period,
		       int *has_period, struct mp_err *err);

static int apply_named(const char *spec, const char *pmu, const char *name, int depth,
		       const struct mp_evopts *opts, struct perf_event_attr *a, uint64_t *period,
		       int *has_period, struct mp_err *err)
{
	char path[512], text[512];
	int rc;

	if (strchr(name, '/') || !strcmp(name, "..") || !strcmp(name, "."))
		return 0;
	pmu_dir(opts, pmu, path, sizeof(path));
	strncat(path, "/events/", sizeof(path) - strlen(path) - 1);
	strncat(path, name, sizeof(path) - strlen(path) - 1);
	rc = read_small(path, text, sizeof(text));
	if (rc < 0)
		return 0;
	if (depth > 0)
		return mp_err_set(err, -MP_EPARSE, "event '%s': sysfs event %s/%s refers to another named event",
				  spec, pmu, name);
	rc = parse_terms(spec, pmu, text, depth + 1, opts, a, period, has_period, err);
	return rc < 0 ? rc : 1;
}

static int parse_terms(const char *spec, const char *pmu, const char *terms, int depth,
		       const struct mp_evopts *opts, struct perf_event_attr *a, uint64_t *period,
		       int *has_period, struct mp_err *err)
{
	char buf[512];
	char *rest = buf, *t;

	snprintf(buf, sizeof(buf), "%s", terms);
	while ((t = strsep(&rest, ","))) {
		while (isspace((unsigned char)*t))
			t++;
		if (!*t)
			return mp_err_set(err, -MP_EPARSE, "event '%s': empty term", spec);
		char *eq = strchr(t, '=');
		uint64_t v = 1;
		if (eq) {
			char *e;
			*eq = 0;
			errno = 0;
			if (eq[1] == '-' || !eq[1])
				return mp_err_set(err, -MP_EPARSE, "event '%s': bad value '%s' for term '%s'",
						  spec, eq + 1, t);
			v = strtoull(eq + 1, &e, 0);
			if (errno || *e)
				return mp_err_set(err, -MP_EPARSE, "event '%s': bad value '%s' for term '%s'",
						  spec, eq + 1, t);
		}
		if (!strcmp(t, "config")) {
			a->config = v;
			continue;
		}
		if (!strcmp(t, "config1")) {
			a->config1 = v;
			continue;
		}
		if (!strcmp(t, "config2")) {
			a->config2 = v;
			continue;
		}
		if (!strcmp(t, "period") && eq) {
			*period = v;
			*has_period = 1;
			continue;
		}
		if (!strcmp(t, "name") && eq)
			continue;
		char path[512], text[256];
		struct fmt f;
		if (!strchr(t, '/') && strcmp(t, ".") && strcmp(t, "..")) {
			pmu_dir(opts, pmu, path, sizeof(path));
			strncat(path, "/format/", sizeof(path) - strlen(path) - 1);
			strncat(path, t, sizeof(path) - strlen(path) - 1);
			if (read_small(path, text, sizeof(text)) >= 0) {
				if (parse_format(text, &f))
					return mp_err_set(err, -MP_EFORMAT, "%s: cannot parse format '%s'",
							  path, text);
				if (place(a, &f, v))
					return mp_err_set(err, -MP_EPARSE,
							  "event '%s': value 0x%llx too large for term '%s' (%d bits)",
							  spec, (unsigned long long)v, t, fmt_bits(&f));
				continue;
			}
		}
		if (!eq) {
			int rc = apply_named(spec, pmu, t, depth, opts, a, period, has_period, err);
			if (rc < 0)
				return rc;
			if (rc)
				continue;
		}
		char fl[256];
		list_formats(opts, pmu, fl, sizeof(fl));
		return mp_err_set(err, -MP_EPARSE, "event '%s': unknown term '%s' for PMU %s (%s%s)", spec,
				  t, pmu, fl[0] ? "formats: " : "it has no format/ files", fl);
	}
	return 0;
}

int mp_sysfs_parse(const char *spec, const char *pmuspec, const struct mp_evopts *opts,
		   struct mp_event *ev, uint64_t *period, int *has_period, struct mp_err *err)
{
	char pmu[64], path[512], text[64];
	const char *slash = strchr(pmuspec, '/');
	size_t plen = slash ? (size_t)(slash - pmuspec) : 0;
	size_t tl = strlen(pmuspec);
	char *e;

	if (!slash || plen == 0 || plen >= sizeof(pmu) || tl < plen + 2 || pmuspec[tl - 1] != '/')
		return mp_err_set(err, -MP_EPARSE, "event '%s': expected PMU/terms/ (e.g. cpu/event=0x3c/)",
				  spec);
	memcpy(pmu, pmuspec, plen);
	pmu[plen] = 0;
	if (strstr(pmu, "..") || strchr(pmu, ' '))
		return mp_err_set(err, -MP_EPARSE, "event '%s': bad PMU name '%s'", spec, pmu);
	pmu_dir(opts, pmu, path, sizeof(path));
	strncat(path, "/type", sizeof(path) - strlen(path) - 1);
	if (read_small(path, text, sizeof(text)) < 0)
		return mp_err_set(err, -ENOENT, "event '%s': no PMU '%s' under %s/bus/event_source/devices",
				  spec, pmu, mp_sysfs_root(opts));
	errno = 0;
	unsigned long type = strtoul(text, &e, 10);
	if (errno || e == text || *e || type > 0xffffffffUL)
		return mp_err_set(err, -MP_EFORMAT, "%s: bad PMU type '%s'", path, text);
	ev->attr.type = (uint32_t)type;
	char terms[256];
	size_t n = tl - plen - 2;
	if (n >= sizeof(terms))
		return mp_err_set(err, -MP_EPARSE, "event '%s': terms too long", spec);
	memcpy(terms, slash + 1, n);
	terms[n] = 0;
	if (!n)
		return mp_err_set(err, -MP_EPARSE, "event '%s': no terms between the slashes", spec);
	int rc = parse_terms(spec, pmu, terms, 0, opts, &ev->attr, period, has_period, err);
	if (rc < 0)
		return rc;
	snprintf(ev->pmu, sizeof(ev->pmu), "%s", pmu);
	snprintf(ev->resolved, sizeof(ev->resolved), "%s", pmuspec);
	return 0;
}

int mp_sysfs_find_named(const char *spec, const char *name, const struct mp_evopts *opts,
			struct mp_event *ev, struct mp_err *err)
{
	char dir[512];
	DIR *d;
	struct dirent *de;
	int found = 0;

	if (strchr(name, '/') || name[0] == '.')
		return 0;
	snprintf(dir, sizeof(dir), "%s/bus/event_source/devices", mp_sysfs_root(opts));
	d = opendir(dir);
	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		char path[1024], text[16];
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/events/%s", dir, de->d_name, name);
		if (read_small(path, text, sizeof(text)) < 0)
			continue;
		char pmuspec[256];
		uint64_t period = 0;
		int hp = 0;
		snprintf(pmuspec, sizeof(pmuspec), "%s/%s/", de->d_name, name);
		int rc = mp_sysfs_parse(spec, pmuspec, opts, ev, &period, &hp, err);
		closedir(d);
		return rc < 0 ? rc : 1;
	}
	closedir(d);
	return found;
}

const char *mp_sysfs_pmu_by_type(const struct mp_evopts *opts, uint32_t type, char *buf,
				 size_t len)
{
	char dir[512];
	DIR *d;
	struct dirent *de;
	const char *res = NULL;

	snprintf(dir, sizeof(dir), "%s/bus/event_source/devices", mp_sysfs_root(opts));
	d = opendir(dir);
	if (!d)
		return NULL;
	while (!res && (de = readdir(d))) {
		char path[1024], text[32];
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/type", dir, de->d_name);
		if (read_small(path, text, sizeof(text)) > 0 && strtoul(text, NULL, 10) == type) {
			snprintf(buf, len, "%s", de->d_name);
			res = buf;
		}
	}
	closedir(d);
	return res;
}

int mp_sysfs_has_cpu_pmu(const struct mp_evopts *opts, char *name, size_t len)
{
	char dir[512];
	DIR *d;
	struct dirent *de;
	int found = 0;

	if (name && len)
		name[0] = 0;
	snprintf(dir, sizeof(dir), "%s/bus/event_source/devices", mp_sysfs_root(opts));
	d = opendir(dir);
	if (!d)
		return 0;
	/* "cpu" wins; else the first other core PMU in name order (readdir order varies). */
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		if (mp_pmu_is_core(n)) {
			if (name && len && (!found || !strcmp(n, "cpu") ||
					    (strcmp(name, "cpu") && strcmp(n, name) < 0)))
				snprintf(name, len, "%s", n);
			found = 1;
		}
	}
	closedir(d);
	return found;
}
