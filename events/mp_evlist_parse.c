/* mp_evlist_parse.c - an event list: events separated by commas (none inside / / or
 * { }), groups {a,b}[:MODS] and leader sampling {a,b}:S. Each event is parsed by
 * mp_event_parse() (mp_evspec.c). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_events_internal.h"

/* A ':' field made of modifier letters with an S in it (cycles:S, cpu/.../uS): perf's
 * leader sampling, which only a group takes. */
static int has_leader_mod(const char *spec)
{
	const char *slash = strrchr(spec, '/');
	const char *p = slash ? slash + 1 : strchr(spec, ':');
	while (p && *p) {
		if (*p == ':')
			p++;
		const char *e = strchr(p, ':');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		int s = 0, ok = l > 0;
		for (size_t i = 0; i < l && ok; i++) {
			if (p[i] == 'S')
				s = 1;
			else if (!strchr("ukhpGH", p[i]))
				ok = 0;
		}
		if (ok && s)
			return 1;
		p = e;
	}
	return 0;
}

static int parse_one(const char *spec, const struct mp_evopts *opts, struct mp_event *ev,
		     struct mp_err *err)
{
	int rc = mp_event_parse(spec, opts, ev, err);
	if (rc && has_leader_mod(spec))
		rc = mp_err_set(err, -MP_EPARSE,
				"event '%s': the modifier S (leader sampling) applies to a group only: put it after the '}' of {LEADER,MEMBER,...}:S",
				spec);
	return rc;
}

static int grow(struct mp_event **evs, size_t nev, size_t *cap, struct mp_err *err)
{
	if (mp_grow((void **)evs, cap, nev + 1, sizeof(**evs)))
		return mp_err_set(err, -ENOMEM, "out of memory");
	return 0;
}

/* The event s[0..len) with mods after it, parsed onto the end of *evs. */
static int add_event(const char *s, size_t len, const char *mods, const struct mp_evopts *opts,
		     struct mp_event **evs, size_t *nev, size_t *cap, struct mp_err *err)
{
	char item[300];
	if (len + strlen(mods) >= sizeof(item))
		return mp_err_set(err, -MP_EPARSE, "event '%.40s...': too long", s);
	memcpy(item, s, len);
	snprintf(item + len, sizeof(item) - len, "%s", mods);
	int rc = grow(evs, *nev, cap, err);
	if (!rc)
		rc = parse_one(item, opts, &(*evs)[*nev], err);
	if (!rc)
		(*nev)++;
	return rc;
}

/* The modifiers after a group's '}' (":u", ":uS", ":S:k"): S sets *leader, the rest is
 * copied to mods as ":LETTERS" for every member. */
static int group_suffix(const char *list, const char *group, const char *suf, char *mods,
			size_t len, int *leader, struct mp_err *err)
{
	size_t o = 0;
	*leader = 0;
	mods[0] = 0;
	if (!*suf)
		return 0;
	if (*suf != ':' || !suf[1])
		return mp_err_set(err, -MP_EPARSE,
				  "event list '%s': bad group modifier '%s' after '%s' (':' and u, k, h, p, S)",
				  list, suf, group);
	for (const char *p = suf + 1; *p; p++) {
		if (*p == ':') {
			if (!p[1] || p[1] == ':')
				return mp_err_set(err, -MP_EPARSE,
						  "event list '%s': bad group modifier '%s' after '%s' (empty field)",
						  list, suf, group);
			continue;
		}
		if (*p == 'S') {
			*leader = 1;
			continue;
		}
		if (!strchr("ukhpGH", *p))
			return mp_err_set(err, -MP_EPARSE,
					  "event list '%s': bad group modifier '%s' after '%s' ('%c' is none of u, k, h, p, S)",
					  list, suf, group, *p);
		if (o + 3 >= len)
			return mp_err_set(err, -MP_EPARSE, "event list '%s': group modifier '%s' too long",
					  list, suf);
		if (!o || p[-1] == ':' || p[-1] == 'S')
			mods[o++] = ':';
		mods[o++] = *p;
		mods[o] = 0;
	}
	return 0;
}

static void set_leader_sampling(struct mp_event *evs, size_t first, size_t n,
				const struct mp_evopts *opts)
{
	for (size_t i = first; i < first + n; i++) {
		struct perf_event_attr *a = &evs[i].attr;
		evs[i].leader_sample = i == first ? MP_LEADER_SAMPLE_LEADER : MP_LEADER_SAMPLE_MEMBER;
		if (opts && opts->count_only)
			continue;
		/* As perf sets them: every member carries the leader's read bits, so that the
		 * attrs of the group agree in a perf.data file; only the leader samples. */
		a->sample_type |= PERF_SAMPLE_READ;
		a->read_format |= PERF_FORMAT_GROUP | PERF_FORMAT_ID;
		if (i != first) {
			a->sample_period = 0;
			a->sample_freq = 0;
			a->freq = 0;
		}
	}
}

/* Split a list at commas outside / / and { }. A group {a,b}[:MODS] adds its members (memprof
 * puts all the events of a run in one group anyway), each with the group's modifiers;
 * :S (leader sampling) marks them and sets their attrs (see struct mp_event). */
int mp_events_parse(const char *list, const struct mp_evopts *opts, struct mp_event **out,
		    size_t *n, struct mp_err *err)
{
	struct mp_event *evs = NULL;
	size_t nev = 0, cap = 0, items = 0;
	const char *p = list;
	int rc = 0, leader_group = 0;

	*out = NULL;
	*n = 0;
	if (!list || !*list)
		return mp_err_set(err, -MP_EPARSE, "empty event list");
	while (*p) {
		const char *start = p, *q = p;
		int in_slash = 0;

		items++;
		if (*p == '{') {
			/* the group body: up to the matching '}', no '{' inside */
			for (q = p + 1; *q; q++) {
				if (*q == '/')
					in_slash = !in_slash;
				else if (!in_slash && *q == '{') {
					rc = mp_err_set(err, -MP_EPARSE,
							"event list '%s': nested '{' at '%.40s' (groups do not nest)",
							list, q);
					goto fail;
				} else if (!in_slash && *q == '}')
					break;
			}
			if (!*q) {
				rc = mp_err_set(err, -MP_EPARSE,
						"event list '%s': unbalanced '{' in '%.60s' (no closing '}')",
						list, start);
				goto fail;
			}
			const char *close = q;
			for (q = close + 1; *q && *q != ','; q++)
				if (*q == '{' || *q == '}') {
					rc = mp_err_set(err, -MP_EPARSE,
							"event list '%s': unbalanced '%c' after the group '%.*s'",
							list, *q, (int)(close + 1 - start), start);
					goto fail;
				}
			size_t glen = (size_t)(close + 1 - start), slen = (size_t)(q - close - 1);
			char group[300], suf[64], mods[64];
			if (glen >= sizeof(group) || slen >= sizeof(suf)) {
				rc = mp_err_set(err, -MP_EPARSE, "event group '%.40s...': too long", start);
				goto fail;
			}
			memcpy(group, start, glen);
			group[glen] = 0;
			memcpy(suf, close + 1, slen);
			suf[slen] = 0;
			int leader;
			rc = group_suffix(list, group, suf, mods, sizeof(mods), &leader, err);
			if (rc)
				goto fail;
			size_t first = nev;
			const char *m = start + 1;
			if (m == close) {
				rc = mp_err_set(err, -MP_EPARSE, "event list '%s': empty group '{}'", list);
				goto fail;
			}
			while (m <= close) {
				const char *e = m;
				int sl = 0;
				for (; e < close && (sl || *e != ','); e++)
					if (*e == '/')
						sl = !sl;
				size_t ml = (size_t)(e - m);
				if (!ml) {
					rc = mp_err_set(err, -MP_EPARSE,
							"event list '%s': empty event in the group '%s'", list,
							group);
					goto fail;
				}
				if ((rc = add_event(m, ml, mods, opts, &evs, &nev, &cap, err)))
					goto fail;
				m = e + 1;
			}
			if (leader) {
				leader_group = 1;
				set_leader_sampling(evs, first, nev - first, opts);
			}
		} else {
			for (; *q; q++) {
				if (*q == '/')
					in_slash = !in_slash;
				else if (!in_slash && (*q == '{' || *q == '}')) {
					size_t l = strcspn(start, ",");
					rc = mp_err_set(err, -MP_EPARSE,
							"event list '%s': %s '%c' in '%.*s' (a group is {EVENT,...}[:MODS])",
							list, *q == '}' ? "unbalanced" : "misplaced", *q,
							(int)(l < 60 ? l : 60), start);
					goto fail;
				} else if (!in_slash && *q == ',')
					break;
			}
			size_t len = (size_t)(q - start);
			if (!len) {
				rc = mp_err_set(err, -MP_EPARSE, "event list '%s': empty event between commas",
						list);
				goto fail;
			}
			if ((rc = add_event(start, len, "", opts, &evs, &nev, &cap, err)))
				goto fail;
		}
		p = *q ? q + 1 : q;
		if (*q && !*p) {
			rc = mp_err_set(err, -MP_EPARSE, "event list '%s': trailing comma", list);
			goto fail;
		}
	}
	if (leader_group && items > 1) {
		rc = mp_err_set(err, -MP_EPARSE,
				"event list '%s': a leader-sampling group {...}:S must be the whole list (memprof opens all the events of a run as one group, led by the first)",
				list);
		goto fail;
	}
	*out = evs;
	*n = nev;
	return 0;
fail:
	free(evs);
	return rc;
}
