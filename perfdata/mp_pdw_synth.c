/* mp_pdw_synth.c - perf.data writer: synthesized records, what existed before the recording
 * began (perf's synthetic events): a task's COMM, an object's MMAP (perf's kernel map) or
 * MMAP2, each with attr 0's sample_id trailer. */
#include <errno.h>
#include <string.h>

#include "mp_pdw_int.h"

int mp_pdw_put_comm(mp_pdw *w, uint32_t pid, uint32_t tid, const char *comm, uint64_t time)
{
	uint64_t rec[16];
	struct perf_event_header *h = (void *)rec;
	uint32_t *p = (uint32_t *)(h + 1);
	size_t cl = strnlen(comm, 15);

	memset(rec, 0, sizeof(rec));
	p[0] = pid;
	p[1] = tid;
	memcpy(p + 2, comm, cl);
	size_t sz = sizeof(*h) + 8 + ((cl + 1 + 7) & ~(size_t)7);
	sz += mp_pdw_id_trailer(w, 0, pid, tid, time, 0, (unsigned char *)rec + sz);
	h->type = PERF_RECORD_COMM;
	h->misc = 0;
	h->size = (uint16_t)sz;
	return mp_pdw_write(w, rec, sz);
}

int mp_pdw_put_mmap(mp_pdw *w, const struct mp_pdw_map *m)
{
	uint64_t rec[600];
	struct perf_event_header *h = (void *)rec;
	unsigned char *b = (unsigned char *)(h + 1);
	size_t nlen = strlen(m->file), fo = m->mmap2 ? 64 : 32;

	if (nlen > MP_PDW_MAP_NAME_MAX)
		return -ENAMETOOLONG;
	size_t sz = sizeof(*h) + fo + ((nlen + 1 + 7) & ~(size_t)7);
	memset(rec, 0, sz + 64); /* the record and its trailer */
	memcpy(b, &m->pid, 4);
	memcpy(b + 4, &m->tid, 4);
	memcpy(b + 8, &m->start, 8);
	memcpy(b + 16, &m->len, 8);
	memcpy(b + 24, &m->pgoff, 8);
	if (m->mmap2) { /* maj, min, ino, ino_generation (0), prot, flags */
		memcpy(b + 32, &m->maj, 4);
		memcpy(b + 36, &m->min, 4);
		memcpy(b + 40, &m->ino, 8);
		memcpy(b + 56, &m->prot, 4);
		memcpy(b + 60, &m->flags, 4);
	}
	memcpy(b + fo, m->file, nlen);
	sz += mp_pdw_id_trailer(w, 0, m->pid, m->tid, m->time, 0, (unsigned char *)rec + sz);
	h->type = m->mmap2 ? PERF_RECORD_MMAP2 : PERF_RECORD_MMAP;
	h->misc = m->misc;
	h->size = (uint16_t)sz;
	return mp_pdw_write(w, rec, sz);
}
