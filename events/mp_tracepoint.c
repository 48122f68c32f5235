/* mp_tracepoint.c - the kernel's tracepoints (perf's "subsys:name" events): where tracefs
 * is (<root>/kernel/tracing, else <root>/kernel/debug/tracing, root = mp_sysfs_root), an
 * event's id (attr type PERF_TYPE_TRACEPOINT, config = events/SUBSYS/NAME/id, period 1,
 * RAW samples, as perf), memprof list's tracepoints, and the HEADER_TRACING_DATA payload in
 * perf's layout (its trace-event-info: the event formats perf script decodes RAW with). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mp_events_internal.h"

/* The tracefs events folder into buf: 0, or a negative errno with err naming the path. */
static int tp_events_dir(const struct mp_evopts *opts, char *buf, size_t len, struct mp_err *err)
{
	static const char *const sub[] = { "kernel/tracing", "kernel/debug/tracing" };
	int first = 0;
	for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
		snprintf(buf, len, "%s/%s/events/header_page", mp_sysfs_root(opts), sub[i]);
		if (access(buf, R_OK) == 0) {
			snprintf(buf, len, "%s/%s", mp_sysfs_root(opts), sub[i]);
			return 0;
		}
		if (i == 0)
			first = errno;
	}
	return mp_err_set(err, -first, "tracepoints: cannot read %s/kernel/tracing/events: %s (tracefs mounted and readable, as root?)",
			  mp_sysfs_root(opts), strerror(first));
}

/* "subsys:name" in perf's spelling: lower case, digits, '_' and '-' on both sides. */
static int tp_shaped(const char *spec, size_t *colon)
{
	const char *c = strchr(spec, ':');
	if (!c || c == spec || !c[1] || strchr(c + 1, ':'))
		return 0;
	for (const char *p = spec; *p; p++)
		if (p != c && !islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '_' &&
		    *p != '-')
			return 0;
	*colon = (size_t)(c - spec);
	return 1;
}

int mp_tp_parse(const char *spec, const struct mp_evopts *opts, struct mp_event *ev,
		struct mp_err *err)
{
	char root[4096], path[4400], idbuf[32];
	size_t colon;
	if (!tp_shaped(spec, &colon))
		return 1;
	if (tp_events_dir(opts, root, sizeof(root), err))
		return 1; /* err says why; another kind of event may still have this name */
	snprintf(path, sizeof(path), "%s/events/%.*s/%s/id", root, (int)colon, spec, spec + colon + 1);
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(path, sizeof(path), "%s/events/%.*s", root, (int)colon, spec);
		if (access(path, F_OK))
			return 1; /* no such subsystem: another kind of event (l1d:replacement) */
		return mp_err_set(err, -MP_EPARSE,
				  "event '%s': no tracepoint '%s' in %s (memprof list tracepoint names them)",
				  spec, spec + colon + 1, path);
	}
	unsigned long long id;
	int ok = fgets(idbuf, sizeof(idbuf), f) && sscanf(idbuf, "%llu", &id) == 1;
	fclose(f);
	if (!ok)
		return mp_err_set(err, -MP_EPARSE, "event '%s': %s holds no id", spec, path);
	ev->attr.type = PERF_TYPE_TRACEPOINT;
	ev->attr.config = id;
	ev->attr.sample_period = 1;
	ev->attr.sample_type = PERF_SAMPLE_RAW;
	ev->min_count = 1;
	ev->kind = MP_EV_SOFTWARE;
	snprintf(ev->resolved, sizeof(ev->resolved), "%s", spec);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sorted names of dir's subfolders (skipping "." and ".."); NULL when unreadable. */
static char **subdirs(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	char **v = NULL;
	size_t cap = 0;
	struct dirent *de;
	*n = 0;
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		char p[4400];
		struct stat st;
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		if (stat(p, &st) || !S_ISDIR(st.st_mode))
			continue;
		char *s = strdup(de->d_name);
		if (!s || MP_GROW(v, cap, *n + 1)) {
			free(s);
			break;
		}
		v[(*n)++] = s;
	}
	closedir(d);
	if (v)
		qsort(v, *n, sizeof(*v), by_name);
	return v;
}

static void free_names(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int mp_tp_list(FILE *f, const struct mp_evopts *opts, const char *pattern, struct mp_err *err)
{
	char root[4096], dir[4400];
	int rc = tp_events_dir(opts, root, sizeof(root), err);
	if (rc)
		return rc;
	snprintf(dir, sizeof(dir), "%s/events", root);
	size_t ns, listed = 0;
	char **sys = subdirs(dir, &ns);
	for (size_t i = 0; i < ns; i++) {
		char sdir[4400 + 256];
		size_t ne;
		snprintf(sdir, sizeof(sdir), "%s/%s", dir, sys[i]);
		char **evs = subdirs(sdir, &ne);
		for (size_t j = 0; j < ne; j++) {
			char name[600], id[4400 + 600];
			/* as perf: only the events perf_event_open takes (those with an id) */
			snprintf(id, sizeof(id), "%s/%s/id", sdir, evs[j]);
			if (access(id, R_OK))
				continue;
			snprintf(name, sizeof(name), "%s:%s", sys[i], evs[j]);
			int match = !pattern || !*pattern ||
				    (strpbrk(pattern, "*?[") ? !fnmatch(pattern, name, FNM_CASEFOLD)
							     : strcasestr(name, pattern) != NULL);
			if (match && fprintf(f, "  %-48s [Tracepoint event]\n", name) > 0)
				listed++;
		}
		free_names(evs, ne);
	}
	free_names(sys, ns);
	return (int)listed;
}

/* A file's length as hdr (4 or 8) bytes and its content, as perf's record_file. */
static int add_file(struct mp_buf *b, const char *path, int hdr, int may_miss, struct mp_err *err)
{
	size_t len = 0;
	char *s = mp_read_file(path, &len, err);
	if (!s && !(may_miss && access(path, F_OK)))
		return -EIO;
	uint64_t l64 = s ? len : 0;
	uint32_t l32 = (uint32_t)l64;
	int rc = (hdr == 8 ? mp_buf_append(b, &l64, 8) : mp_buf_append(b, &l32, 4)) ||
		 (len && mp_buf_append(b, s, len));
	free(s);
	return rc ? mp_err_set(err, -ENOMEM, "out of memory") : 0;
}

int mp_tp_tracing_data(const struct mp_event *evs, size_t n, const struct mp_evopts *opts,
		       struct mp_buf *b, struct mp_err *err)
{
	char root[4096], path[4400 + 512];
	/* the subsystems, each once, in the order of the event list */
	const struct mp_event *sys_first[64];
	size_t nsys = 0;
	int rc = tp_events_dir(opts, root, sizeof(root), err);
	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++) {
		if (evs[i].attr.type != PERF_TYPE_TRACEPOINT)
			continue;
		size_t c = strcspn(evs[i].resolved, ":"), k;
		for (k = 0; k < nsys; k++)
			if (!strncmp(sys_first[k]->resolved, evs[i].resolved, c + 1))
				break;
		if (k == nsys && nsys < sizeof(sys_first) / sizeof(sys_first[0]))
			sys_first[nsys++] = &evs[i];
	}
	static const char magic[] = "\027\010\104tracing";
	uint8_t endian_long[2] = { 0, (uint8_t)sizeof(long) };
	uint32_t page = (uint32_t)sysconf(_SC_PAGESIZE), zero = 0, count;
	if (mp_buf_append(b, magic, 10) || mp_buf_append(b, "0.6", 4) ||
	    mp_buf_append(b, endian_long, 2) || mp_buf_append(b, &page, 4))
		return mp_err_set(err, -ENOMEM, "out of memory");
	if (mp_buf_append(b, "header_page", 12))
		return mp_err_set(err, -ENOMEM, "out of memory");
	snprintf(path, sizeof(path), "%s/events/header_page", root);
	if ((rc = add_file(b, path, 8, 0, err)))
		return rc;
	if (mp_buf_append(b, "header_event", 13))
		return mp_err_set(err, -ENOMEM, "out of memory");
	snprintf(path, sizeof(path), "%s/events/header_event", root);
	if ((rc = add_file(b, path, 8, 0, err)))
		return rc;
	/* ftrace's own formats: none of them is recorded */
	if (mp_buf_append(b, &zero, 4))
		return mp_err_set(err, -ENOMEM, "out of memory");
	count = (uint32_t)nsys;
	if (mp_buf_append(b, &count, 4))
		return mp_err_set(err, -ENOMEM, "out of memory");
	for (size_t k = 0; k < nsys; k++) {
		const char *sname = sys_first[k]->resolved;
		size_t c = strcspn(sname, ":");
		uint32_t ne = 0;
		for (size_t i = 0; i < n; i++)
			ne += evs[i].attr.type == PERF_TYPE_TRACEPOINT &&
			      !strncmp(evs[i].resolved, sname, c + 1);
		if (mp_buf_append(b, sname, c) || mp_buf_append(b, "", 1) ||
		    mp_buf_append(b, &ne, 4))
			return mp_err_set(err, -ENOMEM, "out of memory");
		for (size_t i = 0; i < n; i++) {
			if (evs[i].attr.type != PERF_TYPE_TRACEPOINT ||
			    strncmp(evs[i].resolved, sname, c + 1))
				continue;
			snprintf(path, sizeof(path), "%s/events/%.*s/%s/format", root, (int)c, sname,
				 evs[i].resolved + c + 1);
			if ((rc = add_file(b, path, 8, 0, err)))
				return rc;
		}
	}
	/* kallsyms: empty, as perf writes it */
	if (mp_buf_append(b, &zero, 4))
		return mp_err_set(err, -ENOMEM, "out of memory");
	snprintf(path, sizeof(path), "%s/printk_formats", root);
	if ((rc = add_file(b, path, 4, 1, err)))
		return rc;
	snprintf(path, sizeof(path), "%s/saved_cmdlines", root);
	return add_file(b, path, 8, 1, err);
}
