/* mp_sim_cg.c - read callgrind's output (the "callgrind format", version 1) and the
 * `valgrind -v -v` log that says where each object was loaded.
 *
 * Only what record --sim needs is kept: the self cost of every (object, instruction
 * address). File and function names are parsed only as far as the format requires.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_events.h"
#include "mp_sim.h"

/* The names are rows of events/pmu_models.tsv (simq), shared with the ratios' resolver;
 * enum mp_sim_quantity follows their bit order (tests/test_sim.c checks it). */
const char *mp_sim_quantity_name(int q)
{
	return q >= 0 && q < MP_SIM_NQ ? mp_pmu_sim_quantity_name(q) : NULL;
}

#define MAX_POS 4     /* positions: instr bb line (and room for one more) */
#define MAX_EVENTS 64 /* columns in an events: line */

struct mp_sim_profile {
	char **objs;
	size_t nobjs, cap_objs;
	struct mp_sim_cost *costs;
	size_t ncosts, cap_costs;
	size_t *hash; /* open addressing: index + 1 into costs, 0 = empty */
	size_t hash_cap;
	uint64_t totals[MP_SIM_NQ];
	int has[MP_SIM_NQ];
	char **fns;                 /* function names (fn=/cfn=) */
	size_t nfns, cap_fns;
	struct mp_sim_call *calls;
	size_t ncalls, cap_calls;
	uint32_t pid;
	struct mp_sim_geometry geom;
	char creator[64];
	char *cmd;
};

/* Parser state for one file. */
struct cg_parse {
	const char *path;
	unsigned long lineno;
	mp_sim_profile *p;
	int npos, instr_pos;          /* number of position columns, index of instr */
	int col[MAX_EVENTS];          /* events: column -> MP_SIM_* or -1 */
	int ncols;
	uint64_t last[MAX_POS];       /* last position written (relative compression) */
	uint32_t cur_obj;
	int have_obj;
	int skip_next;                /* next position line is a call's inclusive cost */
	int call_next;                /* ... of a calls= line (not a jump) */
	uint64_t call_count;
	size_t *obj_ids;              /* ob=(N) compression: N -> obj index + 1 */
	size_t nobj_ids;
	size_t *fn_ids;               /* fn=(N) compression: N -> fn index + 1 */
	size_t nfn_ids;
	uint32_t cur_fn, call_fn;     /* fn= and the last cfn= */
	int have_fn, have_call_fn;
	uint64_t file_totals[MP_SIM_NQ];
	int have_totals;
};

static int perr(struct cg_parse *cp, struct mp_err *err, const char *fmt, const char *what)
{
	char buf[256];
	snprintf(buf, sizeof(buf), fmt, what);
	return mp_err_set(err, -MP_EPARSE, "%s:%lu: %s", cp->path, cp->lineno, buf);
}

static int add_obj(mp_sim_profile *p, const char *name, uint32_t *idx)
{
	for (size_t i = 0; i < p->nobjs; i++)
		if (!strcmp(p->objs[i], name)) {
			*idx = (uint32_t)i;
			return 0;
		}
	if (MP_GROW(p->objs, p->cap_objs, p->nobjs + 1))
		return -ENOMEM;
	if (!(p->objs[p->nobjs] = strdup(name)))
		return -ENOMEM;
	*idx = (uint32_t)p->nobjs++;
	return 0;
}

static size_t hash_slot(uint32_t obj, uint64_t addr, size_t cap)
{
	uint64_t h = (addr ^ ((uint64_t)obj << 56)) * 0x9e3779b97f4a7c15ULL;
	return (size_t)(h >> 20) & (cap - 1);
}

static int hash_grow(mp_sim_profile *p)
{
	size_t cap = p->hash_cap ? p->hash_cap * 2 : 4096;
	size_t *h = calloc(cap, sizeof(*h));
	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < p->ncosts; i++) {
		size_t s = hash_slot(p->costs[i].obj, p->costs[i].addr, cap);
		while (h[s])
			s = (s + 1) & (cap - 1);
		h[s] = i + 1;
	}
	free(p->hash);
	p->hash = h;
	p->hash_cap = cap;
	return 0;
}

static struct mp_sim_cost *cost_at(mp_sim_profile *p, uint32_t obj, uint64_t addr)
{
	if ((p->ncosts + 1) * 2 > p->hash_cap && hash_grow(p))
		return NULL;
	size_t s = hash_slot(obj, addr, p->hash_cap);
	while (p->hash[s]) {
		struct mp_sim_cost *c = &p->costs[p->hash[s] - 1];
		if (c->obj == obj && c->addr == addr)
			return c;
		s = (s + 1) & (p->hash_cap - 1);
	}
	if (MP_GROW(p->costs, p->cap_costs, p->ncosts + 1))
		return NULL;
	struct mp_sim_cost *c = &p->costs[p->ncosts++];
	memset(c, 0, sizeof(*c));
	c->obj = obj;
	c->fn = UINT32_MAX;
	c->addr = addr;
	p->hash[s] = p->ncosts;
	return c;
}

static int add_fn(mp_sim_profile *p, const char *name, uint32_t *idx)
{
	if (MP_GROW(p->fns, p->cap_fns, p->nfns + 1))
		return -ENOMEM;
	if (!(p->fns[p->nfns] = strdup(name)))
		return -ENOMEM;
	*idx = (uint32_t)p->nfns++;
	return 0;
}

/* callgrind's name compression, the same for objects (ob=/cob=) and functions
 * (fn=/cfn=): "(N) name" names N, "(N)" refers to it, a bare "name" is not numbered. */
struct name_ref {
	const char *what;            /* "object", "function" */
	unsigned long long max_id;   /* a larger N is a bad reference */
	size_t room;                 /* ids grown to N + room */
	int (*add)(mp_sim_profile *p, const char *name, uint32_t *idx);
};
/* Objects are one per name; a function name without an id is a new function each time
 * (callgrind compresses every name it repeats). */
static const struct name_ref obj_ref = { "object", 10000000, 64, add_obj };
static const struct name_ref fn_ref = { "function", 100000000, 256, add_fn };

/* "(N) name", "(N)" or "name": the index of the object or function in *out. ids/nids:
 * N -> index + 1 of this file's compression. */
static int parse_name_ref(struct cg_parse *cp, const struct name_ref *k, size_t **ids,
			  size_t *nids, const char *s, uint32_t *out, struct mp_err *err)
{
	const char *name = s;
	size_t id = 0;
	int has_id = 0;

	if (*s == '(') {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(s + 1, &end, 10);
		if (end == s + 1 || *end != ')' || errno || v > k->max_id)
			return perr(cp, err, "bad name reference '%s'", s);
		id = (size_t)v;
		has_id = 1;
		name = end + 1;
		while (*name == ' ')
			name++;
	}
	if (!*name) {
		char msg[256];
		if (!has_id)
			return perr(cp, err, "empty %s name", k->what);
		if (id >= *nids || !(*ids)[id]) {
			snprintf(msg, sizeof(msg), "%s %s used before it is named", k->what, s);
			return perr(cp, err, "%s", msg);
		}
		*out = (uint32_t)((*ids)[id] - 1);
		return 0;
	}
	uint32_t idx;
	if (k->add(cp->p, name, &idx))
		return mp_err_set(err, -ENOMEM, "%s: out of memory", cp->path);
	if (has_id) {
		if (id >= *nids &&
		    mp_grow_zero((void **)ids, nids, (size_t)id + k->room, sizeof(**ids)))
			return mp_err_set(err, -ENOMEM, "%s: out of memory", cp->path);
		(*ids)[id] = idx + 1;
	}
	*out = idx;
	return 0;
}

static int parse_obj_ref(struct cg_parse *cp, const char *s, uint32_t *obj, struct mp_err *err)
{
	return parse_name_ref(cp, &obj_ref, &cp->obj_ids, &cp->nobj_ids, s, obj, err);
}

static int parse_fn_ref(struct cg_parse *cp, const char *s, uint32_t *fn, struct mp_err *err)
{
	return parse_name_ref(cp, &fn_ref, &cp->fn_ids, &cp->nfn_ids, s, fn, err);
}

/* A calls= line's inclusive cost: added to the (caller, site, callee) entry. */
static int add_call(struct cg_parse *cp, uint64_t site, const uint64_t v[MP_SIM_NQ])
{
	mp_sim_profile *p = cp->p;
	uint32_t caller = cp->have_fn ? cp->cur_fn : UINT32_MAX;
	for (size_t i = p->ncalls; i-- > 0 && i + 64 >= p->ncalls;) {
		struct mp_sim_call *c = &p->calls[i];
		if (c->caller == caller && c->callee == cp->call_fn && c->obj == cp->cur_obj &&
		    c->addr == site) {
			c->calls += cp->call_count;
			for (int q = 0; q < MP_SIM_NQ; q++)
				c->v[q] += v[q];
			return 0;
		}
	}
	if (MP_GROW(p->calls, p->cap_calls, p->ncalls + 1))
		return -ENOMEM;
	struct mp_sim_call *c = &p->calls[p->ncalls++];
	c->caller = caller;
	c->callee = cp->call_fn;
	c->obj = cp->cur_obj;
	c->addr = site;
	c->calls = cp->call_count;
	memcpy(c->v, v, sizeof(c->v));
	return 0;
}

static int parse_positions_line(struct cg_parse *cp, const char *s, struct mp_err *err)
{
	char buf[256];
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", s);
	cp->instr_pos = -1;
	for (char *save, *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (n == MAX_POS)
			return perr(cp, err, "too many position columns in '%s'", s);
		if (!strcmp(t, "instr"))
			cp->instr_pos = n;
		n++;
	}
	if (cp->instr_pos < 0)
		return perr(cp, err, "positions: '%s' has no instr (callgrind needs --dump-instr=yes)", s);
	cp->npos = n;
	memset(cp->last, 0, sizeof(cp->last));
	return 0;
}

static int parse_events_line(struct cg_parse *cp, const char *s, struct mp_err *err)
{
	char buf[1024];
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", s);
	memset(cp->p->has, 0, sizeof(cp->p->has));
	for (char *save, *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (n == MAX_EVENTS)
			return perr(cp, err, "too many events in '%s'", s);
		cp->col[n] = -1;
		int q = mp_pmu_sim_quantity(t);
		if (q >= 0 && q < MP_SIM_NQ) {
			cp->col[n] = q;
			cp->p->has[q] = 1;
		}
		n++;
	}
	if (!n)
		return perr(cp, err, "empty events: line%s", "");
	cp->ncols = n;
	return 0;
}

/* Read up to ncols decimal numbers into v (by quantity). */
static int parse_costs(struct cg_parse *cp, const char *s, uint64_t v[MP_SIM_NQ], struct mp_err *err)
{
	int i = 0;

	memset(v, 0, MP_SIM_NQ * sizeof(v[0]));
	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || *s == '\n' || *s == '\r')
			break;
		if (i == cp->ncols)
			return perr(cp, err, "more costs than events at '%s'", s);
		if (!isdigit((unsigned char)*s))
			return perr(cp, err, "bad cost '%.32s'", s);
		char *end;
		errno = 0;
		unsigned long long x = strtoull(s, &end, 10);
		if (errno || (*end && *end != ' ' && *end != '\t' && *end != '\n' && *end != '\r'))
			return perr(cp, err, "bad cost '%.32s'", s);
		if (cp->col[i] >= 0)
			v[cp->col[i]] = x;
		i++;
		s = end;
	}
	return 0;
}

/* Positions are decimal, or hex with 0x (never octal: "010" is ten). */
static int num_base(const char *s)
{
	return s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10;
}

/* A position or cost line: npos positions, then costs. */
static int parse_cost_line(struct cg_parse *cp, const char *s, struct mp_err *err)
{
	uint64_t pos[MAX_POS];

	if (!cp->npos)
		return perr(cp, err, "cost line before positions:/events: '%.40s'", s);
	for (int i = 0; i < cp->npos; i++) {
		while (*s == ' ' || *s == '\t')
			s++;
		char *end;
		errno = 0;
		if (*s == '*') {
			pos[i] = cp->last[i];
			end = (char *)s + 1;
		} else if (*s == '+' || *s == '-') {
			unsigned long long d = strtoull(s + 1, &end, num_base(s + 1));
			if (end == s + 1)
				return perr(cp, err, "bad position '%.32s'", s);
			pos[i] = *s == '+' ? cp->last[i] + d : cp->last[i] - d;
		} else if (isdigit((unsigned char)*s)) {
			pos[i] = strtoull(s, &end, num_base(s));
		} else {
			return perr(cp, err, "bad position '%.32s'", s);
		}
		if (errno || (*end && *end != ' ' && *end != '\t' && *end != '\n' && *end != '\r'))
			return perr(cp, err, "bad position '%.32s'", s);
		s = end;
	}
	/* The line after calls=/jump=/jcnd= is the call's inclusive cost, already counted
	 * as the callee's self cost; callgrind does not move its "last" position for it. */
	if (cp->skip_next) {
		cp->skip_next = 0;
		uint64_t v[MP_SIM_NQ];
		int rc = parse_costs(cp, s, v, err);
		if (rc || !cp->call_next)
			return rc;
		cp->call_next = 0;
		if (!cp->have_obj) {
			if (add_obj(cp->p, "???", &cp->cur_obj))
				return mp_err_set(err, -ENOMEM, "%s: out of memory", cp->path);
			cp->have_obj = 1;
		}
		if (cp->have_call_fn && add_call(cp, pos[cp->instr_pos], v))
			return mp_err_set(err, -ENOMEM, "%s: out of memory", cp->path);
		return 0;
	}
	memcpy(cp->last, pos, sizeof(pos[0]) * (size_t)cp->npos);
	uint64_t v[MP_SIM_NQ];
	int rc = parse_costs(cp, s, v, err);
	if (rc)
		return rc;
	if (!cp->have_obj) {
		if (add_obj(cp->p, "???", &cp->cur_obj))
			return mp_err_set(err, -ENOMEM, "%s: out of memory", cp->path);
		cp->have_obj = 1;
	}
	struct mp_sim_cost *c = cost_at(cp->p, cp->cur_obj, pos[cp->instr_pos]);
	if (!c)
		return mp_err_set(err, -ENOMEM, "%s: out of memory", cp->path);
	if (c->fn == UINT32_MAX && cp->have_fn)
		c->fn = cp->cur_fn;
	for (int q = 0; q < MP_SIM_NQ; q++) {
		c->v[q] += v[q];
		cp->p->totals[q] += v[q];
	}
	return 0;
}

/* "desc: D1 cache: 32768 B, 64 B, 8-way associative" */
static void parse_desc(mp_sim_profile *p, const char *s)
{
	char which[8];
	unsigned long long size;
	unsigned line, assoc;

	if (sscanf(s, "%7s cache: %llu B, %u B, %u-way", which, &size, &line, &assoc) != 4)
		return;
	struct mp_sim_cache c = { size, assoc, line };
	if (!strcmp(which, "I1"))
		p->geom.i1 = c;
	else if (!strcmp(which, "D1"))
		p->geom.d1 = c;
	else if (!strcmp(which, "LL") || !strcmp(which, "L2"))
		p->geom.ll = c;
}

static int key_is(const char *line, const char *key, const char **rest)
{
	size_t n = strlen(key);
	if (strncmp(line, key, n))
		return 0;
	*rest = line + n;
	while (**rest == ' ' || **rest == '\t')
		(*rest)++;
	return 1;
}

static int parse_line(struct cg_parse *cp, char *line, struct mp_err *err)
{
	const char *r;
	size_t len = strlen(line);

	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		line[--len] = 0;
	if (!len || line[0] == '#')
		return 0;
	char c = line[0];
	if (isdigit((unsigned char)c) || c == '+' || c == '-' || c == '*')
		return parse_cost_line(cp, line, err);
	if (key_is(line, "ob=", &r))
		return cp->have_obj = 1, parse_obj_ref(cp, r, &cp->cur_obj, err);
	if (key_is(line, "cob=", &r)) {
		uint32_t dummy; /* only defines a compressed name here */
		return parse_obj_ref(cp, r, &dummy, err);
	}
	if (key_is(line, "fn=", &r)) {
		cp->have_fn = 1;
		return parse_fn_ref(cp, r, &cp->cur_fn, err);
	}
	if (key_is(line, "cfn=", &r)) {
		cp->have_call_fn = 1;
		return parse_fn_ref(cp, r, &cp->call_fn, err);
	}
	if (key_is(line, "calls=", &r)) {
		cp->skip_next = 1;
		cp->call_next = 1;
		cp->call_count = strtoull(r, NULL, 10);
		return 0;
	}
	if (key_is(line, "jump=", &r) || key_is(line, "jcnd=", &r)) {
		cp->skip_next = 1;
		cp->call_next = 0;
		return 0;
	}
	if (key_is(line, "positions:", &r))
		return parse_positions_line(cp, r, err);
	if (key_is(line, "events:", &r))
		return parse_events_line(cp, r, err);
	if (key_is(line, "totals:", &r)) {
		uint64_t v[MP_SIM_NQ];
		int rc = parse_costs(cp, r, v, err);
		if (rc)
			return rc;
		for (int q = 0; q < MP_SIM_NQ; q++)
			cp->file_totals[q] += v[q];
		cp->have_totals = 1;
		return 0;
	}
	if (key_is(line, "pid:", &r)) {
		cp->p->pid = (uint32_t)strtoul(r, NULL, 10);
		return 0;
	}
	if (key_is(line, "creator:", &r)) {
		snprintf(cp->p->creator, sizeof(cp->p->creator), "%s", r);
		return 0;
	}
	if (key_is(line, "cmd:", &r)) {
		free(cp->p->cmd);
		if (!(cp->p->cmd = strdup(r)))
			return mp_err_set(err, -ENOMEM, "%s: out of memory", cp->path);
		return 0;
	}
	if (key_is(line, "desc:", &r)) {
		parse_desc(cp->p, r);
		return 0;
	}
	/* Other specifications (fl= fi= fe= fn= cfi= cfn= jfi= jfn= ln= bb=) name files and
	 * functions, which the symbolizer finds again from the objects; header lines
	 * (version: part: summary: event: thread: ...) carry nothing we need. */
	const char *eq = strpbrk(line, "=:");
	if (eq && eq > line) {
		for (const char *k = line; k < eq; k++)
			if (!isalnum((unsigned char)*k) && *k != '_')
				return perr(cp, err, "unexpected line '%.40s'", line);
		return 0;
	}
	return perr(cp, err, "unexpected line '%.40s'", line);
}

static int cmp_cost(const void *a, const void *b)
{
	const struct mp_sim_cost *x = a, *y = b;
	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

mp_sim_profile *mp_sim_profile_read(const char *path, struct mp_err *err)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		mp_err_set(err, -errno, "%s: %s", path, strerror(errno));
		return NULL;
	}
	mp_sim_profile *p = calloc(1, sizeof(*p));
	struct cg_parse cp = { .path = path, .p = p };
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;

	if (!p) {
		fclose(f);
		mp_err_set(err, -ENOMEM, "%s: out of memory", path);
		return NULL;
	}
	if (getline(&line, &cap, f) < 0 || strncmp(line, "# callgrind format", 18)) {
		rc = mp_err_set(err, -MP_EFORMAT,
				"%s: not a callgrind output file (no '# callgrind format' line)", path);
		goto out;
	}
	cp.lineno = 1;
	while (getline(&line, &cap, f) >= 0) {
		cp.lineno++;
		if ((rc = parse_line(&cp, line, err)))
			goto out;
	}
	if (ferror(f)) {
		rc = mp_err_set(err, -EIO, "%s: read error", path);
		goto out;
	}
	if (!cp.ncols) {
		rc = mp_err_set(err, -MP_EFORMAT, "%s: no events: line", path);
		goto out;
	}
	if (cp.have_totals)
		for (int q = 0; q < MP_SIM_NQ; q++)
			if (p->has[q] && cp.file_totals[q] != p->totals[q]) {
				rc = mp_err_set(err, -MP_EFORMAT,
						"%s: self costs add up to %" PRIu64 " %s but the totals: line says %" PRIu64,
						path, p->totals[q], mp_sim_quantity_name(q), cp.file_totals[q]);
				goto out;
			}
	if (p->ncosts)
		qsort(p->costs, p->ncosts, sizeof(*p->costs), cmp_cost);
	free(p->hash); /* the order changed: lookups are over */
	p->hash = NULL;
	p->hash_cap = 0;
out:
	free(line);
	free(cp.obj_ids);
	free(cp.fn_ids);
	fclose(f);
	if (rc) {
		mp_sim_profile_free(p);
		return NULL;
	}
	return p;
}

void mp_sim_profile_free(mp_sim_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nobjs; i++)
		free(p->objs[i]);
	free(p->objs);
	for (size_t i = 0; i < p->nfns; i++)
		free(p->fns[i]);
	free(p->fns);
	free(p->calls);
	free(p->costs);
	free(p->hash);
	free(p->cmd);
	free(p);
}

size_t mp_sim_profile_nobjs(const mp_sim_profile *p) { return p->nobjs; }
const char *mp_sim_profile_obj(const mp_sim_profile *p, size_t i)
{
	return i < p->nobjs ? p->objs[i] : NULL;
}
size_t mp_sim_profile_ncosts(const mp_sim_profile *p) { return p->ncosts; }
size_t mp_sim_profile_nfns(const mp_sim_profile *p) { return p->nfns; }
const char *mp_sim_profile_fn(const mp_sim_profile *p, size_t i)
{
	return i < p->nfns ? p->fns[i] : NULL;
}
size_t mp_sim_profile_ncalls(const mp_sim_profile *p) { return p->ncalls; }
const struct mp_sim_call *mp_sim_profile_calls(const mp_sim_profile *p) { return p->calls; }
const struct mp_sim_cost *mp_sim_profile_costs(const mp_sim_profile *p) { return p->costs; }
const uint64_t *mp_sim_profile_totals(const mp_sim_profile *p) { return p->totals; }
int mp_sim_profile_has(const mp_sim_profile *p, int q)
{
	return q >= 0 && q < MP_SIM_NQ && p->has[q];
}
uint32_t mp_sim_profile_pid(const mp_sim_profile *p) { return p->pid; }
const struct mp_sim_geometry *mp_sim_profile_geometry(const mp_sim_profile *p) { return &p->geom; }
const char *mp_sim_profile_creator(const mp_sim_profile *p) { return p->creator; }
const char *mp_sim_profile_cmd(const mp_sim_profile *p) { return p->cmd ? p->cmd : ""; }

/* ---- valgrind -v -v log ------------------------------------------------------------- */

/* Strip valgrind's "==PID== " / "--PID-- " prefix. */
static const char *log_body(const char *line)
{
	if ((line[0] == '=' && line[1] == '=') || (line[0] == '-' && line[1] == '-')) {
		const char *e = strstr(line + 2, line[0] == '=' ? "== " : "-- ");
		if (e)
			return e + 3;
	}
	return line;
}

void mp_sim_loads_free(struct mp_sim_load *l, size_t n)
{
	for (size_t i = 0; l && i < n; i++)
		free(l[i].path);
	free(l);
}

int mp_sim_read_log(const char *path, struct mp_sim_load **out, size_t *n, struct mp_err *err)
{
	FILE *f = fopen(path, "r");
	struct mp_sim_load *l = NULL;
	size_t nl = 0, capl = 0;
	char *line = NULL, *cur = NULL;
	size_t cap = 0;
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (!f)
		return mp_err_set(err, -errno, "%s: %s", path, strerror(errno));
	while (getline(&line, &cap, f) >= 0) {
		size_t len = strlen(line);
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		const char *b = log_body(line);
		unsigned long long svma, avma;
		if (!strncmp(b, "Reading syms from ", 18)) {
			free(cur);
			if (!(cur = strdup(b + 18))) {
				rc = -ENOMEM;
				break;
			}
		} else if (cur && sscanf(b, " svma %llx, avma %llx", &svma, &avma) == 2) {
			if (MP_GROW(l, capl, nl + 1)) {
				rc = -ENOMEM;
				break;
			}
			l[nl].path = cur;
			l[nl].bias = (uint64_t)avma - (uint64_t)svma;
			nl++;
			cur = NULL; /* only the first svma line after Reading syms */
		}
	}
	free(cur);
	free(line);
	fclose(f);
	if (rc) {
		mp_sim_loads_free(l, nl);
		return mp_err_set(err, rc, "%s: out of memory", path);
	}
	*out = l;
	*n = nl;
	return 0;
}
