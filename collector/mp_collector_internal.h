/* mp_collector_internal.h - the collector's inner pieces (event list, ring buffers, the
 * syscall), shared by its .c files and by tests/test_collector.c. Not a public contract. */
#ifndef MP_COLLECTOR_INTERNAL_H
#define MP_COLLECTOR_INTERNAL_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mp_collector.h"

/* ---- the held workload (mp_workload.c) ---- */

struct mp_workload {
	pid_t pid;
	int go_fd;  /* write a byte to let it exec */
	int err_fd; /* execvp's errno, or EOF on a successful exec */
	int pidfd;
	int ctl_child; /* the markers' control socket, given to the workload (MEMPROF_CONTROL);
			* -1 = none. Set before mp_workload_fork(). */
	int out_to_err; /* record -o -: the workload's standard output goes to standard
			 * error (standard output carries the recording) */
	char *env[4];   /* "NAME=VALUE" set in the workload before its exec (record --alloc),
			 * NULL-terminated; owned by whoever set them */
};

/* Fork argv[0] held before its exec (wl->pid, pipes, pidfd). 0 or negative code. */
int mp_workload_fork(struct mp_workload *wl, char *const *argv, struct mp_err *err);
/* Let it exec; 0 when it runs, else execvp's errno. */
int mp_workload_start(struct mp_workload *wl);
/* A workload never let go: it reads EOF, exits 127 and is reaped (*status, may be NULL). */
void mp_workload_cancel(struct mp_workload *wl, int *status);
/* On the way out of a run: a started workload still running is killed and reaped (its
 * status into res), one never started is cancelled; its fds are closed. */
void mp_workload_release(struct mp_workload *wl, struct mp_record_result *res);

/* ---- regions (mp_regions.c) ---- */

/* Counting attrs of the events (copied; each thread that sends a message gets a group of
 * its own, opened then); nev = 0: transitions only (record). NULL on allocation failure. */
mp_regions *mp_regions_new(const struct perf_event_attr *attrs, size_t nev);
/* Called at each transition (begin = 1 or 0) of a thread with the region's node and the
 * CLOCK_MONOTONIC time, while the thread waits for its ack. */
typedef void (*mp_regions_hook)(void *ctx, pid_t tid, int node, int begin, uint64_t t);
void mp_regions_set_hook(mp_regions *r, mp_regions_hook fn, void *ctx);
/* Handle the complete messages of buf[0..n) (*used: bytes taken). Returns the number of
 * acks owed (>= 0), or a negative code when the stream is broken (a note says why). */
int mp_regions_feed(mp_regions *r, const void *buf, size_t n, size_t *used);
unsigned mp_regions_open_count(const mp_regions *r);
int mp_regions_broken(const mp_regions *r);
/* A node's name and parent (-1 = top level). */
const char *mp_regions_node_name(const mp_regions *r, int node, size_t *len);
int mp_regions_node_parent(const mp_regions *r, int node);
size_t mp_regions_nnodes(const mp_regions *r);
/* The run ended: close every open region with the thread's last counts, build the rows. */
int mp_regions_finish(mp_regions *r);

/* ---- ring buffer (mp_ring.c) ---- */

struct mp_ring {
	int fd;                         /* the event whose buffer this is (borrowed) */
	void *base;                     /* control page + data, mmap'ed */
	size_t map_len;
	struct perf_event_mmap_page *pc;
	unsigned char *data;
	uint64_t size, mask;            /* data area size (power of two) */
	uint64_t head, cur;             /* snapshot of data_head, read position */
	uint32_t last_size;             /* size of the record returned by read_event */
	unsigned char *bounce;          /* copy of a record that wraps */
	size_t bounce_cap;
};

/* mmap pages (power of two) data pages plus the control page of fd. 0 or -errno. */
int mp_ring_mmap(struct mp_ring *r, int fd, unsigned pages, struct mp_err *err);
void mp_ring_munmap(struct mp_ring *r);
/* Snapshot data_head; returns the number of unread bytes. */
uint64_t mp_ring_read_init(struct mp_ring *r);
/* The next record, or NULL when none is left. Borrowed: valid until mp_ring_consume().
 * A record that wraps around the end of the buffer is copied into a bounce buffer. */
const struct perf_event_header *mp_ring_read_event(struct mp_ring *r);
void mp_ring_consume(struct mp_ring *r);
/* Publish data_tail: the kernel may overwrite what was consumed. */
void mp_ring_read_done(struct mp_ring *r);

/* ---- event list (mp_evlist.c) ---- */

struct mp_evlist_opts {
	int sampling;        /* record: sample_type, mmap rings; 0 = counting (stat) */
	int callgraph;       /* enum mp_callgraph */
	uint32_t cg_stack_size; /* MP_CG_DWARF: bytes of user stack per sample */
	int inherit;         /* follow threads and children */
	int enable_on_exec;  /* leader starts on the workload's exec */
	int tracking;        /* first event carries mmap/comm/task records */
	int switch_events;   /* and PERF_RECORD_SWITCH records (context_switch) */
	unsigned mmap_pages; /* data pages per ring */
	int clock_monotonic; /* sample times on CLOCK_MONOTONIC (record --regions) */
	int use_clockid, clockid; /* else on this clock (record -k), when use_clockid */
	uint64_t sample_mem; /* mp_record_opts.sample_mem */
};

typedef struct mp_evlist mp_evlist;

/* One group of nev events per (thread, cpu). threads: pids/tids, or {-1} for -a. cpus:
 * cpu numbers, or {-1} for per-thread counting. NULL on error. */
mp_evlist *mp_evlist_new(const struct mp_event *evs, size_t nev, const pid_t *threads,
			 size_t nthreads, const int *cpus, size_t ncpus,
			 const struct mp_evlist_opts *o, struct mp_err *err);
/* Open every group: leader disabled=1, group_fd=-1, members in the leader's group. On a
 * refused open, close everything and return -errno with *bad_event set to the event index
 * (err holds a raw message; mp_record_run() asks the events module to explain it). */
int mp_evlist_open(mp_evlist *l, int *bad_event, struct mp_err *err);
/* mmap one ring per cpu and route the other events of that cpu into it. */
int mp_evlist_mmap(mp_evlist *l, struct mp_err *err);
int mp_evlist_enable(mp_evlist *l);
int mp_evlist_disable(mp_evlist *l);
/* Final attr of event i, and the ids the kernel gave its fds (OUT: *n). */
const struct perf_event_attr *mp_evlist_attr(const mp_evlist *l, size_t i);
const uint64_t *mp_evlist_ids(const mp_evlist *l, size_t i, size_t *n);
size_t mp_evlist_nrings(const mp_evlist *l);
struct mp_ring *mp_evlist_ring(mp_evlist *l, size_t i);
/* Sum of value/ena/run over every fd of event i. */
int mp_evlist_read(mp_evlist *l, size_t i, struct mp_counts *out);
/* Per-fd counts of event i, fd j (j < number of ids), with the fd's id. */
int mp_evlist_read_one(mp_evlist *l, size_t i, size_t j, uint64_t *id, struct mp_counts *out);
void mp_evlist_free(mp_evlist *l);

/* ---- one run: what record and stat share (mp_run.c) ---- */

/* The state of one record or stat run: the held workload, the cpus and threads the
 * events are opened on, and the event list. */
struct mp_run {
	const struct mp_stat_opts *t; /* what the run opens its events on */
	struct mp_workload wl;
	struct mp_precheck pc;
	struct mp_evlist_opts eo;
	mp_evlist *l;
	int *cpus, one_cpu;
	size_t ncpus, nthreads;
	pid_t *threads, sys_thread;
	int forwarded; /* a Ctrl-C went to the workload already */
	uint64_t t0;
	/* --regions: the markers' control socket (our end), what came in not yet parsed */
	int ctl_fd;
	mp_regions *reg;
	unsigned char cbuf[4096];
	size_t clen;
	/* record --regions: the file, the transitions so far ("tid node begin time;"), and
	 * --regions-only (the events start disabled and follow the open regions) */
	mp_pdw *rw;
	struct mp_buf rtr;
	int start_disabled;
};

/* CLOCK_MONOTONIC in ns: the clock of r->t0 and of the runs' times. */
uint64_t mp_run_now_ns(void);
/* The tasks of process pid (/proc/PID/task), malloc'd into *out. */
int mp_run_task_threads(pid_t pid, pid_t **out, size_t *n, struct mp_err *err);
/* The steps of a run, in this order: init, check, targets, open, (regions), start; then
 * record drains or stat waits (forward_stop, target_gone, control), and release. */
void mp_run_init(struct mp_run *r, const struct mp_stat_opts *t);
int mp_run_check(struct mp_run *r, const char *what, unsigned mmap_pages,
		 struct mp_record_result *res, struct mp_err *err);
int mp_run_targets(struct mp_run *r, int per_cpu, struct mp_err *err);
int mp_run_open(struct mp_run *r, const struct mp_evopts *evopts, struct mp_err *err);
int mp_run_regions(struct mp_run *r, size_t nev, struct mp_err *err);
int mp_run_start(struct mp_run *r, struct mp_record_result *res, struct mp_err *err);
int mp_run_forward_stop(struct mp_run *r);
int mp_run_target_gone(const struct mp_run *r);
void mp_run_control(struct mp_run *r);
void mp_run_release(struct mp_run *r, struct mp_record_result *res);

#endif
