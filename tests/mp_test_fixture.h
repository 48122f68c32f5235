/* mp_test_fixture.h - the shared fixtures of the unit tests: binaries and recordings from
 * real hardware in ../shared/perfdata (1 to 3 MB each, too big for tests/data), whose folder
 * ctest passes in SHARED_DIR. A test program finds them with mp_test_fixture() in main();
 * when one is missing it runs only the tests that need none and exits MP_TEST_SKIP, which
 * ctest reports as skipped (SKIP_RETURN_CODE, tests/CMakeLists.txt), never as passed or
 * failed. There is no fallback path: without SHARED_DIR the fixtures are missing. */
#ifndef MP_TEST_FIXTURE_H
#define MP_TEST_FIXTURE_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MP_TEST_SKIP 77

/* The fixtures the unit tests use, relative to SHARED_DIR. */
#define MP_FIXTURE_VECTOR "perfdata/bin/vector_static_gcc_v9.1.0"
#define MP_FIXTURE_PARALLEL "perfdata/bin/parallel_static_gcc"
#define MP_FIXTURE_CALLGRAPH "perfdata/pdc-callgraph-snb-3.8.data"
#define MP_FIXTURE_PERFDATA "perfdata" /* the folder: recordings and perf's outputs */
#define MP_FIXTURE_TOPOLOGY "topology" /* the folder: sysfs snapshots, hwloc's references */

/* The path of fixture rel (one of MP_FIXTURE_*) under SHARED_DIR in buf (n bytes): 0 when
 * it is readable, else -1 after one line on stdout naming the missing path. */
static inline int mp_test_fixture(char *buf, size_t n, const char *rel)
{
	const char *sd = getenv("SHARED_DIR");
	buf[0] = 0;
	if (!sd || !sd[0]) {
		printf("skipped: SHARED_DIR is not set: no fixture %s (ctest sets it to ../shared)\n",
		       rel);
		return -1;
	}
	snprintf(buf, n, "%s/%s", sd, rel);
	if (access(buf, R_OK)) {
		printf("skipped: fixture %s: %s\n", buf, strerror(errno));
		return -1;
	}
	return 0;
}

/* The exit status of a program whose tests without fixtures ran (failed of them failed)
 * and whose other tests were skipped for a missing fixture. */
static inline int mp_test_skipped(int failed)
{
	return failed ? failed : MP_TEST_SKIP;
}

#endif
