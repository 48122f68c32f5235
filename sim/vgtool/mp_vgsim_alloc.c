/* mp_vgsim_alloc.c - mpsim's allocation tracking: the workload's malloc, calloc, realloc,
 * memalign (and posix_memalign, aligned_alloc, valloc), free, new, new[], delete and
 * delete[] are served by valgrind's replacement-malloc machinery (as DHAT and massif
 * are), and with --alloc-out each call is written with its thread, virtual time and call
 * site, so that memprof can name the heap object a memory sample's address falls in.
 *
 * The file (host byte order), one record after another:
 *   site:  u64 1 | nr << 8, then nr u64 return addresses, the first into malloc's caller
 *          (written once, before the first call that uses it; sites number from 0)
 *   call:  u64 2 | kind << 8, u64 time (the thread's virtual time), addr, size, old
 *          (realloc: the block replaced), u32 tid (kernel), u32 site (0xffffffff: none)
 *   end:   u64 3, u64 calls written
 * kind as perfdata's MP_ALLOC_*: 1 malloc and new, 2 calloc, 3 realloc, 4 memalign,
 * 6 free and delete.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_replacemalloc.h"
#include "pub_tool_stacktrace.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"

#include "mp_vgsim.h"

enum { K_MALLOC = 1, K_CALLOC = 2, K_REALLOC = 3, K_MEMALIGN = 4, K_FREE = 6 };

#define AL_DEPTH 16          /* frames kept per site */
#define AL_BUF (1u << 16)
#define SITE_HASH (1u << 16)

struct site {
	struct site *next;
	UWord hash;
	UInt id, nr;
	Addr ips[AL_DEPTH];
};

static const HChar *clo_alloc_out = NULL;
static Int al_fd = -1;
static UChar *al_buf;
static UInt al_n;
static ULong al_calls;
static struct site **site_hash;
static UInt nsites;

/* Blocks freed, held back from valgrind's allocator until every thread is past the free
 * in virtual time (mps_settled()): valgrind runs one thread at a time, so a block one
 * thread frees is often the next one another thread gets, while in virtual time the two
 * threads run side by side and would share its lines. A ring, oldest first; past
 * QUAR_MAX blocks or QUAR_BYTES bytes held the oldest goes back whatever its time. */
#define QUAR_MAX (1u << 20)
#define QUAR_BYTES (64ULL << 20)
struct quar {
	void *p;
	ULong time;
	SizeT size;
};
static struct quar *quar;
static UInt quar_cap, quar_head, quar_n;
static ULong quar_bytes;

static void quar_release(Bool one)
{
	ULong settled = mps_settled();
	while (quar_n && (one || quar_bytes > QUAR_BYTES || quar[quar_head].time <= settled)) {
		VG_(cli_free)(quar[quar_head].p);
		quar_bytes -= quar[quar_head].size;
		quar_head = (quar_head + 1) & (quar_cap - 1);
		quar_n--;
		one = False;
	}
}

/* Thread tid frees p (a live block). */
static void quar_free(ThreadId tid, void *p)
{
	if (quar_n == QUAR_MAX)
		quar_release(True);
	if (quar_n == quar_cap) {
		UInt ncap = quar_cap ? 2 * quar_cap : 1024;
		struct quar *nq = VG_(malloc)("mpsim.quarantine", ncap * sizeof(*nq));
		for (UInt k = 0; k < quar_n; k++)
			nq[k] = quar[(quar_head + k) & (quar_cap - 1)];
		VG_(free)(quar);
		quar = nq;
		quar_cap = ncap;
		quar_head = 0;
	}
	UInt lwp;
	struct quar *q = &quar[(quar_head + quar_n) & (quar_cap - 1)];
	q->p = p;
	q->size = VG_(cli_malloc_usable_size)(p);
	mps_thread_info(tid, &q->time, &lwp);
	quar_bytes += q->size;
	quar_n++;
	quar_release(False);
}

static void al_flush(void)
{
	if (al_fd < 0) {
		HChar *path = VG_(expand_file_name)("--alloc-out", clo_alloc_out);
		SysRes sr = VG_(open)(path, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY, 0600);
		if (sr_isError(sr)) {
			VG_(umsg)("mpsim: cannot write %s\n", path);
			VG_(exit)(1);
		}
		al_fd = (Int)sr_Res(sr);
	}
	if (al_n)
		VG_(write)(al_fd, al_buf, (Int)al_n);
	al_n = 0;
}

static void al_put(const void *p, UInt len)
{
	if (al_n + len > AL_BUF)
		al_flush();
	VG_(memcpy)(al_buf + al_n, p, len);
	al_n += len;
}

/* The site of the call being served to thread tid: its stack without the replacement
 * function itself (the preload's malloc), interned. */
static UInt site_of(ThreadId tid)
{
	Addr ips[AL_DEPTH + 1];
	UInt n = VG_(get_StackTrace)(tid, ips, AL_DEPTH + 1, NULL, NULL, 0);
	if (n < 2)
		return 0xffffffffu;
	const Addr *c = ips + 1;
	UInt nr = n - 1;
	UWord h = nr;
	for (UInt i = 0; i < nr; i++)
		h = (h ^ c[i]) * 0x100000001b3ULL;
	struct site **b = &site_hash[(h >> 20) & (SITE_HASH - 1)];
	for (struct site *s = *b; s; s = s->next)
		if (s->hash == h && s->nr == nr && !VG_(memcmp)(s->ips, c, nr * sizeof(Addr)))
			return s->id;
	struct site *s = VG_(malloc)("mpsim.site", sizeof(*s));
	s->hash = h;
	s->nr = nr;
	s->id = nsites++;
	VG_(memcpy)(s->ips, c, nr * sizeof(Addr));
	s->next = *b;
	*b = s;
	ULong hdr = 1 | (ULong)nr << 8;
	al_put(&hdr, sizeof(hdr));
	al_put(c, nr * (UInt)sizeof(Addr));
	return s->id;
}

static void al_call(ThreadId tid, UInt kind, const void *addr, SizeT size, const void *old)
{
	if (!clo_alloc_out)
		return;
	struct {
		ULong tag, time, addr, size, old;
		UInt tid, site;
	} r;
	r.site = kind == K_FREE ? 0xffffffffu : site_of(tid);
	r.tag = 2 | (ULong)kind << 8;
	mps_thread_info(tid, &r.time, &r.tid);
	r.addr = (ULong)(Addr)addr;
	r.size = size;
	r.old = (ULong)(Addr)old;
	al_put(&r, sizeof(r));
	al_calls++;
}

static void *al_new(ThreadId tid, SizeT n, SizeT align, UInt kind, Bool zero)
{
	quar_release(False);
	void *p = VG_(cli_malloc)(align, n);
	if (!p)
		return NULL;
	if (zero)
		VG_(memset)(p, 0, n);
	al_call(tid, kind, p, n, NULL);
	return p;
}

static void *a_malloc(ThreadId tid, SizeT n)
{
	return al_new(tid, n, VG_(clo_alignment), K_MALLOC, False);
}

static void *a_new_aligned(ThreadId tid, SizeT n, SizeT align)
{
	return al_new(tid, n, align, K_MALLOC, False);
}

static void *a_memalign(ThreadId tid, SizeT align, SizeT n)
{
	return al_new(tid, n, align, K_MEMALIGN, False);
}

static void *a_calloc(ThreadId tid, SizeT nmemb, SizeT size)
{
	/* nmemb * size overflowing: no block, as glibc */
	if (size && nmemb > (SizeT)-1 / size)
		return NULL;
	return al_new(tid, nmemb * size, VG_(clo_alignment), K_CALLOC, True);
}

static void a_free(ThreadId tid, void *p)
{
	if (!p)
		return;
	al_call(tid, K_FREE, p, 0, NULL);
	quar_free(tid, p);
}

static void a_free_aligned(ThreadId tid, void *p, SizeT align)
{
	(void)align;
	a_free(tid, p);
}

static void *a_realloc(ThreadId tid, void *p, SizeT n)
{
	if (!p)
		return al_new(tid, n, VG_(clo_alignment), K_REALLOC, False);
	if (!n) {
		/* glibc frees the block and returns NULL */
		a_free(tid, p);
		return NULL;
	}
	quar_release(False);
	void *q = VG_(cli_malloc)(VG_(clo_alignment), n);
	if (!q)
		return NULL;
	SizeT old = VG_(cli_malloc_usable_size)(p);
	VG_(memcpy)(q, p, old < n ? old : n);
	quar_free(tid, p);
	al_call(tid, K_REALLOC, q, n, p);
	return q;
}

static SizeT a_usable_size(ThreadId tid, void *p)
{
	(void)tid;
	return p ? VG_(cli_malloc_usable_size)(p) : 0;
}

void mps_alloc_pre_clo_init(void)
{
	VG_(needs_malloc_replacement)(a_malloc, a_malloc, a_new_aligned, a_malloc, a_new_aligned,
				      a_memalign, a_calloc, a_free, a_free, a_free_aligned, a_free,
				      a_free_aligned, a_realloc, a_usable_size, 0);
}

Bool mps_alloc_option(const HChar *arg)
{
	const HChar *s;
	if VG_STR_CLO(arg, "--alloc-out", s) {
		clo_alloc_out = s;
		if (!al_buf) {
			al_buf = VG_(malloc)("mpsim.alloc", AL_BUF);
			site_hash = VG_(calloc)("mpsim.sites", SITE_HASH, sizeof(*site_hash));
		}
		return True;
	}
	return VG_(replacement_malloc_process_cmd_line_option)(arg);
}

void mps_alloc_usage(void)
{
	VG_(printf)("    --alloc-out=FILE      allocation calls with their sites (%%p: pid; the\n"
		    "                          preload vgpreload_mpsim must be there) [none]\n");
}

/* A forked child writes a file of its own and names its sites anew. */
void mps_alloc_fork_child(void)
{
	if (!clo_alloc_out)
		return;
	if (al_fd >= 0)
		VG_(close)(al_fd);
	al_fd = -1;
	al_n = 0;
	al_calls = 0;
	nsites = 0;
	for (UInt b = 0; b < SITE_HASH; b++)
		for (struct site *s = site_hash[b], *next; s; s = next) {
			next = s->next;
			VG_(free)(s);
		}
	VG_(memset)(site_hash, 0, SITE_HASH * sizeof(*site_hash));
}

void mps_alloc_fini(void)
{
	if (!clo_alloc_out)
		return;
	ULong end[2] = { 3, al_calls };
	al_put(end, sizeof(end));
	al_flush();
	VG_(close)(al_fd);
	al_fd = -1;
}
