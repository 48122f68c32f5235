/* fuzz_predict.c - the predict-file reader (records of include/memprof/debugpred.h) and
 * the aggregation of whatever it accepts, by every key. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "mp_predict.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mp_err err = { 0, "" };
	struct mp_predict p;

	if (mp_predict_parse(&p, "fuzz.pred", data, size, &err) == 0) {
		for (int by = MP_PREDICT_BY_USE; by <= MP_PREDICT_BY_FUNCTION; by++) {
			struct mp_predict_opts o = { (enum mp_predict_by)by,
						     (enum mp_predict_sort)(by + 1), 5.0 * by };
			struct mp_predict_row *rows = NULL;
			size_t n = 0;
			if (mp_predict_aggregate(&p, &o, &rows, &n, &err) == 0)
				free(rows);
		}
		mp_predict_fini(&p);
	}
	return 0;
}
