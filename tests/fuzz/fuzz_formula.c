/* fuzz_formula.c - the ratio formula parser/evaluator and the .ratios definition parser.
 * Input starting with '[' or '#' is a definition file, anything else one formula. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mp_ratios.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mp_err err = { 0, "" };
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	if (size && (text[0] == '[' || text[0] == '#')) {
		mp_ratio_set *s = mp_ratio_set_new();
		if (s && mp_ratio_set_load_text(s, text, "fuzz.ratios", &err) == 0) {
			for (size_t i = 0; i < mp_ratio_set_count(s); i++) {
				const struct mp_ratio_def *d = mp_ratio_set_get(s, i);
				(void)mp_ratio_set_find(s, d->name);
			}
		}
		mp_ratio_set_free(s);
	} else {
		mp_formula *f = mp_formula_parse(text, "fuzz", 1, 1, &err);
		if (f) {
			size_t n = mp_formula_nevents(f);
			double *v = calloc(n ? n : 1, sizeof(*v)), *g = calloc(n ? n : 1, sizeof(*g));
			double r;
			if (v && g) {
				for (size_t i = 0; i < n; i++)
					v[i] = (double)(i % 3); /* zeros: division by zero paths */
				(void)mp_formula_eval(f, v, &r, g, &err);
				for (size_t i = 0; i < n; i++)
					v[i] = 1e300 * (double)(i + 1); /* overflow paths */
				(void)mp_formula_eval(f, v, &r, NULL, &err);
			}
			free(v);
			free(g);
			mp_formula_free(f);
		}
	}
	free(text);
	return 0;
}
