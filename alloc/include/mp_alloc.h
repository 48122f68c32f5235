/* mp_alloc.h - the alloc module: memprof record --alloc. Its preload library
 * (libmemprof-alloc.so, installed to lib/memprof/) tracks the workload's malloc family and
 * mmap/munmap, in every thread, child and exec'd program, and writes what it saw into spool
 * files; the collector side (mp_alloc_*) finds the library, makes the spool folder, and at
 * the end reads the spool into the recording's allocation records (mp_pdw_alloc_*).
 *
 * The spool (between the two, not a file format anyone keeps): one file per process image,
 * "<dir>/<pid>.<n>" (n counts the images of one pid: exec), written 0600 with O_APPEND in
 * whole chunks of records. It starts with struct mp_alloc_spool_head, then records: struct
 * mp_alloc_wire followed by nr u64 return addresses. Native byte order. */
#ifndef MP_ALLOC_H
#define MP_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#include "mp_perfdata.h"

/* Environment the workload gets: the spool folder (the library does nothing without it),
 * and the call chain depth (1..MP_ALLOC_WIRE_DEPTH, default 8). */
#define MP_ALLOC_ENV_DIR "MEMPROF_ALLOC_DIR"
#define MP_ALLOC_ENV_DEPTH "MEMPROF_ALLOC_DEPTH"
/* The library's file name, and the variable that names another copy of it. */
#define MP_ALLOC_LIB_NAME "libmemprof-alloc.so"
#define MP_ALLOC_ENV_LIB "MEMPROF_ALLOC_LIB"

#define MP_ALLOC_SPOOL_MAGIC 0x314c50534c41504dULL /* "MPALSPL1" */
#define MP_ALLOC_WIRE_DEPTH 32

struct mp_alloc_spool_head {
	uint64_t magic;
	uint32_t pid;
	uint32_t version; /* 1 */
};

struct mp_alloc_wire {
	uint16_t size;   /* bytes of this record: sizeof(struct mp_alloc_wire) + 8 * nr */
	uint8_t kind;    /* enum mp_alloc_kind */
	uint8_t nr;      /* return addresses that follow (<= MP_ALLOC_WIRE_DEPTH) */
	uint32_t tid;
	uint64_t time;   /* CLOCK_MONOTONIC ns */
	uint64_t addr, size_bytes, old; /* as struct mp_alloc_rec */
};

/* The preload library: $MEMPROF_ALLOC_LIB, else lib/memprof/ or ../lib/memprof/ beside the
 * running memprof (the build tree and an installed tree). 0 and path filled, or -ENOENT
 * with err naming where it looked. */
int mp_alloc_lib_path(char *path, size_t len, struct mp_err *err);

/* A new private spool folder (0700) under $TMPDIR or /tmp; 0 or -errno with err. */
int mp_alloc_spool_new(char *dir, size_t len, struct mp_err *err);

/* What a spool held. */
struct mp_alloc_stats {
	uint64_t records;   /* allocation records written (fork/exec included) */
	uint64_t lost;      /* records the library counted as lost */
	uint64_t files;     /* process images (spool files) */
	uint64_t bad;       /* spool files or tails that could not be read (one warning each) */
};

/* One spool file's bytes (name for messages) into w: each record with its site (pid from
 * the file's head, chain interned). A damaged tail (a record that does not fit, a bad size
 * or kind) stops that file with a warning and counts in st->bad; never a crash. 0, or
 * -ENOMEM / the writer's error. */
int mp_alloc_spool_parse(const void *buf, size_t len, const char *name, mp_pdw *w,
			 struct mp_alloc_stats *st);

/* Every spool file of dir into w, then the files and dir removed. 0 or -errno with err. */
int mp_alloc_spool_collect(const char *dir, mp_pdw *w, struct mp_alloc_stats *st,
			   struct mp_err *err);

/* Remove dir and its files (also after a failed run). NULL-safe. */
void mp_alloc_spool_remove(const char *dir);

#endif
