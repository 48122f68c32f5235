/* mp_pd_match.c - two recordings compared, for reading them side by side (report -i A -i B,
 * diff, annotate -i A -i B): the events of one matched in the other by their attributes, an
 * object recorded under the same path with another build-id. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "mp_perfdata.h"

static int attr_same(const struct perf_event_attr *a, const struct perf_event_attr *b)
{
	return a->type == b->type && a->config == b->config && a->config1 == b->config1 &&
	       a->config2 == b->config2 && a->exclude_user == b->exclude_user &&
	       a->exclude_kernel == b->exclude_kernel && a->exclude_hv == b->exclude_hv &&
	       a->exclude_guest == b->exclude_guest;
}

static const char *attr_name(const struct mp_pd_attr *a)
{
	return a->spec && *a->spec ? a->spec : a->name ? a->name : "?";
}

int mp_pd_attrs_match(const mp_pd *a, const char *apath, const size_t *ev, size_t nev,
		      const mp_pd *b, const char *bpath, size_t *map, struct mp_err *err)
{
	size_t nb = mp_pd_nattrs(b);
	for (size_t j = 0; j < nev; j++) {
		const struct mp_pd_attr *x = mp_pd_attr(a, ev[j]);
		map[j] = SIZE_MAX;
		for (size_t k = 0; k < nb && map[j] == SIZE_MAX; k++)
			if (attr_same(&x->attr, &mp_pd_attr(b, k)->attr))
				map[j] = k;
		if (map[j] == SIZE_MAX) {
			mp_err_set(err, -EINVAL, "%s: has no event %s as %s has (events differ)",
				   bpath, attr_name(x), apath);
			return -EINVAL;
		}
	}
	/* an event of b with samples that a does not show is refused as well */
	for (size_t k = 0; k < nb; k++) {
		const struct mp_pd_attr *y = mp_pd_attr(b, k);
		if (!y->nr_samples)
			continue;
		size_t j = 0;
		while (j < nev && map[j] != k)
			j++;
		if (j == nev) {
			mp_err_set(err, -EINVAL, "%s: event %s has samples but %s has no such event "
				   "(events differ)", bpath, attr_name(y), apath);
			return -EINVAL;
		}
	}
	return 0;
}

const char *mp_pd_build_id_differs(const mp_pd *a, const mp_pd *b)
{
	for (size_t i = 0; i < mp_pd_nbuild_ids(b); i++) {
		const struct mp_pd_build_id *y = mp_pd_build_id(b, i);
		for (size_t k = 0; y->filename && k < mp_pd_nbuild_ids(a); k++) {
			const struct mp_pd_build_id *x = mp_pd_build_id(a, k);
			if (x->filename && !strcmp(x->filename, y->filename) &&
			    (x->id_len != y->id_len || memcmp(x->id, y->id, x->id_len)))
				return y->filename;
		}
	}
	return NULL;
}
