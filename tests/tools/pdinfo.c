/* pdinfo - print what memprof's perf.data reader sees in a file: attrs with sample counts
 * and estimated counts, record counts per type, header features. A debugging aid for the
 * reader tests (not installed). Usage: pdinfo FILE [--samples | --allocs] (--allocs: the
 * allocation records, one line each, their site's first ip) */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "mp_perfdata.h"

struct ctx {
	int print;
	uint64_t mmaps, comms;
};

static int on_sample(void *c, const struct mp_pd_sample *s)
{
	const struct ctx *x = c;
	if (x->print)
		printf("sample attr=%zu ip=%#" PRIx64 " pid=%u tid=%u cpu=%u time=%" PRIu64 " period=%" PRIu64
		       " nr_cc=%" PRIu64 " nr_br=%" PRIu64 "\n",
		       s->attr_idx, s->ip, s->pid, s->tid, s->cpu, s->time, s->period, s->nr_callchain,
		       s->nr_branch);
	return 0;
}

static int on_mmap(void *c, const struct mp_pd_mmap *m)
{
	((struct ctx *)c)->mmaps++;
	if (((struct ctx *)c)->print)
		printf("mmap pid=%u start=%#" PRIx64 " len=%#" PRIx64 " pgoff=%#" PRIx64 " %s\n", m->pid,
		       m->start, m->len, m->pgoff, m->filename);
	return 0;
}

static int on_comm(void *c, const struct mp_pd_task *t)
{
	(void)t;
	((struct ctx *)c)->comms++;
	return 0;
}

int main(int argc, char **argv)
{
	struct mp_err err = { 0 };
	struct ctx x = { 0 };
	if (argc < 2) {
		fprintf(stderr, "usage: pdinfo FILE [--samples | --allocs]\n");
		return 2;
	}
	x.print = argc > 2 && !strcmp(argv[2], "--samples");
	mp_pd *pd = mp_pd_open(argv[1], &err);
	if (!pd) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	struct mp_pd_handler h = { .ctx = &x, .sample = on_sample, .mmap = on_mmap, .comm = on_comm };
	int rc = mp_pd_process(pd, &h, &err);
	printf("pipe=%d nattrs=%zu nr_cpus=%u unknown_id=%" PRIu64 "\n", mp_pd_is_pipe(pd), mp_pd_nattrs(pd),
	       mp_pd_nr_cpus(pd), mp_pd_nr_unknown_id(pd));
	for (int f = 3; f <= 11; f++)
		if (mp_pd_feature_str(pd, f))
			printf("feature %d: %s\n", f, mp_pd_feature_str(pd, f));
	for (size_t i = 0; i < mp_pd_nattrs(pd); i++) {
		const struct mp_pd_attr *a = mp_pd_attr(pd, i);
		printf("attr %zu '%s' size=%u type=%u config=%#llx st=%#llx rf=%#llx leader=%d samples=%" PRIu64
		       " period=%" PRIu64 " lost=%" PRIu64,
		       i, a->name, a->file_attr_size, a->attr.type, (unsigned long long)a->attr.config,
		       (unsigned long long)a->attr.sample_type, (unsigned long long)a->attr.read_format,
		       a->group_leader_idx, a->nr_samples, a->total_period, a->lost);
		if (a->has_counts)
			printf(" count=%" PRIu64 " ena=%" PRIu64 " run=%" PRIu64, a->count.val, a->count.ena,
			       a->count.run);
		printf("\n");
	}
	for (unsigned t = 0; t < 128; t++)
		if (mp_pd_record_count(pd, t))
			printf("records type %u: %" PRIu64 "\n", t, mp_pd_record_count(pd, t));
	printf("mmap callbacks %" PRIu64 ", comm callbacks %" PRIu64 ", build-ids %zu\n", x.mmaps, x.comms,
	       mp_pd_nbuild_ids(pd));
	struct mp_pd_allocs al;
	if (!mp_pd_allocs(pd, &al)) {
		printf("allocs recs=%" PRIu64 " sites=%" PRIu64 " lost=%" PRIu64 "\n", al.nr_recs,
		       al.nr_sites, al.lost);
		for (uint64_t i = 0; argc > 2 && !strcmp(argv[2], "--allocs") && i < al.nr_recs; i++) {
			struct mp_alloc_rec r;
			const uint64_t *ips = NULL;
			uint32_t pid, nr = 0;
			if (mp_pd_alloc_rec(pd, i, &r))
				break;
			if (r.site != MP_ALLOC_NO_SITE)
				mp_pd_alloc_site(pd, r.site, &pid, &ips, &nr);
			printf("alloc %s time=%" PRIu64 " addr=%#" PRIx64 " size=%" PRIu64 " old=%#" PRIx64
			       " pid=%u tid=%u frames=%u ip0=%#" PRIx64 "\n", mp_alloc_kind_name(r.kind),
			       r.time, r.addr, r.size, r.old, r.pid, r.tid, nr, nr ? ips[0] : 0);
		}
	}
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	mp_pd_close(pd);
	return rc ? 1 : 0;
}
