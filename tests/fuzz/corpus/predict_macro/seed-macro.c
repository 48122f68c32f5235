/* A hint inside a macro used in three places: --by expr gives one row, the three uses
 * summed. RING_EMPTY(r) is true 1 + 2 + 3 times out of 10 + 20 + 30. */
#include <memprof/debugpred.h>
#include <stdio.h>

struct ring {
	int head, tail;
};
#define RING_EMPTY(r) unlikely((r)->head == (r)->tail) /* MACRO-HINT */

static int drain_a(struct ring *r)
{
	int e = 0;
	for (int i = 0; i < 10; i++) {
		r->head = i < 1 ? r->tail : r->tail + 1;
		if (RING_EMPTY(r)) /* USE-A */
			e++;
	}
	return e;
}

static int drain_b(struct ring *r)
{
	int e = 0;
	for (int i = 0; i < 20; i++) {
		r->head = i < 2 ? r->tail : r->tail + 1;
		if (RING_EMPTY(r)) /* USE-B */
			e++;
	}
	return e;
}

static int drain_c(struct ring *r)
{
	int e = 0;
	for (int i = 0; i < 30; i++) {
		r->head = i < 3 ? r->tail : r->tail + 1;
		if (RING_EMPTY(r)) /* USE-C */
			e++;
	}
	return e;
}

int main(void)
{
	struct ring r = {0, 0};
	printf("%d\n", drain_a(&r) + drain_b(&r) + drain_c(&r));
	return 0;
}
