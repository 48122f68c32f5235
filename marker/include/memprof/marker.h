/* memprof/marker.h - named regions of a program for `memprof stat --regions` and
 * `memprof record --regions` (libmemprof-marker.a, pkg-config memprof-marker).
 *
 *     #define MEMPROF_MARKERS            (or -DMEMPROF_MARKERS; without it the macros
 *     #include <memprof/marker.h>         compile to nothing)
 *     MEMPROF_REGION_BEGIN("solve");
 *     ...
 *     MEMPROF_REGION_END("solve");
 *
 * Regions nest and repeat, per thread: each thread has its own stack of open regions, and
 * an end closes the innermost region that thread opened (its name must match).
 *
 * Not under memprof (MEMPROF_CONTROL unset) a call is one predictable branch and does
 * nothing. Under memprof the library talks to the collector over the file descriptors
 * that MEMPROF_CONTROL names, synchronously: a begin or end returns once the collector
 * has read the counters and acknowledged, as perf's --control fd:ctl,ack protocol does.
 *
 *   MEMPROF_CONTROL=fd:CTL,ACK       memprof's protocol: one message per begin/end,
 *                                    "begin TID LEN\n" or "end TID LEN\n" followed by LEN
 *                                    bytes of name, answered by "ack\n\0" on ACK.
 *   MEMPROF_CONTROL=perf-fd:CTL,ACK  perf's protocol (perf stat/record --control
 *                                    fd:CTL,ACK -D -1): "enable\n" when the first region of
 *                                    the process opens, "disable\n" when the last closes.
 *
 * Names longer than MEMPROF_REGION_NAME_MAX bytes are cut there; any bytes are allowed.
 * When the collector goes away or answers wrongly, markers switch themselves off and the
 * program runs on. A forked child shares the parent's descriptors and keeps working.
 */
#ifndef MEMPROF_MARKER_H
#define MEMPROF_MARKER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MEMPROF_CONTROL_ENV "MEMPROF_CONTROL"
#define MEMPROF_REGION_NAME_MAX 1024

/* Open the region name (NUL-terminated) in the calling thread. 0 when done or not under
 * memprof; -1 when the collector stopped answering (markers are then off). */
int memprof_region_begin(const char *name);
/* Close the innermost open region of the calling thread; name must be the one it was
 * opened with (the collector reports a mismatch). Same returns as begin. */
int memprof_region_end(const char *name);
/* The same with a name of len bytes (NUL bytes allowed). */
int memprof_region_begin_n(const char *name, size_t len);
int memprof_region_end_n(const char *name, size_t len);
/* 1 when a collector listens (MEMPROF_CONTROL was valid at start and still answers). */
int memprof_markers_active(void);

#ifdef MEMPROF_MARKERS
#define MEMPROF_REGION_BEGIN(name) memprof_region_begin(name)
#define MEMPROF_REGION_END(name) memprof_region_end(name)
#else
#define MEMPROF_REGION_BEGIN(name) ((void)0)
#define MEMPROF_REGION_END(name) ((void)0)
#endif

#ifdef __cplusplus
}
#endif

#endif
