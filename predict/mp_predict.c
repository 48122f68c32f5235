/* mp_predict.c - the predict-file reader and the aggregation of its uses. */
#include "mp_predict.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC "MEMPROF-PREDICT "

/* A cursor over one record: every read checks what is left. */
struct cur {
	const char *name;
	const unsigned char *base; /* of the whole file, for offsets */
	const unsigned char *p, *end;
	struct mp_err *err;
};

static uint64_t off(const struct cur *c)
{
	return (uint64_t)(c->p - c->base);
}

static int fail(struct cur *c, int code, const char *what)
{
	return mp_err_set(c->err, code, "%s: offset %llu: %s", c->name,
			  (unsigned long long)off(c), what);
}

static int lit(struct cur *c, const char *s)
{
	size_t n = strlen(s);
	if ((size_t)(c->end - c->p) < n) {
		if (memcmp(c->p, s, (size_t)(c->end - c->p)) == 0)
			return fail(c, -MP_ETRUNC, "record ends early");
		char msg[96];
		snprintf(msg, sizeof msg, "expected '%s'", s);
		return fail(c, -MP_EFORMAT, msg);
	}
	if (memcmp(c->p, s, n) != 0) {
		char msg[96];
		snprintf(msg, sizeof msg, "expected '%s'", s);
		return fail(c, -MP_EFORMAT, msg);
	}
	c->p += n;
	return 0;
}

/* A decimal number of at most 20 digits that fits in max. */
static int num(struct cur *c, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	int nd = 0;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		unsigned d = (unsigned)(*c->p - '0');
		if (v > (max - d) / 10)
			return fail(c, -MP_EFORMAT, "number out of range");
		v = v * 10 + d;
		c->p++;
		nd++;
	}
	if (nd == 0)
		return fail(c, c->p == c->end ? -MP_ETRUNC : -MP_EFORMAT,
			    c->p == c->end ? "record ends early" : "expected a number");
	*out = v;
	return 0;
}

/* <len>:<bytes>, no NUL inside. */
static int str(struct cur *c, char **out)
{
	uint64_t n;
	int rc = num(c, MP_PREDICT_MAX_STR, &n);
	if (rc)
		return rc;
	if ((rc = lit(c, ":")))
		return rc;
	if ((uint64_t)(c->end - c->p) < n)
		return fail(c, -MP_ETRUNC, "string longer than the rest of the record");
	if (memchr(c->p, 0, (size_t)n))
		return fail(c, -MP_EFORMAT, "NUL byte in a string");
	*out = malloc((size_t)n + 1);
	if (!*out)
		return fail(c, -ENOMEM, "out of memory");
	memcpy(*out, c->p, (size_t)n);
	(*out)[n] = 0;
	c->p += n;
	return 0;
}

/* A word of [0-9a-z_-] up to the next space or newline. */
static int word(struct cur *c, char **out, size_t max)
{
	const unsigned char *s = c->p;
	while (c->p < c->end && c->p - s < (ptrdiff_t)max &&
	       ((*c->p >= '0' && *c->p <= '9') || (*c->p >= 'a' && *c->p <= 'z') ||
		*c->p == '_' || *c->p == '-'))
		c->p++;
	if (c->p == s)
		return fail(c, c->p == c->end ? -MP_ETRUNC : -MP_EFORMAT, "expected a word");
	*out = malloc((size_t)(c->p - s) + 1);
	if (!*out)
		return fail(c, -ENOMEM, "out of memory");
	memcpy(*out, s, (size_t)(c->p - s));
	(*out)[c->p - s] = 0;
	return 0;
}

static void use_fini(struct mp_predict_use *u)
{
	free(u->file);
	free(u->func);
	free(u->expr);
	free(u->macro);
	free(u->macro_file);
}

static void record_fini(struct mp_predict_record *r)
{
	free(r->object);
	free(r->build_id);
	free(r->arch);
}

void mp_predict_fini(struct mp_predict *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nuses; i++)
		use_fini(&p->uses[i]);
	for (size_t i = 0; i < p->nrecords; i++)
		record_fini(&p->records[i]);
	free(p->uses);
	free(p->records);
	memset(p, 0, sizeof *p);
}

static int parse_use(struct cur *c, struct mp_predict_use *u)
{
	uint64_t v;
	int rc;
	if ((rc = lit(c, "use ")))
		return rc;
	if (c->p < c->end && *c->p == 'l') {
		if ((rc = lit(c, "likely ")))
			return rc;
		u->likely = 1;
	} else if ((rc = lit(c, "unlikely "))) {
		return rc;
	}
	if (c->p < c->end && *c->p == 'a') {
		if ((rc = lit(c, "atomic ")))
			return rc;
		u->atomic = 1;
	} else if ((rc = lit(c, "plain "))) {
		return rc;
	}
	if ((rc = num(c, UINT32_MAX, &v)) || (rc = lit(c, " ")))
		return rc;
	u->line = (uint32_t)v;
	if ((rc = num(c, UINT64_MAX, &u->correct)) || (rc = lit(c, " ")) ||
	    (rc = num(c, UINT64_MAX, &u->incorrect)) || (rc = lit(c, " ")))
		return rc;
	if ((rc = str(c, &u->file)) || (rc = lit(c, " ")) || (rc = str(c, &u->func)) ||
	    (rc = lit(c, " ")) || (rc = str(c, &u->expr)) || (rc = lit(c, "\n")))
		return rc;
	return 0;
}

/* One record from c->p (the magic) to its end; appends to p. */
static int parse_record(struct mp_predict *p, struct cur *c, size_t *cap_uses,
			size_t *cap_records)
{
	struct mp_predict_record r;
	uint64_t v, body, nuses;
	const unsigned char *rec_end;
	int rc;

	memset(&r, 0, sizeof r);
	r.offset = off(c);
	if ((rc = lit(c, MAGIC)))
		return rc;
	if ((rc = num(c, 1000, &v)))
		return rc;
	if (v != 1)
		return fail(c, -MP_EFORMAT, "unknown record version");
	if ((rc = lit(c, " ")) || (rc = num(c, MP_PREDICT_MAX_BODY, &body)) || (rc = lit(c, "\n")))
		return rc;
	if ((uint64_t)(c->end - c->p) < body)
		return fail(c, -MP_ETRUNC, "record longer than the rest of the file");
	rec_end = c->end;
	c->end = c->p + body; /* the fields must end where the record says */

	if ((rc = lit(c, "pid ")) || (rc = num(c, UINT32_MAX, &r.pid)) || (rc = lit(c, "\n")))
		goto out;
	if ((rc = lit(c, "object ")) || (rc = str(c, &r.object)) || (rc = lit(c, "\n")))
		goto out;
	if ((rc = lit(c, "build-id ")) || (rc = word(c, &r.build_id, 128)) || (rc = lit(c, "\n")))
		goto out;
	if (strcmp(r.build_id, "-") == 0)
		r.build_id[0] = 0;
	if ((rc = lit(c, "arch ")) || (rc = word(c, &r.arch, 32)) || (rc = lit(c, "\n")))
		goto out;
	if ((rc = lit(c, "word ")) || (rc = num(c, 64, &v)) || (rc = lit(c, "\n")))
		goto out;
	if (v != 32 && v != 64) {
		rc = fail(c, -MP_EFORMAT, "counter width is not 32 or 64");
		goto out;
	}
	r.word = (unsigned)v;
	/* written before an exec() replaced the image (the process goes on as another) */
	if (c->end - c->p >= 5 && !memcmp(c->p, "exec\n", 5)) {
		r.exec = 1;
		c->p += 5;
	}
	if ((rc = lit(c, "uses ")) || (rc = num(c, UINT32_MAX, &nuses)) || (rc = lit(c, "\n")))
		goto out;
	/* A use line has at least 30 bytes: a count the body cannot hold is a lie. */
	if (nuses > (uint64_t)(c->end - c->p) / 30) {
		rc = fail(c, -MP_EFORMAT, "more uses than the record can hold");
		goto out;
	}
	r.first_use = p->nuses;
	for (uint64_t i = 0; i < nuses; i++) {
		struct mp_predict_use *u;
		if (mp_grow((void **)&p->uses, cap_uses, p->nuses + 1, sizeof(*p->uses))) {
			rc = fail(c, -ENOMEM, "out of memory");
			goto out;
		}
		u = &p->uses[p->nuses];
		memset(u, 0, sizeof *u);
		u->record = p->nrecords;
		if ((rc = parse_use(c, u))) {
			use_fini(u);
			goto out;
		}
		p->nuses++;
	}
	r.nuses = p->nuses - r.first_use;
	if ((rc = lit(c, "end\n")))
		goto out;
	if (c->p != c->end) {
		rc = fail(c, -MP_EFORMAT, "bytes after 'end' inside the record");
		goto out;
	}
	c->end = rec_end;
	if (mp_grow((void **)&p->records, cap_records, p->nrecords + 1, sizeof(*p->records))) {
		rc = fail(c, -ENOMEM, "out of memory");
		goto out;
	}
	p->records[p->nrecords++] = r;
	return 0;
out:
	record_fini(&r);
	return rc;
}

int mp_predict_parse(struct mp_predict *p, const char *name, const void *buf, size_t len,
		     struct mp_err *err)
{
	struct cur c = {name ? name : "predict", buf, buf, (const unsigned char *)buf + len, err};
	size_t cap_uses = 0, cap_records = 0;
	memset(p, 0, sizeof *p);
	while (c.p < c.end) {
		int rc = parse_record(p, &c, &cap_uses, &cap_records);
		if (rc) {
			mp_predict_fini(p);
			return rc;
		}
	}
	return 0;
}

int mp_predict_read(struct mp_predict *p, const char *path, struct mp_err *err)
{
	struct stat st;
	char *buf;
	size_t got = 0;
	int rc;

	memset(p, 0, sizeof *p);
	/* never blocks on a FIFO, never opens a device (checked through O_PATH first) */
	int fd = mp_open_input(path, MP_OPEN_REGULAR, err);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		rc = mp_err_set(err, -errno, "%s: %s", path, strerror(errno));
		close(fd);
		return rc;
	}
	if ((uint64_t)st.st_size > (uint64_t)64 * MP_PREDICT_MAX_BODY) {
		close(fd);
		return mp_err_set(err, -MP_EFORMAT, "%s: %llu bytes: too large for a predict file",
				  path, (unsigned long long)st.st_size);
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return mp_err_set(err, -ENOMEM, "%s: out of memory", path);
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	rc = mp_predict_parse(p, path, buf, got, err);
	free(buf);
	return rc;
}

/* ---- aggregation ---- */

static int cmpstr(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

struct keyed {
	const struct mp_predict *p;
	size_t use;
	enum mp_predict_by by;
};

static const char *obj_of(const struct mp_predict *p, const struct mp_predict_use *u)
{
	return p->records[u->record].object;
}

/* Compare two uses by the key of `by` (the grouping key), then by location so that
 * the first use of a group is its first location. */
static int key_cmp(const struct mp_predict *p, enum mp_predict_by by, const struct mp_predict_use *a,
		   const struct mp_predict_use *b)
{
	int r;
	switch (by) {
	case MP_PREDICT_BY_EXPR:
		/* a macro's uses by its definition, whatever their arguments' text; hints
		 * written out in place by their text */
		if ((a->macro != NULL) != (b->macro != NULL))
			return a->macro ? -1 : 1;
		if (a->macro) {
			if ((r = cmpstr(a->macro_file, b->macro_file)))
				return r;
			if (a->macro_line != b->macro_line)
				return a->macro_line < b->macro_line ? -1 : 1;
		} else if ((r = cmpstr(a->expr, b->expr))) {
			return r;
		}
		return a->likely - b->likely;
	case MP_PREDICT_BY_FUNCTION:
		if ((r = cmpstr(obj_of(p, a), obj_of(p, b))))
			return r;
		return cmpstr(a->func, b->func);
	case MP_PREDICT_BY_LINE:
		if ((r = cmpstr(obj_of(p, a), obj_of(p, b))) || (r = cmpstr(a->file, b->file)))
			return r;
		return a->line < b->line ? -1 : a->line > b->line;
	case MP_PREDICT_BY_USE:
	default:
		if ((r = cmpstr(obj_of(p, a), obj_of(p, b))) || (r = cmpstr(a->file, b->file)))
			return r;
		if (a->line != b->line)
			return a->line < b->line ? -1 : 1;
		if ((r = cmpstr(a->func, b->func)) || (r = cmpstr(a->expr, b->expr)))
			return r;
		return a->likely - b->likely;
	}
}

static int use_cmp(const struct mp_predict *p, const struct mp_predict_use *a,
		   const struct mp_predict_use *b)
{
	return key_cmp(p, MP_PREDICT_BY_USE, a, b);
}

/* qsort has no context argument: sort indices with an explicit merge sort instead. */
static void msort(size_t *v, size_t *tmp, size_t n, const struct mp_predict *p, enum mp_predict_by by)
{
	size_t h = n / 2, i = 0, j = h, k = 0;
	if (n < 2)
		return;
	msort(v, tmp, h, p, by);
	msort(v + h, tmp, n - h, p, by);
	while (i < h && j < n) {
		const struct mp_predict_use *a = &p->uses[v[i]], *b = &p->uses[v[j]];
		int r = key_cmp(p, by, a, b);
		if (r == 0)
			r = use_cmp(p, a, b);
		tmp[k++] = r <= 0 ? v[i++] : v[j++];
	}
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof *v);
}

static int row_cmp_loc(const struct mp_predict_row *a, const struct mp_predict_row *b)
{
	int r;
	if ((r = cmpstr(a->object, b->object)) || (r = cmpstr(a->file, b->file)))
		return r;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return cmpstr(a->expr, b->expr);
}

#define DESC(x, y) ((x) > (y) ? -1 : (x) < (y) ? 1 : 0)

static int row_cmp(const struct mp_predict_row *a, const struct mp_predict_row *b,
		   enum mp_predict_sort s)
{
	int r = 0;
	switch (s) {
	case MP_PREDICT_SORT_CORRECT:
		r = DESC(a->correct, b->correct);
		break;
	case MP_PREDICT_SORT_PERCENT:
		r = DESC(a->pct_incorrect, b->pct_incorrect);
		break;
	case MP_PREDICT_SORT_TOTAL:
		r = DESC(a->correct + a->incorrect, b->correct + b->incorrect);
		break;
	case MP_PREDICT_SORT_LOCATION:
		break;
	case MP_PREDICT_SORT_INCORRECT:
	default:
		r = DESC(a->incorrect, b->incorrect);
		if (!r)
			r = DESC(a->pct_incorrect, b->pct_incorrect);
		break;
	}
	return r ? r : row_cmp_loc(a, b);
}

static void rsort(struct mp_predict_row *v, struct mp_predict_row *tmp, size_t n,
		  enum mp_predict_sort s)
{
	size_t h = n / 2, i = 0, j = h, k = 0;
	if (n < 2)
		return;
	rsort(v, tmp, h, s);
	rsort(v + h, tmp, n - h, s);
	while (i < h && j < n)
		tmp[k++] = row_cmp(&v[i], &v[j], s) <= 0 ? v[i++] : v[j++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof *v);
}

int mp_predict_aggregate(const struct mp_predict *p, const struct mp_predict_opts *opts,
			 struct mp_predict_row **rows_out, size_t *nrows_out, struct mp_err *err)
{
	size_t n = p->nuses, nrows = 0, *idx, *tmp;
	struct mp_predict_row *rows = NULL, *rtmp = NULL;
	enum mp_predict_by by = opts ? opts->by : MP_PREDICT_BY_USE;
	enum mp_predict_sort sort = opts ? opts->sort : MP_PREDICT_SORT_INCORRECT;
	double threshold = opts ? opts->threshold : 0;

	*rows_out = NULL;
	*nrows_out = 0;
	if (n == 0)
		return 0;
	idx = malloc(n * sizeof *idx);
	tmp = malloc(n * sizeof *tmp);
	rows = calloc(n, sizeof *rows);
	rtmp = malloc(n * sizeof *rtmp);
	if (!idx || !tmp || !rows || !rtmp) {
		free(idx);
		free(tmp);
		free(rows);
		free(rtmp);
		return mp_err_set(err, -ENOMEM, "predict: out of memory for %zu uses", n);
	}
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	msort(idx, tmp, n, p, by);
	for (size_t i = 0; i < n;) {
		const struct mp_predict_use *f = &p->uses[idx[i]];
		struct mp_predict_row *r = &rows[nrows];
		size_t j = i;
		r->hint = f->likely;
		r->expr = f->expr;
		r->func = f->func;
		r->file = f->file;
		r->line = f->line;
		r->object = obj_of(p, f);
		if (by == MP_PREDICT_BY_EXPR && f->macro) {
			r->macro = f->macro;
			r->macro_file = f->macro_file;
			r->macro_line = f->macro_line;
		}
		r->atomic = 1;
		for (; j < n && key_cmp(p, by, f, &p->uses[idx[j]]) == 0; j++) {
			const struct mp_predict_use *u = &p->uses[idx[j]];
			/* counts wrap rather than overflow: 2^64 executions are not reachable */
			r->correct += u->correct;
			r->incorrect += u->incorrect;
			if (u->likely != r->hint)
				r->hint = -1;
			if (!u->atomic)
				r->atomic = 0;
			if (j == i || use_cmp(p, &p->uses[idx[j - 1]], u) != 0) {
				r->nuses++;
				if (j == i || cmpstr(u->file, p->uses[idx[j - 1]].file) ||
				    u->line != p->uses[idx[j - 1]].line)
					r->nlocations++;
			}
		}
		if (r->correct + r->incorrect)
			r->pct_incorrect = 100.0 * (double)r->incorrect /
					   ((double)r->correct + (double)r->incorrect);
		r->warning = r->incorrect > r->correct;
		if (r->pct_incorrect >= threshold || threshold <= 0)
			nrows++;
		else
			memset(r, 0, sizeof *r);
		i = j;
	}
	rsort(rows, rtmp, nrows, sort);
	free(idx);
	free(tmp);
	free(rtmp);
	*rows_out = rows;
	*nrows_out = nrows;
	return 0;
}

int mp_predict_by_parse(const char *s, enum mp_predict_by *by, struct mp_err *err)
{
	static const char *const names[] = {"use", "line", "expr", "function"};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (s && strcmp(s, names[i]) == 0) {
			*by = (enum mp_predict_by)i;
			return 0;
		}
	return mp_err_set(err, -EINVAL, "--by '%s': expected use, line, expr or function",
			  s ? s : "");
}

int mp_predict_sort_parse(const char *s, enum mp_predict_sort *sort, struct mp_err *err)
{
	static const char *const names[] = {"incorrect", "correct", "percent", "total", "location"};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (s && strcmp(s, names[i]) == 0) {
			*sort = (enum mp_predict_sort)i;
			return 0;
		}
	return mp_err_set(err, -EINVAL,
			  "--sort '%s': expected incorrect, correct, percent, total or location",
			  s ? s : "");
}

const char *mp_predict_hint_name(int hint)
{
	return hint == 1 ? "likely" : hint == 0 ? "unlikely" : "mixed";
}

/* ---- beside the source ---- */

static const char *strip_rel(const char *s)
{
	for (;;) {
		if (!strncmp(s, "./", 2))
			s += 2;
		else if (!strncmp(s, "../", 3))
			s += 3;
		else
			return s;
	}
}

int mp_predict_same_file(const char *a, const char *b)
{
	size_t la, lb;
	if (!a || !b || !*a || !*b)
		return 0;
	if (!strcmp(a, b))
		return 1;
	la = strlen(a);
	lb = strlen(b);
	if (la < lb) {
		const char *t = a;
		a = b;
		b = t;
	}
	b = strip_rel(b);
	la = strlen(a);
	lb = strlen(b);
	return lb && la > lb && a[la - lb - 1] == '/' && !strcmp(a + la - lb, b);
}

int mp_predict_line(const struct mp_predict *p, const char *file, uint32_t line,
		    struct mp_predict_row *out)
{
	int found = 0;
	memset(out, 0, sizeof *out);
	for (size_t i = 0; p && i < p->nuses; i++) {
		const struct mp_predict_use *u = &p->uses[i];
		if (u->line != line || !mp_predict_same_file(u->file, file))
			continue;
		if (!found) {
			out->hint = u->likely;
			out->expr = u->expr;
			out->func = u->func;
			out->file = u->file;
			out->line = u->line;
			out->object = obj_of(p, u);
			out->atomic = 1;
			out->nlocations = 1;
		} else if (u->likely != out->hint) {
			out->hint = -1;
		}
		if (!found || strcmp(u->expr, out->expr) || u->likely != out->hint)
			out->nuses++;
		out->correct += u->correct;
		out->incorrect += u->incorrect;
		if (!u->atomic)
			out->atomic = 0;
		found = 1;
	}
	if (!found)
		return 0;
	if (out->correct + out->incorrect)
		out->pct_incorrect = 100.0 * (double)out->incorrect /
				     ((double)out->correct + (double)out->incorrect);
	out->warning = out->incorrect > out->correct;
	return 1;
}

static int name_is(const char *n, const char *want)
{
	return !strcasecmp(n, want);
}

int mp_predict_branch_event(uint32_t type, uint64_t config, const char *name)
{
	/* PERF_TYPE_HARDWARE: PERF_COUNT_HW_BRANCH_INSTRUCTIONS (4), _BRANCH_MISSES (5); the
	 * high 32 bits of config name a hybrid PMU */
	if (type == 0 && (config & 0xffffffffu) == 4)
		return MP_PREDICT_EV_BRANCHES;
	if (type == 0 && (config & 0xffffffffu) == 5)
		return MP_PREDICT_EV_MISSES;
	if (!name)
		return 0;
	char n[128];
	size_t k = 0;
	for (; name[k] && name[k] != ':' && name[k] != '/' && k + 1 < sizeof n; k++)
		n[k] = name[k];
	n[k] = 0;
	if (name_is(n, "Bcm") || name_is(n, "branch-misses") || strstr(n, "MISP") ||
	    strstr(n, "misp") || strstr(n, "MISSP"))
		return MP_PREDICT_EV_MISSES;
	if (name_is(n, "Bc") || name_is(n, "branches") || name_is(n, "branch-instructions") ||
	    name_is(n, "BR_INST_RETIRED") || name_is(n, "BR_INST_RETIRED.ANY") ||
	    name_is(n, "BR_INST_EXEC") || name_is(n, "BR_CND_EXEC"))
		return MP_PREDICT_EV_BRANCHES;
	return 0;
}

int mp_predict_note(const struct mp_predict *p, const char *file, uint32_t line,
		    uint64_t branches, uint64_t misses, char *buf, size_t cap, int *warn)
{
	struct mp_predict_row r;
	int n;
	if (cap)
		buf[0] = 0;
	*warn = 0;
	if (!mp_predict_line(p, file, line, &r))
		return 0;
	*warn = r.warning;
	n = snprintf(buf, cap, "%s: correct %llu, incorrect %llu (%.2f%%)%s",
		     mp_predict_hint_name(r.hint), (unsigned long long)r.correct,
		     (unsigned long long)r.incorrect, r.pct_incorrect, r.warning ? " WARNING" : "");
	if (branches && n > 0 && (size_t)n < cap)
		snprintf(buf + n, cap - (size_t)n, "; branch misses %.2f%% (%llu of %llu)",
			 100.0 * (double)misses / (double)branches, (unsigned long long)misses,
			 (unsigned long long)branches);
	return 1;
}
