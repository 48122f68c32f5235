/* mp_pdw_track.c - perf.data writer: the records as they are written: samples, lost and
 * throttle records counted per event, which mapped objects the samples (and their call chains)
 * hit, for HEADER_BUILD_ID. */
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

static int file_index(mp_pdw *w, const char *name, int kernel)
{
	for (size_t i = 0; i < w->nfiles; i++)
		if (w->files[i].kernel == kernel && !strcmp(w->files[i].name, name))
			return (int)i;
	if (MP_GROW(w->files, caps_of(w)->files, w->nfiles + 1))
		return -1;
	w->files[w->nfiles].name = strdup(name);
	if (!w->files[w->nfiles].name)
		return -1;
	w->files[w->nfiles].kernel = kernel;
	w->files[w->nfiles].hit = 0;
	return (int)w->nfiles++;
}

static void note_mmap(mp_pdw *w, int32_t pid, uint64_t start, uint64_t len, const char *name,
		      int kernel)
{
	int f;

	if (!kernel && name[0] != '/' && strcmp(name, "[vdso]"))
		return; /* //anon, [stack]: no file to read a build-id from */
	f = file_index(w, name, kernel);
	if (f < 0 || MP_GROW(w->maps, caps_of(w)->maps, w->nmaps + 1))
		return;
	w->maps[w->nmaps++] = (struct pdw_map){ pid, start, start + len, f };
}

static int32_t parent_of(const mp_pdw *w, int32_t pid)
{
	for (size_t i = 0; i < w->nforks; i++)
		if (w->forks[i].pid == pid)
			return w->forks[i].ppid;
	return -2;
}

/* Mark the object that holds ip in pid (or in its fork parents: a child shares their
 * maps) as hit. Returns 1 when a map was found. */
int mp_pdw_mark_hit(mp_pdw *w, int32_t pid, uint64_t ip)
{
	if (w->last_map < w->nmaps) {
		struct pdw_map *m = &w->maps[w->last_map];
		if (m->pid == pid && ip >= m->start && ip < m->end) {
			w->files[m->file].hit = 1;
			return 1;
		}
	}
	for (int depth = 0; depth < 8 && pid >= -1; depth++) {
		for (size_t i = w->nmaps; i-- > 0;) {
			struct pdw_map *m = &w->maps[i];
			if (m->pid == pid && ip >= m->start && ip < m->end) {
				w->files[m->file].hit = 1;
				if (depth == 0)
					w->last_map = i;
				return 1;
			}
		}
		pid = parent_of(w, pid);
	}
	return 0;
}

#define PDW_MAX_PENDING 65536

static void note_hit(mp_pdw *w, int32_t pid, uint64_t ip, int cpumode)
{
	if (cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL) {
		w->kernel_hit = 1;
		return;
	}
	if (mp_pdw_mark_hit(w, pid, ip))
		return;
	uint64_t page = ip >> 12;
	if (w->npending && w->pending[w->npending - 1].pid == pid &&
	    w->pending[w->npending - 1].page == page)
		return;
	if (w->npending >= PDW_MAX_PENDING || MP_GROW(w->pending, caps_of(w)->pending, w->npending + 1))
		return;
	w->pending[w->npending++] = (struct pdw_pending){ pid, page };
}

/* The index in a record's words (after its header) of the field at byte offset off of
 * struct mp_sample_layout. */
static inline size_t word_at(unsigned off)
{
	return off / 8 - 1;
}

/* Words of a sample's read block (PERF_SAMPLE_READ) at u[pos]; 0 when it does not fit
 * in words. */
static size_t read_block_words(const struct mp_sample_layout *L, const uint64_t *u,
			       size_t pos, size_t words)
{
	size_t n = L->read_size / 8;

	if (L->read_format & PERF_FORMAT_GROUP) {
		if (pos >= words || u[pos] > words)
			return 0;
		n += (size_t)u[pos] * (L->read_entry / 8);
	}
	return n <= words - pos ? n : 0;
}

/* Objects in a sample's call chain got samples too (as perf marks them). */
static void note_callchain(mp_pdw *w, const uint64_t *u, size_t words, int32_t pid, int attr)
{
	uint64_t st = w->layout.sample_type;
	int mode = PERF_RECORD_MISC_USER;

	if (!(st & PERF_SAMPLE_CALLCHAIN))
		return;
	/* the attr's own layout: events of one file may differ in read_format */
	const struct mp_sample_layout *L = &w->attrs[attr >= 0 ? attr : 0].lay;
	size_t pos = word_at(L->fixed_size);
	if (st & PERF_SAMPLE_READ) {
		size_t n = read_block_words(L, u, pos, words);
		if (!n)
			return;
		pos += n;
	}
	if (pos >= words)
		return;
	uint64_t nr = u[pos++];
	if (nr > words - pos)
		return;
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t ip = u[pos + i];
		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			mode = ip == (uint64_t)PERF_CONTEXT_KERNEL ? PERF_RECORD_MISC_KERNEL
			       : ip == (uint64_t)PERF_CONTEXT_USER ? PERF_RECORD_MISC_USER
								    : -1;
			continue;
		}
		if (mode >= 0)
			note_hit(w, pid, ip, mode);
	}
}

static int record_attr(const mp_pdw *w, const struct perf_event_header *h)
{
	const uint64_t *u = (const void *)(h + 1);
	size_t words = (h->size - sizeof(*h)) / 8;

	if (w->nattrs <= 1)
		return 0;
	if (h->type == PERF_RECORD_SAMPLE) {
		if (!w->layout.event_id)
			return 0;
		size_t pos = word_at(w->layout.event_id);
		return pos < words ? mp_pdw_attr_of_id(w, u[pos]) : -1;
	}
	/* no trailer id (0) also without sample_id_all */
	size_t back = w->layout.tr_event_id / 8;
	return back && back <= words ? mp_pdw_attr_of_id(w, u[words - back]) : -1;
}

void mp_pdw_parse(mp_pdw *w, const struct perf_event_header *h)
{
	const uint64_t *u = (const void *)(h + 1);
	size_t words = (h->size - sizeof(*h)) / 8;
	int a;

	w->nrecords++;
	switch (h->type) {
	case PERF_RECORD_SAMPLE: {
		a = record_attr(w, h);
		if (a >= 0)
			w->attrs[a].samples++;
		if (!w->auto_bids)
			break;
		const struct mp_sample_layout *L = &w->layout;
		uint64_t ip = 0;
		int32_t pid = -1;
		if (L->ip) {
			if (word_at(L->ip) >= words)
				break;
			ip = u[word_at(L->ip)];
		}
		if (L->tid && word_at(L->tid) < words)
			pid = (int32_t)(uint32_t)u[word_at(L->tid)];
		if (L->ip)
			note_hit(w, pid, ip, h->misc & PERF_RECORD_MISC_CPUMODE_MASK);
		note_callchain(w, u, words, pid, a);
		break;
	}
	case PERF_RECORD_LOST:
		if (words >= 2) {
			a = w->nattrs <= 1 ? 0 : mp_pdw_attr_of_id(w, u[0]);
			if (a >= 0)
				w->attrs[a].lost += u[1];
			w->lost_total += u[1];
		}
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (words >= 1) {
			a = record_attr(w, h);
			if (a >= 0)
				w->attrs[a].lost += u[0];
			w->lost_total += u[0];
		}
		break;
	case PERF_RECORD_THROTTLE:
		if (words >= 2) {
			a = w->nattrs <= 1 ? 0 : mp_pdw_attr_of_id(w, u[1]);
			if (a >= 0)
				w->attrs[a].throttled++;
		}
		break;
	case PERF_RECORD_FORK:
		if (words >= 2) {
			const uint32_t *p = (const void *)u;
			if (p[0] != p[1] && !MP_GROW(w->forks, caps_of(w)->forks, w->nforks + 1))
				w->forks[w->nforks++] = (struct pdw_fork){ (int32_t)p[0],
									   (int32_t)p[1] };
		}
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		if (!w->auto_bids)
			break;
		size_t fixed = h->type == PERF_RECORD_MMAP ? 32 : 32 + 24 + 8;
		size_t body = h->size - sizeof(*h);
		if (body <= fixed)
			break;
		const unsigned char *b = (const void *)u;
		uint32_t pid;
		uint64_t start, len;
		memcpy(&pid, b, 4);
		memcpy(&start, b + 8, 8);
		memcpy(&len, b + 16, 8);
		if (h->type == PERF_RECORD_MMAP2) {
			uint32_t prot;
			memcpy(&prot, b + 56, 4);
			if (prot && !(prot & PROT_EXEC))
				break;
		}
		char name[4096];
		size_t nl = strnlen((const char *)b + fixed, body - fixed);
		if (nl >= sizeof(name))
			break;
		memcpy(name, b + fixed, nl);
		name[nl] = 0;
		int cpumode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
		if (cpumode == PERF_RECORD_MISC_KERNEL)
			break; /* the kernel's own build-id comes from /sys/kernel/notes */
		note_mmap(w, (int32_t)pid, start, len, name, 0);
		break;
	}
	default:
		break;
	}
}
