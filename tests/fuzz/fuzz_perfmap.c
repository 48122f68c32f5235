/* fuzz_perfmap.c - libFuzzer harness for the perf map parser (/tmp/perf-PID.map, JIT
 * symbols: mp_perfmap_parse). The input is the file's text; every symbol found is looked
 * up again at its start, its last byte and its end, and the names are read whole. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mp_dso.h"
#include "mp_symtab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	struct mp_symtab t;
	if (mp_perfmap_parse(text, size, &t)) {
		free(text);
		return 0;
	}
	volatile size_t sum = 0;
	for (size_t i = 0; i < t.n; i++) {
		const struct mp_esym *e = mp_symtab_find(&t, t.v[i].start);
		sum += e ? strlen(e->name) : 0;
		if (t.v[i].end > t.v[i].start)
			sum += mp_symtab_find(&t, t.v[i].end - 1) != NULL;
		sum += mp_symtab_find(&t, t.v[i].end) != NULL;
	}
	(void)sum;
	mp_symtab_fini(&t);
	return 0;
}
