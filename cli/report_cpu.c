/* memprof report: the recorded machine in the header (topology, memory errors during the
 * recording) and --sort cpu,socket,node: samples grouped by the CPU they were taken on and
 * by that CPU's socket and NUMA node in the recorded topology, as perf's cpu and socket
 * sort keys group them. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "cli.h"
#include "mp_analyzer.h"
#include "mp_perfdata.h"

void report_print_machine(FILE *f, const mp_pd *pd)
{
	struct mp_pd_topo t;
	if (mp_pd_topo_read(pd, &t) == 0) {
		uint32_t ncpu = 0;
		for (uint32_t c = 0; c < t.ncpus; c++)
			ncpu += t.socket[c] >= 0;
		fprintf(f, "# topology: %u CPU%s, %u socket%s", ncpu, ncpu == 1 ? "" : "s",
			t.nsockets, t.nsockets == 1 ? "" : "s");
		if (t.nnodes)
			fprintf(f, ", %u NUMA node%s", t.nnodes, t.nnodes == 1 ? "" : "s");
		fprintf(f, "\n");
		if (t.caches[0])
			fprintf(f, "# caches: %s\n", t.caches);
		mp_pd_topo_fini(&t);
	}
	const char *before = mp_pd_meta(pd, MP_META_EDAC_BEFORE);
	const char *after = mp_pd_meta(pd, MP_META_EDAC_AFTER);
	const char *missing = mp_pd_meta(pd, MP_META_EDAC_MISSING);
	unsigned long long ce0, ue0, ce1, ue1;
	if (before && after && sscanf(before, "%llu,%llu", &ce0, &ue0) == 2 &&
	    sscanf(after, "%llu,%llu", &ce1, &ue1) == 2)
		fprintf(f, "# memory errors during the recording: %llu corrected, %llu uncorrected\n",
			ce1 - ce0, ue1 - ue0);
	else if (missing)
		fprintf(f, "# memory errors during the recording: unknown, EDAC absent: %s\n",
			missing);
}

/* The keys of a --sort list that names socket or node, with or without cpu (in its order);
 * 0 when it names neither (cpu alone, with any other key, is the histogram's), -1 (after
 * saying why) when socket or node come with keys other than cpu. */
enum { RK_CPU = 1, RK_SOCKET, RK_NODE };

int report_cpu_keys(const char *sort, int keys[3], int *nkeys)
{
	static const char *const names[] = { "", "cpu", "socket", "node" };
	int n = 0, other = 0, topo = 0;
	for (const char *p = sort; p && *p;) {
		size_t l = strcspn(p, ",");
		int k = 0;
		for (int i = 1; i <= 3; i++)
			if (strlen(names[i]) == l && !strncmp(p, names[i], l))
				k = i;
		if (k && n < 3)
			keys[n++] = k;
		else if (!k)
			other = 1;
		topo |= k == RK_SOCKET || k == RK_NODE;
		p += l + (p[l] == ',');
	}
	*nkeys = n;
	if (!topo)
		return 0;
	if (other) {
		cli_error("report", "--sort %s: socket and node group only with cpu and each other",
			  sort);
		return -1;
	}
	return 1;
}

struct cpu_counts {
	size_t nattrs;
	uint32_t ncpu;           /* columns of the tables */
	uint64_t *samples, *period; /* [nattrs * ncpu] */
	int err;
};

static int on_sample(void *ctx, mp_sym *sym, const struct mp_pd_sample *s, const uint64_t *ips,
		     size_t nips)
{
	struct cpu_counts *c = ctx;
	(void)sym;
	(void)ips;
	(void)nips;
	if (s->attr_idx >= c->nattrs)
		return 0;
	if (s->cpu >= c->ncpu) {
		uint32_t n = s->cpu + 64;
		uint64_t *ns = calloc(c->nattrs * n, 8), *np = calloc(c->nattrs * n, 8);
		if (!ns || !np) {
			free(ns);
			free(np);
			return c->err = -ENOMEM;
		}
		for (size_t a = 0; a < c->nattrs; a++)
			for (uint32_t k = 0; k < c->ncpu; k++) {
				ns[a * n + k] = c->samples[a * c->ncpu + k];
				np[a * n + k] = c->period[a * c->ncpu + k];
			}
		free(c->samples);
		free(c->period);
		c->samples = ns;
		c->period = np;
		c->ncpu = n;
	}
	c->samples[s->attr_idx * c->ncpu + s->cpu]++;
	c->period[s->attr_idx * c->ncpu + s->cpu] += s->period;
	return 0;
}

struct group {
	int32_t key[3];
	uint64_t samples, period;
};

static int group_cmp(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	for (int i = 0; i < 3; i++)
		if (x->key[i] != y->key[i])
			return x->key[i] < y->key[i] ? -1 : 1;
	return 0;
}

int report_by_cpu(const char *input, const char *sort, const int keys[3], int nkeys)
{
	static const char *const names[] = { "", "CPU", "Socket", "Node" };
	struct mp_err err = { 0 };
	mp_pd *pd = mp_pd_open(input, &err);
	if (!pd) {
		cli_error("report", "%s", err.msg);
		return CLI_EXIT_RUNTIME;
	}
	struct mp_pd_topo t;
	int have_topo = mp_pd_topo_read(pd, &t) == 0;
	int rc = CLI_EXIT_RUNTIME;
	size_t na = mp_pd_nattrs(pd);
	for (int i = 0; i < nkeys; i++)
		if (keys[i] != RK_CPU && !have_topo) {
			cli_error("report", "--sort %s: %s has no CPU_TOPOLOGY header feature", sort,
				  input);
			goto out_pd;
		}
	for (int i = 0; i < nkeys; i++)
		if (keys[i] == RK_NODE && !t.nnodes) {
			cli_error("report", "--sort %s: %s has no NUMA_TOPOLOGY header feature", sort,
				  input);
			goto out_pd;
		}
	for (size_t a = 0; a < na; a++)
		if (!(mp_pd_attr(pd, a)->attr.sample_type & PERF_SAMPLE_CPU)) {
			cli_error("report", "--sort %s: the samples of %s carry no CPU (no PERF_SAMPLE_CPU)",
				  sort, mp_pd_attr(pd, a)->name);
			goto out_pd;
		}
	struct cpu_counts c = { .nattrs = na };
	/* no symbols: the samples' CPUs only */
	struct mp_session_opts so = { .no_symbols = 1, .sample = on_sample, .sample_ctx = &c,
				      .pd = pd };
	mp_session *ss = mp_session_new(input, &so, &err);
	pd = NULL; /* the session's (closed by it on error too) */
	if (!ss) {
		cli_error("report", "%s", c.err ? mp_strerror(c.err) : err.msg);
		goto out_counts;
	}
	pd = mp_session_pd(ss);
	printf("# memprof report of %s, by %s\n", input, sort);
	report_print_machine(stdout, pd);
	struct group *g = calloc(c.ncpu + 1, sizeof(*g));
	if (!g)
		goto out_counts;
	for (size_t a = 0; a < na; a++) {
		const struct mp_pd_attr *at = mp_pd_attr(pd, a);
		uint64_t tot_s = 0, tot_p = 0;
		size_t ng = 0;
		for (uint32_t cpu = 0; cpu < c.ncpu; cpu++) {
			uint64_t s = c.samples[a * c.ncpu + cpu], p = c.period[a * c.ncpu + cpu];
			if (!s)
				continue;
			tot_s += s;
			tot_p += p;
			int32_t key[3] = { -1, -1, -1 };
			for (int i = 0; i < nkeys; i++) {
				int in = have_topo && cpu < t.ncpus;
				key[i] = keys[i] == RK_CPU      ? (int32_t)cpu
					 : keys[i] == RK_SOCKET ? (in ? t.socket[cpu] : -1)
								: (in ? t.node[cpu] : -1);
			}
			size_t j;
			for (j = 0; j < ng; j++)
				if (!memcmp(g[j].key, key, sizeof(key)))
					break;
			if (j == ng)
				g[ng++] = (struct group){ { key[0], key[1], key[2] }, 0, 0 };
			g[j].samples += s;
			g[j].period += p;
		}
		qsort(g, ng, sizeof(*g), group_cmp);
		printf("#\n# %s: %" PRIu64 " samples, estimated count %" PRIu64 "\n#\n",
		       at->spec && *at->spec ? at->spec : at->name, tot_s, tot_p);
		printf("# Overhead       Samples");
		for (int i = 0; i < nkeys; i++)
			printf("  %6s", names[keys[i]]);
		printf("\n");
		for (size_t j = 0; j < ng; j++) {
			printf("%9.2f%%  %12" PRIu64, tot_p ? 100.0 * (double)g[j].period / (double)tot_p : 0,
			       g[j].samples);
			for (int i = 0; i < nkeys; i++)
				if (g[j].key[i] < 0)
					printf("  %6s", "?");
				else
					printf("  %6d", g[j].key[i]);
			printf("\n");
		}
	}
	free(g);
	rc = fflush(stdout) ? CLI_EXIT_RUNTIME : 0;
out_counts:
	mp_session_free(ss);
	pd = NULL; /* the session's */
	free(c.samples);
	free(c.period);
out_pd:
	if (have_topo)
		mp_pd_topo_fini(&t);
	mp_pd_close(pd);
	return rc;
}
