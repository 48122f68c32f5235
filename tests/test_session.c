/* test_session.c - mp_session, the one way to open a recording: call chains unwound by the
 * session's own unwinder (kdab-vector-dwarf-bdw, a --call-graph dwarf recording, with its
 * binary from ../shared/perfdata/bin under a --symfs), raw without them, the no-symbols and
 * no-histogram modes, and errors that name the file. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "mp_analyzer.h"
#include "mp_test_fixture.h"

#define VEC_BIN "vector_static_gcc_v9.1.0"
#define MP_FIXTURE_DWARF "perfdata/kdab-vector-dwarf-bdw.data"

static char tmp[64];            /* a folder of the test's own */
static char symfs[128];         /* tmp/symfs: the binary at its recorded path */
static char dwarf_path[4096];   /* kdab-vector-dwarf-bdw.data */

/* What a session's sample function saw. */
struct seen {
	uint64_t samples;
	uint64_t with_ips;      /* samples that came with a chain */
	uint64_t deep;          /* ... with 3 or more user frames */
	uint64_t user_frames;
	uint64_t raw_user;      /* user addresses of the recorded chains */
	uint64_t sym_null;      /* samples given without a symbol context */
};

static int on_sample(void *ctx, mp_sym *sym, const struct mp_pd_sample *s, const uint64_t *ips,
		     size_t nips)
{
	struct seen *w = ctx;
	w->samples++;
	w->sym_null += !sym;
	int user = 0;
	for (uint64_t i = 0; i < s->nr_callchain; i++)
		if (s->callchain[i] >= (uint64_t)PERF_CONTEXT_MAX)
			user = s->callchain[i] == (uint64_t)PERF_CONTEXT_USER;
		else
			w->raw_user += user;
	if (!ips)
		return 0;
	w->with_ips++;
	uint64_t frames = 0;
	user = 0;
	for (size_t i = 0; i < nips; i++)
		if (ips[i] >= (uint64_t)PERF_CONTEXT_MAX)
			user = ips[i] == (uint64_t)PERF_CONTEXT_USER;
		else
			frames += user;
	w->user_frames += frames;
	w->deep += frames >= 3;
	return 0;
}

/* The modes on the dwarf recording: what the sample function and the session hold. Its 45
 * samples of cycles (tests/data/perfdata-expect.tsv) have recorded chains with the kernel
 * part only: user frames come from the stack copies, through the binary under symfs. */
static const struct {
	const char *name;
	int no_symbols, no_hist, chains;
	int sym, hist, unwound; /* the session has a symbol context, a histogram, an unwinder */
	int line;
} modes[] = {
	{ "chains", 0, 0, 1, 1, 1, 1, __LINE__ },
	{ "plain: no chain given, the samples as recorded", 0, 0, 0, 1, 1, 0, __LINE__ },
	{ "no_symbols: samples only, so no unwinder either", 1, 0, 1, 0, 0, 0, __LINE__ },
	{ "no_hist: symbols and chains", 0, 1, 1, 1, 0, 1, __LINE__ },
};

static void mp_session_new__dwarf_modes__table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct seen w = { 0 };
		struct mp_err err = { 0 };
		struct mp_session_opts o = { .symfs = symfs, .kallsyms = "/dev/null",
					     .no_symbols = modes[i].no_symbols,
					     .no_hist = modes[i].no_hist, .chains = modes[i].chains,
					     .sample = on_sample, .sample_ctx = &w };
		mp_session *ss = mp_session_new(dwarf_path, &o, &err);
		if (!ss)
			fail_msg("line %d: %s", modes[i].line, err.msg);
		print_message("line %d: %s\n", modes[i].line, modes[i].name);
		assert_int_equal(w.samples, 45);
		assert_int_equal(w.raw_user, 0);
		assert_int_equal(w.sym_null, modes[i].sym ? 0 : 45);
		assert_int_equal(mp_session_sym(ss) != NULL, modes[i].sym);
		assert_int_equal(mp_session_hist(ss) != NULL, modes[i].hist);
		assert_int_equal(mp_pd_attr(mp_session_pd(ss), 0)->nr_samples, 45);
		if (modes[i].hist)
			assert_int_equal(mp_hist_total(mp_session_hist(ss), 0)->samples, 45);
		const mp_unwind *uw = mp_session_unwind(ss);
		assert_int_equal(uw != NULL, modes[i].unwound);
		assert_int_equal(w.with_ips, modes[i].unwound ? 45 : 0);
		if (uw) {
			assert_true(w.deep >= 30);
			assert_true(w.user_frames > 3 * w.samples);
			uint64_t unwound, frames, failed;
			mp_unwind_stats(uw, &unwound, &frames, &failed);
			assert_true(unwound >= 30);
			assert_true(frames >= w.user_frames - w.samples);
		}
		mp_session_free(ss);
	}
}

static void mp_session_new__no_regions__error_names_file_and_option(void **state)
{
	(void)state;
	struct mp_err err = { 0 };
	/* a file opened first is the session's, closed on its error too (ASan: no leak) */
	mp_pd *pd = mp_pd_open(dwarf_path, &err);
	assert_non_null(pd);
	struct mp_session_opts o = { .kallsyms = "/dev/null", .want_region = "--sort region",
				     .pd = pd };
	assert_null(mp_session_new(dwarf_path, &o, &err));
	assert_int_equal(err.code, -ENOENT);
	char want[4300];
	snprintf(want, sizeof(want), "%s: --sort region: the recording has no regions (record it "
		 "with memprof record --regions)", dwarf_path);
	assert_string_equal(err.msg, want);
}

/* One line naming the file, and NULL. */
static void expect_error(const char *path, const struct mp_session_opts *o)
{
	struct mp_err err = { 0 };
	assert_null(mp_session_new(path, o, &err));
	assert_true(err.code < 0);
	assert_non_null(strstr(err.msg, path));
	assert_null(strchr(err.msg, '\n'));
}

static void mp_session_new__bad_files__one_line_naming_the_file(void **state)
{
	(void)state;
	char path[128];
	struct mp_session_opts plain = { .kallsyms = "/dev/null" };
	struct mp_session_opts bare = { .no_symbols = 1 };
	snprintf(path, sizeof(path), "%s/missing.data", tmp);
	expect_error(path, &plain);
	expect_error(path, NULL);
	snprintf(path, sizeof(path), "%s/garbage.data", tmp);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	static const char junk[] = "PERFILE2 this is not a recording, only its magic";
	assert_int_equal(write(fd, junk, sizeof(junk)), (ssize_t)sizeof(junk));
	close(fd);
	expect_error(path, &plain);
	expect_error(path, &bare);
	snprintf(path, sizeof(path), "%s/empty.data", tmp);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	close(fd);
	expect_error(path, &plain);
}

static int cleanup(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	return system(cmd);
}

/* The path the recording mapped the binary from (its MMAP records), into ctx. */
static int on_mmap(void *ctx, const struct mp_pd_mmap *m)
{
	const char *base = m->filename ? strrchr(m->filename, '/') : NULL;
	if (base && !strcmp(base + 1, VEC_BIN))
		snprintf(ctx, 4096, "%s", m->filename);
	return 0;
}

/* The binary linked under symfs at the path the recording saw it. 0; MP_TEST_SKIP when a
 * fixture is missing; -1 on error. */
static int make_symfs(void)
{
	char bin[4096], seen[4096] = "", link[4300], cmd[4400];
	if (mp_test_fixture(dwarf_path, sizeof(dwarf_path), MP_FIXTURE_DWARF) ||
	    mp_test_fixture(bin, sizeof(bin), MP_FIXTURE_VECTOR))
		return MP_TEST_SKIP;
	struct mp_err err = { 0 };
	mp_pd *pd = mp_pd_open(dwarf_path, &err);
	struct mp_pd_handler h = { .ctx = seen, .mmap = on_mmap };
	int rc = !pd || mp_pd_process(pd, &h, &err) || !seen[0];
	mp_pd_close(pd);
	char abs[PATH_MAX];
	if (rc || !realpath(bin, abs)) {
		printf("%s: no mapping of %s (%s)\n", dwarf_path, VEC_BIN, err.msg);
		return -1;
	}
	snprintf(symfs, sizeof(symfs), "%s/symfs", tmp);
	snprintf(link, sizeof(link), "%s%s", symfs, seen);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", link);
	*strrchr(cmd, '/') = 0;
	strcat(cmd, "'");
	return system(cmd) || symlink(abs, link) ? -1 : 0;
}

int main(void)
{
	snprintf(tmp, sizeof(tmp), "/tmp/test_session.XXXXXX");
	if (!mkdtemp(tmp))
		return 1;
	const struct CMUnitTest plain[] = {
		cmocka_unit_test(mp_session_new__bad_files__one_line_naming_the_file),
	};
	const struct CMUnitTest dwarf[] = {
		cmocka_unit_test(mp_session_new__dwarf_modes__table),
		cmocka_unit_test(mp_session_new__no_regions__error_names_file_and_option),
	};
	int rc = cmocka_run_group_tests_name("session", plain, NULL, NULL);
	int fx = make_symfs();
	if (fx == MP_TEST_SKIP)
		rc = mp_test_skipped(rc);
	else
		rc += fx ? 1 : cmocka_run_group_tests_name("session_dwarf", dwarf, NULL, NULL);
	cleanup();
	return rc;
}
