/* sim_turns.c - four threads in loops of one block each, with counts that depend only on
 * the program: walk follows a cycle through the lines of a 4 MB array (each thread from
 * its own place) and adds one to a word of its own in a line all four write; poll reads
 * one word over and over (the same address at every turn: a repeat); mixed reads the
 * array at random and adds to its own word, in batches of unequal lengths. Under mpsim
 * they take turns batch by batch (turns() and rounds()) once their clocks have met;
 * sim_turns.sh compares their counts with those of the reference order (--turns=no).
 * No barrier: which thread reaches one last (and wakes the others at its time) is the one
 * valgrind ran last, which depends on the host's load (under load, 168 L1d misses of
 * 400,000 came and went between runs). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim_four.h"

#define WORDS (1u << 19)
#define LINES (WORDS / 8)
static long *shared;
static long slots[4] __attribute__((aligned(64)));
static long flag = 1;
static unsigned long steps;

/* a random cycle through the array's lines (each thread from its own place), adding one
 * to the thread's own word of slots at every step */
__attribute__((noinline)) static long walk(unsigned id)
{
	long *p = shared + (id * 4099u % LINES) * 8, *slot = &slots[id];
	for (unsigned long i = steps; i; i--) {
		p = (long *)*p;
		*(volatile long *)slot += 1;
	}
	return (long)(p - shared);
}

__attribute__((noinline)) static long poll(void)
{
	long s = 0;
	for (unsigned long i = 0; i < steps; i++)
		s += *(volatile long *)&flag;
	return s;
}

/* reads the array at random and adds what it read to the thread's own word of slots: VEX
 * cuts this loop into batches of unequal lengths, so that the threads' next batches
 * differ in length (turns() by the earliest thread at each turn) */
__attribute__((noinline)) static long mixed(unsigned id)
{
	unsigned x = (id + 1) * 0x9e3779b1u + 1;
	long s = 0, *slot = &slots[id];
	for (unsigned long i = 0; i < steps; i++) {
		x = x * 1103515245u + 12345;
		s += shared[(x >> 8) & (WORDS - 1)];
		*(volatile long *)slot += s;
	}
	return s;
}

static void *run(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;
	return (void *)(intptr_t)(walk(id) + poll() + mixed(id));
}

int main(int argc, char **argv)
{
	steps = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
	shared = calloc(WORDS, sizeof(*shared));
	if (!shared)
		return 1;
	/* line k points to line k * 5 + 1 mod LINES (a power of two): one cycle through all */
	for (unsigned k = 0; k < LINES; k++)
		shared[k * 8] = (long)(shared + ((k * 5u + 1) % LINES) * 8);
	long sum;
	if (four_threads(run, 0, &sum))
		return 1;
	printf("done %lu %ld\n", steps, sum);
	return 0;
}
