/* mp_pd_regions.c - the named regions of a recording (record --regions): which region a
 * sample of thread TID at time T fell in. The collector writes them into memprof's meta:
 * "regions.nodes" lists each region as PARENT:HEXNAME; (index = position, parent -1 = top
 * level) and "regions.transitions" each begin or end as TID NODE BEGIN TIME; in the order
 * the collector saw them, on the samples' clock. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "mp_perfdata.h"
#include "mp_util.h"

struct step {          /* from time on, thread tid is in region (0 = none, k = node k-1) */
	uint32_t tid;
	uint32_t region;
	uint64_t time;
	size_t seq;    /* order seen: ties of time keep it */
};

struct mp_pd_regions {
	char **names;      /* [nnodes + 1]: [0] "[no region]", [k] node k-1's path "a/b" */
	size_t nnodes;
	struct step *steps; /* sorted by (tid, time, order seen) */
	size_t nsteps;
};

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static int step_cmp(const void *pa, const void *pb)
{
	const struct step *a = pa, *b = pb;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Parse "PARENT:HEX;..." into names with their parents' paths. */
static int parse_nodes(struct mp_pd_regions *r, const char *s, struct mp_err *err)
{
	size_t cap = 1, n = 0;
	int *parent = NULL;
	for (const char *p = s; *p; p++)
		cap += *p == ';';
	r->names = calloc(cap + 1, sizeof(*r->names));
	parent = calloc(cap + 1, sizeof(*parent));
	if (!r->names || !parent)
		goto nomem;
	r->names[0] = strdup("[no region]");
	if (!r->names[0])
		goto nomem;
	for (const char *p = s; *p;) {
		char *end;
		long par = strtol(p, &end, 10);
		if (end == p || *end != ':' || par < -1 || par >= (long)n)
			goto bad;
		const char *h = end + 1;
		size_t hl = strcspn(h, ";");
		if (hl % 2 || h[hl] != ';')
			goto bad;
		const char *pp = par >= 0 ? r->names[par + 1] : NULL;
		size_t pl = pp ? strlen(pp) + 1 : 0;
		char *nm = malloc(pl + hl / 2 + 1);
		if (!nm)
			goto nomem;
		if (pp) {
			memcpy(nm, pp, pl - 1);
			nm[pl - 1] = '/';
		}
		for (size_t i = 0; i < hl / 2; i++) {
			int hi = hexval(h[2 * i]), lo = hexval(h[2 * i + 1]);
			if (hi < 0 || lo < 0) {
				free(nm);
				goto bad;
			}
			char c = (char)(hi << 4 | lo);
			nm[pl + i] = c ? c : '?';
		}
		nm[pl + hl / 2] = 0;
		r->names[++n] = nm;
		r->nnodes = n; /* freed with r from here on, also on a later error */
		parent[n] = (int)par + 1;
		p = h + hl + 1;
	}
	r->nnodes = n;
	free(parent);
	return 0;
bad:
	free(parent);
	return mp_err_set(err, -EINVAL, "regions.nodes: malformed entry %zu", n + 1);
nomem:
	free(parent);
	return mp_err_set(err, -ENOMEM, "regions: out of memory");
}

/* Per thread, a stack of open regions: each begin or end becomes a step to the innermost
 * region open after it. An end of a region that is not innermost closes it and those
 * opened inside it (a missed end). */
struct tstack {
	uint32_t tid;
	uint32_t *v;
	size_t n, cap;
};

static int parse_transitions(struct mp_pd_regions *r, const char *s, struct mp_err *err)
{
	struct tstack *ts = NULL;
	size_t nts = 0, capts = 0, capst = 0, k = 0;
	int rc = 0;
	for (const char *p = s; *p; k++) {
		unsigned long long tid, node, begin, t;
		int used = 0;
		if (sscanf(p, "%llu %llu %llu %llu;%n", &tid, &node, &begin, &t, &used) != 4 || !used ||
		    p[used - 1] != ';' || node >= r->nnodes || begin > 1 || tid > UINT32_MAX) {
			rc = mp_err_set(err, -EINVAL, "regions.transitions: malformed entry %zu", k + 1);
			goto out;
		}
		p += used;
		struct tstack *st = NULL;
		for (size_t i = 0; i < nts; i++)
			if (ts[i].tid == tid)
				st = &ts[i];
		if (!st) {
			if (mp_grow((void **)&ts, &capts, nts + 1, sizeof(*ts)))
				goto nomem;
			st = &ts[nts++];
			memset(st, 0, sizeof(*st));
			st->tid = (uint32_t)tid;
		}
		uint32_t id = (uint32_t)node + 1;
		if (begin) {
			if (mp_grow((void **)&st->v, &st->cap, st->n + 1, sizeof(*st->v)))
				goto nomem;
			st->v[st->n++] = id;
		} else {
			size_t i = st->n;
			while (i > 0 && st->v[i - 1] != id)
				i--;
			if (i > 0)
				st->n = i - 1;
		}
		if (mp_grow((void **)&r->steps, &capst, r->nsteps + 1, sizeof(*r->steps)))
			goto nomem;
		r->steps[r->nsteps] = (struct step){ (uint32_t)tid, st->n ? st->v[st->n - 1] : 0, t,
						       r->nsteps };
		r->nsteps++;
	}
	if (r->nsteps > 1)
		qsort(r->steps, r->nsteps, sizeof(*r->steps), step_cmp);
	goto out;
nomem:
	rc = mp_err_set(err, -ENOMEM, "regions: out of memory");
out:
	for (size_t i = 0; i < nts; i++)
		free(ts[i].v);
	free(ts);
	return rc;
}

void mp_pd_regions_free(mp_pd_regions *r)
{
	if (!r)
		return;
	for (size_t i = 0; r->names && i <= r->nnodes; i++)
		free(r->names[i]);
	free(r->names);
	free(r->steps);
	free(r);
}

int mp_pd_regions_load(const mp_pd *pd, mp_pd_regions **out, struct mp_err *err)
{
	*out = NULL;
	const char *nodes = mp_pd_meta(pd, "regions.nodes");
	const char *tr = mp_pd_meta(pd, "regions.transitions");
	if (!nodes || !tr)
		return 0;
	mp_pd_regions *r = calloc(1, sizeof(*r));
	if (!r)
		return mp_err_set(err, -ENOMEM, "regions: out of memory");
	int rc = parse_nodes(r, nodes, err);
	if (!rc)
		rc = parse_transitions(r, tr, err);
	if (rc) {
		mp_pd_regions_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

struct step_key {
	const struct step *v;
	uint32_t tid;
	uint64_t time;
};

static int step_at_or_before(const void *ctx, size_t i)
{
	const struct step_key *k = ctx;
	const struct step *s = &k->v[i];
	return s->tid < k->tid || (s->tid == k->tid && s->time <= k->time);
}

uint32_t mp_pd_region_of(const mp_pd_regions *r, uint32_t tid, uint64_t time)
{
	if (!r || !r->nsteps)
		return 0;
	struct step_key k = { r->steps, tid, time };
	size_t i = mp_partition_point(0, r->nsteps, &k, step_at_or_before);
	return i > 0 && r->steps[i - 1].tid == tid ? r->steps[i - 1].region : 0;
}

size_t mp_pd_regions_count(const mp_pd_regions *r)
{
	return r ? r->nnodes : 0;
}

const char *mp_pd_region_name(const mp_pd_regions *r, uint32_t region)
{
	if (!r || region > r->nnodes)
		return "[no region]";
	return r->names[region];
}
