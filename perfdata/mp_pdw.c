/* mp_pdw.c - write a PERFILE2 perf.data file that perf 6.1 reads.
 *
 * Layout: header (104 bytes) | ids of every attr | attrs (attr.size 128 + ids section) |
 * data | feature section table | feature blobs. The data goes through one large buffer;
 * every record written is also parsed to count samples, lost and throttle records per
 * event and to note which mmapped objects got samples (for HEADER_BUILD_ID).
 *
 * Pipe mode (path "-", record -o -): perf's pipe format on standard output, written once
 * from start to end: the 16-byte pipe header, one HEADER_ATTR record per event, the data,
 * then at the end the exact counts, one HEADER_BUILD_ID record per object and one
 * HEADER_FEATURE record per feature (memprof's own in a HEADER_EVENT_TYPE record, which
 * perf skips). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "mp_pdw_int.h"

/* The output path must be absent or a regular file (a symbolic link is replaced, never
 * followed): a device or FIFO (-o /dev/null, a named pipe) cannot hold a perf.data file,
 * which is rewritten in place when it closes, and renaming over it would destroy the node
 * (root replacing /dev/null). -o - is the pipe format. */
static int pdw_check_target(const char *path, struct mp_err *err)
{
	struct stat st;
	const char *what;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : mp_err_set(err, -errno, "%s: %s", path, strerror(errno));
	if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
		return 0;
	what = S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" :
	       S_ISCHR(st.st_mode) ? "a character device" : S_ISBLK(st.st_mode) ? "a block device" :
	       "not a regular file";
	return mp_err_set(err, -EEXIST, "%s: is %s: memprof record writes only regular files "
			  "(use -o - for perf's pipe format on stdout)", path, what);
}

/* Keep the previous recording as PATH.old, as perf does: only a regular file is moved
 * there, and only over nothing, a regular file or a link. */
static void pdw_keep_old(const char *path)
{
	struct stat st, ost;
	char *old = NULL;

	if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode) || asprintf(&old, "%s.old", path) < 0)
		return;
	if (lstat(old, &ost) < 0 || S_ISREG(ost.st_mode) || S_ISLNK(ost.st_mode))
		rename(path, old);
	free(old);
}

/* A temporary file of an earlier record to the same path that never finished (killed):
 * said once, with how to read it, since nothing else would ever name it. */
static void pdw_report_leftover(const char *tmpl)
{
	const char *slash = strrchr(tmpl, '/');
	size_t dlen = slash ? (size_t)(slash - tmpl) : 0;
	const char *base = slash ? slash + 1 : tmpl;
	size_t plen = strlen(base) - 6; /* "...tmp." without XXXXXX */
	char *dir = slash ? strndup(tmpl, dlen ? dlen : 1) : strdup(".");
	DIR *d = dir ? opendir(dir) : NULL;
	for (struct dirent *e; d && (e = readdir(d));) {
		struct stat st;
		if (strncmp(e->d_name, base, plen) || strlen(e->d_name) != plen + 6 ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode) || st.st_uid != geteuid())
			continue;
		mp_log(MP_LOG_WARN, "%s%s%s: left by a record that did not finish (killed?): its "
		       "data up to then is readable: memprof report -i %s%s%s", slash ? dir : "",
		       slash && dlen ? "/" : "", e->d_name, slash ? dir : "", slash && dlen ? "/" : "",
		       e->d_name);
	}
	if (d)
		closedir(d);
	free(dir);
}

const char *mp_pdw_tmp_path(const mp_pdw *w)
{
	return w->tmp;
}

int mp_pdw_write_failed(const mp_pdw *w, int rc, struct mp_err *err)
{
	if (w->pipe)
		return mp_err_set(err, rc, "-: writing the recording to standard output failed: "
				  "%s: the recording is incomplete", strerror(-rc));
	return mp_err_set(err, rc, "%s: write failed: %s: the recording is lost (%s left as it "
			  "was)", w->tmp, strerror(-rc), w->path);
}

mp_pdw *mp_pdw_create(const char *path, struct mp_err *err)
{
	struct pdw_with_caps *wc = calloc(1, sizeof(*wc));
	mp_pdw *w = &wc->w;

	if (!wc) {
		mp_err_set(err, -ENOMEM, "%s: out of memory", path);
		return NULL;
	}
	w->fd = -1;
	w->auto_bids = 1;
	w->read_pid = -1;
	w->mp_feature = 1;
	w->path = strdup(path);
	w->buf = malloc(PDW_BUF_SIZE);
	if (!strcmp(path, "-")) {
		w->pipe = 1;
		w->tmp = strdup("-");
		if (!w->path || !w->buf || !w->tmp) {
			mp_err_set(err, -ENOMEM, "-: out of memory");
			goto fail;
		}
		/* a copy: the workload's standard output may be moved away (mp_record) */
		w->fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		if (w->fd < 0) {
			mp_err_set(err, -errno, "-: standard output: %s", strerror(errno));
			goto fail;
		}
		return w;
	}
	if (!w->path || !w->buf || !(w->tmp = mp_tmp_template(path))) {
		mp_err_set(err, -ENOMEM, "%s: out of memory", path);
		goto fail;
	}
	if (pdw_check_target(path, err))
		goto fail;
	pdw_report_leftover(w->tmp);
	/* A fresh random name, O_EXCL, mode 0600 (recordings hold other users' data, as
	 * perf's): never an existing file or another user's symlink, never a user's own
	 * PATH.tmp. */
	w->fd = mkostemp(w->tmp, O_CLOEXEC);
	if (w->fd < 0) {
		mp_err_set(err, -errno, "%s: cannot create: %s", w->tmp, strerror(errno));
		goto fail;
	}
	return w;
fail:
	free(w->path);
	free(w->tmp);
	free(w->buf);
	free(wc);
	return NULL;
}

int mp_pdw_add_attr(mp_pdw *w, const struct perf_event_attr *attr, const uint64_t *ids,
		    size_t nids, const char *name, const char *spec)
{
	struct pdw_attr *a;

	if (w->frozen)
		return -EBUSY;
	/* perf needs one sample layout for every event, but for the memory fields of events
	 * found by PERF_SAMPLE_IDENTIFIER (perf mem's loads and stores): those lie after the
	 * id, ip and tid the writer reads and never in the records' id trailers */
	const uint64_t mem = PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT |
			     PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR |
			     PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE;
	uint64_t differ = w->nattrs ? attr->sample_type ^ w->layout.sample_type : 0;
	if (differ && (differ & ~mem || !(attr->sample_type & PERF_SAMPLE_IDENTIFIER)))
		return -EINVAL;
	if (w->nattrs && (int)attr->sample_id_all != w->layout.sample_id_all)
		return -EINVAL;
	if (MP_GROW(w->attrs, caps_of(w)->attrs, w->nattrs + 1))
		return -ENOMEM;
	a = &w->attrs[w->nattrs];
	memset(a, 0, sizeof(*a));
	memcpy(&a->attr, attr, attr->size && attr->size < sizeof(*attr) ? attr->size
									 : sizeof(*attr));
	a->attr.size = PDW_ATTR_SIZE;
	mp_sample_layout_init(&a->lay, a->attr.sample_type, a->attr.read_format,
			      a->attr.sample_id_all);
	a->ids = nids ? malloc(nids * sizeof(*ids)) : NULL;
	if (nids && !a->ids)
		return -ENOMEM;
	if (nids)
		memcpy(a->ids, ids, nids * sizeof(*ids));
	a->nids = nids;
	a->name = strdup(name ? name : "");
	a->spec = strdup(spec ? spec : (name ? name : ""));
	if (!a->name || !a->spec) {
		free(a->ids);
		free(a->name);
		free(a->spec);
		return -ENOMEM;
	}
	if (!w->nattrs)
		w->layout = a->lay;
	return (int)w->nattrs++;
}

static int idcmp(const void *a, const void *b)
{
	const struct pdw_id *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Pipe mode: the pipe header, then one HEADER_ATTR record (attr, its ids) per event. */
static int pdw_freeze_pipe(mp_pdw *w)
{
	uint64_t hdr[2] = { MP_PERF_MAGIC2, MP_PERF_PIPE_HEADER_SIZE };
	int rc = mp_pdw_write_all(w->fd, hdr, sizeof(hdr));

	for (size_t i = 0; !rc && i < w->nattrs; i++) {
		size_t size = 8 + PDW_ATTR_SIZE + w->attrs[i].nids * 8;
		struct perf_event_header h = { MP_RECORD_HEADER_ATTR, 0, (uint16_t)size };
		if (size > UINT16_MAX)
			return w->error = -E2BIG; /* thousands of CPUs: not in one record */
		rc = mp_pdw_write_all(w->fd, &h, sizeof(h));
		if (!rc)
			rc = mp_pdw_write_all(w->fd, &w->attrs[i].attr, PDW_ATTR_SIZE);
		if (!rc && w->attrs[i].nids)
			rc = mp_pdw_write_all(w->fd, w->attrs[i].ids, w->attrs[i].nids * 8);
	}
	/* the tracepoints' formats before any sample, as perf's pipe writes them: a
	 * HEADER_TRACING_DATA record (its size) followed by the payload padded to 8 bytes */
	struct mp_buf *td = &w->raw[MP_HEADER_TRACING_DATA];
	if (!rc && td->len && td->len <= UINT32_MAX - 8) {
		uint32_t padded = (uint32_t)((td->len + 7) & ~(size_t)7);
		struct perf_event_header h = { MP_RECORD_HEADER_TRACING_DATA, 0, 12 };
		static const char zero[8];
		rc = mp_pdw_write_all(w->fd, &h, sizeof(h));
		if (!rc)
			rc = mp_pdw_write_all(w->fd, &padded, 4);
		if (!rc)
			rc = mp_pdw_write_all(w->fd, td->data, td->len);
		if (!rc && padded > td->len)
			rc = mp_pdw_write_all(w->fd, zero, padded - td->len);
	}
	w->data_off = MP_PERF_PIPE_HEADER_SIZE;
	w->flushed = 0;
	return rc ? (w->error = rc) : 0;
}

/* Write ids and attrs after the header; data starts after them. */
static int pdw_freeze(mp_pdw *w)
{
	uint64_t off = PDW_HEADER_SIZE;
	size_t n = 0;
	int rc;

	if (w->frozen)
		return 0;
	w->frozen = 1;
	for (size_t i = 0; i < w->nattrs; i++)
		n += w->attrs[i].nids;
	w->idmap = calloc(n ? n : 1, sizeof(*w->idmap));
	if (!w->idmap)
		return w->error = -ENOMEM;
	for (size_t i = 0; i < w->nattrs; i++)
		for (size_t j = 0; j < w->attrs[i].nids; j++)
			w->idmap[w->nidmap++] = (struct pdw_id){ w->attrs[i].ids[j], (int)i };
	qsort(w->idmap, w->nidmap, sizeof(*w->idmap), idcmp);
	if (w->pipe)
		return pdw_freeze_pipe(w);

	uint64_t *idoff = calloc(w->nattrs ? w->nattrs : 1, sizeof(*idoff));
	if (!idoff)
		return w->error = -ENOMEM;
	for (size_t i = 0; i < w->nattrs; i++) {
		idoff[i] = off;
		if (w->attrs[i].nids &&
		    (rc = mp_pdw_pwrite_all(w->fd, w->attrs[i].ids, w->attrs[i].nids * 8, off))) {
			free(idoff);
			return w->error = rc;
		}
		off += w->attrs[i].nids * 8;
	}
	for (size_t i = 0; i < w->nattrs; i++) {
		unsigned char ent[PDW_ATTR_SIZE + 16];
		uint64_t sec[2] = { idoff[i], w->attrs[i].nids * 8 };
		memcpy(ent, &w->attrs[i].attr, PDW_ATTR_SIZE);
		memcpy(ent + PDW_ATTR_SIZE, sec, sizeof(sec));
		if ((rc = mp_pdw_pwrite_all(w->fd, ent, sizeof(ent), off))) {
			free(idoff);
			return w->error = rc;
		}
		off += sizeof(ent);
	}
	free(idoff);
	w->data_off = off;
	w->flushed = 0;
	return 0;
}

int mp_pdw_write(mp_pdw *w, const void *rec, size_t len)
{
	const unsigned char *p = rec;

	if (w->error)
		return w->error;
	if (!w->frozen && pdw_freeze(w))
		return w->error;
	/* rec may hold several consecutive records: parse each. */
	for (size_t off = 0; off < len;) {
		const struct perf_event_header *h = (const void *)(p + off);
		if (len - off < sizeof(*h) || h->size < sizeof(*h) || h->size > len - off ||
		    (h->size & 7))
			return -EINVAL;
		struct perf_event_header hc;
		memcpy(&hc, h, sizeof(hc));
		if (((uintptr_t)h & 7) == 0) {
			mp_pdw_parse(w, h);
		} else {
			uint64_t tmp[8192]; /* 64 KiB: any record fits */
			memcpy(tmp, h, hc.size);
			mp_pdw_parse(w, (const void *)tmp);
		}
		off += hc.size;
	}
	return mp_pdw_append(w, p, len);
}

void mp_pdw_set_read_pid(mp_pdw *w, pid_t pid)
{
	w->read_pid = (int32_t)pid;
}

int mp_pdw_add_counts(mp_pdw *w, int attr_idx, uint64_t id, const struct mp_counts *c)
{
	if (attr_idx < 0 || (size_t)attr_idx >= w->nattrs)
		return -EINVAL;
	/* One PERF_RECORD_READ per counter id: readers sum them per event. */
	size_t i = 0;
	while (i < w->ncounts && !(w->counts[i].id == id && w->counts[i].attr == attr_idx))
		i++;
	if (i == w->ncounts) {
		if (MP_GROW(w->counts, caps_of(w)->counts, w->ncounts + 1))
			return -ENOMEM;
		w->ncounts++;
	}
	w->counts[i] = (struct pdw_count){ attr_idx, id, *c };
	return 0;
}

static void pdw_write_header(mp_pdw *w, const uint64_t flags[4], uint64_t data_size)
{
	struct {
		char magic[8];
		uint64_t size, attr_size;
		uint64_t attrs_off, attrs_size, data_off, data_size, et_off, et_size;
		uint64_t flags[4];
	} h;
	uint64_t ids = 0;

	_Static_assert(sizeof(h) == PDW_HEADER_SIZE, "perf_file_header is 104 bytes");
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, "PERFILE2", 8);
	h.size = sizeof(h);
	h.attr_size = PDW_ATTR_SIZE + 16;
	for (size_t i = 0; i < w->nattrs; i++)
		ids += w->attrs[i].nids * 8;
	h.attrs_off = PDW_HEADER_SIZE + ids;
	h.attrs_size = w->nattrs * h.attr_size;
	h.data_off = w->data_off;
	h.data_size = data_size;
	if (flags)
		memcpy(h.flags, flags, sizeof(h.flags));
	int rc = mp_pdw_pwrite_all(w->fd, &h, sizeof(h), 0);
	if (rc && !w->error)
		w->error = rc;
}

int mp_pdw_sync(mp_pdw *w, struct mp_err *err)
{
	if (!w->frozen)
		pdw_freeze(w);
	if (!w->error)
		mp_pdw_flush(w);
	if (!w->error && !w->pipe)
		pdw_write_header(w, NULL, w->flushed);
	if (w->error)
		return mp_pdw_write_failed(w, w->error, err);
	return 0;
}

/* PERF_RECORD_READ per event id with the exact final counts. */
static int pdw_write_counts(mp_pdw *w)
{
	for (size_t i = 0; i < w->ncounts; i++) {
		struct pdw_count *c = &w->counts[i];
		struct pdw_attr *a = &w->attrs[c->attr];
		uint64_t rec[64];
		struct perf_event_header *h = (void *)rec;
		uint32_t *pt = (uint32_t *)(rec + 1);
		size_t n = 2;
		uint64_t rf = a->attr.read_format;
		int32_t pid = w->read_pid;
		pt[0] = (uint32_t)pid;
		pt[1] = (uint32_t)pid;
		if (rf & PERF_FORMAT_GROUP) {
			/* Leader sampling: the group layout, as the kernel writes it, with this
			 * one counter: nr = 1, times, {value, id[, lost]}. */
			rec[n++] = 1;
			if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
				rec[n++] = c->c.ena;
			if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
				rec[n++] = c->c.run;
			rec[n++] = c->c.val;
			if (rf & PERF_FORMAT_ID)
				rec[n++] = c->id;
		} else {
			rec[n++] = c->c.val;
			if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
				rec[n++] = c->c.ena;
			if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
				rec[n++] = c->c.run;
			if (rf & PERF_FORMAT_ID)
				rec[n++] = c->id;
		}
		if (rf & PERF_FORMAT_LOST)
			rec[n++] = 0;
		/* The trailer names this id, so perf and memprof's reader find the event. */
		size_t tl = mp_pdw_id_trailer(w, c->attr, (uint32_t)pid, (uint32_t)pid, 0, 0,
					      rec + n);
		n += tl / 8;
		if (tl && a->lay.tr_identifier)
			rec[n - a->lay.tr_identifier / 8] = c->id;
		h->type = PERF_RECORD_READ;
		h->misc = 0;
		h->size = (uint16_t)(n * 8);
		int rc = mp_pdw_write(w, rec, n * 8);
		if (rc)
			return rc;
	}
	return 0;
}

/* Pipe mode: the allocation records' payload in HEADER_EVENT_TYPE records (u64
 * MP_HEADER_ALLOC, then the next piece), which perf skips; the reader joins the pieces. */
#define MP_ALLOC_PIPE_PIECE 65504
static int pipe_alloc_piece(void *ctx, const void *p, size_t n)
{
	mp_pdw *w = ctx;
	struct perf_event_header h = { MP_RECORD_HEADER_EVENT_TYPE, 0, (uint16_t)(16 + n) };
	uint64_t id = MP_HEADER_ALLOC;
	int rc = mp_pdw_write_all(w->fd, &h, sizeof(h));
	if (!rc)
		rc = mp_pdw_write_all(w->fd, &id, 8);
	if (!rc)
		rc = mp_pdw_write_all(w->fd, p, n);
	return rc;
}

struct alloc_at {
	int fd;
	uint64_t off;
};

static int file_alloc_piece(void *ctx, const void *p, size_t n)
{
	struct alloc_at *at = ctx;
	int rc = mp_pdw_pwrite_all(at->fd, p, n, (int64_t)at->off);
	at->off += n;
	return rc;
}

/* Pipe mode, at the end: the features as records after the data. A feature whose payload
 * does not fit one record (64 KiB) is left out with a note. */
static void pdw_close_pipe(mp_pdw *w, struct mp_buf *feat, const uint64_t flags[4])
{
	struct mp_buf all = { 0 };

	if (flags[0] & (1ull << MP_HEADER_BUILD_ID)) {
		/* the feature's entries are HEADER_BUILD_ID records with their type set */
		for (size_t off = 0; off + 8 <= feat[MP_HEADER_BUILD_ID].len;) {
			struct perf_event_header *h =
				(void *)((char *)feat[MP_HEADER_BUILD_ID].data + off);
			h->type = MP_RECORD_HEADER_BUILD_ID;
			off += h->size;
		}
		if (mp_buf_append(&all, feat[MP_HEADER_BUILD_ID].data, feat[MP_HEADER_BUILD_ID].len))
			w->error = -ENOMEM;
	}
	for (int f = 0; f < 256 && !w->error; f++) {
		if (f == MP_HEADER_BUILD_ID || f == MP_HEADER_TRACING_DATA ||
		    !(flags[f / 64] & (1ull << (f % 64))))
			continue; /* (the tracing data went out first, in its own record) */
		struct mp_buf *fb = f == MP_HEADER_MEMPROF ? &feat[15] : &feat[f];
		/* no padding: perf's readers take the payload's size from the record's (as
		 * perf's own pipe-mode features, records need not be 8-byte aligned here) */
		size_t size = 16 + fb->len;
		if (size > UINT16_MAX) {
			mp_log(MP_LOG_WARN, "-: feature %d (%zu bytes) does not fit a pipe-mode "
			       "record: left out", f, fb->len);
			continue;
		}
		/* memprof's own feature: perf stops on a HEADER_FEATURE id it does not know,
		 * and skips HEADER_EVENT_TYPE (deprecated): the same payload goes there */
		struct perf_event_header h = { f == MP_HEADER_MEMPROF ? MP_RECORD_HEADER_EVENT_TYPE
								  : MP_RECORD_HEADER_FEATURE,
					       0, (uint16_t)size };
		uint64_t id = (uint64_t)f;
		if (mp_buf_append(&all, &h, sizeof(h)) || mp_buf_append(&all, &id, 8) ||
		    mp_buf_append(&all, fb->data, fb->len))
			w->error = -ENOMEM;
	}
	if (!w->error) {
		int rc = mp_pdw_write_all(w->fd, all.data, all.len);
		if (rc)
			w->error = rc;
	}
	mp_buf_fini(&all);
	uint64_t alen;
	if (!w->error && mp_pdw_alloc_payload(w, &alen)) {
		int rc = mp_pdw_alloc_emit(w, MP_ALLOC_PIPE_PIECE, pipe_alloc_piece, w);
		if (rc)
			w->error = rc;
	}
}

int mp_pdw_close(mp_pdw *w, struct mp_err *err)
{
	struct mp_buf feat[32] = { 0 };
	uint64_t flags[4] = { 0 };
	int rc = 0;

	if (!w->frozen)
		pdw_freeze(w);
	if (!w->error)
		pdw_write_counts(w);
	if (!w->error)
		mp_pdw_flush(w);
	if (w->error)
		goto out;
	mp_pdw_features_build(w, feat, flags);

	if (w->pipe) {
		pdw_close_pipe(w, feat, flags);
		goto out;
	}
	/* Feature section table right after the data, then the blobs in bit order; all in
	 * one write. */
	{
		uint64_t table = w->data_off + w->flushed, off, alen = 0;
		struct mp_buf all = { 0 };
		int nf = 0;
		/* the allocation records, the last bit, follow the blobs in a stream of their own */
		if (mp_pdw_alloc_payload(w, &alen))
			flags[MP_HEADER_ALLOC / 64] |= 1ull << (MP_HEADER_ALLOC % 64);
		for (int f = 0; f < 256; f++)
			nf += !!(flags[f / 64] & (1ull << (f % 64)));
		off = table + (uint64_t)nf * 16;
		for (int pass = 0; pass < 2 && !w->error; pass++)
			for (int f = 0; f < 256; f++) {
				if (!(flags[f / 64] & (1ull << (f % 64))))
					continue;
				if (f == MP_HEADER_ALLOC) {
					uint64_t sec[2] = { off, alen };
					if (pass == 0 && mp_buf_append(&all, sec, sizeof(sec)))
						w->error = -ENOMEM;
					if (pass == 0)
						off += alen;
					continue;
				}
				/* slot 15 (unused by perf here) holds memprof's blob */
				struct mp_buf *fb = f == MP_HEADER_MEMPROF ? &feat[15] : &feat[f];
				uint64_t sec[2] = { off, fb->len };
				if (pass == 0 ? mp_buf_append(&all, sec, sizeof(sec))
					      : mp_buf_append(&all, fb->data, fb->len))
					w->error = -ENOMEM;
				if (pass == 0)
					off += fb->len;
			}
		if (!w->error && (rc = mp_pdw_pwrite_all(w->fd, all.data, all.len, table)))
			w->error = rc;
		if (!w->error && alen) {
			struct alloc_at at = { w->fd, off - alen };
			if ((rc = mp_pdw_alloc_emit(w, 1 << 20, file_alloc_piece, &at)))
				w->error = rc;
		}
		mp_buf_fini(&all);
		if (!w->error && ftruncate(w->fd, (off_t)off) < 0)
			w->error = -errno;
	}
	if (!w->error)
		pdw_write_header(w, flags, w->flushed);
out:
	for (int f = 0; f < 32; f++)
		mp_buf_fini(&feat[f]);
	rc = w->error;
	if (rc)
		mp_pdw_write_failed(w, rc, err);
	else if (w->pipe) {
		if (close(w->fd) < 0)
			rc = mp_pdw_write_failed(w, -errno, err);
		w->fd = -1;
	} else if (close(w->fd) < 0)
		rc = mp_err_set(err, -errno, "%s: close failed: %s", w->tmp, strerror(errno));
	else if (pdw_check_target(w->path, err)) {
		/* the complete recording stays where it is: never deleted for want of a place */
		rc = mp_err_set(err, -EEXIST, "%s: is no longer a regular file: the recording is "
				"kept as %s", w->path, w->tmp);
		w->fd = -1;
		mp_pdw_abort(w);
		return rc;
	} else {
		pdw_keep_old(w->path);
		if (rename(w->tmp, w->path) < 0)
			rc = mp_err_set(err, -errno, "cannot rename %s to %s: %s: the recording is "
					"kept as %s", w->tmp, w->path, strerror(errno), w->tmp);
		if (rc) {
			w->fd = -1;
			mp_pdw_abort(w);
			return rc;
		}
	}
	if (rc && !w->pipe) {
		if (w->fd >= 0)
			close(w->fd);
		unlink(w->tmp);
	}
	w->fd = -1;
	mp_pdw_abort(w);
	return rc;
}

uint64_t mp_pdw_lost_total(const mp_pdw *w)
{
	return w->lost_total;
}

uint64_t mp_pdw_bytes(const mp_pdw *w)
{
	return w->data_off + w->flushed + w->blen;
}

int mp_pdw_get_stats(const mp_pdw *w, int attr_idx, uint64_t *samples, uint64_t *throttled,
		     uint64_t *lost)
{
	if (attr_idx < 0 || (size_t)attr_idx >= w->nattrs)
		return -EINVAL;
	if (samples)
		*samples = w->attrs[attr_idx].samples;
	if (throttled)
		*throttled = w->attrs[attr_idx].throttled;
	if (lost)
		*lost = w->attrs[attr_idx].lost;
	return 0;
}

void mp_pdw_abort(mp_pdw *w)
{
	if (!w)
		return;
	if (w->fd >= 0) {
		close(w->fd);
		if (!w->pipe)
			unlink(w->tmp);
	}
	for (size_t i = 0; i < w->nattrs; i++) {
		free(w->attrs[i].ids);
		free(w->attrs[i].name);
		free(w->attrs[i].spec);
	}
	mp_pdw_alloc_free(w);
	free(w->attrs);
	free(w->idmap);
	for (int i = 0; i < 16; i++)
		free(w->str[i]);
	for (int i = 0; i < 32; i++)
		mp_buf_fini(&w->raw[i]);
	for (int i = 0; i < w->ncmdline; i++)
		free(w->cmdline[i]);
	free(w->cmdline);
	for (size_t i = 0; i < w->nmeta; i++) {
		free(w->meta[i].key);
		free(w->meta[i].value);
	}
	free(w->meta);
	free(w->counts);
	for (size_t i = 0; i < w->nbids; i++)
		free(w->bids[i].file);
	free(w->bids);
	for (size_t i = 0; i < w->nfiles; i++)
		free(w->files[i].name);
	free(w->files);
	free(w->maps);
	free(w->pending);
	free(w->forks);
	free(w->buf);
	free(w->path);
	free(w->tmp);
	free((struct pdw_with_caps *)w);
}
