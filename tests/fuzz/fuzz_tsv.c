/* fuzz_tsv.c - the TSV reader (util's mp_tsv) and the three tables read with it: the
 * simulator's events (mp_sim_table_parse), aliases and PMU models (events' table parsers).
 * Each parser gets its own copy of the input, since the reader writes NULs into it. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mp_events.h"
#include "mp_events_internal.h"
#include "mp_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *copy(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (text) {
		memcpy(text, data, size);
		text[size] = 0;
	}
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mp_err err = { 0, "" };
	char *text = copy(data, size);
	if (!text)
		return 0;

	struct mp_tsv t;
	char small[8];
	mp_tsv_init(&t, text, "fuzz.tsv", "a\tb\tc", 1, 3);
	while (mp_tsv_next(&t, &err) > 0)
		for (size_t i = 0; i < t.max; i++)
			(void)mp_tsv_copy(&t, i, "field", small, sizeof(small), &err);
	free(text);

	mp_sim_table *st = NULL;
	if ((text = copy(data, size))) {
		if (!mp_sim_table_parse(text, "fuzz.tsv", &st, &err))
			mp_sim_table_free(st);
		free(text);
	}

	struct mp_alias_row *rows = NULL;
	size_t n = 0;
	if ((text = copy(data, size))) {
		if (!mp_alias_table_parse(text, "fuzz.tsv", &rows, &n, &err))
			free(rows);
		free(text);
	}

	struct pmu_row *prows = NULL;
	if ((text = copy(data, size))) {
		if (!mp_pmu_table_parse(text, "fuzz.tsv", &prows, &n, &err))
			free(prows);
		free(text);
	}
	return 0;
}
