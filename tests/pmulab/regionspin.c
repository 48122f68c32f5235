/* regionspin.c - the regions workload of the pmulab guest (issue 15, must-show 2): region
 * "spin" runs pmucheck's loop of exactly 5 user instructions an iteration N times, region
 * "spin3" 3N times; memprof stat --regions -e instructions:u,cycles:u gives 5N and 15N
 * (within 1%) and the IPC of each region.  usage: regionspin N */
#include <stdint.h>
#include <stdlib.h>

#include <memprof/marker.h>

static volatile uint64_t sink;

__attribute__((noinline)) static void spin(uint64_t n)
{
	uint64_t acc = 0;
	for (uint64_t i = 0; i < n; i++) {
		acc += i ^ (acc >> 3);
		__asm__ volatile("" : "+r"(acc));
	}
	sink = acc;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
	memprof_region_begin("spin");
	spin(n);
	memprof_region_end("spin");
	memprof_region_begin("spin3");
	spin(3 * n);
	memprof_region_end("spin3");
	return memprof_markers_active() ? 0 : 3;
}
