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
	int cpu, atomic;  /* cpu -1: not pinned */
	int ran_on;       /* the CPU the thread was on after pinning */
	pthread_barrier_t *start;
};

__attribute__((noinline)) void *worker(void *p)
{
	struct worker_arg *a = p;
	cpu_set_t set;

	if (a->cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(a->cpu, &set);
		/* Pinning can fail in a restricted cpuset; the test still runs, less sharply. */
		(void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	a->ran_on = NUMA_cpu_self_current_idx();
	pthread_barrier_wait(a->start);
	if (a->atomic)
		for (uint64_t i = 0; i < a->iters; i++)
			__atomic_fetch_add(a->counter, 1, __ATOMIC_RELAXED); /* HOT: atomic increment */
	else
		for (uint64_t i = 0; i < a->iters; i++)
			++*a->counter; /* HOT: increment */
	return NULL;
}

/* The article's form `falseshare DISP NTHREADS ATOMIC` (DISP in longs, defaults 0 2 1,
 * 1e7 atomic or 5e8 plain increments) is accepted too. The totals are checked after every
 * thread has been joined (the article checks mem[0] before joining, a race), and each
 * thread's CPU share is measured: the timing means something only when the threads ran
 * in parallel. (worker keeps its lines: annotations of older recordings stay aligned.) */
struct worker_timed {
	struct worker_arg arg;
	double cpu_s;          /* CPU time of the thread (CLOCK_THREAD_CPUTIME_ID) */
	double t_start, t_end; /* wall clock around it, the start barrier included */
};

static double thread_cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *worker_timed(void *p)
{
	struct worker_timed *w = p;
	w->t_start = kern_now();
	double c0 = thread_cpu_now();
	worker(&w->arg);
	w->cpu_s = thread_cpu_now() - c0;
	w->t_end = kern_now();
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: falseshare [-T THREADS] [-d DISPLACEMENT] [-A] [-i ITERS] [-P PLACEMENT]\n"
		"       falseshare [OPTIONS] DISP [NTHREADS [ATOMIC]]    (the article's 9.3 form)\n"
		"Let THREADS pinned threads increment counters DISPLACEMENT bytes apart and print\n"
		"the time and each thread's CPU share; warn when the threads did not run in\n"
		"parallel. DISPLACEMENT below the cache-line size puts counters on shared lines.\n"
		"The article's form: DISP in longs (0 = one shared counter; default 0), NTHREADS\n"
		"(default 2; 0 = 1), ATOMIC 0 or 1 (default 1), and its iterations: 10000000\n"
		"atomic or 500000000 plain increments per thread (-i still sets them).\n"
		"  -T THREADS       threads (default 2)\n"
		"  -d DISPLACEMENT  bytes between counters, a multiple of 8; 0 = one shared counter\n"
		"                   (default 8)\n"
		"  -A               atomic increments (needed for a correct total with -d 0)\n"
		"  -i ITERS         increments per thread (default 50000000)\n"
		"  -P PLACEMENT     where the threads go, as the article's 12.1 and 12.2 place them,\n"
		"                   starting from the first CPU this process may use:\n"
		"                   smt      hardware threads of one core\n"
		"                   core     different cores of one package\n"
		"                   package  different packages\n"
		"                   node     different NUMA nodes\n"
		"                   any      not pinned: the kernel chooses\n"
		"                   (default: thread t on CPU t modulo the CPUs online)\n"
		"  -h, --help       this help\n");
}

enum placement { PLACE_ROUND_ROBIN, PLACE_SMT, PLACE_CORE, PLACE_PACKAGE, PLACE_NODE, PLACE_ANY };

/* The CPUs for `threads` threads by the placement, through the numa library: the first
 * allowed CPU, then each next allowed CPU whose level-L relatives (core: level 1, package:
 * level 2, node: level 3) hold none of the CPUs chosen so far; smt takes the hardware
 * threads of the first CPU's core, core stays inside the first CPU's package (the
 * article's 12.2). Returns 0, or -1 after saying why there are not enough places. */
static int place_threads(enum placement pl, uint64_t threads, int *cpus)
{
	static const char *const names[] = { "", "smt", "core", "package", "node", "any" };
	NUMA_topo *t = NUMA_topo_open(NULL);
	if (!t) {
		fprintf(stderr, "falseshare: -P %s: cannot read the topology: %s\n", names[pl],
			strerror(errno));
		return -1;
	}
	int max = NUMA_topo_cpu_max(t);
	size_t sz = CPU_ALLOC_SIZE(max > 0 ? max : 1);
	cpu_set_t *allowed = CPU_ALLOC(max), *chosen = CPU_ALLOC(max), *one = CPU_ALLOC(max);
	cpu_set_t *rel = CPU_ALLOC(max), *scope = CPU_ALLOC(max);
	int rc = -1, first = -1;
	if (!allowed || !chosen || !one || !rel || !scope || NUMA_cpu_self_mask(sz, allowed) < 0)
		goto out;
	for (int c = 0; c < max && first < 0; c++)
		if (CPU_ISSET_S(c, sz, allowed) && NUMA_topo_cpu_place(t, c, &(struct NUMA_cpu_place){ 0 }) == 0)
			first = c;
	if (first < 0)
		goto out;
	CPU_ZERO_S(sz, chosen);
	CPU_ZERO_S(sz, one);
	CPU_SET_S(first, sz, one);
	/* smt: inside the first CPU's core; core: inside its package; others: anywhere */
	unsigned scope_level = pl == PLACE_SMT ? 1 : pl == PLACE_CORE ? 2 : 4;
	unsigned level = pl == PLACE_CORE ? 1 : pl == PLACE_PACKAGE ? 2 : pl == PLACE_NODE ? 3 : 0;
	if (NUMA_topo_cpu_level_mask(t, sz, scope, sz, one, scope_level) < 0)
		goto out;
	CPU_AND_S(sz, scope, scope, allowed);
	uint64_t n = 0;
	for (int c = 0; c < max && n < threads; c++) {
		if (!CPU_ISSET_S(c, sz, scope) || CPU_ISSET_S(c, sz, chosen))
			continue;
		if (level) {
			CPU_ZERO_S(sz, one);
			CPU_SET_S(c, sz, one);
			if (NUMA_topo_cpu_level_mask(t, sz, rel, sz, one, level) < 0)
				goto out;
			CPU_AND_S(sz, rel, rel, chosen);
			if (CPU_COUNT_S(sz, rel))
				continue;
		}
		CPU_SET_S(c, sz, chosen);
		cpus[n++] = c;
	}
	if (n < threads) {
		static const char *const units[] = { "", "hardware threads in that core",
						     "cores in that package", "packages",
						     "NUMA nodes", "" };
		fprintf(stderr, "falseshare: -P %s: %llu threads, but from CPU %d the CPUs this "
				"process may use give %llu %s\n",
			names[pl], (unsigned long long)threads, first, (unsigned long long)n,
			units[pl]);
		goto out;
	}
	rc = 0;
out:
	if (rc && first < 0)
		fprintf(stderr, "falseshare: -P %s: no usable CPU\n", names[pl]);
	CPU_FREE(allowed);
	CPU_FREE(chosen);
	CPU_FREE(one);
	CPU_FREE(rel);
	CPU_FREE(scope);
	NUMA_topo_close(t);
	return rc;
}

int main(int argc, char **argv)
{
	uint64_t threads = 2, disp = 8, iters = 50000000;
	int atomic = 0, opt, iters_set = 0;
	enum placement place = PLACE_ROUND_ROBIN;

	while ((opt = getopt_long(argc, argv, "T:d:Ai:P:h", kern_long_opts, NULL)) != -1) {
		switch (opt) {
		case 'T': if (kern_parse_size("falseshare", "-T", optarg, &threads)) return 2; break;
		case 'd': if (kern_parse_size("falseshare", "-d", optarg, &disp)) return 2; break;
		case 'i': if (kern_parse_size("falseshare", "-i", optarg, &iters)) return 2; iters_set = 1; break;
		case 'A': atomic = 1; break;
		case 'P':
			if (!strcmp(optarg, "smt")) place = PLACE_SMT;
			else if (!strcmp(optarg, "core")) place = PLACE_CORE;
			else if (!strcmp(optarg, "package")) place = PLACE_PACKAGE;
			else if (!strcmp(optarg, "node")) place = PLACE_NODE;
			else if (!strcmp(optarg, "any")) place = PLACE_ANY;
			else { fprintf(stderr, "falseshare: -P: unknown placement '%s' (smt, core, package, node or any)\n", optarg); return 2; }
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		/* The article's positional form: disp (in longs) nthreads atomic, with its
		 * defaults 0, 2, 1 and N = atomic ? 10000000 : 500000000. */
		uint64_t v[3] = { 0, 2, 1 };
		static const char *const what[] = { "DISP", "NTHREADS", "ATOMIC" };
		if (argc - optind > 3) {
			fprintf(stderr, "falseshare: unexpected argument '%s' (the article's form is DISP NTHREADS ATOMIC)\n",
				argv[optind + 3]);
			return 2;
		}
		for (int k = 0; optind + k < argc; k++)
			if (kern_parse_size("falseshare", what[k], argv[optind + k], &v[k]))
				return 2;
		if (v[2] > 1) {
			fprintf(stderr, "falseshare: ATOMIC %llu: 0 or 1\n", (unsigned long long)v[2]);
			return 2;
		}
		if (v[0] > (1 << 20) / sizeof(long)) {
			fprintf(stderr, "falseshare: DISP %llu: up to %zu longs\n",
				(unsigned long long)v[0], (size_t)(1 << 20) / sizeof(long));
			return 2;
		}
		disp = v[0] * sizeof(long);
		threads = v[1] ? v[1] : 1;
		atomic = (int)v[2];
		if (!iters_set)
			iters = atomic ? 10000000 : 500000000;
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
	struct worker_timed *args = calloc(threads, sizeof(*args));
	pthread_barrier_t start;
	if (unlikely(!buf || !tid || !args)) {
		fprintf(stderr, "falseshare: out of memory\n");
		return 1;
	}
	memset(buf, 0, bytes);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu < 1)
		ncpu = 1;
	int *cpus = calloc(threads, sizeof(*cpus));
	if (!cpus) {
		fprintf(stderr, "falseshare: out of memory\n");
		return 1;
	}
	for (uint64_t t = 0; t < threads; t++)
		cpus[t] = place == PLACE_ANY ? -1 : (int)(t % (uint64_t)ncpu);
	if (place != PLACE_ROUND_ROBIN && place != PLACE_ANY && place_threads(place, threads, cpus))
		return 1;
	pthread_barrier_init(&start, NULL, (unsigned)threads);
	double t0 = kern_now();
	for (uint64_t t = 0; t < threads; t++) {
		args[t].arg = (struct worker_arg){ .counter = (volatile long *)(buf + t * disp),
					       .iters = iters, .cpu = cpus[t],
					       .atomic = atomic, .start = &start };
		int rc = pthread_create(&tid[t], NULL, worker_timed, &args[t]);
		if (unlikely(rc)) {
			fprintf(stderr, "falseshare: pthread_create: %s\n", strerror(rc));
			return 1;
		}
	}
	for (uint64_t t = 0; t < threads; t++)
		pthread_join(tid[t], NULL);
	double el = kern_now() - t0;
	/* The CPUs chosen for the threads, and where each was once pinned. */
	printf("falseshare: cpus=");
	for (uint64_t t = 0; t < threads; t++)
		printf(cpus[t] < 0 ? "%sany" : "%s%d", t ? "," : "", cpus[t]);
	printf(" ran_on=");
	for (uint64_t t = 0; t < threads; t++)
		printf("%s%d", t ? "," : "", args[t].arg.ran_on);
	printf("\n");
	/* The total is printed for the tests to compare; the checks below decide the status. */
	uint64_t total = 0;
	for (uint64_t t = 0; t < (disp ? threads : 1); t++)
		total += (uint64_t)*args[t].arg.counter;
	printf("falseshare: threads=%llu displacement=%llu atomic=%d iters=%llu total=%llu time=%.6f s\n",
	       (unsigned long long)threads, (unsigned long long)disp, atomic,
	       (unsigned long long)iters, (unsigned long long)total, el);
	/* Each thread's CPU share: its loop's CPU time over the span from the first loop's
	 * start to the last one's end. On a loaded machine pinned threads may take turns on
	 * their CPUs; then same-line and separate-line times compare nothing. */
	double first = args[0].t_start, last = args[0].t_end, sum = 0, lo = 1e9, hi = 0;
	for (uint64_t t = 1; t < threads; t++) {
		first = args[t].t_start < first ? args[t].t_start : first;
		last = args[t].t_end > last ? args[t].t_end : last;
	}
	double span = last - first > 0 ? last - first : 1e-9;
	printf("falseshare: cpu_share=");
	for (uint64_t t = 0; t < threads; t++) {
		double sh = args[t].cpu_s / span;
		sum += sh;
		lo = sh < lo ? sh : lo;
		hi = sh > hi ? sh : hi;
		printf("%s%.2f", t ? "," : "", sh);
	}
	printf(" cpus_used=%.2f span=%.6f s\n", sum, span);
	if (threads > 1 && lo < 0.9)
		fprintf(stderr,
			"falseshare: warning: the threads did not run in parallel: each got %.2f to %.2f of a CPU (%.2f CPUs for %llu threads over %.3f s), so the time measures scheduling, not cache-line sharing; run it on an idle machine with a CPU per thread\n",
			lo, hi, sum, (unsigned long long)threads, span);
	int rc = 0;
	if (disp) {
		for (uint64_t t = 0; t < threads; t++)
			if (unlikely((uint64_t)*args[t].arg.counter != iters)) {
				fprintf(stderr, "falseshare: counter %llu is %ld, expected %llu\n",
					(unsigned long long)t, *args[t].arg.counter, (unsigned long long)iters);
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
	free(buf); free(tid); free(args); free(cpus);
	return rc;
}
