/* script.h - memprof script's -F fields (cmd_script_fields.c), used by cmd_script.c.
 * Private to cli/. */
#ifndef MP_CLI_SCRIPT_H
#define MP_CLI_SCRIPT_H

#include <stdio.h>

#include "mp_analyzer.h"

/* perf script's field names (the bits of script_fields.mask) */
enum script_field {
	SF_COMM, SF_TID, SF_PID, SF_TIME, SF_CPU, SF_EVENT, SF_IP, SF_SYM, SF_SYMOFF, SF_DSO,
	SF_ADDR, SF_DATA_SRC, SF_WEIGHT, SF_INS_LAT, SF_PHYS_ADDR, SF_DATA_PAGE_SIZE, SF_PERIOD,
	SF_ALLOC, /* memprof's: the heap object of addr (record --alloc) */
	SF_TRACE, /* a tracepoint's fields, as perf script prints them */
	SF_N
};

struct script_fields {
	unsigned mask;        /* 1 << SF_* */
	int name_width;       /* perf's: the longest event name of the recording */
	int src_width;        /* perf's data_src padding: the widest printed so far */
	mp_daddr *dd;         /* data symbols of page-fault addresses (addr with sym/dso) */
	mp_heap *heap;        /* field alloc: the recording's allocation records */
	mp_pd_trace *trace;   /* field trace: the recording's tracepoint formats */
	struct mp_buf tbuf;   /* field trace: the line's text */
};

/* Parse perf's -F list ("comm,tid,addr"). 0, or -1 after printing one line naming the
 * unknown field. */
int script_fields_parse(const char *list, struct script_fields *f /* OUT */);
/* perf's check: each field must be in the sample_type of the first event of each type
 * (perf's words when not). 0, or -1 after printing the line. */
int script_fields_check(const struct script_fields *f, const mp_pd *pd);
/* memprof script -F: check the fields against pd's events, read it (symbols under symfs,
 * kernel symbols from kallsyms) and print each sample's line; closes pd. The exit status. */
int script_fields_run(mp_pd *pd, const char *input, const char *symfs, const char *kallsyms,
		      const char *bdir,
		      struct script_fields *f);
/* One sample's line, with its values as perf script -F prints them. */
void script_fields_print(FILE *out, struct script_fields *f, const mp_pd *pd, mp_sym *sym,
			 const struct mp_pd_sample *s);

/* The recording's tracepoint formats when one of its events is a tracepoint; NULL when none
 * is, or (after a one-line warning naming the file and the fault) when the tracing data is
 * missing or malformed. */
mp_pd_trace *script_trace_open(const mp_pd *pd);
/* s's tracepoint payload as perf script prints it after the event name (newlines written
 * as \n), in b (its text valid until the next call); NULL when s has none to print. */
const char *script_trace_text(const mp_pd_trace *t, const mp_pd *pd,
			      const struct mp_pd_sample *s, struct mp_buf *b);

#endif
