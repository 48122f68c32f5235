/* mp_sim_alloc.c - mpsim's allocation calls (record --sim --sim-alloc): reading the
 * tool's --alloc-out file (its layout: sim/vgtool/mp_vgsim_alloc.c) and writing them as
 * perfdata's allocation records beside the samples.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mp_sim_int.h"

void mp_sim_allocs_fini(struct mp_sim_allocs *a)
{
	if (!a)
		return;
	free(a->ips);
	free(a->site_at);
	free(a->recs);
	memset(a, 0, sizeof(*a));
}

int mp_sim_read_all(const char *path, uint8_t **buf, size_t *len, struct mp_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;
	struct stat st;
	*buf = NULL;
	if (fd < 0)
		return mp_err_set(err, -errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st)) {
		rc = mp_err_set(err, -errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	*len = (size_t)st.st_size;
	if (!(*buf = malloc(*len ? *len : 1))) {
		rc = mp_err_set(err, -ENOMEM, "%s: out of memory", path);
		goto out;
	}
	for (size_t got = 0; got < *len;) {
		ssize_t k = read(fd, *buf + got, *len - got);
		if (k <= 0) {
			rc = mp_err_set(err, k ? -errno : -MP_EFORMAT, "%s: %s", path,
					k ? strerror(errno) : "shorter than it was");
			free(*buf);
			*buf = NULL;
			goto out;
		}
		got += (size_t)k;
	}
out:
	close(fd);
	return rc;
}

int mp_sim_allocs_read(const char *path, struct mp_sim_allocs *a, struct mp_err *err)
{
	uint8_t *b;
	size_t len = 0, nips = 0, cap_ips = 0, cap_at = 0, cap_recs = 0;
	int rc = 0, ended = 0;
	memset(a, 0, sizeof(*a));
	if ((rc = mp_sim_read_all(path, &b, &len, err)))
		return rc;
	if (MP_GROW(a->site_at, cap_at, 1)) {
		free(b);
		return mp_err_set(err, -ENOMEM, "%s: out of memory", path);
	}
	a->site_at[0] = 0;
	for (size_t o = 0; o < len && !rc && !ended;) {
		uint64_t tag;
		if (len - o < 8) {
			rc = mp_err_set(err, -MP_EFORMAT, "%s: byte %zu: a record cut short", path, o);
			break;
		}
		memcpy(&tag, b + o, 8);
		switch (tag & 0xff) {
		case 1: { /* site */
			uint64_t nr = tag >> 8;
			if (nr > MP_ALLOC_MAX_DEPTH || (len - o - 8) / 8 < nr) {
				rc = mp_err_set(err, -MP_EFORMAT, "%s: byte %zu: a site of %llu frames",
						path, o, (unsigned long long)nr);
				break;
			}
			if (MP_GROW(a->ips, cap_ips, nips + nr + 1) ||
			    MP_GROW(a->site_at, cap_at, a->nsites + 2)) {
				rc = mp_err_set(err, -ENOMEM, "%s: out of memory", path);
				break;
			}
			memcpy(a->ips + nips, b + o + 8, 8 * nr);
			nips += nr;
			a->site_at[++a->nsites] = nips;
			o += 8 + 8 * nr;
			break;
		}
		case 2: { /* a call: time, addr, size, old, tid, site */
			uint64_t v[4];
			uint32_t tid, site;
			unsigned kind = (unsigned)(tag >> 8);
			if (len - o < 48) {
				rc = mp_err_set(err, -MP_EFORMAT, "%s: byte %zu: a call cut short", path, o);
				break;
			}
			memcpy(v, b + o + 8, 32);
			memcpy(&tid, b + o + 40, 4);
			memcpy(&site, b + o + 44, 4);
			if (kind < MP_ALLOC_MALLOC || kind > MP_ALLOC_LOST ||
			    (site != MP_ALLOC_NO_SITE && site >= a->nsites)) {
				rc = mp_err_set(err, -MP_EFORMAT, "%s: byte %zu: a call of kind %u at "
						"site %u (%zu sites so far)", path, o, kind, site,
						a->nsites);
				break;
			}
			if (MP_GROW(a->recs, cap_recs, a->nrecs + 1)) {
				rc = mp_err_set(err, -ENOMEM, "%s: out of memory", path);
				break;
			}
			struct mp_alloc_rec *r = &a->recs[a->nrecs++];
			memset(r, 0, sizeof(*r));
			r->time = v[0];
			r->addr = v[1];
			r->size = v[2];
			r->old = v[3];
			r->tid = tid;
			r->site = site;
			r->kind = (uint8_t)kind;
			o += 48;
			break;
		}
		case 3:
			ended = 1;
			break;
		default:
			rc = mp_err_set(err, -MP_EFORMAT, "%s: byte %zu: record type %u", path, o,
					(unsigned)(tag & 0xff));
		}
	}
	if (!rc && !ended)
		rc = mp_err_set(err, -MP_EFORMAT, "%s: no end record (mpsim stopped before its "
				"end)", path);
	free(b);
	if (rc)
		mp_sim_allocs_fini(a);
	return rc;
}
