/* cachebench - the list walk of Drepper's "What every programmer should know about memory",
 * section 3.3: a circular list of elements, each a next pointer plus NPAD longs, walked in
 * sequential or random order. The working-set size and NPAD decide which cache level the
 * walk runs from; the time per element shows it.
 *
 * Modes: walk (follow the pointers only), inc (increment pad[0] of each element on the way),
 * addnext (add the next element's pad[0] to the current one's: a load of the next line
 * before moving on, as in the article's "Addnext0" test).
 */
#include <getopt.h>

#include <memprof/marker.h>

#include "kernels_common.h"

struct l {
	struct l *n;
	unsigned long pad[]; /* NPAD longs */
};

enum mode { MODE_WALK, MODE_INC, MODE_ADDNEXT };

/* The element at index i, elements being esize bytes apart. */
static struct l *elem(char *base, size_t esize, size_t i)
{
	return (struct l *)(base + i * esize);
}

static struct l *build_list(char *base, size_t esize, size_t nelems, int random_order)
{
	size_t *order = malloc(nelems * sizeof(*order));
	uint64_t seed = 0x9e3779b97f4a7c15ULL;

	if (unlikely(!order))
		return NULL;
	for (size_t i = 0; i < nelems; i++)
		order[i] = i;
	if (random_order)
		for (size_t i = nelems - 1; i > 0; i--) {
			size_t j = (size_t)(kern_rand(&seed) % (i + 1));
			size_t t = order[i];
			order[i] = order[j];
			order[j] = t;
		}
	for (size_t i = 0; i < nelems; i++)
		elem(base, esize, order[i])->n = elem(base, esize, order[(i + 1) % nelems]);
	struct l *head = elem(base, esize, order[0]);
	free(order);
	return head;
}

/* Follow the list for steps elements; returns where it stopped. */
__attribute__((noinline)) struct l *walk(struct l *p, uint64_t steps)
{
	while (likely(steps--))
		p = p->n; /* HOT: pointer chase */
	return p;
}

__attribute__((noinline)) struct l *inc(struct l *p, uint64_t steps)
{
	while (likely(steps--)) {
		p->pad[0]++; /* HOT: increment */
		p = p->n;
	}
	return p;
}

__attribute__((noinline)) struct l *addnext(struct l *p, uint64_t steps)
{
	while (likely(steps--)) {
		p->pad[0] += p->n->pad[0]; /* HOT: add next */
		p = p->n;
	}
	return p;
}

/* With -T THREADS the walk runs in that many threads at once, each over the whole shared
 * list (the article's section 3.3.4, "Sequential Read Access, Multiple Threads"): the
 * threads share every line, read-only. A thread of -T: its walk of the shared list. */
struct walker {
	struct l *p;
	uint64_t steps;
};

static void *walker_run(void *arg)
{
	struct walker *w = arg;
	w->p = walk(w->p, w->steps);
	return NULL;
}

/* The walk of steps elements from head in threads threads at once; 0, or -1 with a message
 * when a thread cannot be created (those created are joined). Each walker's end is its p. */
static int walk_threads(struct walker *w, unsigned threads, struct l *head, uint64_t steps)
{
	pthread_t tid[64];
	unsigned started = 0;
	int err = 0;
	for (; started < threads; started++) {
		w[started] = (struct walker){ .p = head, .steps = steps };
		err = pthread_create(&tid[started], NULL, walker_run, &w[started]);
		if (err)
			break;
	}
	for (unsigned k = 0; k < started; k++)
		pthread_join(tid[k], NULL);
	if (err) {
		fprintf(stderr, "cachebench: cannot start thread %u of %u: %s\n", started + 1, threads,
			strerror(err));
		return -1;
	}
	return 0;
}

/* The same computation as addnext() on a plain array of successor indices, to check it. */
__attribute__((noinline)) static int check_addnext(char *base, size_t esize, size_t nelems,
						   struct l *head, uint64_t steps)
{
	size_t *next = malloc(nelems * sizeof(*next));
	unsigned long *val = calloc(nelems, sizeof(*val));
	int ok = 1;

	if (unlikely(!next || !val)) {
		free(next);
		free(val);
		fprintf(stderr, "cachebench: out of memory for the check\n");
		return 0;
	}
	for (size_t i = 0; i < nelems; i++)
		next[i] = (size_t)((char *)elem(base, esize, i)->n - base) / esize;
	size_t cur = (size_t)((char *)head - base) / esize;
	for (size_t i = 0; i < nelems; i++)
		val[i] = i + 1;
	while (steps--) {
		val[cur] += val[next[cur]];
		cur = next[cur];
	}
	for (size_t i = 0; i < nelems && ok; i++)
		if (unlikely(elem(base, esize, i)->pad[0] != val[i]))
			ok = 0;
	free(next);
	free(val);
	return ok;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: cachebench [-s BYTES] [-n NPAD] [-o seq|random] [-m walk|inc|addnext]\n"
		"                  [-r REPEATS | -t SECONDS] [-T THREADS] [--node N]\n"
		"Walk a circular list of elements (a next pointer plus NPAD longs) that fills a\n"
		"working set of BYTES (K, M, G suffixes), and print nanoseconds per element.\n"
		"  -s BYTES    working-set size (default 4M)\n"
		"  -n NPAD     longs of padding per element (default 7: 64-byte elements)\n"
		"  -o ORDER    seq: elements in address order; random: a random cycle (default seq)\n"
		"  -m MODE     walk | inc | addnext (default walk)\n"
		"  -r REPEATS  walks of the whole list (default: about 1e8 elements in all)\n"
		"  -t SECONDS  walk for about this long instead of -r\n"
		"  -T THREADS  walk the one list in THREADS threads at once (walk mode, with -r;\n"
		"              1 to 64, default 1): the article's multi-threaded read test\n"
		"  --node N    put the list on NUMA node N (mbind) and print where it went\n"
		"  -h, --help  this help\n");
}

int main(int argc, char **argv)
{
	uint64_t size = 4 << 20, npad = 7, reps = 0, threads = 1;
	double seconds = 0;
	int random_order = 0, opt, node = -1;
	enum mode mode = MODE_WALK;

	while ((opt = getopt_long(argc, argv, "s:n:o:m:r:t:T:h", kern_long_opts, NULL)) != -1) {
		switch (opt) {
		case 's': if (kern_parse_size("cachebench", "-s", optarg, &size)) return 2; break;
		case 'n': if (kern_parse_size("cachebench", "-n", optarg, &npad)) return 2; break;
		case 'r': if (kern_parse_size("cachebench", "-r", optarg, &reps)) return 2; break;
		case 't': if (kern_parse_double("cachebench", "-t", optarg, &seconds)) return 2; break;
		case 'T': if (kern_parse_size("cachebench", "-T", optarg, &threads)) return 2; break;
		case 'o':
			if (!strcmp(optarg, "seq")) random_order = 0;
			else if (!strcmp(optarg, "random")) random_order = 1;
			else { fprintf(stderr, "cachebench: -o: unknown order '%s' (seq or random)\n", optarg); return 2; }
			break;
		case 'm':
			if (!strcmp(optarg, "walk")) mode = MODE_WALK;
			else if (!strcmp(optarg, "inc")) mode = MODE_INC;
			else if (!strcmp(optarg, "addnext")) mode = MODE_ADDNEXT;
			else { fprintf(stderr, "cachebench: -m: unknown mode '%s' (walk, inc or addnext)\n", optarg); return 2; }
			break;
		case KERN_OPT_NODE: if (kern_parse_node("cachebench", optarg, &node)) return 2; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "cachebench: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (mode != MODE_WALK && npad < 1) {
		fprintf(stderr, "cachebench: mode %s needs -n 1 or more (it writes pad[0])\n",
			mode == MODE_INC ? "inc" : "addnext");
		return 2;
	}
	if (threads < 1 || threads > 64) {
		fprintf(stderr, "cachebench: -T %llu: 1 to 64 threads\n", (unsigned long long)threads);
		return 2;
	}
	if (threads > 1 && (mode != MODE_WALK || seconds > 0)) {
		fprintf(stderr, "cachebench: -T %llu: only the walk (-m walk) runs in threads, for -r "
			"repeats (not -t)\n", (unsigned long long)threads);
		return 2;
	}
	if (npad > 1 << 20) {
		fprintf(stderr, "cachebench: -n %llu: too large\n", (unsigned long long)npad);
		return 2;
	}
	size_t esize = sizeof(struct l) + npad * sizeof(unsigned long);
	size_t nelems = size / esize;
	if (nelems < 2) {
		fprintf(stderr, "cachebench: -s %llu holds fewer than 2 elements of %zu bytes\n",
			(unsigned long long)size, esize);
		return 2;
	}
	size_t bytes = (nelems * esize + 63) / 64 * 64;
	char *base = kern_alloc(bytes, node);
	if (unlikely(!base)) {
		fprintf(stderr, "cachebench: cannot allocate %zu bytes\n", nelems * esize);
		return 1;
	}
	memset(base, 0, nelems * esize);
	struct l *head = build_list(base, esize, nelems, random_order);
	if (unlikely(!head)) {
		fprintf(stderr, "cachebench: out of memory\n");
		return 1;
	}
	for (size_t i = 0; mode == MODE_ADDNEXT && i < nelems; i++)
		elem(base, esize, i)->pad[0] = i + 1;
	if (node >= 0 && kern_report_node("cachebench", "the list", base, bytes, node))
		return 1;

	/* Warm up: one walk, which also checks that the list is a single cycle. */
	size_t cycle = 1;
	for (struct l *p = head->n; p != head; p = p->n)
		cycle++;
	if (unlikely(cycle != nelems)) {
		fprintf(stderr, "cachebench: list is broken: cycle of %zu, expected %zu\n", cycle, nelems);
		return 1;
	}

	uint64_t steps = 0;
	struct l *p = head;
	/* the walk is a region (memprof --regions), named by the mode */
	const char *region = mode == MODE_WALK ? "walk" : mode == MODE_INC ? "inc" : "addnext";
	memprof_region_begin(region);
	double t0 = kern_now(), t1;
	if (seconds > 0) {
		/* Chunks of whole walks, so that the inc check below still holds. */
		uint64_t chunk = nelems * (1 + 1000000 / nelems);
		do {
			p = mode == MODE_WALK ? walk(p, chunk) : mode == MODE_INC ? inc(p, chunk) : addnext(p, chunk);
			steps += chunk;
			t1 = kern_now();
		} while (t1 - t0 < seconds);
	} else {
		if (!reps)
			reps = 100000000 / nelems ? 100000000 / nelems : 1;
		steps = reps * nelems;
		if (threads > 1) {
			struct walker w[64];
			if (walk_threads(w, (unsigned)threads, head, steps))
				return 1;
			for (unsigned k = 1; k < threads; k++)
				if (unlikely(w[k].p != head)) {
					fprintf(stderr, "cachebench: thread %u's walk ended at the wrong element\n", k + 1);
					return 1;
				}
			p = w[0].p;
		} else {
			p = mode == MODE_WALK ? walk(p, steps) : mode == MODE_INC ? inc(p, steps) : addnext(p, steps);
		}
		t1 = kern_now();
	}
	memprof_region_end(region);
	if (unlikely(p != head)) {
		fprintf(stderr, "cachebench: walk ended at the wrong element\n");
		return 1;
	}
	if (mode == MODE_INC) {
		uint64_t want = steps / nelems;
		for (size_t i = 0; i < nelems; i++)
			if (unlikely(elem(base, esize, i)->pad[0] != want)) {
				fprintf(stderr, "cachebench: element %zu was incremented %lu times, expected %llu\n",
					i, elem(base, esize, i)->pad[0], (unsigned long long)want);
				return 1;
			}
	}
	printf("cachebench: mode=%s order=%s size=%llu npad=%llu elements=%zu steps=%llu ns/element=%.3f",
	       mode == MODE_WALK ? "walk" : mode == MODE_INC ? "inc" : "addnext",
	       random_order ? "random" : "seq", (unsigned long long)size, (unsigned long long)npad,
	       nelems, (unsigned long long)steps, (t1 - t0) * 1e9 / (double)steps);
	/* with threads: each walked steps elements; ns/element is the wall time over one walk's */
	if (threads > 1)
		printf(" threads=%llu", (unsigned long long)threads);
	printf("\n");
	if (mode == MODE_ADDNEXT && !check_addnext(base, esize, nelems, head, steps)) {
		fprintf(stderr, "cachebench: addnext result differs from the array replay\n");
		return 1;
	}
	kern_free(base, bytes, node);
	return 0;
}
