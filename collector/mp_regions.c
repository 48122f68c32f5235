/* mp_regions.c - the collector's side of the markers' control protocol (marker.h): parse
 * the messages, count each thread's regions with a group of its own, opened at the thread's
 * first message and read at each begin and end while the thread waits for its ack. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mp_collector_internal.h"

enum {
	HDR_MAX = 64,       /* longest header line, '\n' included */
	NAME_MAX_ = 1024,   /* MEMPROF_REGION_NAME_MAX */
	NODES_MAX = 4096,   /* distinct (parent, name) regions */
	THREADS_MAX = 4096,
	DEPTH_MAX = 256,
	NOTES_MAX = 16,
};

/* ---- the protocol ---- */

static int parse_num(const unsigned char **p, const unsigned char *end, unsigned long long max,
		     unsigned long long *out)
{
	unsigned long long v = 0;
	const unsigned char *s = *p;
	if (s == end || *s < '0' || *s > '9')
		return -1;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (unsigned)(*s - '0');
		if (v > max)
			return -1;
	}
	*p = s;
	*out = v;
	return 0;
}

int mp_ctl_parse(const unsigned char *buf, size_t n, struct mp_ctl_msg *m, struct mp_err *err)
{
	static const struct {
		const char *word;
		enum mp_ctl_kind kind;
	} words[] = { { "begin", MP_CTL_BEGIN },     { "end", MP_CTL_END },
		      { "enable", MP_CTL_ENABLE },   { "disable", MP_CTL_DISABLE },
		      { "ping", MP_CTL_PING } };
	size_t lim = n < HDR_MAX ? n : HDR_MAX, eol = 0;
	const unsigned char *p, *end;
	unsigned long long tid, len;

	while (eol < lim && buf[eol] != '\n' && buf[eol] != 0)
		eol++;
	if (eol == lim)
		return n < HDR_MAX ? 0
				   : mp_err_set(err, -EPROTO, "no end of line in the first %d bytes",
						HDR_MAX);
	memset(m, 0, sizeof(*m));
	end = buf + eol;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t wl = strlen(words[i].word);
		if (eol < wl || memcmp(buf, words[i].word, wl) ||
		    (eol > wl && buf[wl] != ' '))
			continue;
		m->kind = words[i].kind;
		if (m->kind != MP_CTL_BEGIN && m->kind != MP_CTL_END) {
			if (eol != wl)
				return mp_err_set(err, -EPROTO, "'%s' takes no argument",
						  words[i].word);
			return (int)eol + 1;
		}
		p = buf + wl;
		if (p == end || *p++ != ' ' || parse_num(&p, end, 0x7fffffff, &tid) || !tid ||
		    p == end || *p++ != ' ' || parse_num(&p, end, NAME_MAX_, &len) || p != end ||
		    buf[eol] != '\n')
			return mp_err_set(err, -EPROTO,
					  "'%s' wants 'TID LEN' (TID > 0, LEN <= %d) then a newline",
					  words[i].word, NAME_MAX_);
		if (n - eol - 1 < len)
			return 0;
		m->tid = (pid_t)tid;
		m->name = buf + eol + 1;
		m->len = (size_t)len;
		return (int)(eol + 1 + len);
	}
	return mp_err_set(err, -EPROTO, "unknown command (begin, end, enable, disable, ping)");
}

void mp_region_name_str(const unsigned char *name, size_t len, char *buf, size_t size)
{
	size_t o = 0, i = 0;
	if (size < 8) {
		if (size)
			buf[0] = 0;
		return;
	}
	if (!len) {
		snprintf(buf, size, "\"\"");
		return;
	}
	for (; i < len && o + 8 < size; i++) {
		unsigned char c = name[i];
		if (c >= 0x20 && c < 0x7f && c != '\\')
			buf[o++] = (char)c;
		else
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", c);
	}
	if (i < len) /* cut: say so */
		o += (size_t)snprintf(buf + o, size - o, "...");
	buf[o] = 0;
}

/* ---- the regions ---- */

struct node {
	int parent;
	unsigned char *name;
	size_t len;
};

struct stat_acc {
	uint64_t calls, unclosed;
	struct mp_counts *counts; /* [nev] */
	double *scaled;
};

struct frame {
	int node;
	struct mp_counts *v0; /* [nev]: the counts at the begin */
	uint64_t t0;
};

struct thr {
	pid_t tid;
	int *fds;          /* [nev], -1 when it could not be opened */
	int counted;       /* the group opened */
	struct frame st[DEPTH_MAX];
	int depth;
	struct stat_acc *acc; /* [cap_acc] per node */
	size_t cap_acc;
};

struct mp_regions {
	struct perf_event_attr *attrs;
	size_t nev;
	struct node *nodes;
	size_t nnodes, cap_nodes;
	struct thr **thr;
	size_t nthr, cap_thr;
	unsigned open; /* regions open over all threads */
	int broken;
	char *notes[NOTES_MAX];
	size_t nnotes, dropped_notes;
	mp_regions_hook hook;
	void *hook_ctx;
	/* rows, built by mp_regions_finish() */
	struct mp_region_stat *rows;
	size_t nrows;
	struct stat_acc *row_acc;
};

static void note(mp_regions *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(mp_regions *r, const char *fmt, ...)
{
	va_list ap;
	char buf[512];
	if (r->nnotes == NOTES_MAX) {
		r->dropped_notes++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	r->notes[r->nnotes] = strdup(buf);
	if (r->notes[r->nnotes])
		r->nnotes++;
}

mp_regions *mp_regions_new(const struct perf_event_attr *attrs, size_t nev)
{
	mp_regions *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->nev = nev;
	if (nev && !(r->attrs = calloc(nev, sizeof(*r->attrs)))) {
		free(r);
		return NULL;
	}
	for (size_t i = 0; i < nev; i++) {
		struct perf_event_attr *a = &r->attrs[i];
		*a = attrs[i];
		a->size = sizeof(*a);
		a->disabled = 0;
		a->enable_on_exec = 0;
		a->inherit = 0;
		a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		a->sample_type = 0;
		a->sample_period = 0;
		a->freq = 0;
		a->mmap = a->mmap2 = a->comm = a->comm_exec = a->task = 0;
	}
	return r;
}

void mp_regions_set_hook(mp_regions *r, mp_regions_hook fn, void *ctx)
{
	r->hook = fn;
	r->hook_ctx = ctx;
}

unsigned mp_regions_open_count(const mp_regions *r)
{
	return r->open;
}

int mp_regions_broken(const mp_regions *r)
{
	return r->broken;
}

static void acc_fini(struct stat_acc *a)
{
	free(a->counts);
}

static int acc_init(struct stat_acc *a, size_t nev)
{
	memset(a, 0, sizeof(*a));
	/* one block: counts, scaled */
	_Static_assert(sizeof(struct mp_counts) % sizeof(double) == 0, "scaled stays aligned");
	a->counts = calloc(1, nev ? nev * (sizeof(struct mp_counts) + sizeof(double)) : 1);
	if (!a->counts)
		return -ENOMEM;
	a->scaled = (double *)(void *)(a->counts + nev);
	return 0;
}

static struct thr *thread_get(mp_regions *r, pid_t tid)
{
	for (size_t i = 0; i < r->nthr; i++)
		if (r->thr[i]->tid == tid)
			return r->thr[i];
	if (r->nthr == THREADS_MAX)
		return NULL;
	if (MP_GROW(r->thr, r->cap_thr, r->nthr + 1))
		return NULL;
	struct thr *t = calloc(1, sizeof(*t));
	if (!t || !(t->fds = malloc((r->nev ? r->nev : 1) * sizeof(int)))) {
		free(t);
		return NULL;
	}
	t->tid = tid;
	for (size_t i = 0; i < r->nev; i++)
		t->fds[i] = -1;
	/* A group of its own for the thread, counting from now on. */
	int lead = -1, e = 0;
	for (size_t i = 0; i < r->nev && !e; i++) {
		struct perf_event_attr a = r->attrs[i];
		int fd = mp_ev_sys_perf_event_open(&a, tid, -1, lead, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			e = errno;
		t->fds[i] = fd;
		if (!i)
			lead = fd;
	}
	t->counted = !e;
	if (e)
		note(r, "thread %d: cannot count its regions: %s", (int)tid, strerror(e));
	r->thr[r->nthr++] = t;
	return t;
}

static void thread_free(struct thr *t, size_t nev)
{
	for (size_t i = 0; i < nev; i++)
		if (t->fds[i] >= 0)
			close(t->fds[i]);
	for (int d = 0; d < t->depth; d++)
		free(t->st[d].v0);
	for (size_t i = 0; i < t->cap_acc; i++)
		acc_fini(&t->acc[i]);
	free(t->acc);
	free(t->fds);
	free(t);
}

/* value, ena, run of each event of t into v[nev] */
static void thread_read(const mp_regions *r, const struct thr *t, struct mp_counts *v)
{
	for (size_t i = 0; i < r->nev; i++) {
		uint64_t b[3] = { 0, 0, 0 };
		if (t->counted && read(t->fds[i], b, sizeof(b)) != (ssize_t)sizeof(b))
			memset(b, 0, sizeof(b));
		v[i] = (struct mp_counts){ b[0], b[1], b[2] };
	}
}

static int node_get(mp_regions *r, int parent, const unsigned char *name, size_t len)
{
	for (size_t i = 0; i < r->nnodes; i++)
		if (r->nodes[i].parent == parent && r->nodes[i].len == len &&
		    !memcmp(r->nodes[i].name, name, len))
			return (int)i;
	if (r->nnodes == NODES_MAX)
		return -1;
	if (MP_GROW(r->nodes, r->cap_nodes, r->nnodes + 1))
		return -1;
	unsigned char *c = malloc(len ? len : 1);
	if (!c)
		return -1;
	memcpy(c, name, len);
	r->nodes[r->nnodes] = (struct node){ parent, c, len };
	return (int)r->nnodes++;
}

static struct stat_acc *thread_acc(mp_regions *r, struct thr *t, int node)
{
	if (MP_GROW_ZERO(t->acc, t->cap_acc, (size_t)node + 1))
		return NULL;
	struct stat_acc *a = &t->acc[node];
	if (!a->counts && acc_init(a, r->nev))
		return NULL;
	return a;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Close the top frame of t with the counts v (unclosed: the thread or run ended). */
static int frame_close(mp_regions *r, struct thr *t, const struct mp_counts *v, int unclosed)
{
	struct frame *f = &t->st[--t->depth];
	struct stat_acc *a = thread_acc(r, t, f->node);
	if (!a) {
		free(f->v0);
		return -ENOMEM;
	}
	if (unclosed)
		a->unclosed++;
	else
		a->calls++;
	for (size_t i = 0; i < r->nev; i++) {
		uint64_t dv = v[i].val - f->v0[i].val, de = v[i].ena - f->v0[i].ena,
			 dr = v[i].run - f->v0[i].run;
		mp_counts_add(&a->counts[i], &(struct mp_counts){ dv, de, dr });
		a->scaled[i] += dr ? (double)dv * ((double)de / (double)dr) : (double)dv;
	}
	free(f->v0);
	r->open--;
	return 0;
}

static int handle(mp_regions *r, const struct mp_ctl_msg *m)
{
	char nm[96];
	struct thr *t;
	struct mp_counts *v;

	if (m->kind != MP_CTL_BEGIN && m->kind != MP_CTL_END)
		return 0; /* perf's enable/disable/ping: acknowledged, nothing to count */
	if (!(t = thread_get(r, m->tid)))
		return -ENOMEM;
	if (!(v = malloc((r->nev ? r->nev : 1) * sizeof(*v))))
		return -ENOMEM;
	thread_read(r, t, v);
	uint64_t now = now_ns();
	if (m->kind == MP_CTL_BEGIN) {
		int parent = t->depth ? t->st[t->depth - 1].node : -1;
		int node = t->depth == DEPTH_MAX ? -1 : node_get(r, parent, m->name, m->len);
		if (node < 0) {
			free(v);
			mp_region_name_str(m->name, m->len, nm, sizeof(nm));
			note(r, "thread %d: region '%s' not counted: more than %d regions deep or "
				"%d distinct", (int)m->tid, nm, DEPTH_MAX, NODES_MAX);
			return -ENOSPC;
		}
		t->st[t->depth++] = (struct frame){ node, v, now };
		r->open++;
		if (r->hook)
			r->hook(r->hook_ctx, m->tid, node, 1, now);
		return 0;
	}
	int top = t->depth ? t->st[t->depth - 1].node : -1;
	if (top < 0 || r->nodes[top].len != m->len || memcmp(r->nodes[top].name, m->name, m->len)) {
		mp_region_name_str(m->name, m->len, nm, sizeof(nm));
		if (top < 0) {
			note(r, "thread %d: end of region '%s' with no region open: ignored",
			     (int)m->tid, nm);
		} else {
			char in[96];
			mp_region_name_str(r->nodes[top].name, r->nodes[top].len, in, sizeof(in));
			note(r, "thread %d: end of region '%s' inside region '%s': ignored",
			     (int)m->tid, nm, in);
		}
		free(v);
		return 0;
	}
	int rc = frame_close(r, t, v, 0);
	free(v);
	if (!rc && r->hook)
		r->hook(r->hook_ctx, m->tid, top, 0, now);
	return rc;
}

int mp_regions_feed(mp_regions *r, const void *buf, size_t n, size_t *used)
{
	const unsigned char *p = buf;
	size_t off = 0;
	int acks = 0;

	*used = 0;
	if (r->broken)
		return -EPROTO;
	while (off < n) {
		struct mp_ctl_msg m;
		struct mp_err err = { 0 };
		int k = mp_ctl_parse(p + off, n - off, &m, &err);
		if (k == 0)
			break;
		if (k < 0) {
			note(r, "control message at byte %zu of a read: %s; regions not counted from "
				"there on", off, err.msg);
			r->broken = 1;
			*used = n;
			return acks ? acks : -EPROTO;
		}
		int rc = handle(r, &m);
		if (rc == -ENOMEM) {
			note(r, "out of memory counting regions");
			r->broken = 1;
			*used = n;
			return acks ? acks : rc;
		}
		off += (size_t)k;
		acks++;
	}
	*used = off;
	return acks;
}

/* Sum of acc into dst (same nev). */
static void acc_add(struct stat_acc *dst, const struct stat_acc *a, size_t nev)
{
	dst->calls += a->calls;
	dst->unclosed += a->unclosed;
	for (size_t i = 0; i < nev; i++) {
		mp_counts_add(&dst->counts[i], &a->counts[i]);
		dst->scaled[i] += a->scaled[i];
	}
}

static int row_add(mp_regions *r, int node, int depth, pid_t tid, const struct stat_acc *a,
		   size_t *cap)
{
	if (mp_grow2((void **)&r->rows, sizeof(*r->rows), (void **)&r->row_acc,
		     sizeof(*r->row_acc), cap, r->nrows + 1))
		return -ENOMEM;
	struct stat_acc *dst = &r->row_acc[r->nrows];
	if (acc_init(dst, r->nev))
		return -ENOMEM;
	acc_add(dst, a, r->nev);
	r->rows[r->nrows++] = (struct mp_region_stat){
		r->nodes[node].name, r->nodes[node].len, depth, tid, dst->calls, dst->unclosed,
		dst->counts, dst->scaled,
	};
	return 0;
}

static int rows_of(mp_regions *r, int node, int depth, size_t *cap)
{
	struct stat_acc sum;
	size_t nthr = 0;
	int rc;
	if (acc_init(&sum, r->nev))
		return -ENOMEM;
	for (size_t i = 0; i < r->nthr; i++) {
		struct thr *t = r->thr[i];
		if ((size_t)node < t->cap_acc && t->acc[node].counts) {
			acc_add(&sum, &t->acc[node], r->nev);
			nthr++;
		}
	}
	rc = row_add(r, node, depth, 0, &sum, cap);
	acc_fini(&sum);
	for (size_t i = 0; !rc && nthr > 1 && i < r->nthr; i++) {
		struct thr *t = r->thr[i];
		if ((size_t)node < t->cap_acc && t->acc[node].counts)
			rc = row_add(r, node, depth, t->tid, &t->acc[node], cap);
	}
	for (size_t c = 0; !rc && c < r->nnodes; c++)
		if (r->nodes[c].parent == node)
			rc = rows_of(r, (int)c, depth + 1, cap);
	return rc;
}

int mp_regions_finish(mp_regions *r)
{
	size_t cap = 0;
	int rc = 0;
	uint64_t now = now_ns();
	for (size_t i = 0; i < r->nthr; i++) {
		struct thr *t = r->thr[i];
		struct mp_counts *v = malloc((r->nev ? r->nev : 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		thread_read(r, t, v);
		while (t->depth && !rc) {
			char nm[96];
			int node = t->st[t->depth - 1].node;
			mp_region_name_str(r->nodes[node].name, r->nodes[node].len, nm, sizeof(nm));
			note(r, "thread %d: region '%s' was never closed: counted to the end of the "
				"thread or the run", (int)t->tid, nm);
			rc = frame_close(r, t, v, 1);
			if (!rc && r->hook)
				r->hook(r->hook_ctx, t->tid, node, 0, now);
		}
		free(v);
	}
	for (size_t c = 0; !rc && c < r->nnodes; c++)
		if (r->nodes[c].parent == -1)
			rc = rows_of(r, (int)c, 0, &cap);
	if (r->dropped_notes) {
		size_t d = r->dropped_notes;
		r->dropped_notes = 0;
		r->nnotes--;
		free(r->notes[r->nnotes]);
		note(r, "... and %zu more", d + 1);
	}
	return rc;
}

size_t mp_regions_nrows(const mp_regions *r)
{
	return r ? r->nrows : 0;
}

const struct mp_region_stat *mp_regions_row(const mp_regions *r, size_t i)
{
	return r && i < r->nrows ? &r->rows[i] : NULL;
}

const char *mp_regions_note(const mp_regions *r, size_t i)
{
	return r && i < r->nnotes ? r->notes[i] : NULL;
}

const char *mp_regions_node_name(const mp_regions *r, int node, size_t *len)
{
	*len = r->nodes[node].len;
	return (const char *)r->nodes[node].name;
}

size_t mp_regions_nnodes(const mp_regions *r)
{
	return r->nnodes;
}

int mp_regions_node_parent(const mp_regions *r, int node)
{
	return r->nodes[node].parent;
}

void mp_regions_free(mp_regions *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nthr; i++)
		thread_free(r->thr[i], r->nev);
	free(r->thr);
	for (size_t i = 0; i < r->nnodes; i++)
		free(r->nodes[i].name);
	free(r->nodes);
	for (size_t i = 0; i < r->nrows; i++)
		acc_fini(&r->row_acc[i]);
	free(r->row_acc);
	free(r->rows);
	for (size_t i = 0; i < r->nnotes; i++)
		free(r->notes[i]);
	free(r->attrs);
	free(r);
}
