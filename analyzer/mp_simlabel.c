/* The label every output of a simulated recording carries (memprof record --sim). */
#include <stdio.h>

#include "mp_analyzer.h"

const char *mp_pd_sim_banner(const mp_pd *pd, char *buf, size_t len)
{
	const char *sim = mp_pd_meta(pd, MP_META_SIMULATED);
	if (!sim || !len)
		return NULL;
	const char *i1 = mp_pd_meta(pd, MP_META_SIM_I1), *d1 = mp_pd_meta(pd, MP_META_SIM_D1);
	const char *ll = mp_pd_meta(pd, MP_META_SIM_LL);
	snprintf(buf, len,
		 "SIMULATED: counts from valgrind's %s cache simulation (I1 %s, D1 %s, LL %s), "
		 "not measured by a PMU; each sample's period is an exact simulated count",
		 sim, i1 ? i1 : "?", d1 ? d1 : "?", ll ? ll : "?");
	return buf;
}
