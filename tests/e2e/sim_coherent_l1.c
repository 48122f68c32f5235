/* sim_coherent_l1.c - a line that a core's L1d holds after its L2 evicted it, written by
 * another core (sim_coherent_l1.sh). With L1d 32768,8,64 (64 sets) and L2 1048576,16,64
 * (1024 sets), lines 64 KiB apart fall in one set of each. keep() (a thread, on core 1)
 * reads line X, then 16 other lines of X's sets, reading X again after each: X stays the
 * most recent line of its L1d set (its hits there do not touch L2), while L2's set takes
 * the 16 others and evicts X (its least recently used). Then main (core 0) writes X in
 * clobber(): the write must find X in core 1's L1d and invalidate it. again() (core 1)
 * reads X once more: an L1d miss that finds X Modified in core 0 (a HITM). A snoop that
 * looked only where the L2 holds a line would miss the copy: again() would hit.
 *
 * The same program checks a write to a line its core holds Exclusive while another core
 * holds it too (mpsim takes a read's line Exclusive without looking in the other cores,
 * unless one holds it Modified): main reads line Y before the thread starts (share()),
 * the thread reads it (look()), main writes it (own(): Inv 1, the thread's copy) and the
 * thread reads it again (reread(): D1mr 1 and HITM 1). A write that took Exclusive as the
 * only copy would invalidate nothing (Inv 0), and reread() would hit.
 *
 * And a read by core 0 of a line core 1 holds Modified: the thread writes line Z (mark())
 * before the first barrier, main reads it after (peek(): D1mr 1 and HITM 1). The Modified
 * counts of the cores are read for all of them at once: a read that skipped core 1's would
 * find no copy (HITM 0).
 *
 * The tool orders accesses by each thread's instruction count. The barriers say who
 * waits for whom, but a thread that arrives last, without waiting, keeps its own count
 * (which valgrind's scheduling decides), so each side spins first: main (before
 * clobber()) well past keep()'s end, the thread (before again()) well past clobber(). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define STRIDE 65536
#define OTHERS 16
static volatile long *buf;
static volatile long y[8] __attribute__((aligned(64)));
static volatile long z[8] __attribute__((aligned(64)));
static pthread_barrier_t bar;

/* n loops of instructions that touch no data */
__attribute__((noinline)) static void spin(long n)
{
	for (long i = 0; i < n; i++)
		__asm__ volatile("");
}

__attribute__((noinline)) static long keep(void)
{
	long s = buf[0];
	for (int k = 1; k <= OTHERS; k++) {
		s += buf[k * (STRIDE / sizeof(long))];
		s += buf[0];
	}
	return s;
}

__attribute__((noinline)) static void clobber(void)
{
	buf[0] = 42;
}

__attribute__((noinline)) static long again(void)
{
	return buf[0];
}

__attribute__((noinline)) static long share(void)
{
	return y[0];
}

__attribute__((noinline)) static long look(void)
{
	return y[0];
}

__attribute__((noinline)) static void own(void)
{
	y[0] = 7;
}

__attribute__((noinline)) static long reread(void)
{
	return y[0];
}

__attribute__((noinline)) static void mark(void)
{
	z[0] = 9;
}

__attribute__((noinline)) static long peek(void)
{
	return z[0];
}

static void *run(void *arg)
{
	long s = look() + keep();
	mark();
	pthread_barrier_wait(&bar); /* X kept, Y read: main writes them */
	pthread_barrier_wait(&bar); /* written */
	spin(100000);
	s += again() + reread();
	*(long *)arg = s;
	return NULL;
}

int main(void)
{
	pthread_t t;
	long s = 0, m = share();
	buf = aligned_alloc(STRIDE, (OTHERS + 1) * STRIDE);
	if (!buf || pthread_barrier_init(&bar, NULL, 2) || pthread_create(&t, NULL, run, &s))
		return 1;
	spin(1000000);
	pthread_barrier_wait(&bar);
	clobber();
	own();
	m += peek();
	pthread_barrier_wait(&bar);
	pthread_join(t, NULL);
	printf("sum %ld\n", s + m);
	return 0;
}
