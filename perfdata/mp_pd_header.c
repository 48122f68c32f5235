/* mp_pd_header.c - perf.data reader: the header: attrs, their ids and names, features,
 * memprof's metadata. */
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

static void parse_meta_blob(mp_pd *pd, const uint8_t *p, size_t n);

/* ---- id table --------------------------------------------------------------------- */

struct pd_sid *mp_pd_sid_find(const mp_pd *pd, uint64_t id)
{
	if (!pd->sid_cap)
		return NULL;
	size_t mask = pd->sid_cap - 1;
	for (size_t i = mp_mix64(id) & mask;; i = (i + 1) & mask) {
		struct pd_sid *s = &pd->sids[i];
		if (!s->used)
			return NULL;
		if (s->id == id)
			return s;
	}
}

static int sid_insert(mp_pd *pd, uint64_t id, uint32_t attr)
{
	if ((pd->nsids + 1) * 2 > pd->sid_cap) {
		size_t ncap = pd->sid_cap ? pd->sid_cap * 2 : 64;
		struct pd_sid *n = calloc(ncap, sizeof(*n));
		if (!n)
			return -ENOMEM;
		for (size_t i = 0; i < pd->sid_cap; i++) {
			if (!pd->sids[i].used)
				continue;
			size_t j = mp_mix64(pd->sids[i].id) & (ncap - 1);
			while (n[j].used)
				j = (j + 1) & (ncap - 1);
			n[j] = pd->sids[i];
		}
		free(pd->sids);
		pd->sids = n;
		pd->sid_cap = ncap;
	}
	size_t mask = pd->sid_cap - 1;
	size_t i = mp_mix64(id) & mask;
	while (pd->sids[i].used) {
		if (pd->sids[i].id == id)
			return 0; /* first attr claiming an id wins, as in perf's hash */
		i = (i + 1) & mask;
	}
	pd->sids[i].used = 1;
	pd->sids[i].id = id;
	pd->sids[i].attr = attr;
	pd->sids[i].prev = 0;
	pd->nsids++;
	return 0;
}

/* ---- names ------------------------------------------------------------------------ */

/* perf's evsel__name() for an attr without EVENT_DESC: base name plus modifiers. */
static char *derive_name(const struct perf_event_attr *a)
{
	char buf[128];
	int n = 0;
	uint64_t c = a->config;
	const char *base;

	switch (a->type) {
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_SOFTWARE:
		if ((base = mp_generic_name(a->type, c)))
			n = snprintf(buf, sizeof(buf), "%s", base);
		else
			n = snprintf(buf, sizeof(buf), "unknown-%s:%#" PRIx64,
				     a->type == PERF_TYPE_HARDWARE ? "hardware" : "software", c);
		break;
	case PERF_TYPE_HW_CACHE:
		if (mp_generic_cache_name(c & 0xffffff, buf, sizeof(buf)))
			n = (int)strlen(buf);
		else
			n = snprintf(buf, sizeof(buf), "invalid-cache:%#" PRIx64, c);
		break;
	case PERF_TYPE_TRACEPOINT:
		n = snprintf(buf, sizeof(buf), "tracepoint:%#" PRIx64, c);
		break;
	case PERF_TYPE_RAW:
		n = snprintf(buf, sizeof(buf), "r%" PRIx64, c);
		break;
	case PERF_TYPE_BREAKPOINT:
		n = snprintf(buf, sizeof(buf), "mem:%#" PRIx64, (uint64_t)a->bp_addr);
		break;
	default:
		n = snprintf(buf, sizeof(buf), "%u/%#" PRIx64 "/", a->type, c);
		break;
	}
	if (n < 0 || (size_t)n >= sizeof(buf) - 16)
		n = (int)strlen(buf);
	/* modifiers, as perf's evsel__add_modifiers() */
	int colon = 0, exclude_guest_default = 0;
#define MOD(cond, ch)                                   \
	do {                                            \
		if (cond) {                             \
			if (!colon) {                   \
				buf[n++] = ':';         \
				colon = 1;              \
			}                               \
			buf[n++] = (ch);                \
		}                                       \
	} while (0)
	if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
		MOD(!a->exclude_kernel, 'k');
		MOD(!a->exclude_user, 'u');
		MOD(!a->exclude_hv, 'h');
		exclude_guest_default = 1;
	}
	if (a->precise_ip) {
		for (unsigned i = 0; i < a->precise_ip && i < 3; i++)
			MOD(1, 'p');
		exclude_guest_default = 1;
	}
	if (a->exclude_host || (int)a->exclude_guest == exclude_guest_default) {
		MOD(!a->exclude_host, 'H');
		MOD(!a->exclude_guest, 'G');
	}
#undef MOD
	buf[n] = 0;
	return strdup(buf);
}

/* Retire a string callers may hold; NULL-safe. On allocation failure it leaks, which
 * is the lesser evil next to a dangling pointer. */
static void retire(mp_pd *pd, char *str)
{
	if (!str)
		return;
	if (MP_GROW(pd->gc, pd->cgc, pd->ngc + 1))
		return;
	pd->gc[pd->ngc++] = str;
}

void mp_pd_set_name(mp_pd *pd, size_t i, const uint8_t *s, size_t max)
{
	size_t len = strnlen((const char *)s, max);
	char *n = malloc(len + 1);
	if (!n)
		return;
	memcpy(n, s, len);
	n[len] = 0;
	if (pd->ia[i].name && !strcmp(pd->ia[i].name, n)) {
		free(n);
		return;
	}
	retire(pd, pd->ia[i].name);
	pd->ia[i].name = n;
}

/* ---- attrs ------------------------------------------------------------------------ */

static unsigned popcount64(uint64_t x)
{
	return (unsigned)__builtin_popcountll(x);
}

int mp_pd_add_attr(mp_pd *pd, const uint8_t *raw, size_t rawlen, const uint8_t *ids,
		   size_t nids)
{
	if (MP_GROW2(pd->attrs, pd->ia, pd->cattrs, pd->nattrs + 1))
		return -ENOMEM;
	size_t idx = pd->nattrs;
	struct mp_pd_attr *a = &pd->attrs[idx];
	struct pd_iattr *ia = &pd->ia[idx];
	memset(a, 0, sizeof(*a));
	memset(ia, 0, sizeof(*ia));
	/* normalise: copy what the file has (attr.size, 0 = VER0), zero the rest */
	size_t asz = mp_ld32(raw + 4) ? mp_ld32(raw + 4) : PERF_ATTR_SIZE_VER0;
	if (asz > rawlen)
		asz = rawlen;
	memcpy(&a->attr, raw, asz < sizeof(a->attr) ? asz : sizeof(a->attr));
	a->file_attr_size = a->attr.size ? a->attr.size : PERF_ATTR_SIZE_VER0;
	if (a->attr.size == 0)
		a->attr.size = PERF_ATTR_SIZE_VER0;
	a->group_leader_idx = (int)idx;
	if (nids) {
		ia->ids = malloc(nids * sizeof(uint64_t));
		if (!ia->ids)
			return -ENOMEM;
		for (size_t k = 0; k < nids; k++)
			ia->ids[k] = mp_ld64(ids + 8 * k);
	}
	pd->nattrs++;
	a->ids = ia->ids;
	a->nids = nids;
	mp_sample_layout_init(&ia->lay, a->attr.sample_type, a->attr.read_format,
			      a->attr.sample_id_all);
	ia->sid_all = ia->lay.sample_id_all;
	ia->nregs_user = popcount64(a->attr.sample_regs_user);
	ia->nregs_intr = popcount64(a->attr.sample_regs_intr);
	ia->branch_hw_idx = !!(a->attr.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX);
	for (size_t k = 0; k < nids; k++)
		if (sid_insert(pd, ia->ids[k], (uint32_t)idx))
			return -ENOMEM;
	return 0;
}

/* After all attrs are known: names, id positions, public pointers. */
int mp_pd_finish_attrs(mp_pd *pd)
{
	for (size_t i = 0; i < pd->nattrs; i++) {
		struct mp_pd_attr *a = &pd->attrs[i];
		struct pd_iattr *ia = &pd->ia[i];
		if (!ia->name)
			ia->name = derive_name(&a->attr);
		if (!ia->name)
			return -ENOMEM;
		a->name = ia->name;
		a->spec = ia->spec ? ia->spec : ia->name;
		a->ids = ia->ids;
	}
	pd->id_off = pd->ia[0].lay.event_id;
	pd->id_back = pd->ia[0].lay.tr_event_id;
	return 0;
}

/* ---- features --------------------------------------------------------------------- */

/* The perf_header_string at p + *off of the n bytes (u32 len, then len bytes, NUL-padded)
 * into *out, malloc'd; *off moves past it. -1 when it does not fit or on ENOMEM. */
static int feat_string(const uint8_t *p, size_t n, size_t *off, char **out)
{
	if (*off > n || n - *off < 4)
		return -1;
	p += *off;
	n -= *off;
	uint32_t len = mp_ld32(p);
	if (len > n - 4)
		return -1;
	size_t sl = strnlen((const char *)p + 4, len);
	char *s = malloc(sl + 1);
	if (!s)
		return -1;
	memcpy(s, p + 4, sl);
	s[sl] = 0;
	*out = s;
	*off += 4 + (size_t)len;
	return 0;
}

int mp_pd_add_build_id(mp_pd *pd, const uint8_t *r, size_t size)
{
	/* header(8), pid s32, build_id[24] (20 + size byte + pad), filename[] */
	if (size < 36)
		return -1;
	if (MP_GROW(pd->bids, pd->cbids, pd->nbids + 1))
		return -1;
	struct pd_bid *b = &pd->bids[pd->nbids];
	memset(b, 0, sizeof(*b));
	uint16_t misc = mp_ld16(r + 4);
	b->pub.pid = (int32_t)mp_ld32(r + 8);
	b->pub.cpumode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
	memcpy(b->pub.id, r + 12, 20);
	b->pub.id_len = 20;
	if (misc & MP_MISC_BUILD_ID_SIZE) {
		uint8_t l = r[32];
		b->pub.id_len = l <= 20 ? l : 20;
	} else {
		/* old perf: size unknown, trailing zero bytes are padding of a shorter id */
		while (b->pub.id_len > 0 && b->pub.id[b->pub.id_len - 1] == 0)
			b->pub.id_len--;
	}
	size_t fl = strnlen((const char *)r + 36, size - 36);
	b->fname = malloc(fl + 1);
	if (!b->fname)
		return -1;
	memcpy(b->fname, r + 36, fl);
	b->fname[fl] = 0;
	b->pub.filename = b->fname;
	pd->nbids++;
	return 0;
}

/* Parse one feature payload (file section or pipe HEADER_FEATURE body). Malformed feature
 * payloads are ignored, as perf does (it warns and goes on): they never affect samples. */
int mp_pd_parse_feature(mp_pd *pd, unsigned feat, const uint8_t *p, size_t n)
{
	size_t off = 0;
	char *s = NULL;

	switch (feat) {
	case MP_HEADER_HOSTNAME:
	case MP_HEADER_OSRELEASE:
	case MP_HEADER_VERSION:
	case MP_HEADER_ARCH:
	case MP_HEADER_CPUDESC:
	case MP_HEADER_CPUID:
		if (feat_string(p, n, &off, &s) == 0) {
			retire(pd, pd->fstr[feat]);
			pd->fstr[feat] = s;
		}
		return 0;
	case MP_HEADER_TRACING_DATA:
	case MP_HEADER_CPU_TOPOLOGY:
	case MP_HEADER_NUMA_TOPOLOGY:
	case MP_HEADER_CACHE:
	case MP_HEADER_MEM_TOPOLOGY:
		pd->fraw[feat].len = 0;
		if (mp_buf_append(&pd->fraw[feat], p, n))
			pd->fraw[feat].len = 0;
		return 0;
	case MP_HEADER_NRCPUS:
		if (n >= 8) {
			pd->nr_cpus_avail = mp_ld32(p);
			pd->nr_cpus_online = mp_ld32(p + 4);
		}
		return 0;
	case MP_HEADER_CMDLINE: {
		if (n < 4)
			return 0;
		uint32_t nr = mp_ld32(p);
		off = 4;
		struct mp_buf b = { 0 };
		for (uint32_t i = 0; i < nr && off < n; i++) {
			if (feat_string(p, n, &off, &s))
				break;
			if (i)
				mp_buf_append(&b, " ", 1);
			mp_buf_append(&b, s, strlen(s));
			free(s);
		}
		if (mp_buf_append(&b, "", 1) == 0) {
			retire(pd, pd->fstr[feat]);
			pd->fstr[feat] = b.data;
		} else {
			mp_buf_fini(&b);
		}
		return 0;
	}
	case MP_HEADER_EVENT_DESC: {
		if (n < 8)
			return 0;
		uint32_t nr = mp_ld32(p), asz = mp_ld32(p + 4);
		off = 8;
		for (uint32_t i = 0; i < nr; i++) {
			if (asz > n - off)
				break;
			off += asz;
			if (n - off < 4)
				break;
			uint32_t nids = mp_ld32(p + off);
			off += 4;
			if (feat_string(p, n, &off, &s))
				break;
			if (i < pd->nattrs && !pd->ia[i].name)
				pd->ia[i].name = s;
			else
				free(s);
			if (nids > (n - off) / 8)
				break;
			off += 8 * (size_t)nids;
		}
		return 0;
	}
	case MP_HEADER_GROUP_DESC: {
		if (n < 4)
			return 0;
		uint32_t nr = mp_ld32(p);
		off = 4;
		for (uint32_t i = 0; i < nr; i++) {
			if (feat_string(p, n, &off, &s))
				break;
			free(s);
			if (n - off < 8)
				break;
			uint32_t leader = mp_ld32(p + off), nmem = mp_ld32(p + off + 4);
			off += 8;
			if (leader >= pd->nattrs || nmem > pd->nattrs - leader)
				continue;
			for (uint32_t k = 0; k < nmem; k++)
				pd->attrs[leader + k].group_leader_idx = (int)leader;
		}
		return 0;
	}
	case MP_HEADER_BUILD_ID: {
		size_t off = 0;
		while (n - off >= 8) {
			uint16_t sz = mp_ld16(p + off + 6);
			if (sz < 8 || sz > n - off)
				break;
			mp_pd_add_build_id(pd, p + off, sz);
			off += sz;
		}
		return 0;
	}
	case MP_HEADER_MEMPROF:
		parse_meta_blob(pd, p, n);
		return 0;
	case MP_HEADER_ALLOC:
		mp_pd_alloc_piece(pd, p, n, 1);
		return 0;
	default:
		return 0;
	}
}

/* ---- memprof's feature: key=value metadata and event specs --------------------------
 * Payload: "key=value\n" lines (optionally inside a perf_header_string, u32 length
 * first). Keys "event.N.spec" / "event.N.name" describe attr N; the rest is free metadata
 * for mp_pd_meta(). */
static void meta_set(mp_pd *pd, const char *k, size_t kl, const char *v, size_t vl)
{
	const size_t pl = sizeof(MP_META_EVENT) - 1;
	if (kl > pl && !strncmp(k, MP_META_EVENT, pl)) {
		char *e;
		unsigned long i = strtoul(k + pl, &e, 10);
		if (e > k + pl && i < pd->nattrs && (size_t)(k + kl - e) == 5 &&
		    !strncmp(e, ".spec", 5)) {
			char *sp = strndup(v, vl);
			if (sp) {
				free(pd->ia[i].spec);
				pd->ia[i].spec = sp;
			}
		}
	}
	if (MP_GROW(pd->meta, pd->cmeta, pd->nmeta + 1))
		return;
	char *key = strndup(k, kl), *val = strndup(v, vl);
	if (!key || !val) {
		free(key);
		free(val);
		return;
	}
	pd->meta[pd->nmeta].key = key;
	pd->meta[pd->nmeta].val = val;
	pd->nmeta++;
}

static void parse_meta_blob(mp_pd *pd, const uint8_t *p, size_t n)
{
	if (n >= 4 && p[3] == 0) { /* perf_header_string wrapper */
		uint32_t len = mp_ld32(p);
		p += 4;
		n -= 4;
		if (len < n)
			n = len;
	}
	const char *s = (const char *)p, *end = s + strnlen(s, n);
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end;
		const char *eq = memchr(s, '=', (size_t)(le - s));
		if (eq && eq > s)
			meta_set(pd, s, (size_t)(eq - s), eq + 1, (size_t)(le - eq - 1));
		s = nl ? nl + 1 : end;
	}
}

/* perf's name of a header feature bit (for messages). */
const char *mp_pd_feat_name(unsigned b)
{
	static const char *const names[] = {
		"RESERVED", "TRACING_DATA", "BUILD_ID", "HOSTNAME", "OSRELEASE", "VERSION",
		"ARCH", "NRCPUS", "CPUDESC", "CPUID", "TOTAL_MEM", "CMDLINE", "EVENT_DESC",
		"CPU_TOPOLOGY", "NUMA_TOPOLOGY", "BRANCH_STACK", "PMU_MAPPINGS", "GROUP_DESC",
		"AUXTRACE", "STAT", "CACHE", "SAMPLE_TIME", "MEM_TOPOLOGY", "CLOCKID",
		"DIR_FORMAT", "BPF_PROG_INFO", "BPF_BTF", "COMPRESSED", "CPU_PMU_CAPS",
		"CLOCK_DATA", "HYBRID_TOPOLOGY", "PMU_CAPS",
	};
	if (b == MP_HEADER_MEMPROF)
		return "memprof's own";
	if (b == MP_HEADER_ALLOC)
		return "memprof's allocation records";
	return b < sizeof(names) / sizeof(names[0]) ? names[b] : "unknown";
}
