/* mp_pd_rewrite.c - a recording copied with some of its records replaced (perf inject's
 * way): the header, attrs and features as they are, the data section record by record
 * through the caller, the data size and the features' offsets moved by what changed. */
#include "mp_pd_int.h"

static void st64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

size_t mp_pd_trailer(const mp_pd *pd, int *time_off)
{
	*time_off = -1;
	if (!pd->nattrs || !pd->ia[0].sid_all)
		return 0;
	uint64_t t = pd->attrs[0].attr.sample_type;
	size_t n = 0;
	if (t & PERF_SAMPLE_TID)
		n += 8;
	if (t & PERF_SAMPLE_TIME) {
		*time_off = (int)n;
		n += 8;
	}
	n += 8 * (!!(t & PERF_SAMPLE_ID) + !!(t & PERF_SAMPLE_STREAM_ID) + !!(t & PERF_SAMPLE_CPU) +
		  !!(t & PERF_SAMPLE_IDENTIFIER));
	return n;
}

static int put(FILE *f, const void *p, size_t n)
{
	return n && fwrite(p, 1, n, f) != n ? -EIO : 0;
}

int mp_pd_rewrite(mp_pd *pd, const char *out, mp_pd_rewrite_fn fn, void *ctx, struct mp_err *err)
{
	const uint8_t *m = pd->map;
	if (pd->pipe || pd->size < MP_PERF_FILE_HEADER_SIZE || mp_ld64(m) != MP_PERF_MAGIC2)
		return mp_err_set(err, -MP_EFORMAT, "%s: not a perf.data file of this machine's byte "
				  "order (a pipe or a swapped file cannot be rewritten)", pd->path);
	uint64_t doff = pd->data_off, dend = pd->data_off + pd->data_size;
	struct mp_out o;
	int rc = mp_out_open(&o, out, pd->path, err);
	if (rc)
		return rc;
	struct mp_buf rep = { 0 };
	uint64_t nsize = 0;
	rc = put(o.f, m, doff); /* header, attrs: the header is written again at the end */
	for (uint64_t pos = doff; !rc && pos < dend;) {
		struct perf_event_header h;
		if (dend - pos < sizeof(h)) {
			rc = mp_err_set(err, -MP_EFORMAT, "%s: record at offset %" PRIu64 " cut short",
					pd->path, pos);
			break;
		}
		memcpy(&h, m + pos, sizeof(h));
		if (h.size < sizeof(h) || h.size > dend - pos) {
			rc = mp_err_set(err, -MP_EFORMAT, "%s: bad record size %u at offset %" PRIu64,
					pd->path, h.size, pos);
			break;
		}
		if (h.type == MP_RECORD_COMPRESSED || h.type == MP_RECORD_COMPRESSED2) {
			rc = mp_err_set(err, -ENOTSUP, "%s: compressed data (record -z) cannot be "
					"rewritten: record without -z", pd->path);
			break;
		}
		rep.len = 0;
		int r = fn(ctx, (const struct perf_event_header *)(m + pos), &rep, err);
		if (r < 0) {
			rc = r;
			break;
		}
		const void *p = r ? (const void *)rep.data : (const void *)(m + pos);
		size_t n = r ? rep.len : h.size;
		if ((rc = put(o.f, p, n)))
			mp_err_set(err, rc, "%s: cannot write: %s", out, strerror(-rc));
		nsize += n;
		pos += h.size;
	}
	mp_buf_fini(&rep);
	/* the features: their table after the data, each offset moved by the change */
	uint64_t fbytes = pd->size > dend ? pd->size - dend : 0;
	uint8_t *tail = fbytes ? malloc(fbytes) : NULL;
	if (!rc && fbytes && !tail)
		rc = mp_err_set(err, -ENOMEM, "%s: out of memory", out);
	if (!rc && tail) {
		memcpy(tail, m + dend, fbytes);
		size_t nfeat = 0;
		for (int b = 0; b < MP_HEADER_FEAT_BITS; b++)
			nfeat += (m[72 + b / 8] >> (b % 8)) & 1;
		for (size_t i = 0; i < nfeat && (i + 1) * 16 <= fbytes; i++) {
			uint64_t off = mp_ld64(tail + i * 16);
			if (off >= dend)
				st64(tail + i * 16, off - dend + doff + nsize);
		}
		if ((rc = put(o.f, tail, fbytes)))
			mp_err_set(err, rc, "%s: cannot write: %s", out, strerror(-rc));
	}
	free(tail);
	uint8_t hd[16];
	st64(hd, doff);
	st64(hd + 8, nsize);
	if (!rc && (fseeko(o.f, 40, SEEK_SET) || put(o.f, hd, sizeof(hd))))
		rc = mp_err_set(err, -EIO, "%s: cannot write its header", out);
	if (rc) {
		mp_out_abort(&o);
		return rc;
	}
	return mp_out_commit(&o, err);
}
