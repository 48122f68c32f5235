/* mp_pd.c - perf.data reader: file and pipe mode, perf 3.x to 6.x, zstd records.
 *
 * The file is mapped and decoded in place. Every load goes through mp_ld64()/mp_ld32() (memcpy)
 * because pipe-mode records are not 8-byte aligned and a hostile file can put anything
 * anywhere; every length is checked against the bytes that remain before it is used.
 *
 * The reader's objects, as in perf's tree: this file the handle, open (file and pipe mode)
 * and the accessors; mp_pd_header.c attrs, ids, names, header features and memprof's
 * metadata; mp_pd_decode.c record decoding and delivery to the callbacks; mp_pd_queue.c
 * the sample queue (ordered delivery, perf's ordered-events); mp_pd_zstd.c compressed
 * records; mp_pd_walk.c the record walk, the read-ahead thread and mp_pd_process(). Their
 * shared state: mp_pd_int.h (one run's, struct pd_run, and who owns each part of it).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <zstd.h>
#include "mp_perfdata.h"
#include "mp_pd_int.h"
#include <stdarg.h>
#include <stdio.h>

/* ---- open ------------------------------------------------------------------------- */

static void magic_text(const uint8_t *p, size_t n, char *out)
{
	size_t k = 0;
	for (size_t i = 0; i < n && i < 8; i++) {
		unsigned char c = p[i];
		if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\')
			out[k++] = (char)c;
		else
			k += (size_t)sprintf(out + k, "\\x%02x", c);
	}
	out[k] = 0;
}

static int sec_ok(const mp_pd *pd, uint64_t off, uint64_t size)
{
	return off <= pd->size && size <= pd->size - off;
}

static int open_file_mode(mp_pd *pd, struct mp_err *err)
{
	const uint8_t *h = pd->map;
	uint64_t hsize = mp_ld64(h + 8);
	if (hsize < 72)
		return PD_ERR(pd, err, -MP_EFORMAT, "bad header size %" PRIu64, hsize);
	if (hsize > pd->size)
		return PD_ERR(pd, err, -MP_ETRUNC, "truncated: header is %" PRIu64 " bytes but file has %zu bytes",
			      hsize, pd->size);
	uint64_t attr_size = mp_ld64(h + 16);
	uint64_t a_off = mp_ld64(h + 24), a_size = mp_ld64(h + 32);
	pd->data_off = mp_ld64(h + 40);
	pd->data_size = mp_ld64(h + 48);

	if (!sec_ok(pd, pd->data_off, pd->data_size))
		return PD_ERR(pd, err, -MP_ETRUNC,
			      "truncated: data section ends at %" PRIu64 " but file has %zu bytes",
			      pd->data_off + pd->data_size < pd->data_off ? UINT64_MAX
									    : pd->data_off + pd->data_size,
			      pd->size);
	if (!sec_ok(pd, a_off, a_size))
		return PD_ERR(pd, err, -MP_ETRUNC,
			      "truncated: attrs section ends at %" PRIu64 " but file has %zu bytes",
			      a_off + a_size < a_off ? UINT64_MAX : a_off + a_size, pd->size);
	if (attr_size < 16 + PERF_ATTR_SIZE_VER0 || attr_size > (1u << 16))
		return PD_ERR(pd, err, -MP_EFORMAT, "bad attr size %" PRIu64 " in header", attr_size);
	uint64_t nattrs = a_size / attr_size;
	if (nattrs == 0)
		return PD_ERR(pd, err, -MP_EFORMAT, "no event attributes in the file");
	for (uint64_t i = 0; i < nattrs; i++) {
		const uint8_t *ap = pd->map + a_off + i * attr_size;
		size_t bytes = (size_t)attr_size - 16;
		uint32_t asz = mp_ld32(ap + 4);
		if (asz > bytes)
			return PD_ERR(pd, err, -MP_EFORMAT,
				      "attr %" PRIu64 ": size %u exceeds its slot of %zu bytes", i, asz, bytes);
		uint64_t ioff = mp_ld64(ap + bytes), isz = mp_ld64(ap + bytes + 8);
		if (!sec_ok(pd, ioff, isz))
			return PD_ERR(pd, err, -MP_ETRUNC,
				      "truncated: ids of attr %" PRIu64 " end at %" PRIu64 " but file has %zu bytes",
				      i, ioff + isz < ioff ? UINT64_MAX : ioff + isz, pd->size);
		if (mp_pd_add_attr(pd, ap, bytes, pd->map + ioff, (size_t)(isz / 8)))
			return PD_ERR(pd, err, -ENOMEM, "out of memory");
	}
	/* features: a table of {offset,size} after the data, one per set bit */
	if (hsize >= MP_PERF_FILE_HEADER_SIZE) {
		uint64_t toff = pd->data_off + pd->data_size, nf = 0;
		for (unsigned b = 0; b < MP_HEADER_FEAT_BITS; b++)
			if (mp_ld64(h + 72 + 8 * (b / 64)) >> (b % 64) & 1)
				nf++;
		/* A damaged feature table or section is skipped with a warning, as perf goes on
		 * without it: only a command that needs the feature fails (it finds it absent). */
		if (nf && !sec_ok(pd, toff, nf * 16)) {
			mp_log(MP_LOG_WARN, "%s: the feature table (%" PRIu64 " entries at %#" PRIx64
			       ") runs past the end of the file (%zu bytes): header features ignored",
			       pd->path, nf, toff, pd->size);
			nf = 0;
		}
		uint64_t k = 0, bad_off = 0, bad_size = 0;
		unsigned nbad = 0, bad = 0;
		for (unsigned b = 0; nf && b < MP_HEADER_FEAT_BITS; b++) {
			if (!(mp_ld64(h + 72 + 8 * (b / 64)) >> (b % 64) & 1))
				continue;
			uint64_t so = mp_ld64(pd->map + toff + 16 * k), ss = mp_ld64(pd->map + toff + 16 * k + 8);
			k++;
			if (!sec_ok(pd, so, ss)) {
				if (!nbad++) {
					bad = b;
					bad_off = so;
					bad_size = ss;
				}
				continue;
			}
			pd->feat[b].present = 1;
			pd->feat[b].off = so;
			pd->feat[b].size = ss;
		}
		/* one warning per file, naming the first damaged feature */
		if (nbad == 1)
			mp_log(MP_LOG_WARN, "%s: header feature %u (%s) at %#" PRIx64 ", %" PRIu64
			       " bytes, runs past the end of the file (%zu bytes): ignored",
			       pd->path, bad, mp_pd_feat_name(bad), bad_off, bad_size, pd->size);
		else if (nbad)
			mp_log(MP_LOG_WARN, "%s: %u header features run past the end of the file (%zu "
			       "bytes), the first feature %u (%s): ignored", pd->path, nbad, pd->size,
			       bad, mp_pd_feat_name(bad));
		for (unsigned b = 0; b < MP_HEADER_FEAT_BITS; b++)
			if (pd->feat[b].present)
				mp_pd_parse_feature(pd, b, pd->map + pd->feat[b].off, (size_t)pd->feat[b].size);
	}
	return 0;
}

void mp_pd_handle_event_update(mp_pd *pd, const uint8_t *r, size_t size)
{
	if (size < 24 || mp_ld64(r + 8) != MP_EVENT_UPDATE_NAME)
		return;
	struct pd_sid *s = mp_pd_sid_find(pd, mp_ld64(r + 16));
	if (!s)
		return;
	mp_pd_set_name(pd, s->attr, r + 24, size - 24);
	pd->attrs[s->attr].name = pd->ia[s->attr].name;
	if (!pd->ia[s->attr].spec)
		pd->attrs[s->attr].spec = pd->ia[s->attr].name;
}

/* memprof's feature in pipe mode (memprof record -o -): a HEADER_EVENT_TYPE record (a
 * type perf has ignored since it was deprecated; perf refuses unknown HEADER_FEATURE ids)
 * whose payload is the feature's: u64 MP_HEADER_MEMPROF, then the key=value text. */
static void pipe_meta_record(mp_pd *pd, const uint8_t *r, uint16_t size)
{
	if (size >= 16 && mp_ld64(r + 8) == MP_HEADER_MEMPROF)
		mp_pd_parse_feature(pd, MP_HEADER_MEMPROF, r + 16, (size_t)size - 16);
	else if (size >= 16 && mp_ld64(r + 8) == MP_HEADER_ALLOC)
		mp_pd_alloc_piece(pd, r + 16, (size_t)size - 16, 0);
}

/* A header-like record of a pipe-mode stream, other than HEADER_ATTR: features (EVENT_DESC
 * only once attributes are known, as it names them), memprof's own, build-ids and event
 * updates. Anything else is not header information. */
static void pipe_header_record(mp_pd *pd, uint32_t type, const uint8_t *r, uint16_t size,
			       uint64_t avail)
{
	switch (type) {
	case MP_RECORD_HEADER_TRACING_DATA:
		/* the payload follows the record (its u32 size), kept whole as a file's is */
		if (size >= 12 && mp_ld32(r + 8) <= avail - size)
			mp_pd_parse_feature(pd, MP_HEADER_TRACING_DATA, r + size, mp_ld32(r + 8));
		break;
	case MP_RECORD_HEADER_FEATURE:
		if (size >= 16) {
			uint64_t f = mp_ld64(r + 8);
			if (f < MP_HEADER_FEAT_BITS && (f != MP_HEADER_EVENT_DESC || pd->nattrs))
				mp_pd_parse_feature(pd, (unsigned)f, r + 16, (size_t)size - 16);
		}
		break;
	case MP_RECORD_HEADER_EVENT_TYPE:
		pipe_meta_record(pd, r, size);
		break;
	case MP_RECORD_HEADER_BUILD_ID:
		mp_pd_add_build_id(pd, r, size);
		break;
	case MP_RECORD_EVENT_UPDATE:
		mp_pd_handle_event_update(pd, r, size);
		break;
	default:
		break;
	}
}

/* Pipe mode, after the first kernel record: the header-like records of the rest of the
 * stream (memprof record -o - writes its features, build-ids and metadata after the data)
 * are read now, so that the whole header is known before the first sample. Returns where
 * the walk stopped (the end, or a record it cannot step over). */
static uint64_t pipe_tail_scan(mp_pd *pd, uint64_t off)
{
	while (pd->size - off >= 8) {
		const uint8_t *r = pd->map + off;
		uint32_t type = mp_ld32(r);
		uint16_t size = mp_ld16(r + 6);
		if (size < 8 || size > pd->size - off)
			break;
		pipe_header_record(pd, type, r, size, pd->size - off);
		uint64_t adv = size + mp_pd_record_extra(type, r, size);
		if (adv > pd->size - off)
			break;
		off += adv;
	}
	return off;
}

/* Pipe mode: attrs and features are records at the start of the stream (memprof's own
 * come after the data: see pipe_tail_scan). */
static int open_pipe_mode(mp_pd *pd, struct mp_err *err)
{
	uint64_t off = MP_PERF_PIPE_HEADER_SIZE;
	pd->data_off = off;
	pd->data_size = pd->size - off;
	while (pd->size - off >= 8) {
		const uint8_t *r = pd->map + off;
		uint32_t type = mp_ld32(r);
		uint16_t size = mp_ld16(r + 6);
		if (size < 8)
		{
			char why[80];
			if (size)
				snprintf(why, sizeof(why), "size %u is smaller than the record header", size);
			else
				snprintf(why, sizeof(why), "size 0");
			return pd_err_rec(pd, err, off, why);
		}
		if (size > pd->size - off)
			return PD_ERR(pd, err, -MP_ETRUNC,
				      "truncated: record at offset %#" PRIx64 " (type %u, size %u) ends at %#" PRIx64
				      " but the file ends at %#zx",
				      off, type, size, off + size, pd->size);
		if (type < MP_RECORD_USER_START || type == MP_RECORD_COMPRESSED ||
		    type == MP_RECORD_COMPRESSED2)
			break;
		if (type == MP_RECORD_HEADER_ATTR) {
			if (size < 8 + PERF_ATTR_SIZE_VER0)
				return pd_err_rec(pd, err, off, "attr record too short");
			uint32_t asz = mp_ld32(r + 8 + 4);
			if (asz == 0)
				asz = PERF_ATTR_SIZE_VER0;
			if (asz > (uint32_t)size - 8)
				return pd_err_rec(pd, err, off, "attr size exceeds the record");
			if (mp_pd_add_attr(pd, r + 8, asz, r + 8 + asz, ((size_t)size - 8 - asz) / 8))
				return PD_ERR(pd, err, -ENOMEM, "out of memory");
		} else {
			pipe_header_record(pd, type, r, size, pd->size - off);
		}
		uint64_t adv = size + mp_pd_record_extra(type, r, size);
		if (adv > pd->size - off)
			break;
		off += adv;
	}
	pd->prescan_end = pd->nattrs ? pipe_tail_scan(pd, off) : off;
	if (!pd->nattrs && pd->size - off < 8)
		return PD_ERR(pd, err, -MP_ETRUNC,
			      "truncated: the file ends at %zu bytes before any event attribute (HEADER_ATTR)",
			      pd->size);
	if (!pd->nattrs)
		return PD_ERR(pd, err, -MP_EFORMAT, "pipe-mode file without event attributes (no HEADER_ATTR record)");
	return 0;
}

static mp_pd *pd_new(const char *name)
{
	mp_pd *pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	pd->fd = -1;
	pd->ordered = 1;
	pd->path = strdup(name ? name : "(memory)");
	if (!pd->path) {
		free(pd);
		return NULL;
	}
	return pd;
}

static mp_pd *pd_open_common(mp_pd *pd, struct mp_err *err)
{
	if (pd->size == 0) {
		PD_ERR(pd, err, -MP_EFORMAT, "empty file, not a perf.data file");
		goto fail;
	}
	if (pd->size < 16) {
		char m[40];
		magic_text(pd->map, pd->size, m);
		if (pd->size >= 8 && mp_ld64(pd->map) == MP_PERF_MAGIC2)
			PD_ERR(pd, err, -MP_ETRUNC, "truncated: header needs 16 bytes but file has %zu bytes", pd->size);
		else
			PD_ERR(pd, err, -MP_EFORMAT, "not a perf.data file (bad magic '%s', %zu bytes)", m, pd->size);
		goto fail;
	}
	uint64_t magic = mp_ld64(pd->map);
	if (magic != MP_PERF_MAGIC2) {
		char m[40];
		magic_text(pd->map, 8, m);
		if (magic == MP_PERF_MAGIC2_SWAPPED)
			PD_ERR(pd, err, -MP_ENOTSUP, "big-endian perf.data files are not supported");
		else if (!memcmp(pd->map, "PERFFILE", 8))
			PD_ERR(pd, err, -MP_ENOTSUP, "perf.data version 1 ('PERFFILE') is not supported");
		else
			PD_ERR(pd, err, -MP_EFORMAT, "not a perf.data file (bad magic '%s')", m);
		goto fail;
	}
	int rc;
	if (mp_ld64(pd->map + 8) == MP_PERF_PIPE_HEADER_SIZE) {
		pd->pipe = 1;
		rc = open_pipe_mode(pd, err);
	} else {
		rc = open_file_mode(pd, err);
	}
	if (rc)
		goto fail;
	if (mp_pd_finish_attrs(pd)) {
		PD_ERR(pd, err, -ENOMEM, "out of memory");
		goto fail;
	}
	mp_pd_alloc_load(pd);
	return pd;
fail:
	mp_pd_close(pd);
	return NULL;
}

/* "-i -": standard input (perf's pipe mode from memprof/perf record -o -, or a file
 * redirected in). A regular file is read in place; a pipe is copied to an unlinked file in
 * $TMPDIR (else /tmp) so that it is mapped and read like any recording, once its first
 * bytes are perf's magic, and never beyond what leaves a tenth of that file system free.
 * fd or -errno. */
static int spool_stdin(struct mp_err *err)
{
	struct stat st;
	const char *dir = getenv("TMPDIR");
	char tmpl[4096], head[8];
	size_t nhead = 0;
	int fd;

	if (fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode)) {
		fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
		return fd >= 0 ? fd : mp_err_set(err, -errno, "-: standard input: %s", strerror(errno));
	}
	/* the magic first: anything else is refused before a byte is kept */
	while (nhead < sizeof(head)) {
		ssize_t n = read(STDIN_FILENO, head + nhead, sizeof(head) - nhead);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return mp_err_set(err, -errno, "-: reading standard input: %s", strerror(errno));
		if (n == 0)
			break;
		nhead += (size_t)n;
	}
	if (nhead < sizeof(head) || (memcmp(head, "PERFILE2", 8) && memcmp(head, "2ELIFREP", 8)))
		return mp_err_set(err, -MP_EFORMAT, "-: standard input is not a perf.data stream (%s)",
				  nhead < sizeof(head) ? "it ends before the header" :
				  "no PERFILE2 magic");
	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(tmpl, sizeof(tmpl), "%s/memprof-stdin-XXXXXX", dir);
		fd = mkostemp(tmpl, O_CLOEXEC);
		if (fd < 0)
			return mp_err_set(err, -errno, "-: cannot hold standard input in %s: %s", dir,
					  strerror(errno));
		unlink(tmpl);
	}
	/* the spool never takes the last tenth of the file system's free space (at least
	 * 64 MiB of it): an endless stream is cut, not left to fill the disk */
	struct statvfs vfs;
	uint64_t limit = UINT64_MAX, kept = 0;
	if (!fstatvfs(fd, &vfs)) {
		uint64_t avail = (uint64_t)vfs.f_bavail * vfs.f_frsize, spare = avail / 10;
		spare = spare < ((uint64_t)64 << 20) ? (uint64_t)64 << 20 : spare;
		limit = avail > spare ? avail - spare : 0;
	}
	for (int first = 1;; first = 0) {
		char chunk[1 << 16];
		ssize_t n;
		if (first) {
			memcpy(chunk, head, sizeof(head));
			n = (ssize_t)sizeof(head);
		} else {
			n = read(STDIN_FILENO, chunk, sizeof(chunk));
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			return mp_err_set(err, -e, "-: reading standard input: %s", strerror(e));
		}
		if (n == 0)
			break;
		if ((kept += (uint64_t)n) > limit) {
			close(fd);
			return mp_err_set(err, -EFBIG, "-: standard input is larger than the %" PRIu64
					  " MiB %s can hold without filling up: save it to a file and "
					  "read that", limit >> 20, dir);
		}
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(fd, chunk + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				int e = errno;
				close(fd);
				return mp_err_set(err, -e, "-: cannot hold standard input in %s: %s", dir,
						  strerror(e));
			}
			off += w;
		}
	}
	return fd;
}

mp_pd *mp_pd_open(const char *path, struct mp_err *err)
{
	mp_pd *pd = pd_new(path);
	if (!pd) {
		mp_err_set(err, -ENOMEM, "%s: out of memory", path);
		return NULL;
	}
	if (!strcmp(path, "-"))
		pd->fd = spool_stdin(err);
	else
		pd->fd = mp_open_input(path, MP_OPEN_REGULAR, err); /* never blocks on a FIFO */
	if (pd->fd < 0) {
		mp_pd_close(pd);
		return NULL;
	}
	struct stat st;
	if (fstat(pd->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		mp_err_set(err, -EINVAL, "%s: not a regular file", path);
		mp_pd_close(pd);
		return NULL;
	}
	pd->size = (size_t)st.st_size;
	if (pd->size) {
		void *m = mmap(NULL, pd->size, PROT_READ, MAP_PRIVATE, pd->fd, 0);
		if (m == MAP_FAILED) {
			int e = errno;
			mp_err_set(err, -e, "%s: mmap: %s", path, strerror(e));
			pd->size = 0;
			mp_pd_close(pd);
			return NULL;
		}
		madvise(m, pd->size, MADV_SEQUENTIAL);
		pd->map = m;
		pd->own_map = 1;
	}
	return pd_open_common(pd, err);
}

mp_pd *mp_pd_open_mem(const void *buf, size_t len, const char *name, struct mp_err *err)
{
	mp_pd *pd = pd_new(name);
	if (!pd) {
		mp_err_set(err, -ENOMEM, "%s: out of memory", name ? name : "(memory)");
		return NULL;
	}
	static const uint8_t empty[1];
	pd->map = len ? buf : empty;
	pd->size = len;
	return pd_open_common(pd, err);
}

void mp_pd_close(mp_pd *pd)
{
	if (!pd)
		return;
	if (pd->own_map && pd->map)
		munmap((void *)pd->map, pd->size);
	if (pd->fd >= 0)
		close(pd->fd);
	for (size_t i = 0; i < pd->nattrs; i++) {
		free(pd->ia[i].name);
		free(pd->ia[i].spec);
		free(pd->ia[i].ids);
	}
	mp_pd_alloc_fini(pd);
	free(pd->attrs);
	free(pd->ia);
	free(pd->sids);
	free(pd->rdctr);
	for (unsigned b = 0; b < MP_HEADER_FEAT_BITS; b++)
		free(pd->fstr[b]);
	for (unsigned b = 0; b < 32; b++)
		mp_buf_fini(&pd->fraw[b]);
	for (size_t i = 0; i < pd->nbids; i++)
		free(pd->bids[i].fname);
	free(pd->bids);
	for (size_t i = 0; i < pd->nmeta; i++) {
		free(pd->meta[i].key);
		free(pd->meta[i].val);
	}
	free(pd->meta);
	for (size_t i = 0; i < pd->ngc; i++)
		free(pd->gc[i]);
	free(pd->gc);
	free(pd->scratch_cc);
	free(pd->scratch_br);
	free(pd->scratch_str);
	free(pd->path);
	free(pd);
}

size_t mp_pd_nattrs(const mp_pd *pd)
{
	return pd ? pd->nattrs : 0;
}

const struct mp_pd_attr *mp_pd_attr(const mp_pd *pd, size_t idx)
{
	return pd && idx < pd->nattrs ? &pd->attrs[idx] : NULL;
}

int mp_pd_has_chains(const mp_pd *pd)
{
	for (size_t i = 0; i < mp_pd_nattrs(pd); i++)
		if (pd->attrs[i].attr.sample_type & PERF_SAMPLE_CALLCHAIN)
			return 1;
	return 0;
}

int mp_pd_is_pipe(const mp_pd *pd)
{
	return pd ? pd->pipe : 0;
}

const void *mp_pd_feature_raw(const mp_pd *pd, int feature, size_t *len)
{
	if (!pd || feature < 0 || feature >= 32 || !pd->fraw[feature].len)
		return NULL;
	*len = pd->fraw[feature].len;
	return pd->fraw[feature].data;
}

const char *mp_pd_feature_str(const mp_pd *pd, int feature)
{
	if (!pd || feature < 0 || feature >= MP_HEADER_FEAT_BITS)
		return NULL;
	return pd->fstr[feature];
}

uint32_t mp_pd_nr_cpus_avail(const mp_pd *pd)
{
	return pd ? pd->nr_cpus_avail : 0;
}

uint32_t mp_pd_nr_cpus(const mp_pd *pd)
{
	if (!pd)
		return 0;
	return pd->nr_cpus_online ? pd->nr_cpus_online : pd->nr_cpus_avail;
}

const char *mp_pd_meta(const mp_pd *pd, const char *key)
{
	if (!pd || !key)
		return NULL;
	for (size_t i = pd->nmeta; i-- > 0;)
		if (!strcmp(pd->meta[i].key, key))
			return pd->meta[i].val;
	return NULL;
}

size_t mp_pd_nbuild_ids(const mp_pd *pd)
{
	return pd ? pd->nbids : 0;
}

const struct mp_pd_build_id *mp_pd_build_id(const mp_pd *pd, size_t idx)
{
	if (!pd || idx >= pd->nbids)
		return NULL;
	return &pd->bids[idx].pub;
}

uint64_t mp_pd_record_count(const mp_pd *pd, unsigned type)
{
	return pd && type < PD_NTYPES ? pd->counts[type] : 0;
}

uint64_t mp_pd_nr_unknown_id(const mp_pd *pd)
{
	return pd ? pd->nr_unknown : 0;
}

size_t mp_pd_nr_task_counts(const mp_pd *pd)
{
	return pd->nrdctr;
}

void mp_pd_task_count(const mp_pd *pd, size_t i, struct mp_pd_task_count *out)
{
	const struct pd_rdctr *c = &pd->rdctr[i];
	*out = (struct mp_pd_task_count){ c->attr, c->pid, c->tid, c->c };
}

void mp_pd_set_ordered(mp_pd *pd, int on)
{
	if (pd)
		pd->ordered = !!on;
}
