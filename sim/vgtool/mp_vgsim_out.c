/* mp_vgsim_out.c - mpsim's outputs: the memory samples as they happen (--mem-out) and,
 * at the end, the counts per instruction in callgrind's format (--out-file), which sim/
 * reads. */
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

const HChar *const mps_q_names[NQ] = {
	"Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw",
	"Bc", "Bcm", "Bi", "Bim",
	"HITM", "Inv",
	"ITLBm", "DTLBm", "STLBm", "PFx", "PFm", "PFl", "Cyc", "IFst",
	"L3m",
};


/* ---- memory samples --------------------------------------------------------------------
 * Every clo_mem_period-th load (of those that waited clo_ldlat cycles or more) and store,
 * as the caches saw it: one record each in clo_mem_out, which sim/ turns into perf's
 * memory samples (PERF_SAMPLE_DATA_SRC bits; sim/mp_sim_mem.c reads this layout). */
struct memrec {
	ULong ip, addr, time;
	UInt tid, cpu, weight;
	UChar op;    /* 1 load, 2 store; 0 the last record: ip loads, addr stores counted,
		      * weight the period, tid the load-latency threshold */
	UChar lvl;   /* ML_* */
	UChar snoop; /* MS_* */
	UChar tlb;   /* 1 DTLB hit, 2 second-level TLB hit, 3 page walk */
	UChar lock;  /* a locked (atomic) access */
	UChar pad[7];
};
#define MEM_BUF 4096
static struct memrec *mem_buf;
static UInt mem_n;
static Int mem_fd = -1;
static ULong mem_loads, mem_stores;
/* Each core counts its own accesses to the next sample, as each CPU's PMU does: the
 * samples do not depend on the order the cores' accesses are simulated in. */
static Int *ld_left, *st_left;

static void mem_flush(void)
{
	if (mem_fd < 0) {
		HChar *path = VG_(expand_file_name)("--mem-out", clo_mem_out);
		SysRes sr = VG_(open)(path, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY, 0600);
		if (sr_isError(sr)) {
			VG_(umsg)("mpsim: cannot write %s\n", path);
			VG_(exit)(1);
		}
		mem_fd = (Int)sr_Res(sr);
	}
	if (mem_n)
		VG_(write)(mem_fd, mem_buf, (Int)(mem_n * sizeof(*mem_buf)));
	mem_n = 0;
}

/* Whether a load of lat cycles by cpu is the next one mps_mem_sample keeps. */
Bool mps_mem_load_next(ULong lat, UInt cpu)
{
	return ld_left && lat >= (ULong)clo_ldlat && ld_left[cpu] <= 1;
}

void mps_mem_sample(const struct ins *ii, Addr a, Bool w, UInt lvl, UInt snoop, ULong lat,
		    Bool lock, UInt tlb, ULong time, UInt tid, UInt cpu)
{
	if (w) {
		mem_stores++;
		if (--st_left[cpu] > 0)
			return;
		st_left[cpu] = clo_mem_period;
		lat = 0; /* stores go through the store buffer */
	} else {
		if (lat < (ULong)clo_ldlat)
			return;
		mem_loads++;
		if (--ld_left[cpu] > 0)
			return;
		ld_left[cpu] = clo_mem_period;
	}
	struct memrec *r = &mem_buf[mem_n++];
	VG_(memset)(r, 0, sizeof(*r));
	r->ip = ii->addr;
	r->addr = a;
	r->time = time;
	r->tid = tid;
	r->cpu = cpu;
	r->weight = lat > 0xffffffffULL ? 0xffffffffu : (UInt)lat;
	r->op = w ? 2 : 1;
	r->lvl = (UChar)lvl;
	r->snoop = (UChar)snoop;
	r->tlb = (UChar)tlb;
	r->lock = lock ? 1 : 0;
	if (mem_n == MEM_BUF)
		mem_flush();
}


void mps_mem_init(void)
{
	if (clo_mem_period) {
		mem_buf = VG_(malloc)("mpsim.mem", MEM_BUF * sizeof(*mem_buf));
		ld_left = VG_(malloc)("mpsim.mem", (SizeT)clo_cores * sizeof(*ld_left));
		st_left = VG_(malloc)("mpsim.mem", (SizeT)clo_cores * sizeof(*st_left));
		for (Int k = 0; k < clo_cores; k++)
			ld_left[k] = st_left[k] = clo_mem_period;
	}
}

/* A forked child's samples go to a file of its own. */
void mps_mem_fork_child(void)
{
	if (mem_fd >= 0)
		VG_(close)(mem_fd);
	mem_fd = -1;
	mem_n = 0;
	mem_loads = mem_stores = 0;
}

/* ---- output --------------------------------------------------------------------------- */
struct out {
	Int fd;
	HChar buf[65536];
	Int n;
};

static void out_flush(struct out *o)
{
	if (o->n && o->fd >= 0)
		VG_(write)(o->fd, o->buf, o->n);
	o->n = 0;
}

static void out_printf(struct out *o, const HChar *fmt, ...) PRINTF_CHECK(2, 3);
static void out_printf(struct out *o, const HChar *fmt, ...)
{
	va_list ap;
	if (o->n > (Int)sizeof(o->buf) - 4096)
		out_flush(o);
	va_start(ap, fmt);
	o->n += (Int)VG_(vsnprintf)(o->buf + o->n, (Int)sizeof(o->buf) - o->n, fmt, ap);
	va_end(ap);
	if (o->n >= (Int)sizeof(o->buf))
		o->n = (Int)sizeof(o->buf) - 1;
}

static void out_cache(struct out *o, const HChar *name, const struct cache_cfg *c)
{
	out_printf(o, "desc: %s cache: %lld B, %d B, %d-way associative\n", name, c->size, c->line,
		   c->assoc);
}

Int mps_cmp_ins(const void *a, const void *b)
{
	const struct ins *x = *(const struct ins *const *)a, *y = *(const struct ins *const *)b;
	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	if (x->rel != y->rel)
		return x->rel < y->rel ? -1 : 1;
	return 0;
}

void mps_fini(Int exitcode)
{
	(void)exitcode;
	mps_flush_all();
	mps_batch_fold(True);
	mps_alloc_fini();
	if (clo_mem_period) {
		struct memrec *r = &mem_buf[mem_n++];
		VG_(memset)(r, 0, sizeof(*r));
		r->ip = mem_loads;
		r->addr = mem_stores;
		r->weight = (UInt)clo_mem_period;
		r->tid = (UInt)clo_ldlat;
		mem_flush();
		VG_(close)(mem_fd);
		mem_fd = -1;
	}
	HChar *path = VG_(expand_file_name)("--out-file", clo_out);
	SysRes sr = VG_(open)(path, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY, 0600);
	if (sr_isError(sr)) {
		VG_(umsg)("mpsim: cannot write %s\n", path);
		return;
	}
	struct out *o = VG_(malloc)("mpsim.out", sizeof(*o));
	o->fd = (Int)sr_Res(sr);
	o->n = 0;
	out_printf(o, "# callgrind format\nversion: 1\ncreator: memprof-sim-1\n");
	out_printf(o, "pid: %d\ncmd: %s", VG_(getpid)(), VG_(args_the_exename));
	for (Word k = 0; k < VG_(sizeXA)(VG_(args_for_client)); k++)
		out_printf(o, " %s", *(HChar **)VG_(indexXA)(VG_(args_for_client), k));
	out_printf(o, "\n");
	out_cache(o, "I1", &clo_i1);
	out_cache(o, "D1", &clo_d1);
	out_cache(o, "LL", &clo_ll);
	if (clo_l3.size)
		out_cache(o, "L3", &clo_l3);
	out_printf(o, "desc: Cores: %d\n", clo_cores);
	out_printf(o, "desc: TLBs: ITLB %d,%d DTLB %d,%d STLB %d,%d page %d\n", clo_itlb.entries,
		   clo_itlb.assoc, clo_dtlb.entries, clo_dtlb.assoc, clo_stlb.entries,
		   clo_stlb.assoc, clo_page);
	out_printf(o, "desc: Latencies: L2 %d memory %d HITM %d STLB %d walk %d\n", lat_l2,
		   lat_mem, lat_hitm, lat_stlb, lat_walk);
	if (clo_l3.size)
		out_printf(o, "desc: L3 latency: %d\n", lat_l3);
	out_printf(o, "positions: instr\nevents:");
	for (Int q = 0; q < NQ; q++)
		out_printf(o, " %s", mps_q_names[q]);
	/* no source positions (memprof finds lines from the addresses); callgrind_annotate
	 * wants a file name */
	out_printf(o, "\nfl=(1) ???\n");

	VG_(sortXA)(mps_ins_all);
	ULong tot[NQ] = { 0 };
	UInt last_obj = ~0u, last_fn = ~0u;
	HChar **on = VG_(indexXA)(mps_objs, 0);
	HChar **fnn = VG_(sizeXA)(mps_fns) ? VG_(indexXA)(mps_fns, 0) : NULL;
	UChar *ob_done = VG_(calloc)("mpsim.done", (SizeT)VG_(sizeXA)(mps_objs) + 1, 1);
	UChar *fn_done = VG_(calloc)("mpsim.done", (SizeT)VG_(sizeXA)(mps_fns) + 1, 1);
	for (Word k = 0; k < VG_(sizeXA)(mps_ins_all); k++) {
		struct ins *ii = *(struct ins **)VG_(indexXA)(mps_ins_all, k);
		Bool any = False;
		for (Int q = 0; q < NQ; q++)
			any |= ii->v[q] != 0;
		if (!any)
			continue;
		/* names numbered, "(N) name" the first time and "(N)" after: a name may
		 * itself start with '(' ("(below main)") */
		if (ii->obj != last_obj) {
			if (ob_done[ii->obj])
				out_printf(o, "ob=(%u)\n", ii->obj + 1);
			else
				out_printf(o, "ob=(%u) %s\n", ii->obj + 1, on[ii->obj]);
			ob_done[ii->obj] = 1;
			last_obj = ii->obj;
			last_fn = ~0u;
		}
		if (ii->fn != last_fn) {
			if (fn_done[ii->fn])
				out_printf(o, "fn=(%u)\n", ii->fn + 1);
			else
				out_printf(o, "fn=(%u) %s\n", ii->fn + 1, fnn[ii->fn]);
			fn_done[ii->fn] = 1;
			last_fn = ii->fn;
		}
		ii->v[Q_CYC] += ii->v[Q_IR]; /* one cycle per instruction */
		out_printf(o, "0x%lx", ii->rel);
		for (Int q = 0; q < NQ; q++) {
			out_printf(o, " %llu", ii->v[q]);
			tot[q] += ii->v[q];
		}
		out_printf(o, "\n");
	}
	out_printf(o, "totals:");
	for (Int q = 0; q < NQ; q++)
		out_printf(o, " %llu", tot[q]);
	out_printf(o, "\n");
	out_flush(o);
	VG_(free)(ob_done);
	VG_(free)(fn_done);
	VG_(close)(o->fd);
	VG_(free)(o);
}

