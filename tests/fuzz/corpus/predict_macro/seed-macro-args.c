/* One hint in a macro (defined in macro_args.h), expanded with three different arguments,
 * once through another macro: --by expr gives one row for Q_EMPTY's #define, the three
 * uses summed (true 1 + 2 + 3 times of 10 + 20 + 30: unlikely, correct 54, incorrect 6),
 * whatever the arguments' text. Two hints written out in place with the same text stay
 * merged by their text (correct 2 * 9, incorrect 2 * 1); Q_FULL, a second macro, is its
 * own row (issue 30.5). */
#include <memprof/debugpred.h>
#include <stdio.h>

#include "macro_args.h"

struct queue {
	int head, tail;
};
#define DRAINED(x) Q_EMPTY(x)
#define Q_FULL(q) unlikely((q)->head - (q)->tail == 7)

static int drain(struct queue *in, struct queue *out, struct queue *spare)
{
	int e = 0;
	for (int i = 0; i < 10; i++) {
		in->head = i < 1 ? in->tail : in->tail + 1;
		if (Q_EMPTY(in)) /* USE-A */
			e++;
	}
	for (int i = 0; i < 20; i++) {
		out->head = i < 2 ? out->tail : out->tail + 1;
		if (Q_EMPTY(out)) /* USE-B */
			e++;
	}
	for (int i = 0; i < 30; i++) {
		spare->head = i < 3 ? spare->tail : spare->tail + 1;
		if (DRAINED(spare)) /* USE-C */
			e++;
	}
	for (int i = 0; i < 8; i++) {
		in->head = in->tail + i;
		if (Q_FULL(in)) /* USE-D */
			e++;
	}
	return e;
}

static int count_a(int n)
{
	int z = 0;
	for (int i = 0; i < 10; i++)
		if (unlikely(n % 10 == i)) /* USE-E */
			z++;
	return z;
}

static int count_b(int n)
{
	int z = 0;
	for (int i = 0; i < 10; i++)
		if (unlikely(n % 10 == i)) /* USE-F */
			z++;
	return z;
}

int main(void)
{
	struct queue a = {0, 0}, b = {0, 0}, c = {0, 0};
	printf("%d\n", drain(&a, &b, &c) + count_a(3) + count_b(4));
	return 0;
}
