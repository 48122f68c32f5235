/* mp_filter.c - perf report's filters of samples (--comm, --pid, --tid, --dso, --symbols):
 * one predicate for the histogram's rows (mp_hist_query) and the views that keep samples of
 * their own (report --off-cpu). */
#include <stdio.h>
#include <string.h>

#include "mp_analyzer.h"

/* Is the n-byte token of a comma-separated list equal to v? */
static int list_has(const char *list, const char *v)
{
	if (!v)
		return 0;
	size_t lv = strlen(v);
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");
		if (n == lv && !strncmp(p, v, n))
			return 1;
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}

static int list_has_num(const char *list, uint32_t v)
{
	char buf[16];
	snprintf(buf, sizeof(buf), "%u", v);
	return list_has(list, buf);
}

static int dso_in_list(mp_sym *s, uint32_t dso_idx, const char *list)
{
	if (dso_idx == UINT32_MAX)
		return list_has(list, "[unknown]");
	const struct mp_sym_dso_info *d = mp_sym_dso(s, dso_idx, 0);
	return d && (list_has(list, d->name) || list_has(list, d->path));
}

int mp_filter_keeps(const struct mp_filter *f, mp_sym *s, const char *comm, uint32_t pid,
		    uint32_t tid, uint32_t dso_idx, const char *sym)
{
	if (f->comms && !list_has(f->comms, comm))
		return 0;
	if (f->pids && !list_has_num(f->pids, pid))
		return 0;
	if (f->tids && !list_has_num(f->tids, tid))
		return 0;
	if (f->dsos && !dso_in_list(s, dso_idx, f->dsos))
		return 0;
	if (f->syms && !list_has(f->syms, sym))
		return 0;
	return 1;
}
