/* mp_unwind.c - a sample's call chain as a list of addresses, leaf first, as perf's
 * callchain: frame-pointer chains as recorded, --call-graph dwarf stacks unwound with
 * libdw's unwinder (dwfl_attach_state over the sample's registers and stack copy, the
 * recording's objects reported as modules, as perf's unwind-libdw.c and hotspot's
 * perfparser do), LBR call stacks stitched onto the kernel part as perf does. */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_srcline.h"
#include "mp_symtab.h"
#include "mp_sym_int.h"

#define UW_MAX_FRAMES 127 /* perf's default max_stack (kernel.perf_event_max_stack) */

enum uw_arch { UW_ARCH_NONE, UW_ARCH_X86_64, UW_ARCH_AARCH64 };

struct uw_proc {
	uint32_t pid;
	Dwfl *dwfl;
	int attached;
	int stale; /* an object moved (exec): rebuild before the next sample */
};

struct mp_unwind {
	mp_sym *sym;
	enum uw_arch arch;
	struct uw_proc *procs;
	size_t nprocs, capprocs;
	struct mp_u64map proc_by_pid;
	uint64_t *out;
	size_t cap;
	/* the sample being unwound (valid during mp_unwind_sample) */
	const struct mp_pd_sample *s;
	uint64_t regs_mask;
	uint64_t sp;
	size_t nframes;
	struct uw_proc *cur;
	size_t ustart; /* where the unwound frames of this sample begin in out */
	uint64_t stats[3]; /* samples unwound, frames, failures to start */
	char *debuginfo_path; /* NULL: libdwfl's default search */
	Dwfl_Callbacks cb;
};


static int uw_push(mp_unwind *u, uint64_t ip)
{
	if (MP_GROW(u->out, u->cap, u->nframes + 1))
		return -ENOMEM;
	u->out[u->nframes++] = ip;
	return 0;
}

/* The value of perf register idx in the sample (registers are stored in mask bit order). */
static int uw_reg(const mp_unwind *u, unsigned idx, uint64_t *val)
{
	if (idx > 63 || !(u->regs_mask & (1ULL << idx)))
		return -1;
	unsigned pos = (unsigned)__builtin_popcountll(u->regs_mask & ((1ULL << idx) - 1));
	memcpy(val, (const uint8_t *)u->s->regs_user + 8 * pos, 8);
	return 0;
}

static uint64_t uw_reg_ip(const mp_unwind *u)
{
	uint64_t v = 0;
	uw_reg(u, u->arch == UW_ARCH_AARCH64 ? 32 : 8, &v);
	return v;
}

static uint64_t uw_reg_sp(const mp_unwind *u)
{
	uint64_t v = 0;
	uw_reg(u, u->arch == UW_ARCH_AARCH64 ? 31 : 7, &v);
	return v;
}

/* Report the object mapped at pc in the current process to its Dwfl (once). Returns the
 * module or NULL. */
static Dwfl_Module *uw_report(mp_unwind *u, uint64_t pc)
{
	struct uw_proc *p = u->cur;
	mp_sym *s = u->sym;
	uint32_t m = mp_sym_map_find(s, u->s->pid, PERF_RECORD_MISC_USER, pc);
	if (m == MP_SYM_NO_MAP)
		return NULL;
	const struct mp_map *map = &s->maps[m];
	struct mp_dso *d = &s->dsos[map->dso];
	Dwfl_Module *mod = dwfl_addrmodule(p->dwfl, pc);
	if (mod) {
		void **ud = NULL;
		dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
		if (ud && *ud == (void *)(uintptr_t)(map->dso + 1))
			return mod;
		p->stale = 1; /* another object there now: exec or munmap/mmap */
		return NULL;
	}
	mp_dso_load(s, d);
	if (!d->file || !d->elf || d->kernel || d->anon)
		return NULL;
	/* the object's first mapping: its load bias is start - pgoff (perf's and
	 * perfparser's reading of an MMAP record) */
	uint64_t base = map->start - map->pgoff;
	/* an object without a file to open by name (the vDSO read from memory, a memfd)
	 * is handed over by descriptor: libdwfl owns the copy */
	int fd = -1;
	if ((d->info.flags & MP_DSO_VDSO) && d->fd >= 0 && (fd = dup(d->fd)) < 0)
		return NULL;
	dwfl_report_begin_add(p->dwfl);
	mod = dwfl_report_elf(p->dwfl, d->name, d->file, fd, base, false);
	dwfl_report_end(p->dwfl, NULL, NULL);
	if (!mod) {
		p->stale = 1; /* overlaps a module reported before */
		return NULL;
	}
	void **ud = NULL;
	dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	if (ud)
		*ud = (void *)(uintptr_t)(map->dso + 1);
	return mod;
}

static pid_t uw_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)arg;
	(void)thread_argp;
	return 0; /* the one thread asked for by dwfl_getthread_frames */
}

static bool uw_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;
	return true;
}

/* A word of the process's memory: from the sample's stack copy, else from the object
 * mapped there (read-only data and code do not change). */
static bool uw_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	mp_unwind *u = arg;
	(void)dwfl;
	uint64_t size = u->s->user_stack_size;
	if (addr + 8 < addr)
		return false;
	if (addr >= u->sp && addr + 8 <= u->sp + size) {
		memcpy(result, (const uint8_t *)u->s->user_stack + (addr - u->sp), 8);
		return true;
	}
	mp_sym *s = u->sym;
	uint32_t m = mp_sym_map_find(s, u->s->pid, PERF_RECORD_MISC_USER, addr);
	if (m == MP_SYM_NO_MAP)
		return false;
	const struct mp_map *map = &s->maps[m];
	struct mp_dso *d = &s->dsos[map->dso];
	mp_dso_load(s, d);
	if (!d->elf || d->kernel || d->anon)
		return false;
	uint64_t va = mp_dso_off_to_vaddr(d, addr - map->start + map->pgoff);
	return mp_dso_read(d, va, result, 8) == 8;
}

static bool uw_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	mp_unwind *u = arg;
	Dwarf_Word r[33];
	uint64_t v;

	if (u->arch == UW_ARCH_X86_64) {
		/* DWARF numbering: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip; perf's: ax bx cx
		 * dx si di bp sp ip flags cs ss ds es fs gs r8..r15 */
		static const unsigned perf_of_dwarf[17] = { 0,  3,  2,  1,  4,  5,  6,  7, 16,
							     17, 18, 19, 20, 21, 22, 23, 8 };
		for (unsigned i = 0; i < 17; i++)
			r[i] = uw_reg(u, perf_of_dwarf[i], &v) ? 0 : v;
		return dwfl_thread_state_registers(thread, 0, 17, r);
	}
	/* aarch64: x0..x30 and sp share perf's numbers; pc is perf's 32 */
	for (unsigned i = 0; i < 32; i++)
		r[i] = uw_reg(u, i, &v) ? 0 : v;
	if (!dwfl_thread_state_registers(thread, 0, 32, r))
		return false;
	dwfl_thread_state_register_pc(thread, uw_reg_ip(u));
	return true;
}

static const Dwfl_Thread_Callbacks uw_thread_cb = {
	.next_thread = uw_next_thread,
	.get_thread = uw_get_thread,
	.memory_read = uw_memory_read,
	.set_initial_registers = uw_set_initial_registers,
};

static int uw_frame(Dwfl_Frame *state, void *arg)
{
	mp_unwind *u = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	/* the next step needs this frame's CFI: report its object first */
	uw_report(u, pc);
	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	/* a caller's frame: its call instruction, not the return address after it (which
	 * may lie in the next function or the next inlined call), as perf's unwinders give */
	if (!activation)
		pc--;
	if (uw_push(u, pc))
		return DWARF_CB_ABORT;
	return u->nframes - u->ustart >= UW_MAX_FRAMES ? DWARF_CB_ABORT : DWARF_CB_OK;
}

static void uw_proc_drop(struct uw_proc *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	p->dwfl = NULL;
	p->attached = 0;
	p->stale = 0;
}

static struct uw_proc *uw_proc(mp_unwind *u, uint32_t pid)
{
	int found;
	uint32_t *slot = mp_u64map_slot(&u->proc_by_pid, pid, &found);
	if (!slot)
		return NULL;
	if (!found) {
		if (mp_grow((void **)&u->procs, &u->capprocs, u->nprocs + 1, sizeof(*u->procs))) {
			*slot = UINT32_MAX;
			return NULL;
		}
		u->procs[u->nprocs] = (struct uw_proc){ .pid = pid };
		*slot = (uint32_t)u->nprocs++;
	}
	if (*slot == UINT32_MAX)
		return NULL;
	return &u->procs[*slot];
}

/* Unwind the user stack of a dwarf sample onto u->out. */
static void uw_dwarf(mp_unwind *u)
{
	const struct mp_pd_sample *s = u->s;
	uint64_t ip = uw_reg_ip(u);
	size_t start = u->nframes;

	u->ustart = start;
	u->sp = uw_reg_sp(u);
	if (!s->user_stack_size || !s->user_stack ||
	    mp_sym_map_find(u->sym, s->pid, PERF_RECORD_MISC_USER, ip) == MP_SYM_NO_MAP) {
		/* no stack copy (a process leaving: its memory is gone) or user code outside
		 * every recorded mapping (the loader before its MMAP records): no user part,
		 * as perf shows none */
		u->nframes--; /* the PERF_CONTEXT_USER marker */
		return;
	}
	struct uw_proc *p = uw_proc(u, s->pid);
	if (p && p->stale)
		uw_proc_drop(p);
	if (p && !p->dwfl)
		p->dwfl = dwfl_begin(&u->cb);
	if (!p || !p->dwfl) {
		uw_push(u, ip);
		return;
	}
	u->cur = p;
	Dwfl_Module *mod = uw_report(u, ip);
	if (p->stale) { /* the process execed: start again with the new objects */
		uw_proc_drop(p);
		p->dwfl = dwfl_begin(&u->cb);
		mod = p->dwfl ? uw_report(u, ip) : NULL;
	}
	if (mod && !p->attached)
		p->attached = dwfl_attach_state(p->dwfl, NULL, (pid_t)s->pid, &uw_thread_cb, u);
	if (mod && p->attached) {
		u->stats[0]++;
		dwfl_getthread_frames(p->dwfl, (pid_t)s->tid, uw_frame, u);
	}
	if (u->nframes == start) {
		u->stats[2]++;
		uw_push(u, ip);
	}
	u->stats[1] += u->nframes - start;
}

/* libdwfl's search for a separate debug file, which the unwinder reads only for the CFI of
 * its .debug_frame (dwfl_module_dwarf_cfi, asked where .eh_frame does not unwind, as at
 * the outermost frames). The file that search takes first, by build-id under
 * /usr/lib/debug (its default path), is looked at: without a .debug_frame it is not
 * handed over, so that libdw does not open it for nothing (dwarf_begin_elf decompresses
 * every .debug_* section, for each process's modules: ld.so's debug file once per process
 * of a recording); the CFI is none either way. (It is looked at before libdwfl's search:
 * that one keeps the file it opened, whatever its caller returns.) */
static int uw_find_debuginfo(Dwfl_Module *mod, void **ud, const char *modname, Dwarf_Addr base,
			     const char *file, const char *debuglink, GElf_Word crc, char **name)
{
	const unsigned char *id;
	GElf_Addr at;
	int n = dwfl_module_build_id(mod, &id, &at);
	if (n > 1 && n <= 64) {
		char path[64 + 2 * 64];
		int k = snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%02x/", id[0]);
		for (int i = 1; i < n; i++)
			k += snprintf(path + k, sizeof(path) - (size_t)k, "%02x", id[i]);
		snprintf(path + k, sizeof(path) - (size_t)k, ".debug");
		int fd = -1;
		Elf *e = mp_elf_open(path, &fd);
		if (e) {
			int has = mp_elf_section(e, ".debug_frame") != NULL;
			elf_end(e);
			close(fd);
			if (!has)
				return -1;
		}
	}
	return dwfl_standard_find_debuginfo(mod, ud, modname, base, file, debuglink, crc, name);
}

mp_unwind *mp_unwind_new(mp_sym *sym, const mp_pd *pd, struct mp_err *err)
{
	mp_unwind *u = calloc(1, sizeof(*u));
	if (!u) {
		mp_err_set(err, -ENOMEM, "out of memory for the unwinder");
		return NULL;
	}
	u->sym = sym;
	u->cb.find_elf = dwfl_build_id_find_elf;
	u->cb.find_debuginfo = uw_find_debuginfo;
	u->cb.section_address = dwfl_offline_section_address;
	u->cb.debuginfo_path = &u->debuginfo_path;
	const char *arch = pd ? mp_pd_feature_str(pd, MP_HEADER_ARCH) : NULL;
	if (!arch) {
#if defined(__aarch64__)
		arch = "aarch64";
#else
		arch = "x86_64";
#endif
	}
	if (!strcmp(arch, "x86_64"))
		u->arch = UW_ARCH_X86_64;
	else if (!strcmp(arch, "aarch64") || !strcmp(arch, "arm64"))
		u->arch = UW_ARCH_AARCH64;
	return u;
}

void mp_unwind_free(mp_unwind *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nprocs; i++)
		uw_proc_drop(&u->procs[i]);
	free(u->procs);
	mp_u64map_fini(&u->proc_by_pid);
	free(u->out);
	free(u);
}

/* The index of the first PERF_CONTEXT_USER in the recorded chain, or nr. */
static size_t uw_user_mark(const struct mp_pd_sample *s)
{
	for (size_t i = 0; i < s->nr_callchain; i++)
		if (s->callchain[i] == (uint64_t)PERF_CONTEXT_USER)
			return i;
	return s->nr_callchain;
}

size_t mp_unwind_sample(mp_unwind *u, const struct mp_pd_sample *s, const uint64_t **ips)
{
	u->s = s;
	u->nframes = 0;
	*ips = NULL;
	if ((s->branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK) && s->nr_branch) {
		/* perf's resolve_lbr_callchain_sample, callee order: the kernel part of the
		 * chain, then the target of the newest call (the current function) and the
		 * call sites of the LBR call stack */
		size_t i = uw_user_mark(s);
		if (i < s->nr_callchain) {
			for (size_t j = 0; j < i; j++)
				if (uw_push(u, s->callchain[j]))
					return 0;
			if (uw_push(u, (uint64_t)PERF_CONTEXT_USER) || uw_push(u, s->branch[0].to))
				return 0;
			for (size_t j = 0; j < s->nr_branch; j++)
				if (uw_push(u, s->branch[j].from))
					return 0;
			*ips = u->out;
			return u->nframes;
		}
	}
	if (s->regs_user_abi && s->regs_user && s->user_stack && u->sym &&
	    u->arch != UW_ARCH_NONE) {
		/* the kernel part as recorded (the kernel wrote no user part:
		 * exclude_callchain_user), then the unwound user frames */
		size_t i = uw_user_mark(s);
		for (size_t j = 0; j < i; j++)
			if (uw_push(u, s->callchain[j]))
				return 0;
		u->regs_mask = s->regs_user_mask;
		if (uw_push(u, (uint64_t)PERF_CONTEXT_USER))
			return 0;
		uw_dwarf(u);
		if (u->nframes) {
			*ips = u->out;
			return u->nframes;
		}
		/* nothing to unwind and no kernel part: the sample's own address below */
	}
	if (s->nr_callchain) {
		*ips = s->callchain;
		return s->nr_callchain;
	}
	/* no chain: the sample's own address under its context */
	if (uw_push(u, s->cpumode == PERF_RECORD_MISC_KERNEL ? (uint64_t)PERF_CONTEXT_KERNEL
							      : (uint64_t)PERF_CONTEXT_USER) ||
	    uw_push(u, s->ip))
		return 0;
	*ips = u->out;
	return u->nframes;
}

void mp_unwind_stats(const mp_unwind *u, uint64_t *unwound, uint64_t *frames, uint64_t *failed)
{
	*unwound = u->stats[0];
	*frames = u->stats[1];
	*failed = u->stats[2];
}

int mp_unwind_ips(void *ctx, mp_sym *sym, const struct mp_pd_sample *s, const uint64_t **ips,
		  size_t *n)
{
	mp_unwind *u = ctx;
	if (sym)
		u->sym = sym;
	*n = mp_unwind_sample(u, s, ips);
	return *n ? 0 : -ENOMEM; /* a chain has at least the sample's own address */
}
