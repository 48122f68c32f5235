/* memprof/debugpred.h - likely()/unlikely() branch hints with a debug mode that counts, for
 * every use, how often the hint was right (U. Drepper, "What every programmer should know
 * about memory", section 9.2 "Debug Branch Prediction").
 *
 *   #include <memprof/debugpred.h>
 *   if (unlikely(p == NULL)) return -1;
 *
 * Without DEBUGPRED, likely(e) and unlikely(e) are exactly __builtin_expect(!!(e), 1) and
 * __builtin_expect(!!(e), 0): the object code is the same as without this header.
 *
 * With -DDEBUGPRED every use gets two counters (incorrect, correct) in the writable section
 * predict_data, and its line and hint (predict_line), file name (predict_file), function
 * name (predict_func) and expression text (predict_expr) in read-only sections, laid out by
 * inline assembly (.pushsection, %= labels) on x86_64, i386 and aarch64, or by a static
 * struct per use in the section predict_sites on any other GCC/clang target (and with
 * -DDEBUGPRED_GENERIC). The string entries are 32-bit offsets relative to the entry itself,
 * so the sections need no relocation, in executables, PIE or shared objects alike.
 * -DDEBUGPRED_ATOMIC makes the increments atomic (exact counts in threaded code).
 *
 * Each executable and shared object that has uses reads its own sections back (the
 * __start_/__stop_ symbols are referenced with hidden visibility, so they never resolve to
 * another object's) in a destructor that runs at exit() or return from main (or dlclose):
 *   - MEMPROF_PREDICT=FILE in the environment: one self-describing record per process and
 *     object (pid, object path, build-id, every use) is appended to FILE, under an
 *     exclusive flock() and with O_APPEND, so that concurrent writers never interleave;
 *     `memprof predict` reads it (and sets the variable for you);
 *   - otherwise one line per use on stderr, as the article prints them:
 *       file.c:12: incorrect=700, correct=300   <==== WARNING
 * A forked child starts from zero (a pthread_atfork handler), so the records of a parent
 * and its children add up to the exact totals. An exec() (the exec family called where
 * this header is included) writes the counts so far first, in a record marked "exec", and
 * the new image writes its own: both images of the process are counted. Nothing is
 * written by a process killed by a signal or that ends with _exit().
 *
 * The debug mode costs code size, data and time: never enable it in production builds.
 * The record format is described in docs/predict.md. */
#ifndef MEMPROF_DEBUGPRED_H
#define MEMPROF_DEBUGPRED_H

#undef likely
#undef unlikely

#ifndef DEBUGPRED
#define likely(expr) __builtin_expect(!!(expr), 1)
#define unlikely(expr) __builtin_expect(!!(expr), 0)
#else /* DEBUGPRED */

#include <elf.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/types.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

#define likely(expr) debugpred__((expr), 1, #expr)
#define unlikely(expr) debugpred__((expr), 0, #expr)

/* Per-site flags in predict_line: bit 0 the hint (1 = likely), bit 1 atomic counters. */
#ifdef DEBUGPRED_ATOMIC
#define DEBUGPRED__FLAGS(E) ((E) | 2)
#else
#define DEBUGPRED__FLAGS(E) (E)
#endif

/* One use in the plain-C form (section predict_sites). Its size is its alignment, so that
 * no compiler pads between the uses (GCC aligns large static structs to 32 bytes). */
struct __attribute__((aligned(64))) debugpred__site {
	long cnt[2]; /* incorrect, correct */
	int line;
	int flags;
	const char *file;
	const char *func;
	const char *expr;
};

/* clang has no constraint that passes a string's address as an assembler constant in
 * i386 position-independent code: there the uses take the plain-C form. */
#if !defined DEBUGPRED_GENERIC &&                                                     \
	(defined __x86_64__ || defined __aarch64__ ||                                  \
	 (defined __i386__ && !(defined __clang__ && defined __PIC__)))
#define DEBUGPRED__ASM 1
#endif

#ifdef DEBUGPRED__ASM
/* The metadata of one use: predict_line holds {line, flags}, predict_file/func/expr one
 * self-relative 32-bit offset each to the string. */
/* A string's address as an assembler constant. GCC refuses "i" for addresses in
 * position-independent code on i386 and aarch64; "X" printed with %P, and "S", pass it. */
#if defined __clang__ || defined __x86_64__
#define DEBUGPRED__S "i"
#define DEBUGPRED__STR(n) "%c[" n "]"
#elif defined __i386__
#define DEBUGPRED__S "X"
#define DEBUGPRED__STR(n) "%P[" n "]"
#else
#define DEBUGPRED__S "S"
#define DEBUGPRED__STR(n) "%c[" n "]"
#endif
#define DEBUGPRED__META                                                                    \
	".section predict_line,\"aR\",@progbits\n\t.balign 4\n\t.long %c[line], %c[flags]\n\t" \
	".section predict_file,\"aR\",@progbits\n\t.balign 4\n\t.long " DEBUGPRED__STR("file") \
	" - .\n\t.section predict_func,\"aR\",@progbits\n\t.balign 4\n\t.long "              \
	DEBUGPRED__STR("func") " - .\n\t.section predict_expr,\"aR\",@progbits\n\t.balign 4\n\t" \
	".long " DEBUGPRED__STR("expr") " - .\n\t.popsection\n\t"
#define DEBUGPRED__META_IN(E, S)                                                       \
	[line] "i"(__LINE__), [flags] "i"(DEBUGPRED__FLAGS(E)), [file] DEBUGPRED__S(__FILE__), \
		[func] DEBUGPRED__S(__func__), [expr] DEBUGPRED__S(S)

#if defined __x86_64__
#ifdef DEBUGPRED_ATOMIC
#define DEBUGPRED__LOCK "lock; "
#else
#define DEBUGPRED__LOCK ""
#endif
#define debugpred__(e, E, S)                                                          \
	__extension__({                                                               \
		long debugpred__e = !!(e);                                            \
		void *debugpred__p;                                                   \
		__asm__ __volatile__(                                                 \
			".pushsection predict_data,\"aw\",@progbits\n\t.balign 8\n"   \
			".Lpredictcnt%=: .quad 0, 0\n\t" DEBUGPRED__META              \
			"leaq .Lpredictcnt%=(%%rip), %[p]\n\t" DEBUGPRED__LOCK        \
			"addq $1, (%[p],%[i],8)"                                      \
			: [p] "=&r"(debugpred__p)                                     \
			: [i] "r"((long)(debugpred__e == (E))), DEBUGPRED__META_IN(E, S) \
			: "cc");                                                      \
		__builtin_expect(debugpred__e, (E));                                  \
	})
#elif defined __i386__
#ifdef DEBUGPRED_ATOMIC
#define DEBUGPRED__LOCK "lock; "
#else
#define DEBUGPRED__LOCK ""
#endif
/* Position-independent code has no %eip-relative addressing: the counters' address comes
 * from a call/pop pair (i386 has no red zone below %esp to clobber). */
#ifdef __PIC__
#define DEBUGPRED__I386_ADDR                                 \
	"call .Lpredictpc%=\n.Lpredictpc%=:\n\tpopl %[p]\n\t" \
	"addl $.Lpredictcnt%= - .Lpredictpc%=, %[p]\n\t"
#else
#define DEBUGPRED__I386_ADDR "movl $.Lpredictcnt%=, %[p]\n\t"
#endif
#define debugpred__(e, E, S)                                                          \
	__extension__({                                                               \
		long debugpred__e = !!(e);                                            \
		void *debugpred__p;                                                   \
		__asm__ __volatile__(                                                 \
			".pushsection predict_data,\"aw\",@progbits\n\t.balign 4\n"   \
			".Lpredictcnt%=: .long 0, 0\n\t" DEBUGPRED__META              \
			DEBUGPRED__I386_ADDR DEBUGPRED__LOCK "incl (%[p],%[i],4)"     \
			: [p] "=&r"(debugpred__p)                                     \
			: [i] "r"((long)(debugpred__e == (E))), DEBUGPRED__META_IN(E, S) \
			: "cc");                                                      \
		__builtin_expect(debugpred__e, (E));                                  \
	})
#elif defined __aarch64__
#ifdef DEBUGPRED_ATOMIC
/* Armv8.0 has no single-instruction atomic add: a load-exclusive/store-exclusive loop. */
#define DEBUGPRED__A64_INC                                                          \
	".Lpredictretry%=:\n\tldxr %[v], [%[p]]\n\tadd %[v], %[v], #1\n\t"           \
	"stxr %w[s], %[v], [%[p]]\n\tcbnz %w[s], .Lpredictretry%="
#else
#define DEBUGPRED__A64_INC "ldr %[v], [%[p]]\n\tadd %[v], %[v], #1\n\tstr %[v], [%[p]]"
#endif
#define debugpred__(e, E, S)                                                          \
	__extension__({                                                               \
		long debugpred__e = !!(e);                                            \
		void *debugpred__p;                                                   \
		long debugpred__v;                                                    \
		int debugpred__s;                                                     \
		__asm__ __volatile__(                                                 \
			".pushsection predict_data,\"aw\",@progbits\n\t.balign 8\n"   \
			".Lpredictcnt%=: .quad 0, 0\n\t" DEBUGPRED__META              \
			"adrp %[p], .Lpredictcnt%=\n\t"                               \
			"add %[p], %[p], :lo12:.Lpredictcnt%=\n\t"                    \
			"add %[p], %[p], %[i], lsl #3\n\t" DEBUGPRED__A64_INC         \
			: [p] "=&r"(debugpred__p), [v] "=&r"(debugpred__v),           \
			  [s] "=&r"(debugpred__s)                                     \
			: [i] "r"((long)(debugpred__e == (E))), DEBUGPRED__META_IN(E, S) \
			: "cc", "memory");                                            \
		(void)debugpred__s;                                                   \
		__builtin_expect(debugpred__e, (E));                                  \
	})
#endif
#else /* plain C: one static struct per use in the section predict_sites */
#ifdef DEBUGPRED_ATOMIC
#define DEBUGPRED__INC(p) __atomic_fetch_add((p), 1, __ATOMIC_RELAXED)
#else
#define DEBUGPRED__INC(p) (++*(p))
#endif
#define debugpred__(e, E, S)                                                              \
	__extension__({                                                                   \
		static struct debugpred__site debugpred__site_                            \
			__attribute__((section("predict_sites"), used)) = {               \
				{0, 0}, __LINE__, DEBUGPRED__FLAGS(E), __FILE__, __func__, S}; \
		long debugpred__e = !!(e);                                                \
		DEBUGPRED__INC(&debugpred__site_.cnt[debugpred__e == (E)]);               \
		__builtin_expect(debugpred__e, (E));                                      \
	})
#endif

#if defined __x86_64__
#define DEBUGPRED__ARCH "x86_64"
#elif defined __i386__
#define DEBUGPRED__ARCH "i386"
#elif defined __aarch64__
#define DEBUGPRED__ARCH "aarch64"
#else
#define DEBUGPRED__ARCH "other"
#endif

/* Everything below exists once per object (weak, hidden): every translation unit that
 * includes the header brings a copy, the linker keeps one for the executable or shared
 * object, and another object's copy is never used. */
#define DEBUGPRED__OBJ __attribute__((weak, visibility("hidden")))
#define DEBUGPRED__SEC(n)                                                      \
	extern char __start_##n[] __attribute__((weak, visibility("hidden"))); \
	extern char __stop_##n[] __attribute__((weak, visibility("hidden")))
DEBUGPRED__SEC(predict_data);
DEBUGPRED__SEC(predict_line);
DEBUGPRED__SEC(predict_file);
DEBUGPRED__SEC(predict_func);
DEBUGPRED__SEC(predict_expr);
DEBUGPRED__SEC(predict_sites);

struct debugpred__use {
	unsigned long incorrect, correct;
	int line, flags;
	const char *file, *func, *expr;
};

/* Bytes between a section's __start_ and __stop_ symbols, 0 when the section is missing.
 * Through integers the compiler cannot see through: they may belong to no C object. */
static inline size_t debugpred__span(const char *start, const char *stop)
{
	uintptr_t a = (uintptr_t)start, b = (uintptr_t)stop;
	__asm__("" : "+r"(a), "+r"(b));
	return b > a ? (size_t)(b - a) : 0;
}

/* The uses laid out by inline assembly: as many as every one of their sections holds.
 * The read-only sections are marked retained ("R", SHF_GNU_RETAIN) so that --gc-sections
 * keeps them under lld and GNU ld -z start-stop-gc, which no longer keep a section for its
 * __start_ reference; a linker that drops them anyway costs the uses, never a crash. */
static inline size_t debugpred__nasm(void)
{
	size_t n = debugpred__span(__start_predict_data, __stop_predict_data) / (2 * sizeof(long)),
	       m = debugpred__span(__start_predict_line, __stop_predict_line) / 8;
	n = m < n ? m : n;
	m = debugpred__span(__start_predict_file, __stop_predict_file) / 4;
	n = m < n ? m : n;
	m = debugpred__span(__start_predict_func, __stop_predict_func) / 4;
	n = m < n ? m : n;
	m = debugpred__span(__start_predict_expr, __stop_predict_expr) / 4;
	return m < n ? m : n;
}

/* The n-th use of this object, 0 .. debugpred__count() - 1. A section that is missing
 * (no use of that kind) has start == stop, whatever its weak symbols resolve to. */
DEBUGPRED__OBJ size_t debugpred__count(void)
{
	return debugpred__nasm() + debugpred__span(__start_predict_sites, __stop_predict_sites) /
					   sizeof(struct debugpred__site);
}

static inline const char *debugpred__rel(const char *sec, size_t i)
{
	int32_t off;
	memcpy(&off, sec + 4 * i, 4);
	return sec + 4 * i + off;
}

DEBUGPRED__OBJ void debugpred__get(size_t i, struct debugpred__use *u)
{
	size_t na = debugpred__nasm();
	if (i < na) {
		const long *c = (const long *)(void *)__start_predict_data + 2 * i;
		const int *l = (const int *)(void *)__start_predict_line + 2 * i;
		u->incorrect = (unsigned long)c[0];
		u->correct = (unsigned long)c[1];
		u->line = l[0];
		u->flags = l[1];
		u->file = debugpred__rel(__start_predict_file, i);
		u->func = debugpred__rel(__start_predict_func, i);
		u->expr = debugpred__rel(__start_predict_expr, i);
	} else {
		const struct debugpred__site *s =
			(const struct debugpred__site *)(void *)__start_predict_sites + (i - na);
		u->incorrect = (unsigned long)s->cnt[0];
		u->correct = (unsigned long)s->cnt[1];
		u->line = s->line;
		u->flags = s->flags;
		u->file = s->file;
		u->func = s->func;
		u->expr = s->expr;
	}
}

/* A forked child counts from zero: parent and child records add up to the totals. */
DEBUGPRED__OBJ void debugpred__atfork_child(void)
{
	size_t nd = debugpred__span(__start_predict_data, __stop_predict_data);
	size_t ns = debugpred__span(__start_predict_sites, __stop_predict_sites) /
		    sizeof(struct debugpred__site);
	struct debugpred__site *s = (struct debugpred__site *)(void *)__start_predict_sites;
	if (nd)
		memset(__start_predict_data, 0, nd);
	for (size_t i = 0; i < ns; i++)
		s[i].cnt[0] = s[i].cnt[1] = 0;
}

struct debugpred__buf {
	char *p;
	size_t len, cap;
	int failed;
};

DEBUGPRED__OBJ void debugpred__put(struct debugpred__buf *b, const char *s, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *p;
		while (b->len + n + 1 > cap)
			cap *= 2;
		p = (char *)realloc(b->p, cap);
		if (!p) {
			b->failed = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

DEBUGPRED__OBJ void debugpred__putf(struct debugpred__buf *b, const char *fmt, unsigned long a,
				    unsigned long c)
{
	char tmp[96];
	int n = snprintf(tmp, sizeof tmp, fmt, a, c);
	if (n > 0)
		debugpred__put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* A string as <length>:<bytes>, so that any byte (even a newline) survives. */
DEBUGPRED__OBJ void debugpred__putstr(struct debugpred__buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	debugpred__putf(b, "%lu:", (unsigned long)n, 0);
	debugpred__put(b, s ? s : "", n);
}

/* dl_iterate_phdr() and the other non-ISO calls, declared here under our own names (asm
 * labels) so that the header works whatever the program's feature-test macros are. */
#if defined __LP64__ || defined _LP64
typedef Elf64_Phdr debugpred__phdr;
typedef Elf64_Nhdr debugpred__nhdr;
typedef Elf64_Addr debugpred__addr;
#else
typedef Elf32_Phdr debugpred__phdr;
typedef Elf32_Nhdr debugpred__nhdr;
typedef Elf32_Addr debugpred__addr;
#endif
struct debugpred__phdr_info { /* the stable head of glibc's struct dl_phdr_info */
	debugpred__addr addr;
	const char *name;
	const debugpred__phdr *phdr;
	uint16_t phnum;
};
extern int debugpred__dl_iterate_phdr(int (*cb)(struct debugpred__phdr_info *, size_t, void *),
				      void *data) __asm__("dl_iterate_phdr");
extern ssize_t debugpred__readlink(const char *path, char *buf, size_t len) __asm__("readlink");
extern int debugpred__flock(int fd, int op) __asm__("flock");
#define DEBUGPRED__LOCK_EX 2
#define DEBUGPRED__LOCK_UN 8

struct debugpred__self {
	const void *addr;
	char path[4096];
	char build_id[2 * 64 + 1];
};

DEBUGPRED__OBJ int debugpred__phdr_cb(struct debugpred__phdr_info *info, size_t size, void *data)
{
	struct debugpred__self *self = (struct debugpred__self *)data;
	uintptr_t a = (uintptr_t)self->addr;
	int found = 0;
	(void)size;
	for (int i = 0; i < info->phnum; i++) {
		const debugpred__phdr *ph = &info->phdr[i];
		uintptr_t lo = (uintptr_t)info->addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && a >= lo && a < lo + ph->p_memsz)
			found = 1;
	}
	if (!found)
		return 0;
	if (info->name && info->name[0]) {
		snprintf(self->path, sizeof self->path, "%s", info->name);
	} else {
		ssize_t n = debugpred__readlink("/proc/self/exe", self->path, sizeof self->path - 1);
		self->path[n > 0 ? n : 0] = 0;
	}
	for (int i = 0; i < info->phnum; i++) {
		const debugpred__phdr *ph = &info->phdr[i];
		const char *p = (const char *)(info->addr + ph->p_vaddr);
		const char *end = p + ph->p_memsz;
		if (ph->p_type != PT_NOTE)
			continue;
		while (p + sizeof(debugpred__nhdr) <= end) {
			const debugpred__nhdr *nh = (const debugpred__nhdr *)(const void *)p;
			const char *name = p + sizeof *nh;
			const unsigned char *desc =
				(const unsigned char *)name + ((nh->n_namesz + 3) & ~3u);
			const char *next = (const char *)desc + ((nh->n_descsz + 3) & ~3u);
			if (next > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    memcmp(name, "GNU", 4) == 0 && nh->n_descsz <= 64) {
				for (unsigned j = 0; j < nh->n_descsz; j++)
					snprintf(self->build_id + 2 * j, 3, "%02x", desc[j]);
				return 1;
			}
			p = next;
		}
	}
	return 1;
}

/* the counts are written only to a file, never through a link (where the build mode
 * exposes the flags) */
#if defined O_NOFOLLOW && defined O_CLOEXEC
#define DEBUGPRED__O_EXTRA (O_NOFOLLOW | O_CLOEXEC)
#else
#define DEBUGPRED__O_EXTRA 0
#endif

DEBUGPRED__OBJ int debugpred__reported;

/* The record of this object's counts: at exit (the destructor) or, at_exec, before an
 * exec() replaces the image (no destructor runs then): the record says "exec" so that
 * `memprof predict` reports the process's images apart. */
DEBUGPRED__OBJ void debugpred__write(int at_exec)
{
	/* never trusted in a setuid or setgid program (AT_SECURE: what secure_getenv checks,
	 * without needing _GNU_SOURCE in the including file) */
	const char *out = getauxval(AT_SECURE) ? NULL : getenv("MEMPROF_PREDICT");
	size_t n = debugpred__count();
	struct debugpred__use u;
	struct debugpred__self self;
	struct debugpred__buf body = {0, 0, 0, 0}, rec = {0, 0, 0, 0};

	if (!out || !*out) {
		for (size_t i = 0; i < n; i++) {
			debugpred__get(i, &u);
			fprintf(stderr, "%s:%d: incorrect=%lu, correct=%lu%s\n", u.file, u.line,
				u.incorrect, u.correct,
				u.incorrect > u.correct ? "   <==== WARNING" : "");
		}
		return;
	}
	memset(&self, 0, sizeof self);
	self.addr = (const void *)&debugpred__write;
	debugpred__dl_iterate_phdr(debugpred__phdr_cb, &self);

	debugpred__putf(&body, "pid %lu\n", (unsigned long)getpid(), 0);
	debugpred__put(&body, "object ", 7);
	debugpred__putstr(&body, self.path);
	debugpred__put(&body, "\nbuild-id ", 10);
	debugpred__put(&body, self.build_id[0] ? self.build_id : "-",
		       self.build_id[0] ? strlen(self.build_id) : 1);
	debugpred__put(&body, "\narch " DEBUGPRED__ARCH "\n", sizeof("\narch " DEBUGPRED__ARCH "\n") - 1);
	debugpred__putf(&body, "word %lu\n", (unsigned long)(8 * sizeof(long)), 0);
	if (at_exec)
		debugpred__put(&body, "exec\n", 5);
	debugpred__putf(&body, "uses %lu\n", (unsigned long)n, 0);
	for (size_t i = 0; i < n; i++) {
		debugpred__get(i, &u);
		debugpred__put(&body, u.flags & 1 ? "use likely " : "use unlikely ",
			       u.flags & 1 ? 11 : 13);
		debugpred__put(&body, u.flags & 2 ? "atomic " : "plain ", u.flags & 2 ? 7 : 6);
		debugpred__putf(&body, "%lu %lu ", (unsigned long)u.line, u.correct);
		debugpred__putf(&body, "%lu ", u.incorrect, 0);
		debugpred__putstr(&body, u.file);
		debugpred__put(&body, " ", 1);
		debugpred__putstr(&body, u.func);
		debugpred__put(&body, " ", 1);
		debugpred__putstr(&body, u.expr);
		debugpred__put(&body, "\n", 1);
	}
	debugpred__put(&body, "end\n", 4);
	debugpred__putf(&rec, "MEMPROF-PREDICT 1 %lu\n", (unsigned long)body.len, 0);
	debugpred__put(&rec, body.p ? body.p : "", body.len);
	if (!rec.failed && !body.failed) {
		int fd = open(out, O_WRONLY | O_CREAT | O_APPEND | DEBUGPRED__O_EXTRA, 0600);
		if (fd >= 0) {
			size_t done = 0;
			debugpred__flock(fd, DEBUGPRED__LOCK_EX);
			while (done < rec.len) {
				ssize_t w = write(fd, rec.p + done, rec.len - done);
				if (w <= 0)
					break;
				done += (size_t)w;
			}
			debugpred__flock(fd, DEBUGPRED__LOCK_UN);
			close(fd);
		}
	}
	free(body.p);
	free(rec.p);
}

/* The destructor's work, once per object. */
DEBUGPRED__OBJ void debugpred__report(void)
{
	if (debugpred__reported)
		return;
	debugpred__reported = 1;
	debugpred__write(0);
}

/* Before exec(): the counts so far are written (or printed), then start again from zero,
 * so that an exec that fails and the exit that follows add up to the totals. */
DEBUGPRED__OBJ void debugpred__exec(void)
{
	if (debugpred__reported)
		return;
	debugpred__write(1);
	debugpred__atfork_child();
}

DEBUGPRED__OBJ int debugpred__forkset;

__attribute__((constructor, used)) static void debugpred__init(void)
{
	if (!debugpred__forkset) {
		debugpred__forkset = 1;
		pthread_atfork(0, 0, debugpred__atfork_child);
	}
}

__attribute__((destructor, used)) static void debugpred__fini(void)
{
	debugpred__report();
}

#ifdef __cplusplus
}
#endif

/* exec() replaces the process's image without running destructors, so the counts of the
 * image that called it would be lost: the exec family, called from a file that includes
 * this header, writes them first (each function name stays usable as itself: a macro does
 * not expand inside its own expansion). <unistd.h> is included above, so its declarations
 * are not renamed. An exec in another object (posix_spawn, system(), a library) is not
 * seen; those run in a new process that has run none of this object's uses. */
#define execv(...) (debugpred__exec(), execv(__VA_ARGS__))
#define execve(...) (debugpred__exec(), execve(__VA_ARGS__))
#define execvp(...) (debugpred__exec(), execvp(__VA_ARGS__))
#define execvpe(...) (debugpred__exec(), execvpe(__VA_ARGS__))
#define execl(...) (debugpred__exec(), execl(__VA_ARGS__))
#define execlp(...) (debugpred__exec(), execlp(__VA_ARGS__))
#define execle(...) (debugpred__exec(), execle(__VA_ARGS__))
#define fexecve(...) (debugpred__exec(), fexecve(__VA_ARGS__))
#endif /* DEBUGPRED */
#endif /* MEMPROF_DEBUGPRED_H */
