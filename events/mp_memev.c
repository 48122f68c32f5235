/* mp_memev.c - the precise memory events of memprof mem record, from the table
 * events/mem_events.tsv (perf mem's events per PMU model, as data). */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mp_events_internal.h"

extern const char mp_mem_events_tsv[];

const char *mp_memev_table_text(void)
{
	return mp_mem_events_tsv;
}

/* 1 when model is in the comma-separated list of globs */
static int model_in(const char *list, size_t len, const char *model)
{
	char buf[256];

	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, list, len);
	buf[len] = '\0';
	for (char *save = NULL, *g = strtok_r(buf, ",", &save); g; g = strtok_r(NULL, ",", &save))
		if (!fnmatch(g, model, 0))
			return 1;
	return 0;
}

int mp_memev_pmu_present(const struct mp_evopts *o, const char *pmu)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s", mp_sysfs_root(o), pmu);
	return stat(path, &st) == 0;
}

/* the field-th tab-separated field of line [p, e) */
static size_t field(const char *p, const char *e, int k, const char **out)
{
	for (; k > 0 && p < e; k--) {
		const char *t = memchr(p, '\t', (size_t)(e - p));
		p = t ? t + 1 : e;
	}
	const char *t = memchr(p, '\t', (size_t)(e - p));
	*out = p;
	return (size_t)((t ? t : e) - p);
}

static void copy_spec(char *dst, size_t n, const char *src, size_t len, unsigned ldlat)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 1 < n; i++) {
		if (!strncmp(src + i, "{ldlat}", 7) && i + 7 <= len) {
			o += (size_t)snprintf(dst + o, n - o, "%u", ldlat);
			if (o >= n)
				o = n - 1;
			i += 6;
			continue;
		}
		dst[o++] = src[i];
	}
	dst[o] = '\0';
}

size_t mp_memev_rows(const struct mp_evopts *o, const char *model, const char *op,
		     unsigned ldlat, struct mp_memev *out, size_t max)
{
	size_t n = 0;

	for (int pass = 0; pass < 2; pass++)
		for (const char *p = mp_mem_events_tsv; *p && n < max;) {
			const char *e = strchr(p, '\n');
			if (!e)
				e = p + strlen(p);
			const char *line = p;
			p = *e ? e + 1 : e;
			if (line == e || *line == '#')
				continue;
			const char *f[6];
			size_t l[6];
			for (int k = 0; k < 6; k++)
				l[k] = field(line, e, k, &f[k]);
			if (strlen(op) != l[2] || strncmp(f[2], op, l[2]))
				continue;
			int any = l[0] == 1 && f[0][0] == '*';
			/* pass 0: the model's own rows; pass 1: '*' rows whose PMU is here */
			if (pass == 0 ? any || !model || !model_in(f[0], l[0], model) : !any)
				continue;
			struct mp_memev *m = &out[n];
			memset(m, 0, sizeof(*m));
			snprintf(m->pmu, sizeof(m->pmu), "%.*s", (int)l[1], f[1]);
			snprintf(m->what, sizeof(m->what), "%.*s", (int)l[5], f[5]);
			copy_spec(m->spec, sizeof(m->spec), f[3], l[3], ldlat);
			m->kind = !strncmp(f[4], "per-cpu", l[4]) && l[4] == 7 ? MP_MEMEV_PER_CPU
				  : !strncmp(f[4], "aux", l[4]) && l[4] == 3   ? MP_MEMEV_AUX
									       : MP_MEMEV_TASK;
			m->present = mp_memev_pmu_present(o, m->pmu);
			if (pass == 1 && !m->present)
				continue;
			n++;
		}
	return n;
}
