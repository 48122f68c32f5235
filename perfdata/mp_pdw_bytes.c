/* mp_pdw_bytes.c - perf.data writer: the byte primitives its other files build on (and
 * nothing here calls them back): whole writes to the file or the pipe, the data buffer,
 * perf's header strings and words, the id -> attr map and the sample_id trailer. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "mp_pdw_int.h"

/* Write all of p[0..n) at file offset off (pwrite(2)), or in order with off < 0 (write(2):
 * pipe mode); 0 or -errno. */
int mp_pdw_pwrite_all(int fd, const void *p, size_t n, int64_t off)
{
	const char *c = p;
	while (n) {
		ssize_t k = off < 0 ? write(fd, c, n) : pwrite(fd, c, n, (off_t)off);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		c += k;
		n -= (size_t)k;
		if (off >= 0)
			off += k;
	}
	return 0;
}

int mp_pdw_write_all(int fd, const void *p, size_t n)
{
	return mp_pdw_pwrite_all(fd, p, n, -1);
}

int mp_pdw_flush(mp_pdw *w)
{
	int rc;

	if (!w->blen)
		return w->error;
	rc = w->pipe ? mp_pdw_write_all(w->fd, w->buf, w->blen)
		     : mp_pdw_pwrite_all(w->fd, w->buf, w->blen, w->data_off + w->flushed);
	if (rc)
		return w->error = rc;
	w->flushed += w->blen;
	w->blen = 0;
	return 0;
}

/* Copy len bytes into the data buffer, writing it out each time it fills. */
int mp_pdw_append(mp_pdw *w, const void *rec, size_t len)
{
	const unsigned char *p = rec;

	while (len) {
		size_t n = PDW_BUF_SIZE - w->blen;
		if (n > len)
			n = len;
		memcpy(w->buf + w->blen, p, n);
		w->blen += n;
		p += n;
		len -= n;
		if (w->blen == PDW_BUF_SIZE && mp_pdw_flush(w))
			return w->error;
	}
	return 0;
}

int mp_pdw_put_u32(struct mp_buf *b, uint32_t v)
{
	return mp_buf_append(b, &v, 4);
}

int mp_pdw_put_u64(struct mp_buf *b, uint64_t v)
{
	return mp_buf_append(b, &v, 8);
}

/* perf's perf_header_string: u32 length (NUL included, padded to 64), the bytes, zeros */
int mp_pdw_put_string(struct mp_buf *b, const char *s)
{
	uint32_t len = (uint32_t)strlen(s) + 1;
	uint32_t padded = (len + PDW_NAME_ALIGN - 1) / PDW_NAME_ALIGN * PDW_NAME_ALIGN;
	static const char zeros[PDW_NAME_ALIGN];
	if (mp_buf_append(b, &padded, 4) || mp_buf_append(b, s, len) ||
	    mp_buf_append(b, zeros, padded - len))
		return -ENOMEM;
	return 0;
}

int mp_pdw_attr_of_id(const mp_pdw *w, uint64_t id)
{
	size_t lo = 0, hi = w->nidmap;

	if (w->nattrs == 1)
		return 0;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (w->idmap[mid].id == id)
			return w->idmap[mid].attr;
		if (w->idmap[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

size_t mp_pdw_id_trailer(const mp_pdw *w, int attr_idx, uint32_t pid, uint32_t tid,
			 uint64_t time, uint32_t cpu, void *buf)
{
	if (attr_idx < 0 || (size_t)attr_idx >= w->nattrs || !w->layout.sample_id_all)
		return 0;
	const struct mp_sample_layout *L = &w->attrs[attr_idx].lay;
	uint64_t id = w->attrs[attr_idx].nids ? w->attrs[attr_idx].ids[0] : 0;
	uint64_t *end = (uint64_t *)buf + L->trailer_size / 8;
	if (L->tr_tid)
		*(end - L->tr_tid / 8) = (uint64_t)pid | (uint64_t)tid << 32;
	if (L->tr_time)
		*(end - L->tr_time / 8) = time;
	if (L->tr_id)
		*(end - L->tr_id / 8) = id;
	if (L->tr_stream_id)
		*(end - L->tr_stream_id / 8) = id;
	if (L->tr_cpu)
		*(end - L->tr_cpu / 8) = cpu;
	if (L->tr_identifier)
		*(end - L->tr_identifier / 8) = id;
	return L->trailer_size;
}
