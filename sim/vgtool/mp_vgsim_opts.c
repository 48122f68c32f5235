/* mp_vgsim_opts.c - mpsim's options: cache, TLB and latency geometry, cores, the
 * interleave, memory samples (the tool's --help lists them). */
#include "pub_tool_basics.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "libvex_guest_amd64.h"
#include "pub_tool_xarray.h"

#include "mp_vgsim.h"

/* ---- options -------------------------------------------------------------------------- */
struct cache_cfg clo_i1 = { 32768, 8, 64 }, clo_d1 = { 32768, 8, 64 }, clo_ll = { 1048576, 16, 64 };
struct cache_cfg clo_l3; /* none */
const HChar *clo_out = "mpsim.out.%p";
/* TLBs: entries and ways; pages of clo_page bytes */
struct tlb_cfg clo_itlb = { 128, 8 }, clo_dtlb = { 64, 4 }, clo_stlb = { 1536, 12 };
Int clo_page = 4096;
Bool clo_swpf = True; /* software prefetches bring lines in */
Bool clo_simd = True; /* L2 lookups and 4-way TLBs' use AVX2 where the host has it */
/* threads that take turns batch by batch go by rounds() and turns(), not lockstep()'s look
 * for the next thread at every batch */
Bool clo_turns = True;
/* latencies in cycles (one instruction is one cycle): an L1 miss that L2 holds, a miss
 * of L2 (memory), a line from another core (HITM), a second-level TLB hit, a page walk */
Int lat_l2 = 14, lat_mem = 200, lat_hitm = 60, lat_stlb = 7, lat_walk = 30, lat_l3 = 40;

/* "ENTRIES,ASSOC" with a power-of-two number of sets. */
static Bool parse_tlb(const HChar *s, struct tlb_cfg *t)
{
	HChar *end;
	Long e = VG_(strtoll10)(s, &end), a;
	if (end == s || *end != ',' || e <= 0)
		return False;
	s = end + 1;
	a = VG_(strtoll10)(s, &end);
	if (end == s || *end || a <= 0 || e % a || ((e / a) & (e / a - 1)))
		return False;
	t->entries = (Int)e;
	t->assoc = (Int)a;
	return True;
}

/* "L2,MEM,HITM,STLB,WALK" cycles */
static Bool parse_lat(const HChar *s)
{
	Int *v[5] = { &lat_l2, &lat_mem, &lat_hitm, &lat_stlb, &lat_walk };
	HChar *end;
	for (Int i = 0; i < 5; i++) {
		Long x = VG_(strtoll10)(s, &end);
		if (end == s || x < 0 || x > 100000 || (i < 4 && *end != ',') || (i == 4 && *end) ||
		    (i == 1 && x < lat_l2))
			return False;
		*v[i] = (Int)x;
		s = end + 1;
	}
	return True;
}
Int clo_cores = 1;
Int clo_quantum = 1;
/* memory samples: every clo_mem_period-th load (of those waiting clo_ldlat cycles or more)
 * and store, written to clo_mem_out (0: none) */
Int clo_mem_period = 0, clo_ldlat = 0;
const HChar *clo_mem_out = "mpsim.mem.%p";

/* "SIZE,ASSOC,LINE" as valgrind's --D1 (memprof checked it; refuse what is still bad). */
static Bool parse_cache(const HChar *s, struct cache_cfg *c)
{
	HChar *end;
	Long v[3];
	for (Int i = 0; i < 3; i++) {
		v[i] = VG_(strtoll10)(s, &end);
		if (end == s || v[i] <= 0 || (i < 2 && *end != ',') || (i == 2 && *end))
			return False;
		s = end + 1;
	}
	Long sets = v[0] / v[2] / v[1];
	if (v[2] < 16 || (v[2] & (v[2] - 1)) || sets < 1 || (sets & (sets - 1)) ||
	    sets * v[1] * v[2] != v[0])
		return False;
	c->size = v[0];
	c->assoc = (Int)v[1];
	c->line = (Int)v[2];
	return True;
}

Bool mps_process_cmd_line_option(const HChar *arg)
{
	const HChar *s;
	if VG_STR_CLO(arg, "--I1", s) {
		if (!parse_cache(s, &clo_i1))
			VG_(fmsg_bad_option)(arg, "SIZE,ASSOC,LINE with power-of-two sets and line\n");
	} else if VG_STR_CLO(arg, "--D1", s) {
		if (!parse_cache(s, &clo_d1))
			VG_(fmsg_bad_option)(arg, "SIZE,ASSOC,LINE with power-of-two sets and line\n");
	} else if VG_STR_CLO(arg, "--LL", s) {
		if (!parse_cache(s, &clo_ll))
			VG_(fmsg_bad_option)(arg, "SIZE,ASSOC,LINE with power-of-two sets and line\n");
	} else if VG_STR_CLO(arg, "--L3", s) {
		if (!parse_cache(s, &clo_l3))
			VG_(fmsg_bad_option)(arg, "SIZE,ASSOC,LINE with power-of-two sets and line\n");
	} else if VG_BINT_CLO(arg, "--l3-latency", lat_l3, 1, 100000) {
	} else if VG_STR_CLO(arg, "--itlb", s) {
		if (!parse_tlb(s, &clo_itlb))
			VG_(fmsg_bad_option)(arg, "ENTRIES,ASSOC with a power-of-two number of sets\n");
	} else if VG_STR_CLO(arg, "--dtlb", s) {
		if (!parse_tlb(s, &clo_dtlb))
			VG_(fmsg_bad_option)(arg, "ENTRIES,ASSOC with a power-of-two number of sets\n");
	} else if VG_STR_CLO(arg, "--stlb", s) {
		if (!parse_tlb(s, &clo_stlb))
			VG_(fmsg_bad_option)(arg, "ENTRIES,ASSOC with a power-of-two number of sets\n");
	} else if VG_STR_CLO(arg, "--latency", s) {
		if (!parse_lat(s))
			VG_(fmsg_bad_option)(arg, "L2,MEM,HITM,STLB,WALK cycles\n");
	} else if VG_BINT_CLO(arg, "--page-size", clo_page, 4096, 1 << 30) {
		if (clo_page & (clo_page - 1))
			VG_(fmsg_bad_option)(arg, "a power of two\n");
	} else if VG_BOOL_CLO(arg, "--sw-prefetch", clo_swpf) {
	} else if VG_BOOL_CLO(arg, "--simd", clo_simd) {
	} else if VG_BOOL_CLO(arg, "--turns", clo_turns) {
	} else if VG_STR_CLO(arg, "--out-file", clo_out) {
	} else if VG_BINT_CLO(arg, "--cores", clo_cores, 1, 256) {
	} else if VG_BINT_CLO(arg, "--quantum", clo_quantum, 1, 1000000) {
	} else if VG_BINT_CLO(arg, "--mem-period", clo_mem_period, 0, 1000000000) {
	} else if VG_BINT_CLO(arg, "--ldlat", clo_ldlat, 0, 65535) {
	} else if VG_STR_CLO(arg, "--mem-out", clo_mem_out) {
	} else
		return mps_alloc_option(arg);
	return True;
}

void mps_print_usage(void)
{
	VG_(printf)("    --I1=SIZE,ASSOC,LINE  L1 instruction cache of each core [32768,8,64]\n"
		    "    --D1=SIZE,ASSOC,LINE  L1 data cache of each core [32768,8,64]\n"
		    "    --LL=SIZE,ASSOC,LINE  L2 of each core [1048576,16,64]\n"
		    "    --L3=SIZE,ASSOC,LINE  an L3 all cores share, behind their L2 [none]\n"
		    "    --l3-latency=CYCLES   an L2 miss the L3 holds [40]\n"
		    "    --cores=N             simulated cores [1]\n"
		    "    --quantum=N           instructions past the next thread at which a thread\n"
		    "                          may still start a batch (a block's run of events) [1]\n"
		    "    --itlb=ENTRIES,ASSOC  instruction TLB of each core [128,8]\n"
		    "    --dtlb=ENTRIES,ASSOC  data TLB of each core [64,4]\n"
		    "    --stlb=ENTRIES,ASSOC  second-level TLB of each core [1536,12]\n"
		    "    --page-size=BYTES     page size [4096]\n"
		    "    --sw-prefetch=no      prefetch instructions are counted but fetch nothing\n"
		    "    --simd=no             look in L2 and TLB sets way by way, not with AVX2\n"
		    "                          (the same counts) [yes where the host has AVX2]\n"
		    "    --turns=no            threads that take turns batch by batch look for the\n"
		    "                          next one at every batch (the same counts) [yes]\n"
		    "    --latency=L2,MEM,HITM,STLB,WALK  cycles of each [14,200,60,7,30]\n"
		    "    --out-file=FILE       counts per instruction (%%p: pid) [mpsim.out.%%p]\n"
		    "    --mem-period=N        a memory sample every N loads and every N stores [0: none]\n"
		    "    --ldlat=CYCLES        loads sampled only when they wait this long [0]\n"
		    "    --mem-out=FILE        the memory samples (%%p: pid) [mpsim.mem.%%p]\n");
	mps_alloc_usage();
}

void mps_print_debug_usage(void)
{
	VG_(printf)("    (none)\n");
}

