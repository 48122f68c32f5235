/* fuzz_predict_macro.c - the source scan of `memprof predict --by expr`
 * (mp_predict_find_macros): the input is a C source, written to a temporary file, with a
 * likely and an unlikely use on each of its first 64 lines; then aggregated by expr. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_predict.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	struct mp_err err = { 0, "" };
	struct mp_predict p;
	struct mp_predict_record rec;
	struct mp_predict_use uses[128];
	char file[] = "src.c";
	const char *dirs[1];

	if (!path[0]) {
		snprintf(path, sizeof path, "/tmp/fuzz_predict_macro.XXXXXX");
		if (!mkdtemp(path))
			return 0;
	}
	char src[96];
	snprintf(src, sizeof src, "%s/%s", path, file);
	FILE *f = fopen(src, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	memset(&p, 0, sizeof p);
	memset(&rec, 0, sizeof rec);
	memset(uses, 0, sizeof uses);
	rec.object = "fuzz";
	rec.nuses = 128;
	for (size_t i = 0; i < 128; i++) {
		uses[i].likely = (int)(i & 1);
		uses[i].line = (uint32_t)(i / 2 + 1);
		uses[i].correct = i;
		uses[i].file = file;
		uses[i].func = file;
		uses[i].expr = file;
	}
	p.records = &rec;
	p.nrecords = 1;
	p.uses = uses;
	p.nuses = 128;
	dirs[0] = path;
	if (mp_predict_find_macros(&p, dirs, 1, &err) == 0) {
		struct mp_predict_opts o = { MP_PREDICT_BY_EXPR, MP_PREDICT_SORT_LOCATION, 0 };
		struct mp_predict_row *rows = NULL;
		size_t n = 0;
		if (mp_predict_aggregate(&p, &o, &rows, &n, &err) == 0)
			free(rows);
	}
	for (size_t i = 0; i < 128; i++) {
		free(uses[i].macro);
		free(uses[i].macro_file);
	}
	unlink(src);
	return 0;
}
