/* mp_cg_table.c - children and self per function, and the call tree of one entry, both
 * from the function tree, with perf report's rules (each function counted once per
 * sample, the outermost occurrence in caller order, the innermost in callee order). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mp_cg_int.h"

static uint64_t ent_key(int by_comm, const struct cg_node *n)
{
	return by_comm ? (uint64_t)n->comm << 32 | n->frame : n->frame;
}

/* Entry index of every function-tree node into ent[] (created in a map as met). */
static int entries_of_nodes(mp_cg *cg, int by_comm, uint32_t *ent, struct cg_map *em,
			    size_t *nent)
{
	for (size_t i = 0; i < cg->ft.n; i++) {
		int found;
		uint32_t *slot = cg_map_slot(em, ent_key(by_comm, &cg->ft.nodes[i]), &found);
		if (!slot)
			return -ENOMEM;
		if (!found)
			*slot = (uint32_t)(*nent)++;
		ent[i] = *slot;
	}
	return 0;
}

struct tsort {
	size_t stride, attr;
};

static int cmp_counts(const struct mp_hist_counts *a, const struct mp_hist_counts *b,
		      const struct tsort *s)
{
	if (a[s->attr].period != b[s->attr].period)
		return a[s->attr].period > b[s->attr].period ? -1 : 1;
	for (size_t k = 0; k < s->stride; k++)
		if (a[k].period != b[k].period)
			return a[k].period > b[k].period ? -1 : 1;
	for (size_t k = 0; k < s->stride; k++)
		if (a[k].samples != b[k].samples)
			return a[k].samples > b[k].samples ? -1 : 1;
	return 0;
}

static int entry_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct mp_cg_entry *a = pa, *b = pb;
	int c = cmp_counts(a->children, b->children, ctx);
	if (!c)
		c = cmp_counts(a->self, b->self, ctx);
	if (!c)
		c = strcmp(a->f.sym, b->f.sym);
	if (!c)
		c = strcmp(a->f.dso, b->f.dso);
	if (!c && a->comm && b->comm)
		c = strcmp(a->comm, b->comm);
	return c;
}

int mp_cg_table(mp_cg *cg, size_t sort_attr, int by_comm, struct mp_cg_table *t)
{
	by_comm = by_comm && cg->o.want_comm;
	memset(t, 0, sizeof(*t));
	int rc = cg_ftree_build(cg, 0);
	if (rc)
		return rc;
	size_t S = cg->stride, nn = cg->ft.n, nent = 0;
	struct cg_map em = { 0 };
	uint32_t *ent = malloc((nn + 1) * sizeof(*ent));
	uint32_t *efirst = NULL; /* a node of each entry (its names) */
	uint32_t *stamp = NULL;
	t->nattrs = S;
	if (!ent || (rc = entries_of_nodes(cg, by_comm, ent, &em, &nent)))
		goto fail;
	efirst = malloc((nent + 1) * sizeof(*efirst));
	stamp = malloc((nent + 1) * sizeof(*stamp));
	t->counts = calloc((nent + 1) * 2 * (S ? S : 1), sizeof(*t->counts));
	t->e = calloc(nent + 1, sizeof(*t->e));
	if (!efirst || !stamp || !t->counts || !t->e)
		goto nomem;
	memset(stamp, 0xff, (nent + 1) * sizeof(*stamp));
	for (size_t i = nn; i-- > 0;)
		efirst[ent[i]] = (uint32_t)i;
	for (size_t i = 0; i < nn; i++) {
		const struct mp_hist_counts *c = cg->ft.cnt + i * S;
		int any = 0;
		for (size_t a = 0; a < S; a++)
			any |= c[a].samples || c[a].period;
		if (!any)
			continue;
		struct mp_hist_counts *self = t->counts + (size_t)ent[i] * 2 * S;
		for (size_t a = 0; a < S; a++) {
			self[a].samples += c[a].samples;
			self[a].period += c[a].period;
		}
		for (uint32_t p = (uint32_t)i; p != UINT32_MAX; p = cg->ft.nodes[p].parent) {
			uint32_t e = ent[p];
			if (stamp[e] == (uint32_t)i)
				continue;
			stamp[e] = (uint32_t)i;
			struct mp_hist_counts *ch = t->counts + (size_t)e * 2 * S + S;
			for (size_t a = 0; a < S; a++) {
				ch[a].samples += c[a].samples;
				ch[a].period += c[a].period;
			}
		}
	}
	for (size_t e = 0; e < nent; e++) {
		const struct cg_node *n = &cg->ft.nodes[efirst[e]];
		t->e[e] = (struct mp_cg_entry){
			.comm = by_comm ? mp_cg_comm_name(cg, n->comm) : NULL,
			.f = cg->fns[n->frame],
			.self = t->counts + e * 2 * S,
			.children = t->counts + e * 2 * S + S,
		};
	}
	t->n = nent;
	struct tsort ts = { S, sort_attr < S ? sort_attr : 0 };
	if (S)
		qsort_r(t->e, t->n, sizeof(*t->e), entry_cmp, &ts);
	rc = 0;
	goto out;
nomem:
	rc = -ENOMEM;
fail:
	mp_cg_table_fini(t);
out:
	free(ent);
	free(efirst);
	free(stamp);
	cg_map_fini(&em);
	return rc;
}

void mp_cg_table_fini(struct mp_cg_table *t)
{
	if (!t)
		return;
	free(t->e);
	free(t->counts);
	memset(t, 0, sizeof(*t));
}

/* ---- the tree of one entry ---- */

struct tbuild {
	mp_cg *cg;
	struct mp_cg_tree *tr;
	struct cg_map idx;
	size_t cap, capcnt, S;
	struct mp_hist_counts *raw; /* [n * 2 * S]: hit, cumul */
};

static uint32_t tnode_get(struct tbuild *b, uint32_t parent, uint32_t fn)
{
	int found;
	uint32_t *slot = cg_map_slot(&b->idx, (uint64_t)(parent == UINT32_MAX ? CG_ROOT : parent)
						     << 32 | fn, &found);
	if (!slot)
		return UINT32_MAX;
	if (found)
		return *slot;
	struct mp_cg_tree *tr = b->tr;
	if (cg_grow((void **)&tr->nodes, &b->cap, tr->n + 1, sizeof(*tr->nodes)) ||
	    cg_grow((void **)&b->raw, &b->capcnt, (tr->n + 1) * 2 * b->S, sizeof(*b->raw))) {
		cg_map_unslot(&b->idx, slot);
		return UINT32_MAX;
	}
	memset(b->raw + tr->n * 2 * b->S, 0, 2 * b->S * sizeof(*b->raw));
	tr->nodes[tr->n] = (struct mp_cg_tnode){ .fn = fn, .parent = parent,
						 .first_child = UINT32_MAX, .next = UINT32_MAX };
	*slot = (uint32_t)tr->n;
	return (uint32_t)tr->n++;
}

static void add_to(struct mp_hist_counts *d, const struct mp_hist_counts *s, size_t n)
{
	for (size_t a = 0; a < n; a++) {
		d[a].samples += s[a].samples;
		d[a].period += s[a].period;
	}
}

/* path: function ids in cursor order */
static int tree_add(struct tbuild *b, const uint32_t *path, size_t n,
		    const struct mp_hist_counts *c)
{
	uint32_t cur = UINT32_MAX;
	for (size_t i = 0; i < n; i++) {
		cur = tnode_get(b, cur, path[i]);
		if (cur == UINT32_MAX)
			return -ENOMEM;
		add_to(b->raw + (size_t)cur * 2 * b->S + b->S, c, b->S);
	}
	if (cur != UINT32_MAX)
		add_to(b->raw + (size_t)cur * 2 * b->S, c, b->S);
	return 0;
}

struct sib_sort {
	const struct mp_cg_tree *tr;
	const mp_cg *cg;
	size_t attr;
};

static int sib_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct sib_sort *s = ctx;
	const struct mp_cg_tnode *a = &s->tr->nodes[*(const uint32_t *)pa];
	const struct mp_cg_tnode *b = &s->tr->nodes[*(const uint32_t *)pb];
	if (a->cumul[s->attr].period != b->cumul[s->attr].period)
		return a->cumul[s->attr].period > b->cumul[s->attr].period ? -1 : 1;
	/* ties as perf's call-chain tree orders its children: later objects first, then
	 * higher addresses first */
	const struct mp_cg_frame *fa = &s->cg->fns[a->fn], *fb = &s->cg->fns[b->fn];
	if (fa->dso_idx != fb->dso_idx)
		return fa->dso_idx > fb->dso_idx ? -1 : 1;
	uint64_t xa = fa->sym_resolved ? fa->sym_start : fa->ip;
	uint64_t xb = fb->sym_resolved ? fb->sym_start : fb->ip;
	if (xa != xb)
		return xa > xb ? -1 : 1;
	return strcmp(fa->sym, fb->sym);
}

int mp_cg_tree(mp_cg *cg, const struct mp_cg_table *t, size_t e,
	       const struct mp_cg_tree_opts *o, struct mp_cg_tree *out)
{
	memset(out, 0, sizeof(*out));
	out->first = UINT32_MAX;
	if (e >= t->n)
		return -EINVAL;
	int rc = cg_ftree_build(cg, 0);
	if (rc)
		return rc;
	size_t S = cg->stride, nn = cg->ft.n;
	out->nattrs = S;
	const struct mp_cg_entry *E = &t->e[e];
	uint32_t want_fn = E->f.fn;
	struct tbuild b = { .cg = cg, .tr = out, .S = S ? S : 1 };
	size_t cappath = 64;
	uint32_t *path = malloc(cappath * sizeof(*path));
	if (!path)
		goto nomem;
	for (size_t i = 0; i < nn; i++) {
		const struct mp_hist_counts *c = cg->ft.cnt + i * S;
		int any = 0;
		for (size_t a = 0; a < S; a++)
			any |= c[a].samples || c[a].period;
		if (!any)
			continue;
		const struct cg_node *leaf = &cg->ft.nodes[i];
		if (E->comm && mp_cg_comm_name(cg, leaf->comm) != E->comm &&
		    strcmp(mp_cg_comm_name(cg, leaf->comm), E->comm))
			continue;
		if (cg_grow((void **)&path, &cappath, (size_t)leaf->depth + 1, sizeof(*path)))
			goto nomem;
		/* cursor order: caller = root first; callee = leaf first */
		size_t k = 0;
		for (uint32_t p = (uint32_t)i; p != UINT32_MAX; p = cg->ft.nodes[p].parent)
			path[k++] = cg->ft.nodes[p].frame; /* leaf first */
		if (!o->callee)
			for (size_t a = 0, z = k - 1; a < z; a++, z--) {
				uint32_t tmp = path[a];
				path[a] = path[z];
				path[z] = tmp;
			}
		if (leaf->frame == want_fn) {
			rc = tree_add(&b, path, k, c);
		} else if (o->children) {
			size_t at = k;
			for (size_t j = 0; j < k && at == k; j++)
				if (path[j] == want_fn)
					at = j;
			rc = at < k ? tree_add(&b, path + at, k - at, c) : 0;
		}
		if (rc)
			goto fail;
	}
	/* counts into place, siblings sorted */
	out->counts = b.raw;
	b.raw = NULL;
	for (size_t n = 0; n < out->n; n++) {
		out->nodes[n].hit = out->counts + n * 2 * b.S;
		out->nodes[n].cumul = out->counts + n * 2 * b.S + b.S;
	}
	{
		uint32_t *ord = malloc((out->n + 1) * sizeof(*ord));
		if (!ord)
			goto nomem;
		for (size_t n = 0; n < out->n; n++)
			ord[n] = (uint32_t)n;
		struct sib_sort ss = { out, cg, o->sort_attr < S ? o->sort_attr : 0 };
		if (S)
			qsort_r(ord, out->n, sizeof(*ord), sib_cmp, &ss);
		/* in sorted order, appended to their parent's list: sorted lists */
		uint32_t *last = malloc((out->n + 1) * sizeof(*last));
		if (!last) {
			free(ord);
			goto nomem;
		}
		uint32_t top_last = UINT32_MAX;
		memset(last, 0xff, (out->n + 1) * sizeof(*last));
		for (size_t r = 0; r < out->n; r++) {
			uint32_t n = ord[r];
			uint32_t p = out->nodes[n].parent;
			uint32_t *lp = p == UINT32_MAX ? &top_last : &last[p];
			if (*lp == UINT32_MAX) {
				if (p == UINT32_MAX)
					out->first = n;
				else
					out->nodes[p].first_child = n;
			} else {
				out->nodes[*lp].next = n;
			}
			*lp = n;
		}
		free(last);
		free(ord);
	}
	rc = 0;
	goto out;
nomem:
	rc = -ENOMEM;
fail:
	mp_cg_tree_fini(out);
out:
	free(b.raw);
	cg_map_fini(&b.idx);
	free(path);
	return rc;
}

void mp_cg_tree_fini(struct mp_cg_tree *tr)
{
	if (!tr)
		return;
	free(tr->nodes);
	free(tr->counts);
	memset(tr, 0, sizeof(*tr));
	tr->first = UINT32_MAX;
}
