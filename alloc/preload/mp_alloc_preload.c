/* mp_alloc_preload.c - libmemprof-alloc.so, memprof record --alloc's LD_PRELOAD library: the
 * workload's malloc, calloc, realloc, reallocarray, free, posix_memalign, aligned_alloc,
 * memalign, valloc, pvalloc, mmap and munmap, each with its time (CLOCK_MONOTONIC, the
 * samples' clock), thread and call chain (frame pointers from the hook, inside the thread's
 * stack: the first entry, the return address into malloc's caller, is always right).
 *
 * Safety: the real functions come from dlsym(RTLD_NEXT); what dlsym allocates meanwhile comes
 * from a static arena. A thread inside a hook passes any further call straight through (what
 * memprof's own calls allocate is not the workload's; a signal handler's allocation while the
 * thread was in a hook is counted as lost). Records go to a per-thread buffer (static TLS,
 * nothing allocated), written out whole with O_APPEND to the process's spool file, opened
 * for each write (the workload may close any descriptor). A write that fails counts its
 * records as lost. Threads flush at exit (a key destructor, then they write through), the
 * process at exit and _exit; a fork's child starts a file of its own (a fork record), an
 * exec'd program too (an exec record). */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mp_alloc.h"

#define EXPORT __attribute__((visibility("default")))
#define TLS __thread __attribute__((tls_model("initial-exec")))
#define TBUF 16384

static void *(*r_malloc)(size_t);
static void *(*r_calloc)(size_t, size_t);
static void *(*r_realloc)(void *, size_t);
static void (*r_free)(void *);
static int (*r_posix_memalign)(void **, size_t, size_t);
static void *(*r_aligned_alloc)(size_t, size_t);
static void *(*r_memalign)(size_t, size_t);
static void *(*r_valloc)(size_t);
static void *(*r_pvalloc)(size_t);
static void *(*r_mmap)(void *, size_t, int, int, int, off_t);
static int (*r_munmap)(void *, size_t);
static void (*r_exit)(int);

/* 0 nothing yet, 1 resolving (dlsym: the arena serves), 2 resolved */
static int g_resolved;
static int g_on;             /* a spool folder was given: record */
static pid_t g_pid;
static char g_path[4096];    /* this process's spool file */
static unsigned g_depth = 8;
static pthread_key_t g_key;
static uint64_t g_lost;      /* records whose write failed (atomic) */

static char g_arena[32768] __attribute__((aligned(64)));
static size_t g_arena_used;

struct tstate {
	unsigned char buf[TBUF];
	size_t len;
	int busy;     /* in a hook */
	int internal; /* in a call of memprof's own that may allocate */
	int started;  /* tid, stack and key set */
	int dead;     /* the thread's key destructor ran: write through */
	uint32_t tid;
	uintptr_t stk_lo, stk_hi;
	uint64_t lost;
};
static TLS struct tstate ts;

static int in_arena(const void *p)
{
	return (const char *)p >= g_arena && (const char *)p < g_arena + sizeof(g_arena);
}

static void *arena_alloc(size_t n)
{
	size_t at = __atomic_fetch_add(&g_arena_used, (n + 63) & ~(size_t)63, __ATOMIC_RELAXED);
	if (at + n > sizeof(g_arena))
		return NULL;
	return g_arena + at;
}

static void resolve(void)
{
	int expect = 0;
	if (!__atomic_compare_exchange_n(&g_resolved, &expect, 1, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return;
	/* POSIX's way to store dlsym's answer into a function pointer */
	static const struct {
		const char *name;
		void **fn;
	} reals[] = {
		{ "malloc", (void **)&r_malloc },
		{ "calloc", (void **)&r_calloc },
		{ "realloc", (void **)&r_realloc },
		{ "free", (void **)&r_free },
		{ "posix_memalign", (void **)&r_posix_memalign },
		{ "aligned_alloc", (void **)&r_aligned_alloc },
		{ "memalign", (void **)&r_memalign },
		{ "valloc", (void **)&r_valloc },
		{ "pvalloc", (void **)&r_pvalloc },
		{ "mmap", (void **)&r_mmap },
		{ "munmap", (void **)&r_munmap },
		{ "_exit", (void **)&r_exit },
	};
	for (size_t i = 0; i < sizeof(reals) / sizeof(reals[0]); i++)
		*reals[i].fn = dlsym(RTLD_NEXT, reals[i].name);
	__atomic_store_n(&g_resolved, 2, __ATOMIC_RELEASE);
}

static int ready(void)
{
	if (__builtin_expect(__atomic_load_n(&g_resolved, __ATOMIC_ACQUIRE) == 2, 1))
		return 1;
	resolve();
	if (__atomic_load_n(&g_resolved, __ATOMIC_ACQUIRE) != 2)
		return 0;
	if (!r_malloc || !r_calloc || !r_realloc || !r_free) {
		static const char msg[] = "libmemprof-alloc.so: no malloc/calloc/realloc/free "
					  "after this library: cannot run\n";
		if (write(2, msg, sizeof(msg) - 1) < 0)
			syscall(SYS_exit_group, 127);
		syscall(SYS_exit_group, 127);
	}
	return 1;
}

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

static uint64_t count_records(const unsigned char *b, size_t n)
{
	uint64_t k = 0;
	for (size_t off = 0; off + sizeof(struct mp_alloc_wire) <= n; k++) {
		uint16_t sz;
		memcpy(&sz, b + off, 2);
		off += sz ? sz : n;
	}
	return k;
}

static void flush(void)
{
	if (!ts.len)
		return;
	int e = errno;
	int fd = open(g_path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0 || write_all(fd, ts.buf, ts.len))
		__atomic_fetch_add(&g_lost, count_records(ts.buf, ts.len), __ATOMIC_RELAXED);
	if (fd >= 0)
		close(fd);
	ts.len = 0;
	errno = e;
}

static void thread_done(void *v)
{
	(void)v;
	ts.busy++;
	flush();
	ts.dead = 1;
	ts.busy--;
}

/* The thread's id and stack, once (pthread_getattr_np may allocate: the thread is busy,
 * so that passes straight through). */
static void thread_start(void)
{
	ts.started = 1;
	ts.tid = (uint32_t)syscall(SYS_gettid);
	ts.internal = 1;
	pthread_attr_t a;
	if (pthread_getattr_np(pthread_self(), &a) == 0) {
		void *lo;
		size_t sz;
		if (pthread_attr_getstack(&a, &lo, &sz) == 0) {
			ts.stk_lo = (uintptr_t)lo;
			ts.stk_hi = (uintptr_t)lo + sz;
		}
		pthread_attr_destroy(&a);
	}
	pthread_setspecific(g_key, (void *)1);
	ts.internal = 0;
}

static void put(uint8_t kind, uint64_t addr, uint64_t size, uint64_t old, const uint64_t *ips,
		unsigned nr)
{
	size_t need = sizeof(struct mp_alloc_wire) + 8 * (size_t)nr;
	if (ts.len + need > TBUF)
		flush();
	struct mp_alloc_wire w = { (uint16_t)need, kind, (uint8_t)nr, ts.tid, now_ns(), addr,
				   size, old };
	memcpy(ts.buf + ts.len, &w, sizeof(w));
	if (nr)
		memcpy(ts.buf + ts.len + sizeof(w), ips, 8 * (size_t)nr);
	ts.len += need;
}

/* One record of the calling hook: ret = its return address (into the caller of malloc),
 * fp = its frame (the caller's frame record below it). */
static void record(uint8_t kind, uint64_t addr, uint64_t size, uint64_t old, void *ret,
		   void *fp)
{
	if (!ts.started)
		thread_start();
	if (ts.lost) {
		put(MP_ALLOC_LOST, 0, ts.lost, 0, NULL, 0);
		ts.lost = 0;
	}
	uint64_t ips[MP_ALLOC_WIRE_DEPTH];
	unsigned nr = 0;
	/* where a block is freed does not place a sample: no chain, a third less to write */
	if (kind == MP_ALLOC_FREE || kind == MP_ALLOC_MUNMAP) {
		put(kind, addr, size, old, ips, 0);
		if (ts.dead)
			flush();
		return;
	}
	ips[nr++] = (uint64_t)(uintptr_t)ret;
	/* frame records: [fp] = the caller's fp, [fp + 8] = the return address; only inside
	 * this thread's stack and going up */
	uintptr_t f = (uintptr_t)fp;
	if (f && ts.stk_hi) {
		/* frames lie above the hook's (all mapped up to the stack's top) */
		uintptr_t lo = f > ts.stk_lo ? f : ts.stk_lo;
		f = *(const uintptr_t *)f;
		while (nr < g_depth && f > lo && f + 16 <= ts.stk_hi && !(f & 7)) {
			uintptr_t next = ((const uintptr_t *)f)[0], ra = ((const uintptr_t *)f)[1];
			if (!ra)
				break;
			ips[nr++] = ra;
			if (next <= f)
				break;
			f = next;
		}
	}
	put(kind, addr, size, old, ips, nr);
	if (ts.dead)
		flush();
}

/* A hook may record when the library is on and the thread is not in a hook already. A
 * thread that is passes through: memprof's own allocations inside a hook (internal set) are
 * not the workload's; anything else is a signal handler's, counted as lost. */
static int enter(void)
{
	if (!g_on)
		return 0;
	if (ts.busy) {
		if (!ts.internal)
			ts.lost++;
		return 0;
	}
	ts.busy = 1;
	return 1;
}

static void leave(void)
{
	ts.busy = 0;
}

EXPORT void *malloc(size_t n)
{
	if (!ready())
		return arena_alloc(n);
	void *p = r_malloc(n);
	if (p && enter()) {
		record(MP_ALLOC_MALLOC, (uintptr_t)p, n, 0, __builtin_return_address(0),
		       __builtin_frame_address(0));
		leave();
	}
	return p;
}

EXPORT void *calloc(size_t k, size_t n)
{
	if (!ready()) {
		/* dlsym's own calloc while resolving: static memory, zeroed */
		if (n && k > SIZE_MAX / n)
			return NULL;
		return arena_alloc(k * n);
	}
	void *p = r_calloc(k, n);
	if (p && enter()) {
		record(MP_ALLOC_CALLOC, (uintptr_t)p, (uint64_t)k * n, 0,
		       __builtin_return_address(0), __builtin_frame_address(0));
		leave();
	}
	return p;
}

EXPORT void free(void *p)
{
	if (!p || in_arena(p))
		return;
	if (!ready())
		return;
	r_free(p);
	if (enter()) {
		record(MP_ALLOC_FREE, (uintptr_t)p, 0, 0, __builtin_return_address(0),
		       __builtin_frame_address(0));
		leave();
	}
}

static void *realloc_of(void *p, size_t n, void *ret, void *fp)
{
	if (in_arena(p)) {
		void *q = malloc(n);
		size_t have = (size_t)(g_arena + sizeof(g_arena) - (char *)p);
		if (q)
			memcpy(q, p, n < have ? n : have);
		return q;
	}
	if (!ready())
		return NULL;
	void *q = r_realloc(p, n);
	if (enter()) {
		if (q)
			record(MP_ALLOC_REALLOC, (uintptr_t)q, n, (uintptr_t)p, ret, fp);
		else if (p && !n) /* realloc(p, 0) freed p */
			record(MP_ALLOC_FREE, (uintptr_t)p, 0, 0, ret, fp);
		leave();
	}
	return q;
}

EXPORT void *realloc(void *p, size_t n)
{
	return realloc_of(p, n, __builtin_return_address(0), __builtin_frame_address(0));
}

EXPORT void *reallocarray(void *p, size_t k, size_t n)
{
	if (n && k > SIZE_MAX / n) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc_of(p, k * n, __builtin_return_address(0), __builtin_frame_address(0));
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	if (!ready())
		return ENOMEM;
	int rc = r_posix_memalign(out, align, n);
	if (!rc && enter()) {
		record(MP_ALLOC_MEMALIGN, (uintptr_t)*out, n, 0, __builtin_return_address(0),
		       __builtin_frame_address(0));
		leave();
	}
	return rc;
}

#define ALIGNED_HOOK(name, args, call, sizearg)                                              \
	EXPORT void *name args                                                               \
	{                                                                                    \
		if (!ready() || !r_##name)                                                   \
			return NULL;                                                         \
		void *p = r_##name call;                                                     \
		if (p && enter()) {                                                          \
			record(MP_ALLOC_MEMALIGN, (uintptr_t)p, sizearg, 0,                  \
			       __builtin_return_address(0), __builtin_frame_address(0));     \
			leave();                                                             \
		}                                                                            \
		return p;                                                                    \
	}
ALIGNED_HOOK(aligned_alloc, (size_t align, size_t n), (align, n), n)
ALIGNED_HOOK(memalign, (size_t align, size_t n), (align, n), n)
ALIGNED_HOOK(valloc, (size_t n), (n), n)
ALIGNED_HOOK(pvalloc, (size_t n), (n), n)

EXPORT void *mmap(void *a, size_t n, int prot, int flags, int fd, off_t off)
{
	if (!ready() || !r_mmap)
		return MAP_FAILED;
	void *p = r_mmap(a, n, prot, flags, fd, off);
	if (p != MAP_FAILED && enter()) {
		record(MP_ALLOC_MMAP, (uintptr_t)p, n, 0, __builtin_return_address(0),
		       __builtin_frame_address(0));
		leave();
	}
	return p;
}

EXPORT void *mmap64(void *a, size_t n, int prot, int flags, int fd, off_t off)
	__attribute__((alias("mmap")));

EXPORT int munmap(void *a, size_t n)
{
	if (!ready() || !r_munmap)
		return -1;
	int rc = r_munmap(a, n);
	if (!rc && enter()) {
		record(MP_ALLOC_MUNMAP, (uintptr_t)a, n, 0, __builtin_return_address(0),
		       __builtin_frame_address(0));
		leave();
	}
	return rc;
}

/* The end of the process without exit's destructors: what this thread holds first. */
EXPORT void _exit(int status)
{
	if (g_on && !ts.busy)
		flush();
	if (ready() && r_exit)
		r_exit(status);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

EXPORT void _Exit(int status) __attribute__((alias("_exit")));

/* A new spool file for this process image and its first record (fork or exec). */
static void start_file(uint8_t kind, uint64_t parent)
{
	const char *dir = getenv(MP_ALLOC_ENV_DIR);
	g_on = 0;
	if (!dir || !*dir)
		return;
	g_pid = getpid();
	for (unsigned n = 0; n < 1000; n++) {
		snprintf(g_path, sizeof(g_path), "%s/%d.%u", dir, (int)g_pid, n);
		int fd = open(g_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 && errno == EEXIST)
			continue;
		if (fd < 0)
			return;
		struct mp_alloc_spool_head h = { MP_ALLOC_SPOOL_MAGIC, (uint32_t)g_pid, 1 };
		int bad = write_all(fd, &h, sizeof(h));
		close(fd);
		if (bad)
			return;
		g_on = 1;
		ts.busy = 1;
		record(kind, 0, 0, parent, __builtin_return_address(0), NULL);
		flush();
		ts.busy = 0;
		return;
	}
}

static void after_fork_child(void)
{
	pid_t parent = g_pid;
	ts.len = 0; /* the parent's records: the parent writes them */
	ts.started = 0;
	ts.lost = 0;
	if (g_on)
		start_file(MP_ALLOC_FORK, (uint64_t)parent);
}

__attribute__((constructor)) static void alloc_init(void)
{
	ready();
	const char *d = getenv(MP_ALLOC_ENV_DEPTH);
	if (d && *d) {
		long v = strtol(d, NULL, 10);
		g_depth = v < 1 ? 1 : v > MP_ALLOC_WIRE_DEPTH ? MP_ALLOC_WIRE_DEPTH : (unsigned)v;
	}
	ts.busy = 1;
	if (pthread_key_create(&g_key, thread_done) == 0 &&
	    pthread_atfork(NULL, NULL, after_fork_child) == 0) {
		ts.busy = 0;
		start_file(MP_ALLOC_EXEC, 0);
	}
	ts.busy = 0;
}

__attribute__((destructor)) static void alloc_fini(void)
{
	if (!g_on)
		return;
	ts.busy = 1;
	uint64_t lost = __atomic_exchange_n(&g_lost, 0, __ATOMIC_RELAXED);
	if (lost)
		put(MP_ALLOC_LOST, 0, lost, 0, NULL, 0);
	flush();
	ts.busy = 0;
}
