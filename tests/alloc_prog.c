/* alloc_prog.c - programs whose allocations are known by construction, for record --alloc
 * (tests/e2e/alloc_*.sh). Each mode prints what it did ("key=value" lines on stderr) so the
 * scripts can check the resolution against it.
 *   pages N      one malloc of N pages, each page touched once by touch_pages()
 *   reuse        a block freed, a block of the same size allocated at the same address
 *                (by another site) and touched: the faults belong to the second
 *   realloc      a block grown with realloc to 64 pages (moved), the new pages touched
 *   memalign     8 pages from posix_memalign, touched
 *   fork N       the parent allocates N pages, forks; the child touches them (copy on
 *                write: faults in the child) and allocates and touches 4 pages of its own
 *   threads      4 threads, each mallocs 16 pages and touches them
 *   types        touches three members of the global gpair (struct pagepair), each on a
 *                page of its own
 *   heaptypes N  an array of N pages of struct rec from a typed malloc (alloc_recs), one
 *                field touched on each page but the first (malloc's header is there): page
 *                k's rec touched at hits (k % 4 == 0 or 3), link.b (1) or key (2); then 32
 *                pages from an untyped malloc (alloc_raw: a void * wrapper), touched
 *   churn N      N malloc/free pairs of 64 bytes (the cost and memory benches) */
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static size_t page;

/* types: a global whose DWARF type has members on three pages of their own */
struct inner {
	long x, y;
};
struct pagepair {
	char a[4096];
	long b[512];
	struct inner in[256];
};
struct pagepair gpair __attribute__((aligned(4096)));

/* heaptypes: 128 bytes, two cache lines; a hole after id, padding after tag */
struct pair {
	long a, b;
};
struct rec {
	int id;
	long key;
	char name[48];
	long hits; /* the second line starts here */
	double avg;
	struct pair link;
	char tag;
} __attribute__((aligned(64)));

__attribute__((noinline)) static void touch_pages(char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		((volatile char *)p)[i * page] = 1;
}

__attribute__((noinline)) static char *alloc_block(size_t n)
{
	char *p = malloc(n * page); /* ALLOC_BLOCK_LINE */
	__asm__ volatile("" : : "r"(p) : "memory"); /* no tail call: this is malloc's caller */
	return p;
}

__attribute__((noinline)) static char *alloc_again(size_t n)
{
	char *p = malloc(n * page); /* ALLOC_AGAIN_LINE */
	__asm__ volatile("" : : "r"(p) : "memory"); /* no tail call: this is malloc's caller */
	return p;
}

__attribute__((noinline)) static char *grow(char *p, size_t n)
{
	char *q = realloc(p, n * page); /* GROW_LINE */
	__asm__ volatile("" : : "r"(q) : "memory");
	return q;
}

__attribute__((noinline)) static struct rec *alloc_recs(size_t n)
{
	struct rec *r = malloc(n * sizeof(*r)); /* RECS_LINE */
	__asm__ volatile("" : : "r"(r) : "memory");
	return r;
}

__attribute__((noinline)) static void *alloc_raw(size_t n)
{
	void *v = malloc(n); /* RAW_LINE */
	__asm__ volatile("" : : "r"(v) : "memory");
	return v;
}

/* on each page of the block but the one it starts on (malloc's header is there), the
 * first rec starting on it, touched at one field */
__attribute__((noinline)) static void touch_recs(struct rec *r, size_t pages)
{
	uintptr_t base = (uintptr_t)r & ~(uintptr_t)(page - 1);
	for (size_t k = 1; k < pages; k++) {
		size_t i = (base + k * page - (uintptr_t)r + sizeof(*r) - 1) / sizeof(*r);
		volatile struct rec *x = &r[i];
		if (k % 4 == 1)
			x->link.b = (long)k;
		else if (k % 4 == 2)
			x->key = (long)k;
		else
			x->hits = (long)k;
	}
}

static pthread_barrier_t all_touched;

static void *thread_main(void *arg)
{
	(void)arg;
	char *p = alloc_block(16);
	touch_pages(p, 16);
	pthread_barrier_wait(&all_touched); /* four blocks live at once, in four arenas */
	free(p);
	return NULL;
}

int main(int argc, char **argv)
{
	page = (size_t)sysconf(_SC_PAGESIZE);
	const char *mode = argc > 1 ? argv[1] : "pages";
	size_t n = argc > 2 ? strtoul(argv[2], NULL, 10) : 128;
	/* glibc serves blocks of 64 KiB and more with mmap (a fixed threshold, not glibc's
	 * dynamic one): a fresh mapping, whose first touch faults every page but the first
	 * (malloc wrote its header there) */
	mallopt(M_MMAP_THRESHOLD, 64 * 1024);
	if (!strcmp(mode, "pages")) {
		char *p = alloc_block(n);
		fprintf(stderr, "block=%p pages=%zu\n", (void *)p, n);
		touch_pages(p, n);
		free(p);
	} else if (!strcmp(mode, "reuse")) {
		char *a = alloc_block(n);
		uintptr_t first = (uintptr_t)a;
		free(a);
		char *b = alloc_again(n);
		fprintf(stderr, "first=%#lx second=%p same=%d\n", (unsigned long)first, (void *)b,
			first == (uintptr_t)b);
		touch_pages(b, n);
		free(b);
	} else if (!strcmp(mode, "realloc")) {
		char *a = alloc_block(4);
		touch_pages(a, 4);
		uintptr_t old = (uintptr_t)a;
		char *b = grow(a, 64);
		fprintf(stderr, "old=%#lx new=%p\n", (unsigned long)old, (void *)b);
		touch_pages(b + 4 * page, 60);
		free(b);
	} else if (!strcmp(mode, "memalign")) {
		void *q = NULL;
		if (posix_memalign(&q, 4096, 8 * page)) /* MEMALIGN_LINE */
			return 1;
		fprintf(stderr, "aligned=%p\n", q);
		touch_pages(q, 8);
		free(q);
	} else if (!strcmp(mode, "fork")) {
		char *p = alloc_block(n);
		touch_pages(p, n);
		fprintf(stderr, "block=%p\n", (void *)p);
		fflush(stderr);
		pid_t c = fork();
		if (c == 0) {
			char *q = alloc_again(4);
			touch_pages(p, n); /* copy on write: every page faults again in the child */
			touch_pages(q, 4);
			exit(0);
		}
		int st;
		waitpid(c, &st, 0);
		free(p);
	} else if (!strcmp(mode, "threads")) {
		pthread_t t[4];
		pthread_barrier_init(&all_touched, NULL, 4);
		for (int i = 0; i < 4; i++)
			pthread_create(&t[i], NULL, thread_main, NULL);
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
	} else if (!strcmp(mode, "types")) {
		/* one fault each: +0x0 (a), +0x1040 (b), +0x20a8 (in[10].y) */
		((volatile char *)gpair.a)[0] = 1;
		((volatile long *)gpair.b)[8] = 2;
		((volatile struct inner *)gpair.in)[10].y = 3;
	} else if (!strcmp(mode, "heaptypes")) {
		struct rec *r = alloc_recs(n * (page / sizeof(struct rec)));
		fprintf(stderr, "recs=%p sizeof=%zu\n", (void *)r, sizeof(struct rec));
		touch_recs(r, n);
		char *v = alloc_raw(32 * page); /* mmap'ed: every page but the first faults */
		touch_pages(v, 32);
		free(v);
		free(r);
	} else if (!strcmp(mode, "churn")) {
		uint64_t sum = 0;
		static char *volatile sink; /* the compiler may not pair malloc with free away */
		for (size_t i = 0; i < n; i++) {
			sink = malloc(64);
			sink[0] = (char)i;
			sum += (uintptr_t)sink[0];
			free(sink);
		}
		fprintf(stderr, "sum=%llu\n", (unsigned long long)sum);
	} else {
		fprintf(stderr, "alloc_prog: unknown mode %s\n", mode);
		return 2;
	}
	return 0;
}
