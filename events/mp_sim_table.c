/* mp_sim_table.c - the simulator's event table as data: events/sim_events.tsv, embedded
 * at build time (mp_embed) and parsed once, as aliases.tsv is. Each row is an event
 * record --sim gives (a sum of callgrind's quantities written as a raw or generic perf
 * event) or one it refuses, with why. A bad row is an error naming the file and line.
 * sim/ reads it for record/stat/list --sim, mp_alias.c for aliases.tsv's cachegrind rows. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mp_events_internal.h"

extern const char mp_sim_events_tsv[];

#define SIM_TABLE_FILE "sim_events.tsv"
#define SIM_NCOLS 5
#define SIM_MAXQ 32 /* quantities: one bit each of a uint32_t mask */

struct mp_sim_table {
	char *text;                    /* a copy of the table with NULs at tabs and newlines */
	struct mp_sim_alias *rows;
	size_t n;
	char *offer;                   /* the names an unknown event's message offers */
	const char *desc[SIM_MAXQ];    /* what each quantity counts (its own row's note) */
};

const char *mp_sim_table_text(void)
{
	return mp_sim_events_tsv;
}

void mp_sim_table_free(mp_sim_table *t)
{
	if (!t)
		return;
	free(t->text);
	free(t->rows);
	free(t->offer);
	free(t);
}

size_t mp_sim_table_count(const mp_sim_table *t)
{
	return t->n;
}

const struct mp_sim_alias *mp_sim_table_row(const mp_sim_table *t, size_t i)
{
	return i < t->n ? &t->rows[i] : NULL;
}

const char *mp_sim_table_offer(const mp_sim_table *t)
{
	return t->offer;
}

const char *mp_sim_table_quantity_desc(const mp_sim_table *t, int q)
{
	return q >= 0 && q < SIM_MAXQ ? t->desc[q] : NULL;
}

/* Find name among the '|'-separated spellings; the matched spelling goes to out. */
static int spelling_match(const char *names, const char *name, char *out, size_t outlen)
{
	size_t n = strlen(name);
	for (const char *s = names; *s;) {
		const char *e = strchr(s, '|');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		if (len == n && !strncasecmp(s, name, n)) {
			if (out)
				snprintf(out, outlen, "%.*s", (int)len, s);
			return 1;
		}
		if (!e)
			break;
		s = e + 1;
	}
	return 0;
}

const struct mp_sim_alias *mp_sim_table_find(const mp_sim_table *t, const char *name,
					     char *canon, size_t len)
{
	for (size_t i = 0; i < t->n; i++)
		if (spelling_match(t->rows[i].names, name, canon, len))
			return &t->rows[i];
	return NULL;
}

/* ---- parsing ---- */

/* callgrind's quantities: pmu_models.tsv's simq rows, bits 0..nquantities()-1. */
static const char *quantity_name(int q)
{
	return q >= 0 && q < SIM_MAXQ ? mp_pmu_sim_quantity_name(q) : NULL;
}

static int nquantities(void)
{
	int n = 0;
	while (quantity_name(n))
		n++;
	return n;
}


struct tparse {
	const char *file;
	unsigned line;
	mp_sim_table *t;
	struct mp_err *err;
};

static int terr(struct tparse *tp, const char *fmt, const char *a, const char *b)
{
	char msg[400];
	snprintf(msg, sizeof(msg), fmt, a, b);
	return mp_err_set(tp->err, -MP_EPARSE, "%s:%u: %s", tp->file, tp->line, msg);
}

static int quantity_of(const char *s, size_t len)
{
	for (int q = 0; q < nquantities(); q++) {
		const char *name = quantity_name(q);
		if (name && strlen(name) == len && !strncmp(name, s, len))
			return q;
	}
	return -1;
}

/* "D1mr+D1mw" -> the quantities' bits. */
static int parse_counts(struct tparse *tp, const char *s, uint32_t *mask)
{
	*mask = 0;
	for (const char *p = s;;) {
		size_t len = strcspn(p, "+");
		int q = quantity_of(p, len);
		if (q < 0) {
			char one[64], all[200];
			size_t o = 0;
			snprintf(one, sizeof(one), "%.*s", (int)len, p);
			all[0] = 0;
			for (int k = 0; k < nquantities() && o < sizeof(all); k++)
				o += (size_t)snprintf(all + o, sizeof(all) - o, "%s%s", k ? ", " : "",
						      quantity_name(k));
			return terr(tp, "counts: '%s' is not one of callgrind's quantities (%s)", one,
				    all);
		}
		if (*mask & (1u << q))
			return terr(tp, "counts: '%s' is summed twice%s", quantity_name(q), "");
		*mask |= 1u << q;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

/* Each spelling is not empty, fits struct mp_sim_event's name, and stands in no earlier
 * row. */
static int check_names(struct tparse *tp, const struct mp_sim_alias *a)
{
	for (const char *s = a->names;;) {
		size_t len = strcspn(s, "|");
		char one[64];
		if (!len)
			return terr(tp, "names: an empty spelling in '%s'%s", a->names, "");
		snprintf(one, sizeof(one), "%.*s", (int)len, s);
		if (len >= sizeof(one))
			return terr(tp, "names: '%s...' is longer than 63 characters%s", one, "");
		for (size_t i = 0; i < tp->t->n; i++)
			if (spelling_match(tp->t->rows[i].names, one, NULL, 0)) {
				char at[32];
				snprintf(at, sizeof(at), "%u", tp->t->rows[i].line);
				return terr(tp, "names: '%s' is also a spelling on line %s", one, at);
			}
		if (!s[len])
			return 0;
		s += len + 1;
	}
}

static const char *dash_null(const char *s)
{
	return strcmp(s, "-") ? s : NULL;
}

/* One data row: its SIM_NCOLS fields. */
static int parse_row(struct tparse *tp, char **f, struct mp_sim_alias *a)
{
	memset(a, 0, sizeof(*a));
	a->names = f[0];
	a->hint = dash_null(f[3]);
	a->note = dash_null(f[4]);
	a->line = tp->line;
	int rc = check_names(tp, a);
	if (rc)
		return rc;
	if (!strcmp(f[1], "-")) {
		if (strcmp(f[2], "-") || !a->note || a->hint)
			return terr(tp, "'%s' cannot be simulated (counts '-'): it takes perf '-', "
				    "hint '-' and why in note%s", f[0], "");
		return 0;
	}
	if ((rc = parse_counts(tp, f[1], &a->mask)))
		return rc;
	if (!strcmp(f[2], "raw")) {
		a->type = PERF_TYPE_RAW;
	} else {
		char canon[64];
		if (!mp_generic_lookup(f[2], &a->type, &a->config, canon, sizeof(canon)))
			return terr(tp, "perf: '%s' is neither 'raw' nor one of perf's generic "
				    "events%s", f[2], "");
	}
	if (a->hint && !spelling_match(a->names, a->hint, NULL, 0))
		return terr(tp, "hint: '%s' is not one of the row's names%s", a->hint, "");
	return 0;
}

/* The quantities' descriptions (each quantity's own row) and the offer. */
static int table_finish(struct tparse *tp)
{
	mp_sim_table *t = tp->t;
	struct mp_buf b = { 0 };

	for (int q = 0; q < nquantities(); q++) {
		const struct mp_sim_alias *a = mp_sim_table_find(t, quantity_name(q), NULL, 0);
		if (!a || a->mask != 1u << q || !a->note ||
		    strncasecmp(a->names, quantity_name(q), strcspn(a->names, "|")))
			return mp_err_set(tp->err, -MP_EPARSE,
					  "%s: no row for callgrind's quantity '%s' (its name first, "
					  "counts '%s', what it counts in note)",
					  tp->file, quantity_name(q), quantity_name(q));
		t->desc[q] = a->note;
	}
	/* callgrind's quantities, then those only memprof's tool counts ("(mpsim only)") */
	int bad = mp_buf_printf(&b, "callgrind's"), own = 0;
	for (int q = 0; q < nquantities(); q++) {
		int mine = strstr(t->desc[q], "(mpsim only)") != NULL;
		bad |= mp_buf_printf(&b, "%s %s", !q ? "" : mine && !own ? "; mpsim's" : ",",
				     quantity_name(q));
		own |= mine;
	}
	for (size_t i = 0, k = 0; i < t->n; i++)
		if (t->rows[i].hint)
			bad |= mp_buf_printf(&b, "%s %s", k++ ? "," : ";", t->rows[i].hint);
	if (bad || !b.data) {
		mp_buf_fini(&b);
		return mp_err_set(tp->err, -ENOMEM, "out of memory");
	}
	t->offer = b.data;
	return 0;
}

static int table_row(const struct mp_tsv *t, void *dst, void *ctx, struct mp_err *err)
{
	struct tparse *tp = ctx;
	(void)err;
	tp->line = (unsigned)t->line;
	return parse_row(tp, (char **)t->f, dst);
}

static int table_parse_lines(struct tparse *tp, char *text)
{
	struct mp_tsv tsv;
	mp_tsv_init(&tsv, text, tp->file, "names\tcounts\tperf\thint\tnote", SIM_NCOLS, SIM_NCOLS);
	return mp_tsv_rows(&tsv, sizeof(*tp->t->rows), table_row, tp, (void **)&tp->t->rows,
			   &tp->t->n, tp->err);
}

int mp_sim_table_parse(const char *text, const char *file, mp_sim_table **out,
		       struct mp_err *err)
{
	struct tparse tp = { .file = file, .err = err };
	int rc;

	*out = NULL;
	if (!(tp.t = calloc(1, sizeof(*tp.t))) || !(tp.t->text = mp_strdup(text))) {
		free(tp.t);
		return mp_err_set(err, -ENOMEM, "out of memory");
	}
	rc = table_parse_lines(&tp, tp.t->text);
	if (!rc)
		rc = table_finish(&tp);
	if (rc) {
		mp_sim_table_free(tp.t);
		return rc;
	}
	*out = tp.t;
	return 0;
}

/* The embedded table, parsed once for the process (or its error, kept). */
static mp_sim_table *sim_table;
static struct mp_err sim_table_err;
static pthread_once_t sim_table_once = PTHREAD_ONCE_INIT;

static void sim_table_load(void)
{
	mp_sim_table_parse(mp_sim_events_tsv, SIM_TABLE_FILE, &sim_table, &sim_table_err);
}

const mp_sim_table *mp_sim_table_get(struct mp_err *err)
{
	pthread_once(&sim_table_once, sim_table_load);
	if (!sim_table && err)
		*err = sim_table_err;
	return sim_table;
}
