/* mp_evname.c - perf's display name of an attr (generic names come from perfdata). */
#include <stdio.h>
#include <string.h>

#include "mp_events_internal.h"

const char *mp_event_attr_name(const struct perf_event_attr *attr, char *buf, size_t len)
{
	char tmp[128];
	const char *n = NULL;
	int w;

	if (!buf || !len)
		return "";
	switch (attr->type) {
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_SOFTWARE:
		n = mp_generic_name(attr->type, attr->config);
		break;
	case PERF_TYPE_HW_CACHE:
		n = mp_generic_cache_name(attr->config, tmp, sizeof(tmp));
		break;
	default:
		break;
	}
	if (n)
		w = snprintf(buf, len, "%s", n);
	else if (attr->type == PERF_TYPE_RAW)
		w = snprintf(buf, len, "r%llx", (unsigned long long)attr->config);
	else if (attr->type == PERF_TYPE_TRACEPOINT)
		w = snprintf(buf, len, "tracepoint/config=0x%llx/",
			     (unsigned long long)attr->config);
	else if (attr->type == PERF_TYPE_BREAKPOINT)
		w = snprintf(buf, len, "mem:0x%llx", (unsigned long long)attr->bp_addr);
	else {
		char pmu[64];
		const char *p = mp_sysfs_pmu_by_type(NULL, attr->type, pmu, sizeof(pmu));
		char t[24];
		if (!p) {
			snprintf(t, sizeof(t), "type%u", attr->type);
			p = t;
		}
		w = snprintf(buf, len, "%s/config=0x%llx", p, (unsigned long long)attr->config);
		if (attr->config1 && w > 0 && (size_t)w < len)
			w += snprintf(buf + w, len - (size_t)w, ",config1=0x%llx",
				      (unsigned long long)attr->config1);
		if (attr->config2 && w > 0 && (size_t)w < len)
			w += snprintf(buf + w, len - (size_t)w, ",config2=0x%llx",
				      (unsigned long long)attr->config2);
		if (w > 0 && (size_t)w < len)
			w += snprintf(buf + w, len - (size_t)w, "/");
	}
	/* perf's modifier suffix: only when the levels counted are not "all". */
	if (w > 0 && (size_t)w < len) {
		char mod[8];
		size_t m = 0;
		int eu = attr->exclude_user, ek = attr->exclude_kernel;
		if (eu != ek) {
			if (!eu)
				mod[m++] = 'u';
			if (!ek)
				mod[m++] = 'k';
		}
		for (unsigned i = 0; i < attr->precise_ip && i < 3; i++)
			mod[m++] = 'p';
		mod[m] = 0;
		if (m)
			snprintf(buf + w, len - (size_t)w, ":%s", mod);
	}
	return buf;
}
