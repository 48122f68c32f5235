/* falseshare - the cache-line sharing test of Drepper's appendix 9.3: THREADS threads,
 * each pinned to a CPU, increment their own counter; the counters lie DISPLACEMENT bytes
 * apart. Below the cache-line size the counters share lines and the line bounces between
 * cores. With -A the increments are atomic. The totals are checked at the end.
 */
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include "kernels_common.h"

struct worker_arg {
	volatile long *counter;
	uint64_t iters;
	int cpu, atomic;
	pthread_barrier_t *start;
};

__attribute__((noinline)) void *worker(void *p)
{
	struct worker_arg *a = p;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(a->cpu, &set);
	/* Pinning can fail in a restricted cpuset; the test still runs, only less sharply. */
	(void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	pthread_barrier_wait(a->start);
	if (a->atomic)
		for (uint64_t i = 0; i < a->iters; i++)
			__atomic_fetch_add(a->counter, 1, __ATOMIC_RELAXED); /* HOT: atomic increment */
	else
		for (uint64_t i = 0; i < a->iters; i++)
			++*a->counter; /* HOT: increment */
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: falseshare [-T THREADS] [-d DISPLACEMENT] [-A] [-i ITERS]\n"
		"Let THREADS pinned threads increment counters DISPLACEMENT bytes apart and print\n"
		"the time. DISPLACEMENT below the cache-line size puts counters on shared lines.\n"
		"  -T THREADS       threads (default 2)\n"
		"  -d DISPLACEMENT  bytes between counters, a multiple of 8; 0 = one shared counter\n"
		"                   (default 8)\n"
		"  -A               atomic increments (needed for a correct total with -d 0)\n"
		"  -i ITERS         increments per thread (default 50000000)\n"
		"  -h, --help       this help\n");
}

int main(int argc, char **argv)
{
	uint64_t threads = 2, disp = 8, iters = 50000000;
	int atomic = 0, opt;

	while ((opt = getopt_long(argc, argv, "T:d:Ai:h", kern_long_opts, NULL)) != -1) {
		switch (opt) {
		case 'T': if (kern_parse_size("falseshare", "-T", optarg, &threads)) return 2; break;
		case 'd': if (kern_parse_size("falseshare", "-d", optarg, &disp)) return 2; break;
		case 'i': if (kern_parse_size("falseshare", "-i", optarg, &iters)) return 2; break;
		case 'A': atomic = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "falseshare: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (threads < 1 || threads > 1024) {
		fprintf(stderr, "falseshare: -T %llu: between 1 and 1024 threads\n", (unsigned long long)threads);
		return 2;
	}
	if (disp % sizeof(long) || disp > 1 << 20) {
		fprintf(stderr, "falseshare: -d %llu: a multiple of %zu up to 1M\n",
			(unsigned long long)disp, sizeof(long));
		return 2;
	}
	size_t bytes = (size_t)(disp ? disp * threads : sizeof(long));
	bytes = (bytes + 63) / 64 * 64;
	char *buf = aligned_alloc(64, bytes);
	pthread_t *tid = calloc(threads, sizeof(*tid));
	struct worker_arg *args = calloc(threads, sizeof(*args));
	pthread_barrier_t start;
	if (unlikely(!buf || !tid || !args)) {
		fprintf(stderr, "falseshare: out of memory\n");
		return 1;
	}
	memset(buf, 0, bytes);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu < 1)
		ncpu = 1;
	pthread_barrier_init(&start, NULL, (unsigned)threads);
	double t0 = kern_now();
	for (uint64_t t = 0; t < threads; t++) {
		args[t] = (struct worker_arg){ .counter = (volatile long *)(buf + t * disp),
					       .iters = iters, .cpu = (int)(t % (uint64_t)ncpu),
					       .atomic = atomic, .start = &start };
		int rc = pthread_create(&tid[t], NULL, worker, &args[t]);
		if (unlikely(rc)) {
			fprintf(stderr, "falseshare: pthread_create: %s\n", strerror(rc));
			return 1;
		}
	}
	for (uint64_t t = 0; t < threads; t++)
		pthread_join(tid[t], NULL);
	double el = kern_now() - t0;
	/* The total is printed for the tests to compare; the checks below decide the status. */
	uint64_t total = 0;
	for (uint64_t t = 0; t < (disp ? threads : 1); t++)
		total += (uint64_t)*args[t].counter;
	printf("falseshare: threads=%llu displacement=%llu atomic=%d iters=%llu total=%llu time=%.6f s\n",
	       (unsigned long long)threads, (unsigned long long)disp, atomic,
	       (unsigned long long)iters, (unsigned long long)total, el);
	int rc = 0;
	if (disp) {
		for (uint64_t t = 0; t < threads; t++)
			if (unlikely((uint64_t)*args[t].counter != iters)) {
				fprintf(stderr, "falseshare: counter %llu is %ld, expected %llu\n",
					(unsigned long long)t, *args[t].counter, (unsigned long long)iters);
				rc = 1;
			}
	} else if (atomic && total != iters * threads) {
		fprintf(stderr, "falseshare: shared counter is %llu, expected %llu\n",
			(unsigned long long)total, (unsigned long long)(iters * threads));
		rc = 1;
	} else if (!atomic) {
		printf("falseshare: shared counter %llu of %llu (non-atomic increments lose updates)\n",
		       (unsigned long long)total, (unsigned long long)(iters * threads));
	}
	pthread_barrier_destroy(&start);
	free(buf); free(tid); free(args);
	return rc;
}
