/* mp_hmerge.c - places of several recordings matched by name (report -i A -i B, diff):
 * the rows of one query per recording are matched by the names of their keys, never by
 * a recording's map ids or addresses of one build, and their counts summed per group. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mp_analyzer.h"

struct ent {
	const struct mp_hist_row *r;
	size_t in;
};

static int cmp_str(const char *a, const char *b)
{
	if (a == b)
		return 0;
	if (!a)
		return -1;
	if (!b)
		return 1;
	return strcmp(a, b);
}

#define CMP_NUM(x, y) do { if ((x) != (y)) return (x) < (y) ? -1 : 1; } while (0)

/* The order of the names of two rows under keys (0 = the same place). */
static int row_cmp(const struct mp_hist_row *a, const struct mp_hist_row *b, unsigned keys)
{
	int c;
	if ((keys & MP_HK_COMM) && (c = cmp_str(a->comm, b->comm)))
		return c;
	if (keys & MP_HK_PID)
		CMP_NUM(a->pid, b->pid);
	if (keys & MP_HK_TID)
		CMP_NUM(a->tid, b->tid);
	if (keys & MP_HK_CPU)
		CMP_NUM(a->cpu, b->cpu);
	if ((keys & MP_HK_SRCFILE) && (c = cmp_str(a->srcfile, b->srcfile)))
		return c;
	if ((keys & MP_HK_DSO) && (c = cmp_str(a->dso, b->dso)))
		return c;
	if (keys & MP_HK_ADDR)
		CMP_NUM(a->addr, b->addr);
	if (keys & (MP_HK_SYM | MP_HK_SRCLINE)) {
		if ((keys & MP_HK_SYM) || !a->srcfile || !b->srcfile) {
			CMP_NUM(a->level, b->level);
			if ((c = cmp_str(a->sym, b->sym)))
				return c;
		}
	}
	if (keys & MP_HK_SRCLINE) {
		if ((c = cmp_str(a->srcfile, b->srcfile)))
			return c;
		CMP_NUM(a->line, b->line);
		if (!a->srcfile)
			CMP_NUM(a->sym_off, b->sym_off);
	}
	return 0;
}

static int ent_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct ent *a = pa, *b = pb;
	int c = row_cmp(a->r, b->r, *(const unsigned *)ctx);
	if (c)
		return c;
	CMP_NUM(a->in, b->in);
	return 0;
}

int mp_hist_merge(const struct mp_hist_result *res, size_t nin, const size_t *group,
		  size_t ngroups, unsigned keys, size_t ncols, const size_t *attr_map,
		  struct mp_hist_merged *out)
{
	memset(out, 0, sizeof(*out));
	size_t n = 0;
	for (size_t i = 0; i < nin; i++)
		n += res[i].nrows;
	struct ent *e = calloc(n ? n : 1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	n = 0;
	for (size_t i = 0; i < nin; i++)
		for (size_t k = 0; k < res[i].nrows; k++)
			e[n++] = (struct ent){ &res[i].rows[k], i };
	unsigned sort_keys = keys ? keys : (MP_HK_DSO | MP_HK_SYM);
	if (n)
		qsort_r(e, n, sizeof(*e), ent_cmp, &sort_keys);
	size_t nrows = 0;
	for (size_t k = 0; k < n; k++)
		if (!k || row_cmp(e[k - 1].r, e[k].r, sort_keys))
			nrows++;
	out->rows = calloc(nrows ? nrows : 1, sizeof(*out->rows));
	out->counts = calloc((nrows ? nrows : 1) * ngroups * ncols, sizeof(*out->counts));
	out->present = calloc((nrows ? nrows : 1) * ngroups, 1);
	if (!out->rows || !out->counts || !out->present) {
		free(e);
		mp_hist_merged_fini(out);
		return -ENOMEM;
	}
	out->ngroups = ngroups;
	out->ncols = ncols;
	size_t r = SIZE_MAX;
	for (size_t k = 0; k < n; k++) {
		if (!k || row_cmp(e[k - 1].r, e[k].r, sort_keys))
			out->rows[++r] = *e[k].r;
		size_t in = e[k].in, g = group[in];
		out->present[r * ngroups + g] = 1;
		struct mp_hist_counts *c = out->counts + (r * ngroups + g) * ncols;
		for (size_t j = 0; j < ncols; j++) {
			size_t a = attr_map[in * ncols + j];
			if (a == SIZE_MAX || a >= res[in].nattrs)
				continue;
			c[j].samples += e[k].r->c[a].samples;
			c[j].period += e[k].r->c[a].period;
		}
	}
	out->nrows = nrows;
	for (size_t k = 0; k < nrows; k++)
		out->rows[k].c = NULL;
	free(e);
	return 0;
}

void mp_hist_merged_fini(struct mp_hist_merged *m)
{
	if (!m)
		return;
	free(m->rows);
	free(m->counts);
	free(m->present);
	memset(m, 0, sizeof(*m));
}

void mp_multi_close(struct mp_multi *m)
{
	if (!m)
		return;
	for (size_t i = 0; m->ss && i < m->n; i++) {
		if (m->res)
			mp_hist_result_fini(&m->res[i]);
		mp_session_free(m->ss[i]);
	}
	free(m->ss);
	free(m->res);
	free(m->ev);
	free(m->map);
	free(m->total);
	free(m->group);
	memset(m, 0, sizeof(*m));
}

int mp_multi_open(struct mp_multi *m, const char *const *paths, const size_t *group, size_t n,
		  size_t ngroups, const struct mp_session_opts *o, struct mp_err *err)
{
	int rc = -ENOMEM;
	memset(m, 0, sizeof(*m));
	m->paths = paths;
	m->n = n;
	m->ngroups = ngroups;
	m->ss = calloc(n ? n : 1, sizeof(*m->ss));
	m->res = calloc(n ? n : 1, sizeof(*m->res));
	m->group = calloc(n ? n : 1, sizeof(*m->group));
	if (!m->ss || !m->res || !m->group)
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		m->group[i] = group ? group[i] : 0;
		if (!(m->ss[i] = mp_session_new(paths[i], o, err))) {
			rc = err && err->code ? err->code : -ENOMEM;
			goto fail;
		}
	}
	size_t na = n ? mp_pd_nattrs(mp_session_pd(m->ss[0])) : 0;
	m->ev = calloc(na + 1, sizeof(*m->ev));
	if (!m->ev)
		goto nomem;
	m->nev = n ? mp_session_events(m->ss[0], m->ev) : 0;
	m->map = calloc(n * m->nev + 1, sizeof(*m->map));
	m->total = calloc(ngroups * m->nev + 1, sizeof(*m->total));
	if (!m->map || !m->total)
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		if (i == 0)
			memcpy(m->map, m->ev, m->nev * sizeof(*m->map));
		else if ((rc = mp_pd_attrs_match(mp_session_pd(m->ss[0]), paths[0], m->ev, m->nev,
						 mp_session_pd(m->ss[i]), paths[i],
						 m->map + i * m->nev, err)))
			goto fail;
		for (size_t j = 0; j < m->nev; j++) {
			const struct mp_hist_counts *t = mp_hist_total(mp_session_hist(m->ss[i]),
								       m->map[i * m->nev + j]);
			m->total[m->group[i] * m->nev + j].samples += t->samples;
			m->total[m->group[i] * m->nev + j].period += t->period;
		}
	}
	return 0;
nomem:
	rc = -ENOMEM;
	mp_err_set(err, rc, "out of memory");
fail:
	mp_multi_close(m);
	return rc;
}

int mp_multi_query(struct mp_multi *m, const struct mp_hist_query *q, struct mp_hist_merged *out)
{
	int rc;
	for (size_t i = 0; i < m->n; i++) {
		struct mp_hist_query qi = *q;
		mp_hist_result_fini(&m->res[i]);
		unsigned char *skid = NULL;
		if (q->sort_attr != SIZE_MAX)
			qi.sort_attr = m->map[i * m->nev];
		if (q->skid) {
			size_t na = mp_pd_nattrs(mp_session_pd(m->ss[i]));
			if (!(skid = calloc(na + 1, 1)))
				return -ENOMEM;
			for (size_t k = 0; k < na; k++)
				skid[k] = (unsigned char)mp_ann_event_skids(
					&mp_pd_attr(mp_session_pd(m->ss[i]), k)->attr);
			qi.skid = skid;
		}
		rc = mp_hist_query(mp_session_hist(m->ss[i]), mp_session_sym(m->ss[i]), &qi,
				   &m->res[i]);
		free(skid);
		if (rc)
			return rc;
	}
	return mp_hist_merge(m->res, m->n, m->group, m->ngroups, q->keys, m->nev, m->map, out);
}
