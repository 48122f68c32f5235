/* mp_sim_int.h - what sim/'s files share beyond the public mp_sim.h (and its unit tests).
 * Not a public contract. */
#ifndef MP_SIM_INT_H
#define MP_SIM_INT_H

#include <string.h>

#include "mp_sim.h"

/* The last component of a path (s itself when it has no '/'). */
static inline const char *mp_sim_basename(const char *s)
{
	const char *b = strrchr(s, '/');
	return b ? b + 1 : s;
}

/* ---- the event table: sim/sim_events.tsv (mp_sim_table.c) ---- */

/* One row: an event the simulator gives, as a sum of its quantities, or one it refuses.
 * Strings are borrowed from the table. */
struct mp_sim_alias {
	const char *names;  /* spellings separated by '|'; the first is the one listed */
	uint32_t mask;      /* bit (1u << MP_SIM_*) per quantity summed; 0: refused (note: why) */
	uint32_t type;      /* PERF_TYPE_RAW (the event's config is its mask) or the type and */
	uint64_t config;    /* config of perf's generic event */
	const char *hint;   /* the spelling an unknown event's message offers, or NULL */
	const char *note;   /* a quantity's own row: what it counts; refused: why; else NULL */
	unsigned line;      /* in the file */
};
typedef struct mp_sim_table mp_sim_table;

/* Parse a table in sim_events.tsv's format (text: the file's contents; file names it in
 * messages). Every row is checked: five columns, known quantities, 'raw' or a perf generic
 * name, a spelling in one row only, a row for each of callgrind's quantities. 0 with
 * *out (mp_sim_table_free()), or -MP_EPARSE with err as "FILE:LINE: what is wrong". */
int mp_sim_table_parse(const char *text, const char *file, mp_sim_table **out,
		       struct mp_err *err);
void mp_sim_table_free(mp_sim_table *t);
/* The embedded sim_events.tsv, parsed once; NULL with err filled when it is malformed. */
const mp_sim_table *mp_sim_table_get(struct mp_err *err);
/* The embedded table's text (as installed to share/memprof/sim_events.tsv). */
const char *mp_sim_table_text(void);
size_t mp_sim_table_count(const mp_sim_table *t);
const struct mp_sim_alias *mp_sim_table_row(const mp_sim_table *t, size_t i);
/* The row with name among its spellings (case-insensitive), the spelling to canon (may be
 * NULL); NULL when none. */
const struct mp_sim_alias *mp_sim_table_find(const mp_sim_table *t, const char *name,
					     char *canon, size_t len);
/* "callgrind's Ir, ..., Bim; INST_RETIRED, ...": the names an unknown event is offered. */
const char *mp_sim_table_offer(const mp_sim_table *t);
/* What quantity q counts (its own row's note); NULL out of range. */
const char *mp_sim_table_quantity_desc(const mp_sim_table *t, int q);

#endif
