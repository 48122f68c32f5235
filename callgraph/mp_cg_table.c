/* mp_cg_table.c - children and self per function, and the call tree of one entry, both
 * from the function tree, with perf report's rules (each function counted once per
 * sample, the outermost occurrence in caller order, the innermost in callee order). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mp_cg_int.h"

/* Whether the table and trees have inlined functions as entries (resolved with them). */
static int table_inline(const mp_cg *cg)
{
	return cg->o.inline_entries && cg->want_line >= 2;
}

static uint64_t ent_key(int by_comm, uint32_t comm, uint32_t fn)
{
	return by_comm ? (uint64_t)comm << 32 | fn : fn;
}

struct ents {
	struct mp_u64map m;
	uint32_t *fn, *comm; /* [n] each entry's function and comm */
	size_t n, cap;
};

/* The entry of (comm, fn), created when new; UINT32_MAX on allocation failure. */
static uint32_t ent_get(struct ents *x, int by_comm, uint32_t comm, uint32_t fn)
{
	int found;
	uint32_t *slot = cg_map_slot(&x->m, ent_key(by_comm, comm, fn), &found);
	if (!slot)
		return UINT32_MAX;
	if (found)
		return *slot;
	size_t c1 = x->cap, c2 = x->cap;
	if (mp_grow((void **)&x->fn, &c1, x->n + 1, sizeof(*x->fn)) ||
	    mp_grow((void **)&x->comm, &c2, x->n + 1, sizeof(*x->comm))) {
		mp_u64map_unslot(&x->m, slot);
		return UINT32_MAX;
	}
	x->cap = c1 < c2 ? c1 : c2;
	x->fn[x->n] = fn;
	x->comm[x->n] = comm;
	*slot = (uint32_t)x->n;
	return (uint32_t)x->n++;
}

static void ents_fini(struct ents *x)
{
	mp_u64map_fini(&x->m);
	free(x->fn);
	free(x->comm);
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
	int rc = cg_ftree_build(cg, table_inline(cg));
	if (rc)
		return rc;
	size_t S = cg->stride, nn = cg->ft.n;
	struct ents x = { 0 };
	uint32_t *ent = malloc((nn + 1) * sizeof(*ent)); /* each node's entry */
	uint32_t *own = malloc((nn + 1) * sizeof(*own)); /* each node's symbol's entry */
	uint32_t *stamp = NULL;
	t->nattrs = S;
	if (!ent || !own)
		goto nomem;
	for (size_t i = 0; i < nn; i++) {
		const struct cg_node *n = &cg->ft.nodes[i];
		ent[i] = ent_get(&x, by_comm, n->comm, n->frame);
		own[i] = ent_get(&x, by_comm, n->comm, n->owner);
		if (ent[i] == UINT32_MAX || own[i] == UINT32_MAX)
			goto nomem;
	}
	size_t nent = x.n;
	stamp = malloc((nent + 1) * sizeof(*stamp));
	t->counts = calloc((nent + 1) * 2 * (S ? S : 1), sizeof(*t->counts));
	t->e = calloc(nent + 1, sizeof(*t->e));
	if (!stamp || !t->counts || !t->e)
		goto nomem;
	memset(stamp, 0xff, (nent + 1) * sizeof(*stamp));
	for (size_t i = 0; i < nn; i++) {
		const struct mp_hist_counts *c = cg->ft.cnt + i * S;
		int any = 0;
		for (size_t a = 0; a < S; a++)
			any |= c[a].samples || c[a].period;
		if (!any)
			continue;
		/* self: the symbol holding the sampled address (perf's hist entry), which
		 * counts in its children too, with every function of the chain once */
		struct mp_hist_counts *self = t->counts + (size_t)own[i] * 2 * S;
		for (size_t a = 0; a < S; a++) {
			self[a].samples += c[a].samples;
			self[a].period += c[a].period;
		}
		for (uint32_t p = (uint32_t)i;; p = cg->ft.nodes[p].parent) {
			uint32_t e = p == UINT32_MAX ? own[i] : ent[p];
			if (stamp[e] != (uint32_t)i) {
				stamp[e] = (uint32_t)i;
				struct mp_hist_counts *ch = t->counts + (size_t)e * 2 * S + S;
				for (size_t a = 0; a < S; a++) {
					ch[a].samples += c[a].samples;
					ch[a].period += c[a].period;
				}
			}
			if (p == UINT32_MAX)
				break;
		}
	}
	/* entries with samples (a symbol met only under its DWARF name has none) */
	size_t k = 0;
	for (size_t e = 0; e < nent; e++) {
		const struct mp_hist_counts *ch = t->counts + e * 2 * S + S;
		int any = 0;
		for (size_t a = 0; a < S; a++)
			any |= ch[a].samples || ch[a].period;
		if (!any)
			continue;
		t->e[k++] = (struct mp_cg_entry){
			.comm = by_comm ? mp_cg_comm_name(cg, x.comm[e]) : NULL,
			.f = cg->fns[x.fn[e]],
			.self = t->counts + e * 2 * S,
			.children = t->counts + e * 2 * S + S,
		};
	}
	t->n = k;
	struct tsort ts = { S, sort_attr < S ? sort_attr : 0 };
	if (S)
		qsort_r(t->e, t->n, sizeof(*t->e), entry_cmp, &ts);
	rc = 0;
	goto out;
nomem:
	rc = -ENOMEM;
	mp_cg_table_fini(t);
out:
	free(ent);
	free(own);
	free(stamp);
	ents_fini(&x);
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
	size_t cap, capcnt, S;
	struct mp_hist_counts *raw; /* [n * 2 * S]: hit, cumul */
};

/* A fresh (parent, fn) index for a tree (cg_ftree's tkeys: the slots of the trees before
 * are free again). */
static void tidx_begin(struct cg_ftree *ft)
{
	ft->tn = 0;
	if (++ft->tgen == 0) { /* wrapped: every slot free */
		if (ft->tgens)
			memset(ft->tgens, 0, ft->tcap * sizeof(*ft->tgens));
		ft->tgen = 1;
	}
}

/* Room for one more key (the table at most half full). 0 or -ENOMEM. */
static int tidx_room(struct cg_ftree *ft)
{
	if ((ft->tn + 1) * 2 <= ft->tcap)
		return 0;
	size_t ncap = ft->tcap ? ft->tcap * 2 : 1024;
	uint64_t *nk = malloc(ncap * sizeof(*nk));
	uint32_t *nv = malloc(ncap * sizeof(*nv)), *ng = calloc(ncap, sizeof(*ng));
	if (!nk || !nv || !ng) {
		free(nk);
		free(nv);
		free(ng);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ft->tcap; i++) {
		if (ft->tgens[i] != ft->tgen)
			continue;
		size_t j = mp_mix64(ft->tkeys[i]) & (ncap - 1);
		while (ng[j] == ft->tgen)
			j = (j + 1) & (ncap - 1);
		nk[j] = ft->tkeys[i];
		nv[j] = ft->tvals[i];
		ng[j] = ft->tgen;
	}
	free(ft->tkeys);
	free(ft->tvals);
	free(ft->tgens);
	ft->tkeys = nk;
	ft->tvals = nv;
	ft->tgens = ng;
	ft->tcap = ncap;
	return 0;
}

static uint32_t tnode_get(struct tbuild *b, uint32_t parent, uint32_t fn)
{
	struct cg_ftree *ft = &b->cg->ft;
	uint64_t key = (uint64_t)(parent == UINT32_MAX ? CG_ROOT : parent) << 32 | fn;
	if (tidx_room(ft))
		return UINT32_MAX;
	size_t j = mp_mix64(key) & (ft->tcap - 1);
	while (ft->tgens[j] == ft->tgen) {
		if (ft->tkeys[j] == key)
			return ft->tvals[j];
		j = (j + 1) & (ft->tcap - 1);
	}
	struct mp_cg_tree *tr = b->tr;
	if (mp_grow((void **)&tr->nodes, &b->cap, tr->n + 1, sizeof(*tr->nodes)) ||
	    mp_grow((void **)&b->raw, &b->capcnt, (tr->n + 1) * 2 * b->S, sizeof(*b->raw)))
		return UINT32_MAX;
	ft->tkeys[j] = key;
	ft->tgens[j] = ft->tgen;
	ft->tn++;
	uint32_t *slot = &ft->tvals[j];
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

/* Each node's children (and the top level) in a list sorted by sib_cmp: linked in node
 * order, then each list of two or more sorted on its own (a stable sort: ties keep node
 * order, as one sort of all the nodes appended to their parents' lists kept it). 0 or
 * -ENOMEM. */
static int sort_siblings(const mp_cg *cg, struct mp_cg_tree *tr, size_t attr, size_t S)
{
	uint32_t *last = malloc((tr->n + 1) * sizeof(*last));
	uint32_t *ord = NULL;
	size_t capord = 0;
	if (!last)
		return -ENOMEM;
	uint32_t top_last = UINT32_MAX;
	memset(last, 0xff, (tr->n + 1) * sizeof(*last));
	for (size_t n = 0; n < tr->n; n++) {
		uint32_t p = tr->nodes[n].parent;
		uint32_t *lp = p == UINT32_MAX ? &top_last : &last[p];
		if (*lp == UINT32_MAX)
			*(p == UINT32_MAX ? &tr->first : &tr->nodes[p].first_child) = (uint32_t)n;
		else
			tr->nodes[*lp].next = (uint32_t)n;
		*lp = (uint32_t)n;
	}
	free(last);
	if (!S)
		return 0;
	struct sib_sort ss = { tr, cg, attr };
	for (size_t n = 0; n <= tr->n; n++) {
		uint32_t *head = n < tr->n ? &tr->nodes[n].first_child : &tr->first;
		if (*head == UINT32_MAX || tr->nodes[*head].next == UINT32_MAX)
			continue;
		size_t k = 0;
		for (uint32_t c = *head; c != UINT32_MAX; c = tr->nodes[c].next) {
			if (mp_grow((void **)&ord, &capord, k + 1, sizeof(*ord))) {
				free(ord);
				return -ENOMEM;
			}
			ord[k++] = c;
		}
		qsort_r(ord, k, sizeof(*ord), sib_cmp, &ss);
		*head = ord[0];
		for (size_t r = 0; r + 1 < k; r++)
			tr->nodes[ord[r]].next = ord[r + 1];
		tr->nodes[ord[k - 1]].next = UINT32_MAX;
	}
	free(ord);
	return 0;
}

static int ft_has_counts(const mp_cg *cg, size_t i)
{
	const struct mp_hist_counts *c = cg->ft.cnt + i * cg->stride;
	for (size_t a = 0; a < cg->stride; a++)
		if (c[a].samples || c[a].period)
			return 1;
	return 0;
}

/* cg->ft's fn index (struct cg_ftree): two passes over the stacks of the nodes with
 * counts, each fn once per node (stamp), so that a function's tree visits only the stacks
 * that can add to it, not all of them for every function. */
static int ft_fn_index(mp_cg *cg)
{
	struct cg_ftree *ft = &cg->ft;
	if (ft->fn_first)
		return 0;
	size_t nf = cg->nfns;
	uint32_t *first = calloc(nf + 2, sizeof(*first));
	uint32_t *stamp = malloc((nf + 1) * sizeof(*stamp));
	uint32_t *nodes = NULL;
	if (!first || !stamp)
		goto nomem;
	for (int pass = 0; pass < 2; pass++) {
		memset(stamp, 0xff, (nf + 1) * sizeof(*stamp));
		for (size_t i = 0; i < ft->n; i++) {
			if (!ft_has_counts(cg, i))
				continue;
			uint32_t f = ft->nodes[i].owner;
			for (uint32_t p = (uint32_t)i;; p = ft->nodes[p].parent) {
				if (f < nf && stamp[f] != (uint32_t)i) {
					stamp[f] = (uint32_t)i;
					if (pass == 0)
						first[f + 1]++;
					else
						nodes[first[f]++] = (uint32_t)i;
				}
				if (p == UINT32_MAX)
					break;
				f = ft->nodes[p].self_only ? UINT32_MAX : ft->nodes[p].frame;
			}
		}
		if (pass == 0) {
			for (size_t f = 0; f < nf; f++)
				first[f + 1] += first[f];
			nodes = malloc(((size_t)first[nf] + 1) * sizeof(*nodes));
			if (!nodes)
				goto nomem;
		}
	}
	/* the fill moved each start to the next one's: back by one */
	memmove(first + 1, first, nf * sizeof(*first));
	first[0] = 0;
	free(stamp);
	ft->fn_first = first;
	ft->fn_nodes = nodes;
	return 0;
nomem:
	free(first);
	free(stamp);
	free(nodes);
	return -ENOMEM;
}

#define TN_NONE (UINT32_MAX - 1) /* memo: no tree node (the entry is not in the stack) */
#define TN_FAIL (UINT32_MAX - 2)

/* Caller order: the tree node of ft node i's stack, the whole of it (k 0) or from the
 * entry's outermost occurrence (k 1; TN_NONE when the stack does not hold it),
 * UINT32_MAX when the stack has no frame, TN_FAIL when out of memory. Stacks share their
 * callers' ft nodes, so each ft node is looked up once per tree (memo) instead of once for
 * every stack below it: the same tree nodes, made in the same order, as adding each
 * stack's whole path. up: scratch for the nodes not yet known. */
static uint32_t caller_node(struct tbuild *b, uint32_t i, int k, uint32_t want_fn,
			    uint32_t **up, size_t *capup)
{
	struct cg_ftree *ft = &b->cg->ft;
	uint32_t *memo = ft->memo[k], *stamp = ft->stamp[k];
	size_t n = 0;
	uint32_t p = i, at = k ? TN_NONE : UINT32_MAX; /* the tree node above the gathered */
	for (; p != UINT32_MAX; p = ft->nodes[p].parent) {
		if (stamp[p] == ft->epoch) {
			at = memo[p];
			break;
		}
		if (mp_grow((void **)up, capup, n + 1, sizeof(**up)))
			return TN_FAIL;
		(*up)[n++] = p;
	}
	while (n) {
		uint32_t q = (*up)[--n];
		const struct cg_node *nd = &ft->nodes[q];
		if (!nd->self_only) {
			if (at != TN_NONE)
				at = tnode_get(b, at, nd->frame);
			else if (nd->frame == want_fn)
				at = tnode_get(b, UINT32_MAX, nd->frame);
			if (at == UINT32_MAX)
				return TN_FAIL;
		}
		memo[q] = at;
		stamp[q] = ft->epoch;
	}
	return at;
}

/* The memo's arrays for ft's nodes, and a fresh epoch. 0 or -ENOMEM. */
static int caller_memo(struct cg_ftree *ft)
{
	if (!ft->memo[0] || !ft->memo[1] || !ft->stamp[0] || !ft->stamp[1]) {
		for (int k = 0; k < 2; k++) {
			free(ft->memo[k]);
			free(ft->stamp[k]);
			ft->memo[k] = malloc((ft->n + 1) * sizeof(*ft->memo[k]));
			ft->stamp[k] = calloc(ft->n + 1, sizeof(*ft->stamp[k]));
			if (!ft->memo[k] || !ft->stamp[k])
				return -ENOMEM;
		}
		ft->epoch = 0;
	}
	if (++ft->epoch == 0) { /* wrapped: every stamp is stale again */
		for (int k = 0; k < 2; k++)
			memset(ft->stamp[k], 0, (ft->n + 1) * sizeof(*ft->stamp[k]));
		ft->epoch = 1;
	}
	return 0;
}

int mp_cg_tree(mp_cg *cg, const struct mp_cg_table *t, size_t e,
	       const struct mp_cg_tree_opts *o, struct mp_cg_tree *out)
{
	memset(out, 0, sizeof(*out));
	out->first = UINT32_MAX;
	if (e >= t->n)
		return -EINVAL;
	int rc = cg_ftree_build(cg, table_inline(cg));
	if (rc || (rc = ft_fn_index(cg)))
		return rc;
	size_t S = cg->stride;
	out->nattrs = S;
	const struct mp_cg_entry *E = &t->e[e];
	uint32_t want_fn = E->f.fn;
	/* the nodes whose stacks hold the function, or whose self it is */
	const uint32_t *cand = cg->ft.fn_nodes, *cand_end = cand;
	if (want_fn < cg->nfns) {
		cand = cg->ft.fn_nodes + cg->ft.fn_first[want_fn];
		cand_end = cg->ft.fn_nodes + cg->ft.fn_first[want_fn + 1];
	}
	struct tbuild b = { .cg = cg, .tr = out, .S = S ? S : 1 };
	tidx_begin(&cg->ft);
	size_t cappath = 64;
	uint32_t *path = malloc(cappath * sizeof(*path));
	if (!path || (!o->callee && caller_memo(&cg->ft)))
		goto nomem;
	for (; cand < cand_end; cand++) {
		size_t i = *cand;
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
		if (!o->callee) {
			if (leaf->owner != want_fn && !o->children)
				continue;
			uint32_t at = caller_node(&b, (uint32_t)i, leaf->owner != want_fn, want_fn,
						  &path, &cappath);
			if (at == TN_FAIL)
				goto nomem;
			if (at < TN_FAIL)
				add_to(b.raw + (size_t)at * 2 * b.S, c, b.S);
			continue;
		}
		if (mp_grow((void **)&path, &cappath, (size_t)leaf->depth + 1, sizeof(*path)))
			goto nomem;
		/* cursor order: caller = root first; callee = leaf first */
		size_t k = 0;
		for (uint32_t p = (uint32_t)i; p != UINT32_MAX; p = cg->ft.nodes[p].parent)
			if (!cg->ft.nodes[p].self_only)
				path[k++] = cg->ft.nodes[p].frame; /* leaf first */
		if (!o->callee)
			for (size_t a = 0, z = k - 1; a < z; a++, z--) {
				uint32_t tmp = path[a];
				path[a] = path[z];
				path[z] = tmp;
			}
		if (leaf->owner == want_fn) {
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
	/* caller order added each stack's counts at its last node only: a node's samples
	 * through it are those ending in its subtree (children come after their parent) */
	for (size_t n = out->n; !o->callee && n-- > 0;) {
		struct mp_hist_counts *r = b.raw + n * 2 * b.S;
		add_to(r + b.S, r, b.S);
		if (out->nodes[n].parent != UINT32_MAX)
			add_to(b.raw + (size_t)out->nodes[n].parent * 2 * b.S + b.S, r + b.S, b.S);
	}
	/* counts into place, siblings sorted */
	out->counts = b.raw;
	b.raw = NULL;
	for (size_t n = 0; n < out->n; n++) {
		out->nodes[n].hit = out->counts + n * 2 * b.S;
		out->nodes[n].cumul = out->counts + n * 2 * b.S + b.S;
	}
	if (sort_siblings(cg, out, o->sort_attr < S ? o->sort_attr : 0, S))
		goto nomem;
	rc = 0;
	goto out;
nomem:
	rc = -ENOMEM;
fail:
	mp_cg_tree_fini(out);
out:
	free(b.raw);
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
