/* mp_dtype.c - the DWARF type of a global or static variable, or of a heap object, and the
 * field at an offset in it (perf's data-type keys `type` and `typeoff`): per object, the
 * variables whose location is one address (DW_OP_addr) are indexed by that address once; a
 * query walks the variable's type down through structures, unions and arrays to the
 * innermost member. A heap object's type is the pointee of the pointer variable its
 * allocation's result is stored in, found at the call's return address (once per call). */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_analyzer.h"

struct dt_var {
	uint64_t addr;
	Dwarf_Off type; /* the variable's DW_AT_type DIE */
};

/* an allocation call's typed result: its return address, the pointee (0: none found) */
struct dt_call {
	uint64_t ret;
	Dwarf_Off type;
	uint64_t size;
};

struct dt_obj {
	char *path;
	int fd;
	Dwarf *dw;
	struct dt_var *vars; /* sorted by addr */
	size_t nvars;
	struct dt_call *calls; /* by ret, found through by_ret */
	size_t ncalls, ccalls;
	struct mp_u64map by_ret;
};

struct mp_dtype {
	char *symfs;
	struct dt_obj *objs;
	size_t nobjs, cobjs;
};

mp_dtype *mp_dtype_new(const char *symfs)
{
	mp_dtype *t = calloc(1, sizeof(*t));
	if (t && symfs && *symfs && strcmp(symfs, "/") && !(t->symfs = strdup(symfs))) {
		free(t);
		return NULL;
	}
	return t;
}

void mp_dtype_free(mp_dtype *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nobjs; i++) {
		if (t->objs[i].dw)
			dwarf_end(t->objs[i].dw);
		if (t->objs[i].fd >= 0)
			close(t->objs[i].fd);
		free(t->objs[i].vars);
		free(t->objs[i].calls);
		mp_u64map_fini(&t->objs[i].by_ret);
		free(t->objs[i].path);
	}
	free(t->objs);
	free(t->symfs);
	free(t);
}

static int var_cmp(const void *a, const void *b)
{
	const struct dt_var *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Variables of DIE's children (namespaces and their children too). */
static void index_vars(struct dt_obj *o, Dwarf_Die *parent, size_t *cap, int depth)
{
	Dwarf_Die c;
	if (depth > 8 || dwarf_child(parent, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);
		if (tag == DW_TAG_namespace) {
			index_vars(o, &c, cap, depth + 1);
			continue;
		}
		if (tag != DW_TAG_variable)
			continue;
		Dwarf_Attribute at, tat;
		Dwarf_Op *ops;
		size_t nops;
		Dwarf_Die type;
		if (!dwarf_attr(&c, DW_AT_location, &at) || dwarf_getlocation(&at, &ops, &nops) ||
		    nops != 1 || ops[0].atom != DW_OP_addr)
			continue;
		/* a definition of a declaration carries its type on the declaration */
		if (!dwarf_attr_integrate(&c, DW_AT_type, &tat) || !dwarf_formref_die(&tat, &type))
			continue;
		if (MP_GROW(o->vars, *cap, o->nvars + 1))
			return;
		o->vars[o->nvars].addr = ops[0].number;
		o->vars[o->nvars].type = dwarf_dieoffset(&type);
		o->nvars++;
	} while (dwarf_siblingof(&c, &c) == 0);
}

static struct dt_obj *obj_get(mp_dtype *t, const char *path)
{
	for (size_t i = 0; i < t->nobjs; i++)
		if (!strcmp(t->objs[i].path, path))
			return &t->objs[i];
	if (MP_GROW(t->objs, t->cobjs, t->nobjs + 1))
		return NULL;
	struct dt_obj *o = &t->objs[t->nobjs];
	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if (!(o->path = strdup(path)))
		return NULL;
	t->nobjs++;
	char full[4096];
	snprintf(full, sizeof(full), "%s%s", t->symfs ? t->symfs : "", path);
	o->fd = open(full, O_RDONLY | O_CLOEXEC);
	if (o->fd < 0 || !(o->dw = dwarf_begin(o->fd, DWARF_C_READ)))
		return o;
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0;
	while (dwarf_nextcu(o->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(o->dw, off + hsize, &cu))
			index_vars(o, &cu, &cap, 0);
		off = next;
	}
	qsort(o->vars, o->nvars, sizeof(*o->vars), var_cmp);
	return o;
}

/* typedefs, const and volatile stripped (at most a few levels) */
static int strip(Dwarf_Die *d)
{
	for (int i = 0; i < 16; i++) {
		int tag = dwarf_tag(d);
		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
		    tag != DW_TAG_restrict_type && tag != DW_TAG_atomic_type)
			return tag;
		Dwarf_Attribute at;
		if (!dwarf_attr_integrate(d, DW_AT_type, &at) || !dwarf_formref_die(&at, d))
			return -1;
	}
	return -1;
}

/* A type's name as C spells it: "struct pair", "long int", "char[16]", "int *". */
static void type_name(Dwarf_Die *d, char *buf, size_t len, int depth)
{
	Dwarf_Die t = *d, sub;
	Dwarf_Attribute at;
	const char *name = dwarf_diename(&t);
	int has_sub = dwarf_attr_integrate(&t, DW_AT_type, &at) && dwarf_formref_die(&at, &sub);
	int tag = dwarf_tag(&t);
	const char *kw = tag == DW_TAG_structure_type	  ? "struct"
			 : tag == DW_TAG_union_type	  ? "union"
			 : tag == DW_TAG_enumeration_type ? "enum"
			 : tag == DW_TAG_class_type	  ? "class"
							  : NULL;
	if (kw) {
		snprintf(buf, len, "%s %s", kw, name ? name : "(anon)");
		return;
	}
	switch (tag) {
	case DW_TAG_pointer_type:
		if (has_sub && depth < 8) {
			char in[200];
			type_name(&sub, in, sizeof(in), depth + 1);
			snprintf(buf, len, "%s*", in);
		} else {
			snprintf(buf, len, "void*");
		}
		return;
	case DW_TAG_array_type: {
		char in[200] = "?";
		if (has_sub && depth < 8)
			type_name(&sub, in, sizeof(in), depth + 1);
		Dwarf_Word n = 0;
		Dwarf_Die sr;
		if (dwarf_child(&t, &sr) == 0 && dwarf_tag(&sr) == DW_TAG_subrange_type) {
			Dwarf_Attribute ua;
			Dwarf_Word ub;
			if (dwarf_attr(&sr, DW_AT_count, &ua) && !dwarf_formudata(&ua, &ub))
				n = ub;
			else if (dwarf_attr(&sr, DW_AT_upper_bound, &ua) && !dwarf_formudata(&ua, &ub))
				n = ub + 1;
		}
		snprintf(buf, len, "%s[%" PRIu64 "]", in, (uint64_t)n);
		return;
	}
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
		if (has_sub && depth < 8) {
			type_name(&sub, buf, len, depth + 1);
			return;
		}
		break;
	default:
		break;
	}
	snprintf(buf, len, "%s", name ? name : "(unknown)");
}

/* The member path at off in type d ("b", "in.x", "arr[3].y"), appended to path. */
static void field_at(Dwarf_Die *d, uint64_t off, char *path, size_t len, int depth)
{
	Dwarf_Die t = *d;
	int tag = strip(&t);
	if (depth > 16 || tag < 0)
		return;
	if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_class_type) {
		Dwarf_Die m;
		if (dwarf_child(&t, &m) != 0)
			return;
		do {
			if (dwarf_tag(&m) != DW_TAG_member)
				continue;
			Dwarf_Attribute at;
			Dwarf_Word moff = 0;
			if (dwarf_attr(&m, DW_AT_data_member_location, &at) && dwarf_formudata(&at, &moff))
				continue;
			Dwarf_Die mt;
			if (!dwarf_attr_integrate(&m, DW_AT_type, &at) || !dwarf_formref_die(&at, &mt))
				continue;
			Dwarf_Word msize;
			if (dwarf_aggregate_size(&mt, &msize) || off < moff || off - moff >= msize)
				continue;
			const char *n = dwarf_diename(&m);
			size_t l = strlen(path);
			snprintf(path + l, len - l, "%s%s", l ? "." : "", n ? n : "(anon)");
			field_at(&mt, off - moff, path, len, depth + 1);
			return;
		} while (dwarf_siblingof(&m, &m) == 0);
		return;
	}
	if (tag == DW_TAG_array_type) {
		Dwarf_Attribute at;
		Dwarf_Die et;
		Dwarf_Word esize;
		if (!dwarf_attr_integrate(&t, DW_AT_type, &at) || !dwarf_formref_die(&at, &et) ||
		    dwarf_aggregate_size(&et, &esize) || !esize)
			return;
		Dwarf_Die es = et;
		int etag = strip(&es);
		/* an element that has members gets its index; an array of scalars stays whole */
		if (etag == DW_TAG_structure_type || etag == DW_TAG_union_type ||
		    etag == DW_TAG_class_type || etag == DW_TAG_array_type) {
			size_t l = strlen(path);
			snprintf(path + l, len - l, "[%" PRIu64 "]", off / esize);
			field_at(&et, off % esize, path, len, depth + 1);
		}
	}
}

/* out for type d of object o at off */
static int loc_fill(mp_dtype *t, struct dt_obj *o, Dwarf_Die *d, uint64_t off,
		    struct mp_dtype_loc *out)
{
	Dwarf_Die named = *d;
	Dwarf_Word size = 0;
	/* the name the program uses (a typedef's), the layout of what it names */
	type_name(&named, out->type, sizeof(out->type), 0);
	field_at(d, off, out->field, sizeof(out->field), 0);
	dwarf_aggregate_size(d, &size);
	out->offset = off;
	out->type_size = size;
	out->obj = (uint32_t)(o - t->objs);
	out->die = dwarf_dieoffset(d);
	out->path = o->path;
	return 1;
}

int mp_dtype_of(mp_dtype *t, const char *path, uint64_t var_addr, uint64_t off,
		struct mp_dtype_loc *out)
{
	memset(out, 0, sizeof(*out));
	if (!t || !path)
		return 0;
	struct dt_obj *o = obj_get(t, path);
	if (!o || !o->nvars)
		return 0;
	size_t lo = 0, hi = o->nvars;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (o->vars[mid].addr < var_addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == o->nvars || o->vars[lo].addr != var_addr)
		return 0;
	Dwarf_Die type;
	if (!dwarf_offdie(o->dw, o->vars[lo].type, &type))
		return 0;
	return loc_fill(t, o, &type, off, out);
}

/* The pointee of pointer variable v (with a size), 1 and *pointee set. */
static int pointee_of(Dwarf_Die *v, Dwarf_Die *pointee, Dwarf_Word *size)
{
	Dwarf_Attribute at;
	Dwarf_Die pt;
	if (!dwarf_attr_integrate(v, DW_AT_type, &at) || !dwarf_formref_die(&at, &pt) ||
	    strip(&pt) != DW_TAG_pointer_type || !dwarf_attr_integrate(&pt, DW_AT_type, &at) ||
	    !dwarf_formref_die(&at, pointee))
		return 0;
	Dwarf_Die b = *pointee;
	int tag = strip(&b);
	return tag > 0 && tag != DW_TAG_subroutine_type && !dwarf_aggregate_size(pointee, size) &&
	       *size > 0;
}

/* The variable a call's result goes to, around its return address ret: among the pointer
 * variables and parameters in scope at the call, the one whose location at ret is the
 * return value's register (DWARF register 0: rax on x86-64, x0 on arm64: where an
 * optimized build keeps `p` of `p = malloc(...)` right after the call), else the one
 * declared on the call's source line (`struct foo *p = malloc(sizeof *p)`, any build). */
static int call_result(struct dt_obj *o, uint64_t ret, Dwarf_Die *pointee, Dwarf_Word *psize)
{
	Dwarf_Die cu, *scopes = NULL;
	uint64_t pc = ret - 1;
	if (!o->dw || !dwarf_addrdie(o->dw, pc, &cu))
		return 0;
	Dwarf_Line *ln = dwarf_getsrc_die(&cu, pc);
	int line = 0;
	const char *file = NULL;
	if (ln) {
		dwarf_lineno(ln, &line);
		file = dwarf_linesrc(ln, NULL, NULL);
	}
	int n = dwarf_getscopes(&cu, pc, &scopes);
	int found = 0; /* 2: by location, 1: by declaration line */
	for (int i = 0; i < n && found < 2; i++) {
		Dwarf_Die c;
		if (dwarf_child(&scopes[i], &c) != 0)
			continue;
		do {
			int tag = dwarf_tag(&c);
			Dwarf_Die pt;
			Dwarf_Word sz;
			if ((tag != DW_TAG_variable && tag != DW_TAG_formal_parameter) ||
			    !pointee_of(&c, &pt, &sz))
				continue;
			Dwarf_Attribute at;
			Dwarf_Op *ops;
			size_t nops;
			if (dwarf_attr(&c, DW_AT_location, &at) &&
			    dwarf_getlocation_addr(&at, ret, &ops, &nops, 1) == 1 && nops == 1 &&
			    ops[0].atom == DW_OP_reg0) {
				*pointee = pt;
				*psize = sz;
				found = 2;
				break;
			}
			int dl;
			const char *df;
			if (!found && line && tag == DW_TAG_variable && !dwarf_decl_line(&c, &dl) &&
			    dl == line && file && (df = dwarf_decl_file(&c)) && !strcmp(df, file)) {
				*pointee = pt;
				*psize = sz;
				found = 1;
			}
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	free(scopes);
	return found > 0;
}

int mp_dtype_of_alloc(mp_dtype *t, const char *path, uint64_t ret, uint64_t size, uint64_t off,
		      struct mp_dtype_loc *out)
{
	memset(out, 0, sizeof(*out));
	if (!t || !path || !ret)
		return 0;
	struct dt_obj *o = obj_get(t, path);
	if (!o || !o->dw)
		return 0;
	int found;
	uint32_t *slot = mp_u64map_slot(&o->by_ret, ret, &found);
	if (!slot)
		return -ENOMEM;
	if (!found) {
		if (MP_GROW(o->calls, o->ccalls, o->ncalls + 1)) {
			mp_u64map_unslot(&o->by_ret, slot);
			return -ENOMEM;
		}
		struct dt_call *c = &o->calls[o->ncalls];
		Dwarf_Die pt;
		Dwarf_Word psize;
		c->ret = ret;
		c->type = 0;
		c->size = 0;
		if (call_result(o, ret, &pt, &psize)) {
			c->type = dwarf_dieoffset(&pt);
			c->size = psize;
		}
		*slot = (uint32_t)o->ncalls++;
	}
	const struct dt_call *c = &o->calls[*slot];
	Dwarf_Die type;
	/* an object of that type or an array of them; anything else is not what it points to */
	if (!c->type || size % c->size || !dwarf_offdie(o->dw, c->type, &type))
		return 0;
	return loc_fill(t, o, &type, off % c->size, out);
}

int mp_dtype_of_sample(mp_dtype *t, const struct mp_daddr_loc *dl, const struct mp_heap_obj *ho,
		       mp_heap *h, mp_sym *sym, struct mp_dtype_loc *out)
{
	memset(out, 0, sizeof(*out));
	if (dl && dl->sym && dl->obj_path)
		return mp_dtype_of(t, dl->obj_path, dl->sym_start, dl->vaddr - dl->sym_start, out);
	const char *path;
	uint64_t ret;
	if (!ho || !ho->found || !mp_heap_site_frame(h, sym, ho->site, &path, &ret))
		return 0;
	return mp_dtype_of_alloc(t, path, ret, ho->size, ho->offset, out);
}

const char *mp_dtype_typeoff_str(const struct mp_dtype_loc *loc, char *buf, size_t n)
{
	if (loc->field[0])
		snprintf(buf, n, "%s +0x%" PRIx64 " (%s)", loc->type, loc->offset, loc->field);
	else
		snprintf(buf, n, "%s +0x%" PRIx64, loc->type, loc->offset);
	return buf;
}

/* One more layout entry, zeroed but for where it is and what; NULL when out of memory. */
static struct mp_dtype_member *entry_add(struct mp_dtype_member **out, size_t *n, size_t *cap,
					 uint64_t offset, uint64_t size, unsigned depth, int kind)
{
	if (MP_GROW(*out, *cap, *n + 1))
		return NULL;
	struct mp_dtype_member *e = &(*out)[(*n)++];
	memset(e, 0, sizeof(*e));
	e->offset = offset;
	e->size = size;
	e->depth = depth;
	e->kind = kind;
	return e;
}

/* Members of structure or union d (stripped) at base, depth, after out[*n]; holes between
 * a structure's members and its padding at the end as entries of their own. */
static int layout_members(Dwarf_Die *d, uint64_t base, uint64_t dsize, unsigned depth,
			  struct mp_dtype_member **out, size_t *n, size_t *cap)
{
	Dwarf_Die t = *d, m;
	int tag = strip(&t);
	if (depth > 8 || (tag != DW_TAG_structure_type && tag != DW_TAG_union_type &&
			  tag != DW_TAG_class_type) ||
	    dwarf_child(&t, &m) != 0)
		return 0;
	int is_struct = tag != DW_TAG_union_type;
	uint64_t end = 0; /* where the previous member ended, relative to base */
	do {
		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		Dwarf_Attribute at;
		Dwarf_Word moff = 0, msize = 0;
		Dwarf_Die mt;
		if (dwarf_attr(&m, DW_AT_data_member_location, &at) && dwarf_formudata(&at, &moff))
			continue;
		if (!dwarf_attr_integrate(&m, DW_AT_type, &at) || !dwarf_formref_die(&at, &mt))
			continue;
		dwarf_aggregate_size(&mt, &msize);
		if (is_struct && moff > end &&
		    !entry_add(out, n, cap, base + end, moff - end, depth, MP_DTYPE_HOLE))
			return -ENOMEM;
		struct mp_dtype_member *e =
			entry_add(out, n, cap, base + moff, msize, depth, MP_DTYPE_MEMBER);
		if (!e)
			return -ENOMEM;
		size_t me = *n - 1;
		Dwarf_Die named = mt;
		type_name(&named, e->type, sizeof(e->type), 0);
		const char *nm = dwarf_diename(&m);
		snprintf(e->name, sizeof(e->name), "%s", nm ? nm : "");
		size_t before = *n;
		int rc = layout_members(&mt, base + moff, msize, depth + 1, out, n, cap);
		if (rc)
			return rc;
		(*out)[me].has_children = *n > before;
		if (moff + msize > end)
			end = moff + msize;
	} while (dwarf_siblingof(&m, &m) == 0);
	if (is_struct && dsize > end &&
	    !entry_add(out, n, cap, base + end, dsize - end, depth, MP_DTYPE_PADDING))
		return -ENOMEM;
	return 0;
}

int mp_dtype_layout(mp_dtype *t, const struct mp_dtype_loc *loc, struct mp_dtype_member **out,
		    size_t *n)
{
	*out = NULL;
	*n = 0;
	Dwarf_Die d;
	if (!t || loc->obj >= t->nobjs || !t->objs[loc->obj].dw ||
	    !dwarf_offdie(t->objs[loc->obj].dw, loc->die, &d))
		return -ENOENT;
	size_t cap = 0;
	struct mp_dtype_member *top = entry_add(out, n, &cap, 0, loc->type_size, 0, MP_DTYPE_MEMBER);
	if (!top)
		return -ENOMEM;
	snprintf(top->type, sizeof(top->type), "%s", loc->type);
	int rc = layout_members(&d, 0, loc->type_size, 1, out, n, &cap);
	if (rc) {
		free(*out);
		*out = NULL;
		*n = 0;
		return rc;
	}
	(*out)[0].has_children = *n > 1;
	return 0;
}
