/* mp_dwscope.c - a compilation unit's scopes that hold code, indexed (mp_dwscope.h). */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "mp_dwscope.h"
#include "mp_util.h"

struct scope {
	Dwarf_Off off;
	uint32_t parent;            /* UINT32_MAX: the unit */
};

struct srange {                 /* a range of a scope, among its parent's children's */
	uint64_t lo, hi;
	uint64_t maxhi;             /* the greatest hi of its parent's ranges up to it (by lo) */
	uint32_t scope, parent;
};

struct mp_dwscopes {
	struct scope *s;            /* in the unit's order (a parent before its children) */
	size_t ns, caps;
	struct srange *r;           /* grouped by parent (the unit's first), each group by lo */
	size_t nr, capr;
	size_t *first;              /* [ns + 1]: group of parent p at r[first[p + 1]..first[p + 2])
				     * with first[0] the unit's: index p + 1 */
};

/* The tags dwarf_getscopes looks into (libdw's "match" and "walk" DIEs). */
static int descends(int tag)
{
	switch (tag) {
	case DW_TAG_compile_unit:
	case DW_TAG_module:
	case DW_TAG_lexical_block:
	case DW_TAG_with_stmt:
	case DW_TAG_catch_block:
	case DW_TAG_try_block:
	case DW_TAG_entry_point:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_subprogram:
	case DW_TAG_namespace:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
		return 1;
	default:
		return 0;
	}
}

/* Add the ranges of die (parent p) as scope t->ns; 1 when it has some, 0 none, -1 error. */
static int add_scope(struct mp_dwscopes *t, Dwarf_Die *die, uint32_t p)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t o = 0;
	size_t n0 = t->nr;
	while ((o = dwarf_ranges(die, o, &base, &lo, &hi)) > 0) {
		if (MP_GROW(t->r, t->capr, t->nr + 1))
			return -1;
		t->r[t->nr++] = (struct srange){ lo, hi, 0, (uint32_t)t->ns, p };
	}
	if (o < 0)
		return -1;
	if (t->nr == n0)
		return 0;
	if (MP_GROW(t->s, t->caps, t->ns + 1))
		return -1;
	t->s[t->ns++] = (struct scope){ dwarf_dieoffset(die), p };
	return 1;
}

static int range_cmp(const void *pa, const void *pb)
{
	const struct srange *a = pa, *b = pb;
	if (a->parent != b->parent) /* UINT32_MAX (the unit) first */
		return a->parent + 1u < b->parent + 1u ? -1 : 1;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->scope < b->scope ? -1 : a->scope > b->scope;
}

struct mp_dwscopes *mp_dwscopes_new(Dwarf_Die *cu)
{
	struct mp_dwscopes *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	/* depth first, with a stack of the DIEs whose siblings come next */
	Dwarf_Die *stack = NULL;
	uint32_t *sp = NULL;
	size_t depth = 0, caps = 0, capp = 0;
	Dwarf_Die die;
	int rc = dwarf_child(cu, &die), bad = rc < 0;
	uint32_t parent = UINT32_MAX;
	while (rc == 0 && !bad) {
		int has = add_scope(t, &die, parent);
		Dwarf_Die kid;
		if (has < 0) {
			bad = 1;
			break;
		}
		if (has > 0 && descends(dwarf_tag(&die)) && dwarf_haschildren(&die) > 0 &&
		    dwarf_child(&die, &kid) == 0) {
			if (MP_GROW(stack, caps, depth + 1) || MP_GROW(sp, capp, depth + 1)) {
				bad = 1;
				break;
			}
			stack[depth] = die;
			sp[depth++] = parent;
			parent = (uint32_t)t->ns - 1;
			die = kid;
			continue;
		}
		while ((rc = dwarf_siblingof(&die, &die)) == 1 && depth) {
			die = stack[--depth];
			parent = sp[depth];
		}
		bad |= rc < 0;
	}
	free(stack);
	free(sp);
	t->first = calloc(t->ns + 2, sizeof(*t->first));
	if (bad || !t->first) {
		mp_dwscopes_free(t);
		return NULL;
	}
	if (t->nr)
		qsort(t->r, t->nr, sizeof(*t->r), range_cmp);
	for (size_t i = 0; i < t->nr; i++) {
		const struct srange *x = &t->r[i];
		int same = i && t->r[i - 1].parent == x->parent;
		t->r[i].maxhi = same && t->r[i - 1].maxhi > x->hi ? t->r[i - 1].maxhi : x->hi;
		t->first[x->parent + 1u + 1] = i + 1; /* group ends */
	}
	/* the groups' starts: each group's end, carried over empty groups */
	for (size_t p = 1; p < t->ns + 2; p++)
		if (t->first[p] < t->first[p - 1])
			t->first[p] = t->first[p - 1];
	return t;
}

void mp_dwscopes_free(struct mp_dwscopes *t)
{
	if (!t)
		return;
	free(t->s);
	free(t->r);
	free(t->first);
	free(t);
}

/* The first child of group g (r[lo..hi)) whose ranges hold addr, or UINT32_MAX. */
static uint32_t child_at(const struct mp_dwscopes *t, size_t lo, size_t hi, uint64_t addr)
{
	size_t a = lo, b = hi; /* the first range starting after addr */
	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (t->r[m].lo <= addr)
			a = m + 1;
		else
			b = m;
	}
	uint32_t best = UINT32_MAX;
	for (size_t i = a; i-- > lo && t->r[i].maxhi > addr;)
		if (addr < t->r[i].hi && t->r[i].scope < best)
			best = t->r[i].scope;
	return best;
}

size_t mp_dwscopes_path(const struct mp_dwscopes *t, uint64_t addr, Dwarf_Off *out, size_t max)
{
	uint32_t p = UINT32_MAX, c, path_top = UINT32_MAX;
	while ((c = child_at(t, t->first[p + 1u], t->first[p + 2u], addr)) != UINT32_MAX)
		p = path_top = c;
	size_t n = 0;
	for (uint32_t i = path_top; i != UINT32_MAX && n < max; i = t->s[i].parent)
		out[n++] = t->s[i].off;
	return n;
}
