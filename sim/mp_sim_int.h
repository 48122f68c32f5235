/* mp_sim_int.h - what sim/'s files share beyond the public mp_sim.h (and its unit tests).
 * Not a public contract. */
#ifndef MP_SIM_INT_H
#define MP_SIM_INT_H

#include <string.h>

#include "mp_events.h" /* the event table */
#include "mp_sim.h"

/* The last component of a path (s itself when it has no '/'). */
static inline const char *mp_sim_basename(const char *s)
{
	const char *b = strrchr(s, '/');
	return b ? b + 1 : s;
}

/* The event table (events/sim_events.tsv, mp_sim_table.c) is declared in mp_events.h:
 * events/ reads it too, for aliases.tsv's cachegrind rows. */

/* A file mpsim wrote (memory samples, allocation records), read whole into a malloc'd
 * buffer (*buf, *len bytes); 0, or an error naming the file (a file that shrank while read
 * is a format error). */
int mp_sim_read_all(const char *path, uint8_t **buf, size_t *len, struct mp_err *err);

/* Where pid comes in the order processes were created: the workload (pid first) first,
 * then its children by pid, those numbered below the workload after the others (the
 * kernel's pids wrapped around meanwhile: the workload 32449, a child 322). A sort key. */
uint64_t mp_sim_pid_rank(uint32_t pid, uint32_t first);

#endif
