/* mp_sim_events.c - the events record --sim can give (callgrind's quantities, the
 * article's Core 2 names and perf's generic names mapped to sums of them, the events the
 * simulator refuses and why: the rows of events/sim_events.tsv, events/mp_sim_table.c), `memprof
 * list --sim`, and event specs with modifiers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mp_sim_int.h"

/* A pattern as memprof list takes it: a case-insensitive substring (globs: their
 * literal prefix up to the first '*' or '?'). */
static int sim_list_match(const char *name, const char *pat)
{
	char lit[128];
	size_t n = 0;
	if (!pat || !*pat)
		return 1;
	while (pat[n] && pat[n] != '*' && pat[n] != '?' && n + 1 < sizeof(lit)) {
		lit[n] = pat[n];
		n++;
	}
	lit[n] = 0;
	return !n || strcasestr(name, lit) != NULL;
}

int mp_sim_list(FILE *f, const char *pattern)
{
	struct mp_err err;
	const mp_sim_table *t = mp_sim_table_get(&err);
	size_t nrows;
	int n = 0;

	if (!t) {
		mp_log(MP_LOG_ERROR, "%s", err.msg);
		return err.code;
	}
	nrows = mp_sim_table_count(t);
	for (int q = 0; q < MP_SIM_NQ; q++)
		n += sim_list_match(mp_sim_quantity_name(q), pattern);
	for (size_t i = 0; i < nrows; i++)
		n += sim_list_match(mp_sim_table_row(t, i)->names, pattern);
	if (!n)
		return 0;
	fprintf(f, "\nSimulated events (memprof record --sim: valgrind's callgrind, exact counts, "
		   "no PMU needed; memprof list --pmu cachegrind lists only these):\n");
	for (int q = 0; q < MP_SIM_NQ; q++)
		if (sim_list_match(mp_sim_quantity_name(q), pattern))
			fprintf(f, "  %-28s %s\n", mp_sim_quantity_name(q),
				mp_sim_table_quantity_desc(t, q));
	fprintf(f, "  Also by these names (each the sum of the quantities after '='):\n");
	for (size_t i = 0; i < nrows; i++) {
		const struct mp_sim_alias *a = mp_sim_table_row(t, i);
		char first[128];
		snprintf(first, sizeof(first), "%.*s", (int)strcspn(a->names, "|"), a->names);
		int own = 0; /* callgrind's own names are listed above */
		for (int q = 0; q < MP_SIM_NQ; q++)
			own |= !strcasecmp(first, mp_sim_quantity_name(q));
		if (own || !a->mask || !sim_list_match(a->names, pattern))
			continue;
		fprintf(f, "  %-28s =", first);
		int plus = 0;
		for (int q = 0; q < MP_SIM_NQ; q++)
			if (a->mask & (1u << q)) {
				fprintf(f, "%s%s", plus ? "+" : " ", mp_sim_quantity_name(q));
				plus = 1;
			}
		fputc('\n', f);
	}
	fprintf(f, "  Not simulated (record them on a PMU, or without --sim):\n");
	for (size_t i = 0; i < nrows; i++) {
		const struct mp_sim_alias *a = mp_sim_table_row(t, i);
		if (a->mask || !sim_list_match(a->names, pattern))
			continue;
		fprintf(f, "  %.*s...: %s\n", (int)strcspn(a->names, "|"), a->names, a->note);
	}
	return ferror(f) ? -EIO : n;
}

static void mask_formula(uint32_t mask, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = 0;
	for (int q = 0; q < MP_SIM_NQ; q++)
		if (mask & (1u << q))
			o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s%s", o ? "+" : "",
					      mp_sim_quantity_name(q));
}

/* Modifiers after the name: perf's ":u" letters, or oprofile's COUNT:UNITMASK:KERNEL:USER
 * (the count is ignored: simulated counts are exact). Sets *user = 0 when user-space
 * counting is off. */
static int parse_mods(const char *spec, char *mods, int *user, int *kernel_only,
		      struct mp_err *err)
{
	*user = 1;
	*kernel_only = 0;
	if (!mods[0])
		return 0;
	if (mods[0] >= '0' && mods[0] <= '9') {
		char *f[4] = { 0 }, *save;
		int nf = 0;
		for (char *t = strtok_r(mods, ":", &save); t && nf < 4; t = strtok_r(NULL, ":", &save))
			f[nf++] = t;
		if (nf == 4 && !strcmp(f[3], "0"))
			*user = 0, *kernel_only = strcmp(f[2], "0") != 0;
		return 0;
	}
	for (const char *m = mods; *m; m++)
		if (!strchr("ukphHGIDSP", *m))
			return mp_err_set(err, -MP_EPARSE, "event '%s': unknown modifier '%c'", spec, *m);
	if (strchr(mods, 'k') && !strchr(mods, 'u'))
		*user = 0, *kernel_only = 1;
	return 0;
}

int mp_sim_event_parse(const char *spec, struct mp_sim_event *ev, struct mp_err *err)
{
	char name[256], mods[256] = "";
	const struct mp_sim_alias *a = NULL;
	const mp_sim_table *t = mp_sim_table_get(err);

	memset(ev, 0, sizeof(*ev));
	if (!t)
		return err ? err->code : -MP_EPARSE;
	while (*spec == ' ')
		spec++;
	snprintf(ev->spec, sizeof(ev->spec), "%s", spec);
	size_t sl = strlen(ev->spec);
	while (sl && ev->spec[sl - 1] == ' ')
		ev->spec[--sl] = 0;
	if (!sl)
		return mp_err_set(err, -MP_EPARSE, "empty event name in the event list");
	if (strchr(ev->spec, '/') || strchr(ev->spec, '{'))
		return mp_err_set(err, -MP_ENOTSUP,
				  "event '%s': raw PMU events and groups are not simulated; "
				  "--sim takes the events it can simulate: %s", ev->spec,
				  mp_sim_table_offer(t));
	/* The longest prefix of ':'-separated fields that names an event wins, with ':'
	 * read as '.', so that libpfm's L2_LINES_IN:SELF:ANY is the article's
	 * L2_LINES_IN.SELF.ANY; what follows are modifiers. */
	snprintf(name, sizeof(name), "%s", ev->spec);
	for (;;) {
		char dotted[256];
		snprintf(dotted, sizeof(dotted), "%s", name);
		for (char *c = dotted; *c; c++)
			if (*c == ':')
				*c = '.';
		if ((a = mp_sim_table_find(t, dotted, ev->name, sizeof(ev->name))))
			break;
		char *last = strrchr(name, ':');
		if (!last)
			break;
		*last = 0;
	}
	if (!a) {
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(ev->spec, ":"), ev->spec);
		return mp_err_set(err, -MP_ENOTSUP, "event '%s': not an event the simulator counts; "
				  "--sim offers %s", ev->spec, mp_sim_table_offer(t));
	}
	if (ev->spec[strlen(name)] == ':')
		snprintf(mods, sizeof(mods), "%s", ev->spec + strlen(name) + 1);
	int user, kernel_only, rc;
	if ((rc = parse_mods(ev->spec, mods, &user, &kernel_only, err)))
		return rc;
	if (!a->mask)
		return mp_err_set(err, -MP_ENOTSUP, "event '%s': cannot be simulated: %s", ev->spec,
				  a->note);
	if (!user)
		return mp_err_set(err, -MP_ENOTSUP,
				  "event '%s': the simulator sees only user-space code, so it cannot "
				  "count %s", ev->spec,
				  kernel_only ? "kernel-only events" : "with user counting off");
	ev->mask = a->mask;
	ev->type = a->type;
	ev->config = a->type == PERF_TYPE_RAW ? mp_pmu_sim_config(a->mask) : a->config;
	mask_formula(ev->mask, ev->formula, sizeof(ev->formula));
	return 0;
}

int mp_sim_events_parse(const char *list, struct mp_sim_event **out, size_t *n,
			struct mp_err *err)
{
	struct mp_sim_event *evs = NULL;
	size_t ne = 0, cap = 0;
	const char *s = list;

	*out = NULL;
	*n = 0;
	if (!list || !*list)
		return mp_err_set(err, -MP_EPARSE, "empty event list");
	for (;;) {
		const char *e = strchr(s, ',');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		char one[256];
		if (len >= sizeof(one)) {
			free(evs);
			return mp_err_set(err, -MP_EPARSE, "event '%.40s...': name too long", s);
		}
		snprintf(one, sizeof(one), "%.*s", (int)len, s);
		if (MP_GROW(evs, cap, ne + 1)) {
			free(evs);
			return mp_err_set(err, -ENOMEM, "out of memory");
		}
		int rc = mp_sim_event_parse(one, &evs[ne], err);
		if (rc) {
			free(evs);
			return rc;
		}
		for (size_t i = 0; i < ne; i++)
			if (!strcmp(evs[i].name, evs[ne].name)) {
				mp_err_set(err, -MP_EPARSE, "event '%s' is given twice", evs[ne].spec);
				free(evs);
				return -MP_EPARSE;
			}
		ne++;
		if (!e)
			break;
		s = e + 1;
	}
	*out = evs;
	*n = ne;
	return 0;
}
