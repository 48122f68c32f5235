/* mp_pfm_api.h - the libpfm4 functions events/ calls, through one table: in the memprof
 * build libpfm4 is loaded with dlopen() on first use (MP_PFM_DLOPEN, MP_PFM_SONAME), so
 * that commands which never encode an event (report, annotate) do not pay its relocations;
 * a build without MP_PFM_DLOPEN (the static arm64 probe of the tests) links it. Include
 * after <linux/perf_event.h> so that libpfm's copy steps aside. */
#ifndef MP_PFM_API_H
#define MP_PFM_API_H

#include <perfmon/pfmlib_perf_event.h>

struct mp_pfm_api {
	pfm_err_t (*initialize)(void);
	const char *(*strerror)(int code);
	pfm_err_t (*get_pmu_info)(pfm_pmu_t pmu, pfm_pmu_info_t *output);
	int (*get_event_next)(int idx);
	int (*find_event)(const char *str);
	pfm_err_t (*get_event_info)(int idx, pfm_os_t os, pfm_event_info_t *output);
	pfm_err_t (*get_os_event_encoding)(const char *str, int dfl_plm, pfm_os_t os, void *args);
	pfm_err_t (*get_event_attr_info)(int eidx, int aidx, pfm_os_t os,
					 pfm_event_attr_info_t *output);
};

/* libpfm4's functions once mp_pfm_init() succeeded; NULL when it did not (libpfm4 missing
 * or failing to initialise: mp_pfm_unavailable() says why). */
const struct mp_pfm_api *mp_pfm_api(void);

#endif
