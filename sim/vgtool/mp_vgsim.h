/* mp_vgsim.h - what mpsim's files share (the tool is mp_vgsim.c; allocation tracking
 * mp_vgsim_alloc.c). Not a public contract: valgrind's tool API only. */
#ifndef MP_VGSIM_H
#define MP_VGSIM_H

#include "pub_tool_basics.h"

/* mp_vgsim.c: the virtual time (instructions) valgrind thread tid has reached and its
 * kernel thread id (0 when not yet seen running). */
void mps_thread_info(ThreadId tid, ULong *time, UInt *lwp);

/* mp_vgsim_alloc.c: malloc, calloc, realloc, memalign, free, new and delete through
 * valgrind's replacement-malloc machinery (its preload, vgpreload_mpsim-amd64-linux.so,
 * must be in VALGRIND_LIB: memprof links massif's there, which replaces those functions
 * and nothing else). With --alloc-out=FILE each call is written there with its thread,
 * virtual time and call site (sim/mp_sim_alloc.c reads it). */
void mps_alloc_pre_clo_init(void);
Bool mps_alloc_option(const HChar *arg);
void mps_alloc_usage(void);
void mps_alloc_fork_child(void);
void mps_alloc_fini(void);

#endif
