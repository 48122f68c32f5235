/* cmd_report_html.c - memprof report --html FILE: the recording's call graph (chains
 * unwound as memprof script shows them) written as one self-contained HTML flame graph
 * (callgraph/mp_cg_html.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "memprof/callgraph.h"
#include "mp_analyzer.h"

int cli_report_html(const char *input, const char *out, const char *symfs, const char *kallsyms,
		    const char *buildid_dir)
{
	struct mp_err err = { 0 };
	mp_cg *cg = NULL;
	struct mp_session_opts so = { .symfs = symfs, .kallsyms = kallsyms,
				      .buildid_dir = buildid_dir };
	mp_session *ss = mp_cg_session_new(input, &so, NULL, &cg, &err);
	if (!ss) {
		cli_error("report", "%s", err.msg);
		return 1;
	}
	const mp_pd *pd = mp_session_pd(ss);
	int rc = 1;
	size_t nattrs = mp_pd_nattrs(pd);
	size_t *ev = calloc(nattrs ? nattrs : 1, sizeof(*ev));
	const char **names = calloc(nattrs ? nattrs : 1, sizeof(*names));
	struct mp_out of = { 0 };
	if (!ev || !names || mp_cg_resolve(cg, mp_session_sym(ss), 2)) {
		cli_error("report", "%s: out of memory", input);
		goto out;
	}
	size_t nev = mp_session_events(ss, ev);
	for (size_t i = 0; i < nev; i++) {
		const struct mp_pd_attr *a = mp_pd_attr(pd, ev[i]);
		names[i] = a->spec && a->spec[0] ? a->spec : a->name;
	}
	char banner[512];
	struct mp_cg_html_opts ho = { .path = out, .title = input,
				      .banner = mp_pd_sim_banner(pd, banner, sizeof(banner)),
				      .ev = ev, .ev_names = names, .nev = nev, .inline_frames = 1 };
	if (mp_out_open(&of, out, input, &err) || mp_cg_html_write(cg, &ho, of.f, &err) ||
	    mp_out_commit(&of, &err)) {
		cli_error("report", "--html %s", err.msg);
		goto out;
	}
	rc = 0;
	fprintf(stderr, "[ memprof report: wrote the flame graph of %s to %s ]\n", input, out);
out:
	mp_out_abort(&of);
	free(ev);
	free(names);
	mp_cg_free(cg);
	mp_session_free(ss);
	return rc;
}
