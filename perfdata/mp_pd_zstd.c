/* mp_pd_zstd.c - perf.data reader: PERF_RECORD_COMPRESSED: zstd records decompressed and walked. */
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
#include <unistd.h>
#include <zstd.h>
#include "mp_perfdata.h"
#include "mp_pd_int.h"
#include <stdarg.h>
#include <stdio.h>

/* Walk the whole records decompressed so far; the last partial one stays in the buffer. */
static int walk_buffered(struct pd_run *R, uint64_t off)
{
	size_t used = 0;
	int rc = mp_pd_walk(R, R->z.zbuf, R->z.zlen, off, WALK_INNER, &used);
	if (rc)
		return rc;
	memmove(R->z.zbuf, R->z.zbuf + used, R->z.zlen - used);
	R->z.zlen -= used;
	return 0;
}

int mp_pd_do_compressed(struct pd_run *R, const uint8_t *payload, size_t n, uint64_t off)
{
	mp_pd *pd = R->pd;
	if (!R->z.zs) {
		R->z.zs = ZSTD_createDStream();
		if (!R->z.zs || ZSTD_isError(ZSTD_initDStream(R->z.zs)))
			return PD_ERR(pd, R->err, -ENOMEM, "out of memory (zstd)");
	}
	R->z.zin_total += n;
	ZSTD_inBuffer in = { payload, n, 0 };
	size_t produced = 0;
	for (;;) {
		/* room for 64 KiB more at least (1 MiB to begin with) */
		if (MP_GROW(R->z.zbuf, R->z.zcap, R->z.zlen + (R->z.zcap ? 64u << 10 : 1u << 20)))
			return PD_ERR(pd, R->err, -ENOMEM, "out of memory");
		ZSTD_outBuffer out = { R->z.zbuf + R->z.zlen, R->z.zcap - R->z.zlen, 0 };
		size_t in_before = in.pos;
		size_t zr = ZSTD_decompressStream(R->z.zs, &out, &in);
		if (ZSTD_isError(zr)) {
			char why[160];
			snprintf(why, sizeof(why), "zstd: %s", ZSTD_getErrorName(zr));
			return pd_err_rec(pd, R->err, off, why);
		}
		R->z.zlen += out.pos;
		produced += out.pos;
		R->z.zout_total += out.pos;
		if (produced > PD_ZSTD_REC_MAX ||
		    R->z.zout_total > (uint64_t)PD_ZSTD_REC_MAX + PD_ZSTD_RATIO_MAX * R->z.zin_total)
			return pd_err_rec(pd, R->err, off, "compressed record expands beyond the size limit");
		/* walked as it comes: what is kept is the buffer's last partial record, not a
		 * record's whole output (64 MiB of it held at once made a 640 KB file 480 MB) */
		int rc = R->z.zlen >= PD_ZSTD_WALK_CHUNK ? walk_buffered(R, off) : 0;
		if (rc)
			return rc;
		if (in.pos == in.size && out.pos < out.size)
			break; /* all input consumed and everything decodable flushed */
		if (out.pos == 0 && in.pos == in_before)
			break; /* no progress: stop rather than spin */
	}
	return walk_buffered(R, off);
}

void mp_pd_zstd_fini(struct pd_zstd *z)
{
	free(z->zbuf);
	ZSTD_freeDStream(z->zs);
	memset(z, 0, sizeof(*z));
}
