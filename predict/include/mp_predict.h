/* mp_predict.h - predict files (the records that include/memprof/debugpred.h appends at
 * exit with MEMPROF_PREDICT=FILE) and their aggregation into rows per use, line,
 * expression or function.
 *
 * A record, as the header writes it (docs/predict.md):
 *   MEMPROF-PREDICT 1 <body bytes>\n
 *   pid <n>\n  object <len>:<path>\n  build-id <hex>|-\n  arch <name>\n  word <bits>\n
 *   [exec\n]  (the counts until an exec() replaced the image, written before it)
 *   uses <n>\n
 *   use likely|unlikely atomic|plain <line> <correct> <incorrect> <len>:<file> <len>:<func> <len>:<expr>\n
 *   ... (n lines)
 *   end\n
 * The reader checks every length against what is left of the buffer and every number
 * against its range; the first fault is reported as "FILE: offset N: what" (-MP_EFORMAT or
 * -MP_ETRUNC) and nothing of the file is returned. */
#ifndef MP_PREDICT_H
#define MP_PREDICT_H

#include <stddef.h>
#include <stdint.h>

#include "mp_util.h"

/* One likely()/unlikely() use as one process's object reported it. */
struct mp_predict_use {
	int likely;         /* the hint: 1 likely(), 0 unlikely() */
	int atomic;         /* built with DEBUGPRED_ATOMIC */
	uint32_t line;
	uint64_t correct, incorrect;
	char *file, *func, *expr; /* owned by the mp_predict */
	/* the macro whose body holds the hint (mp_predict_find_macros), NULL when the hint is
	 * written on the use's own line or the source was not found; owned */
	char *macro, *macro_file;
	uint32_t macro_line;      /* of its #define in macro_file */
	size_t record;      /* index into mp_predict.records */
};

/* One record: one process (pid) and one object (executable or shared object). */
struct mp_predict_record {
	uint64_t pid;
	char *object;       /* path as the process saw it */
	char *build_id;     /* lower-case hex, "" when the object has none */
	char *arch;         /* x86_64, i386, aarch64 or other */
	unsigned word;      /* counter width in bits (32 or 64) */
	int exec;           /* written before an exec() replaced this image ("exec" line) */
	size_t first_use, nuses; /* uses[first_use .. first_use + nuses) */
	uint64_t offset;    /* of the record in the file */
};

struct mp_predict {
	struct mp_predict_record *records;
	size_t nrecords;
	struct mp_predict_use *uses;
	size_t nuses;
};

/* Limits of the reader (a record above them is an error, not a truncation). */
#define MP_PREDICT_MAX_BODY (256u << 20)   /* bytes of one record */
#define MP_PREDICT_MAX_STR (1u << 20)      /* bytes of one string */

/* Parse len bytes (a whole predict file) named name in messages into p (zeroed first).
 * An empty buffer gives no records. Returns 0, or -MP_EFORMAT / -MP_ETRUNC / -ENOMEM with
 * err naming name and the offset; p is then empty. */
int mp_predict_parse(struct mp_predict *p, const char *name, const void *buf, size_t len,
		     struct mp_err *err);
/* Read and parse the file at path. Errors as above, or -errno naming the file. */
int mp_predict_read(struct mp_predict *p, const char *path, struct mp_err *err);
void mp_predict_fini(struct mp_predict *p);

/* Aggregation. */
enum mp_predict_by {
	MP_PREDICT_BY_USE,      /* object, file, line, function, expression, hint: one source use
				 * (its copies by inlining or unrolling, and every process, merged) */
	MP_PREDICT_BY_LINE,     /* object, file, line */
	MP_PREDICT_BY_EXPR,     /* the uses of one macro, over every object and file: by the
				 * macro's definition (file and line of its #define, as
				 * mp_predict_find_macros() found it) and hint, whatever
				 * the arguments; a hint written out in place by its
				 * expression text and hint */
	MP_PREDICT_BY_FUNCTION, /* object, function */
};
enum mp_predict_sort {
	MP_PREDICT_SORT_INCORRECT, /* incorrect count, descending (the default) */
	MP_PREDICT_SORT_CORRECT,   /* correct count, descending */
	MP_PREDICT_SORT_PERCENT,   /* % incorrect, descending */
	MP_PREDICT_SORT_TOTAL,     /* correct + incorrect, descending */
	MP_PREDICT_SORT_LOCATION,  /* object, file, line, expression */
};
struct mp_predict_opts {
	enum mp_predict_by by;
	enum mp_predict_sort sort;
	double threshold; /* keep rows whose % incorrect >= threshold (0: all) */
};

/* One row of the table. Strings are borrowed from the mp_predict. */
struct mp_predict_row {
	int hint;              /* 1 likely, 0 unlikely, -1 both (a merged row with both) */
	uint64_t correct, incorrect;
	double pct_incorrect;  /* 100 * incorrect / (correct + incorrect), 0 when never run */
	int warning;           /* incorrect > correct: the article's WARNING */
	const char *expr, *func, *file, *object; /* of the first use merged */
	const char *macro, *macro_file;          /* by expr: the macro merged, or NULL */
	uint32_t macro_line;
	uint32_t line;
	size_t nuses;          /* distinct source uses merged (by use: 1) */
	size_t nlocations;     /* distinct file:line merged */
	int atomic;            /* every use merged counts atomically */
};

/* Rows of p by opts into *rows (malloc'd, caller frees with free()). Returns 0 or -ENOMEM
 * (err filled). */
int mp_predict_aggregate(const struct mp_predict *p, const struct mp_predict_opts *opts,
			 struct mp_predict_row **rows, size_t *nrows, struct mp_err *err);

/* For every use, the macro whose body holds its hint: the use's line (in its file, found as
 * given when absolute, else under each of dirs in turn) names a macro, defined in that file
 * or in a file it includes with "..." (depth 4), whose replacement list holds likely( or
 * unlikely( as the use's hint, directly or through the macros it names (depth 8).
 * __LINE__ in an expansion is the expansion's line, so the source is the only witness.
 * Fills use.macro, macro_file, macro_line; a use whose source cannot be read keeps NULL.
 * 0, or -ENOMEM (err). */
int mp_predict_find_macros(struct mp_predict *p, const char *const *dirs, size_t ndirs,
			   struct mp_err *err);

/* Parse "use", "line", "expr", "function" / "incorrect", "correct", "percent", "total",
 * "location". Return 0 or -EINVAL (err names the value). */
int mp_predict_by_parse(const char *s, enum mp_predict_by *by, struct mp_err *err);
int mp_predict_sort_parse(const char *s, enum mp_predict_sort *sort, struct mp_err *err);

/* ---- beside the source (annotate, the TUI) ---- */

/* 1 when the two paths name the same source file: equal, or one ends with "/" + the other
 * (leading "./" and "../" of the shorter dropped): __FILE__ as the compiler was given it
 * against the path of the DWARF line table. */
int mp_predict_same_file(const char *a, const char *b);

/* The hints of one source line: every use on line `line` of `file` (mp_predict_same_file),
 * merged over objects and processes (the counts of a -DDEBUGPRED build apply to the lines
 * of the normal build of the same source). 1 with *out filled (strings borrowed), 0 when
 * the line has no hint. */
int mp_predict_line(const struct mp_predict *p, const char *file, uint32_t line,
		    struct mp_predict_row *out);

/* What a recorded event counts, from its perf_event_attr type and config and its name:
 * MP_PREDICT_EV_BRANCHES (branches, branch-instructions, BR_INST_RETIRED(.ANY),
 * BR_INST_EXEC, BR_CND_EXEC, callgrind's Bc), MP_PREDICT_EV_MISSES (branch-misses,
 * BR_INST_RETIRED.MISPRED, BR_MISP_*, BR_MISSP_EXEC, BR_CND_MISSP_EXEC, Bcm), or 0. */
enum { MP_PREDICT_EV_BRANCHES = 1, MP_PREDICT_EV_MISSES = 2 };
int mp_predict_branch_event(uint32_t type, uint64_t config, const char *name);

/* The note annotate prints after a hinted line, into buf:
 *   "unlikely: correct 300, incorrect 700 (70.00%) WARNING"
 * and, when branches > 0 (the recording has branch events and the line executed some),
 *   "; branch misses 20.20% (202 of 1000)"
 * Returns 1 (with *warn = incorrect > correct), or 0 with buf "" when the line has no
 * hint. */
int mp_predict_note(const struct mp_predict *p, const char *file, uint32_t line,
		    uint64_t branches, uint64_t misses, char *buf, size_t cap, int *warn);

/* "likely", "unlikely" or "mixed". */
const char *mp_predict_hint_name(int hint);

#endif
