/* fuzz_evspec.c - the event spec parser: lists, perf/oprofile/libpfm4/sysfs spellings.
 * The first byte picks the options (count mode, -c, -F, --pmu model); the rest is the
 * -e argument. Every parsed event is also named back through mp_event_attr_name(), and
 * the leader-sampling invariants of struct mp_event are checked (abort = a finding). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mp_events.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const models[] = { NULL, "core", "skl", "amd64_fam19h_zen4", "perf",
					      "cachegrind", "nosuch", "spr" };
	struct mp_evopts o;
	struct mp_event *ev = NULL;
	struct mp_err err = { 0, "" };
	size_t n = 0;
	char *s;

	if (size == 0 || size > 4096)
		return 0;
	memset(&o, 0, sizeof(o));
	o.count_only = data[0] & 1;
	o.default_count = (data[0] & 2) ? 20000 : 0;
	o.freq_hz = (data[0] & 4) ? 1000 : 0;
	o.pmu_model = models[(data[0] >> 3) & 7];
	s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = 0;
	if (mp_events_parse(s, &o, &ev, &n, &err) == 0) {
		for (size_t i = 0; i < n; i++) {
			char name[128];
			mp_event_attr_name(&ev[i].attr, name, sizeof(name));
			(void)mp_event_default_count(&ev[i]);
			const struct perf_event_attr *a = &ev[i].attr;
			int ls = ev[i].leader_sample;
			if (ls && ls != (i == 0 ? MP_LEADER_SAMPLE_LEADER : MP_LEADER_SAMPLE_MEMBER))
				abort(); /* a :S group is the whole list, led by the first */
			if (ls && (ev[0].leader_sample != MP_LEADER_SAMPLE_LEADER))
				abort();
			if (o.count_only || !ls)
				continue;
			if (ls == MP_LEADER_SAMPLE_MEMBER && (a->sample_period || a->freq))
				abort();
			if (!(a->sample_type & PERF_SAMPLE_READ) || !(a->read_format & PERF_FORMAT_GROUP))
				abort();
			if (ls == MP_LEADER_SAMPLE_LEADER && !(a->sample_period || a->freq))
				abort();
		}
		free(ev);
	}
	free(s);
	return 0;
}
