/* regions_prog - the workload of the regions tests (issue 15): regions with known page
 * faults. Modes:
 *   faults N R   region "touch" faults in N new pages, R times; region "idle" touches none
 *                (R times); "outer" holds "inner" (N pages each) twice
 *   threads N    4 threads each enter region "work" and fault in N pages there
 *   die N        opens region "dying", faults N pages, and is killed by SIGKILL
 *   open N       opens region "unclosed", faults N pages, exits 0 without closing it
 *   names        regions with odd names: empty, newlines, bytes 0..255, 5000 bytes long
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <memprof/marker.h>

static long page;

/* Fault in n fresh anonymous pages: one page fault each (no huge pages). */
static void touch(size_t n)
{
	char *p = mmap(NULL, n * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	madvise(p, n * (size_t)page, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < n; i++)
		((volatile char *)p)[i * (size_t)page] = 1;
	/* left mapped: unmapping is not part of the count, and the pages stay faulted */
}

static size_t npages;

static void *worker(void *arg)
{
	(void)arg;
	memprof_region_begin("work");
	touch(npages);
	memprof_region_end("work");
	return NULL;
}

int main(int argc, char **argv)
{
	page = sysconf(_SC_PAGESIZE);
	if (argc < 2) {
		fprintf(stderr, "usage: regions_prog faults N R | threads N | die N | open N | names\n");
		return 2;
	}
	npages = argc > 2 ? strtoul(argv[2], NULL, 10) : 0;
	touch(1); /* the code that touches is faulted in outside any region */
	/* and stays in: a machine short of memory would evict and fault libc's code in again
	 * inside a region (best effort: an unprivileged user may not lock that much) */
	mlockall(MCL_CURRENT);
	if (!strcmp(argv[1], "faults")) {
		int reps = argc > 3 ? atoi(argv[3]) : 1;
		volatile unsigned long sink = 0;
		for (int r = 0; r < reps; r++) {
			memprof_region_begin("touch");
			touch(npages);
			memprof_region_end("touch");
			memprof_region_begin("idle");
			for (unsigned long i = 0; i < 100000; i++)
				sink += i;
			memprof_region_end("idle");
		}
		memprof_region_begin("outer");
		for (int i = 0; i < 2; i++) {
			memprof_region_begin("inner");
			touch(npages);
			memprof_region_end("inner");
		}
		memprof_region_end("outer");
		return 0;
	}
	if (!strcmp(argv[1], "threads")) {
		pthread_t t[4];
		for (int i = 0; i < 4; i++)
			if (pthread_create(&t[i], NULL, worker, NULL))
				return 1;
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
		return 0;
	}
	if (!strcmp(argv[1], "die") || !strcmp(argv[1], "open")) {
		int die = argv[1][0] == 'd';
		memprof_region_begin(die ? "dying" : "unclosed");
		touch(npages);
		if (die)
			raise(SIGKILL);
		return 0;
	}
	if (!strcmp(argv[1], "names")) {
		char all[256], *longname = malloc(5000);
		for (int i = 0; i < 256; i++)
			all[i] = (char)i;
		memset(longname, 'x', 5000);
		memprof_region_begin_n("", 0);
		memprof_region_end_n("", 0);
		memprof_region_begin("two\nlines");
		memprof_region_begin_n(all, sizeof(all));
		memprof_region_end_n(all, sizeof(all));
		memprof_region_end("two\nlines");
		memprof_region_begin_n(longname, 5000);
		memprof_region_end_n(longname, 5000);
		memprof_region_end("never opened");
		free(longname);
		return memprof_markers_active() ? 0 : 3;
	}
	return 2;
}
