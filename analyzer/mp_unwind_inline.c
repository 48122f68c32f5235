/* mp_unwind_inline.c - the functions inlined at an address, innermost first, from the
 * DWARF scopes (DW_TAG_inlined_subroutine), as perf report --inline shows them. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_srcline.h"
#include "mp_sym_int.h"

/* A scope's function name as symbols are shown: the demangled linkage name without its
 * signature, else DW_AT_name (both looked up through the abstract origin). */
static const char *inline_name(mp_sym *s, Dwarf_Die *die)
{
	Dwarf_Attribute at;
	const char *ln = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &at));
	if (!ln)
		ln = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &at));
	if (ln) {
		char *dm = mp_sym_demangle(s, ln);
		if (dm) {
			const char *r = mp_sym_intern_str(s, dm);
			free(dm);
			return r;
		}
		return mp_sym_intern_str(s, ln);
	}
	/* an out-of-line copy (.part, .isra) names its function through its origin */
	const char *n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &at));
	return n ? mp_sym_intern_str(s, n) : "??";
}

/* The file of a DW_AT_call_file index in die's compilation unit (interned), or NULL. */
static const char *call_file(mp_sym *s, Dwarf_Die *die, Dwarf_Word idx)
{
	Dwarf_Die cu;
	Dwarf_Files *files;
	size_t nf;
	if (!dwarf_diecu(die, &cu, NULL, NULL) || dwarf_getsrcfiles(&cu, &files, &nf) || idx >= nf)
		return NULL;
	const char *f = dwarf_filesrc(files, idx, NULL, NULL);
	if (f && f[0] != '/') {
		Dwarf_Attribute at;
		const char *cd = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &at));
		char *full;
		if (cd && cd[0] == '/' && asprintf(&full, "%s/%s", cd, f) >= 0) {
			f = mp_sym_intern_str(s, full);
			free(full);
			return f;
		}
	}
	return f ? mp_sym_intern_str(s, f) : NULL;
}

/* Of the subprograms with die's range that follow it (an assembler's aliases: gas gives
 * __clone3, __GI___clone3 and clone3 each a DIE over the same code), the last: the one
 * addr2line, and so perf, names the code by ("clone3", the symbol's name: not inlined). */
static Dwarf_Die *last_alias(Dwarf_Die *die)
{
	Dwarf_Addr lo, hi, l2, h2;
	Dwarf_Die cur = *die, next;
	if (dwarf_lowpc(die, &lo) || dwarf_highpc(die, &hi))
		return die;
	while (dwarf_siblingof(&cur, &next) == 0 && dwarf_tag(&next) == DW_TAG_subprogram &&
	       !dwarf_lowpc(&next, &l2) && !dwarf_highpc(&next, &h2) && l2 == lo && h2 == hi)
		cur = next;
	*die = cur;
	return die;
}

/* Scope die, an inlined instance, as a frame of the chain. */
static struct mp_sym_inline inline_frame(mp_sym *s, Dwarf_Die *die)
{
	Dwarf_Attribute at;
	Dwarf_Word w = 0, fidx = 0;
	struct mp_sym_inline f = { .name = inline_name(s, die) };
	if (!dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &at), &w))
		f.call_line = (unsigned)w;
	if (!dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &at), &fidx))
		f.call_file = call_file(s, die, fidx);
	return f;
}

/* The chain at va of d, looked up in its DWARF (mp_sym_inline_chain's work): the inlined
 * instances among the concrete scopes from the innermost out, up to the function they are
 * in (its name the outer one), as eu-addr2line -i walks them. */
static size_t inline_chain_dwarf(mp_sym *s, struct mp_dso *d, uint64_t va,
				 struct mp_sym_inline *out, size_t max, const char **outer_name)
{
	Dwarf_Die *scopes = NULL;
	size_t k = 0;
	int n = mp_srcline_scope_path(d, va, &scopes);
	if (n >= 0) {
		for (int i = 0; i < n && k < max; i++) {
			int tag = dwarf_tag(&scopes[i]);
			if (tag == DW_TAG_subprogram) {
				if (outer_name)
					*outer_name = inline_name(s, last_alias(&scopes[i]));
				break;
			}
			if (tag == DW_TAG_inlined_subroutine)
				out[k++] = inline_frame(s, &scopes[i]);
		}
		free(scopes);
		return k;
	}
	/* no index of the unit: libdw's own walks */
	n = mp_srcline_scopes(d, va, &scopes);
	/* dwarf_getscopes follows an inlined instance into its abstract origin's scopes; the
	 * callers are the concrete scopes around the instance (dwarf_getscopes_die), as
	 * eu-addr2line -i walks them */
	for (int i = 0; i < n && k < max;) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag == DW_TAG_subprogram) {
			if (outer_name)
				*outer_name = inline_name(s, last_alias(&scopes[i]));
			break;
		}
		if (tag != DW_TAG_inlined_subroutine) {
			i++;
			continue;
		}
		out[k++] = inline_frame(s, &scopes[i]);
		Dwarf_Die *outer = NULL;
		int no = dwarf_getscopes_die(&scopes[i], &outer);
		free(scopes);
		scopes = outer;
		n = no;
		i = 1; /* outer[0] is the instance itself */
	}
	free(scopes);
	return k;
}

#define INL_CACHE_MAX 32 /* chains are kept this long; longer asks go to the DWARF */

/* A chain is looked up once per (object, address): samples and chains repeat the same
 * addresses, and each lookup walks DIEs. The whole chain (up to INL_CACHE_MAX) is kept;
 * an ask for fewer gets what the lookup with that max would have given: the first max,
 * and the outer name only when the chain ended before max. */
size_t mp_sym_inline_chain(mp_sym *s, uint32_t map_id, uint64_t ip, struct mp_sym_inline *out,
			   size_t max, const char **outer_name)
{
	if (outer_name)
		*outer_name = NULL;
	if (map_id == MP_SYM_NO_MAP || map_id >= s->nmaps || s->no_srcline || !max)
		return 0;
	const struct mp_map *m = &s->maps[map_id];
	struct mp_dso *d = &s->dsos[m->dso];
	mp_dso_load(s, d);
	if (d->kernel || d->anon || !d->elf)
		return 0;
	uint64_t va = mp_dso_off_to_vaddr(d, ip - m->start + m->pgoff);
	if (max > INL_CACHE_MAX || va >> 44 || m->dso >= (1u << 19))
		return inline_chain_dwarf(s, d, va, out, max, outer_name);
	int found = 0;
	uint32_t *slot = mp_u64map_slot(&s->inl_idx, (uint64_t)m->dso << 44 | va, &found);
	if (!slot)
		return inline_chain_dwarf(s, d, va, out, max, outer_name);
	if (!found) {
		struct mp_sym_inline v[INL_CACHE_MAX];
		const char *outer = NULL;
		size_t n = inline_chain_dwarf(s, d, va, v, INL_CACHE_MAX, &outer);
		if (mp_grow((void **)&s->inl_v, &s->inl_capv, s->inl_nv + n, sizeof(*v)) ||
		    mp_grow((void **)&s->inl_e, &s->inl_cape, s->inl_ne + 1, sizeof(*s->inl_e))) {
			mp_u64map_unslot(&s->inl_idx, slot);
			size_t k = n < max ? n : max;
			memcpy(out, v, k * sizeof(*v));
			if (outer_name && n < max)
				*outer_name = outer;
			return k;
		}
		if (n)
			memcpy(s->inl_v + s->inl_nv, v, n * sizeof(*v));
		s->inl_e[s->inl_ne] = (struct mp_sym_inl_ent){ (uint32_t)s->inl_nv, (uint32_t)n, outer };
		s->inl_nv += n;
		*slot = (uint32_t)s->inl_ne++;
	}
	const struct mp_sym_inl_ent *e = &s->inl_e[*slot];
	size_t k = e->n < max ? e->n : max;
	if (k)
		memcpy(out, s->inl_v + e->off, k * sizeof(*out));
	if (outer_name && e->n < max)
		*outer_name = e->outer;
	return k;
}

size_t mp_sym_inlines(mp_sym *s, uint32_t map_id, uint64_t ip, const char **names, size_t max)
{
	struct mp_sym_inline v[32];
	size_t n = mp_sym_inline_chain(s, map_id, ip, v, max < 32 ? max : 32, NULL);
	for (size_t i = 0; i < n; i++)
		names[i] = v[i].name;
	return n;
}
