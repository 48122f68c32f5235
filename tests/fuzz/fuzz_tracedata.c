/* fuzz_tracedata.c - libFuzzer harness for the tracing-data reader and the tracepoint
 * printer (mp_pd_trace_parse, mp_pd_tp_print): the input is a HEADER_TRACING_DATA payload;
 * each event it holds is printed (its print format and generically) and each field read,
 * with the input's last bytes (as many as the event's widest field reaches, and fewer) as
 * the RAW payload. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mp_perfdata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mp_err err = { 0 };
	mp_pd_trace *t = mp_pd_trace_parse(data, size, "fuzz", &err);
	if (!t)
		return 0;
	struct mp_buf b = { 0 };
	for (size_t i = 0; i < mp_pd_trace_nevents(t); i++) {
		const struct mp_pd_tp_event *e = mp_pd_trace_event_at(t, i);
		if (mp_pd_trace_event(t, e->id) == NULL)
			abort();
		size_t want = 0;
		for (size_t k = 0; k < e->nfields; k++) {
			size_t end = (size_t)e->fields[k].offset + e->fields[k].size;
			want = end > want && end < 65536 ? end : want;
		}
		for (size_t cut = 0; cut < 2; cut++) {
			size_t n = want > size ? size : want - (cut && want ? 1 : 0);
			uint8_t *raw = malloc(n ? n : 1);
			if (!raw)
				break;
			memcpy(raw, data + size - n, n);
			b.len = 0;
			mp_pd_tp_print(e, raw, n, &b);
			mp_pd_tp_print_fields(e, raw, n, &b);
			for (size_t k = 0; k < e->nfields; k++) {
				uint64_t v;
				mp_pd_tp_num(e, e->fields[k].name, raw, n, &v);
			}
			free(raw);
		}
	}
	mp_buf_fini(&b);
	mp_pd_trace_free(t);
	return 0;
}
