/* test_dwscope.c - mp_dwscopes' scope paths answer as libdw's walks do, for the units of
 * real files: at line table rows' addresses (and one byte before), the innermost scope of
 * dwarf_getscopes and its concrete parents from dwarf_getscopes_die, offset for offset. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <glob.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "mp_dwscope.h"
#include "mp_test_fixture.h"

struct tally {
	size_t units, addrs, scoped, inlined;
};

/* the path libdw gives at addr (the unit left out), into want[]; its length */
static size_t libdw_path(Dwarf_Die *cu, uint64_t addr, Dwarf_Off *want, size_t max)
{
	Dwarf_Die *sc = NULL, *up = NULL;
	int n = dwarf_getscopes(cu, addr, &sc);
	if (n <= 0)
		return 0;
	int m = dwarf_getscopes_die(&sc[0], &up);
	free(sc);
	assert_true(m >= 2); /* the innermost scope ... the unit */
	size_t k = 0;
	for (int i = 0; i + 1 < m && k < max; i++)
		want[k++] = dwarf_dieoffset(&up[i]);
	free(up);
	return k;
}

static void check_addr(const struct mp_dwscopes *t, Dwarf_Die *cu, uint64_t addr,
		       struct tally *ty)
{
	Dwarf_Off want[256], got[256];
	size_t nw = libdw_path(cu, addr, want, 256);
	size_t ng = mp_dwscopes_path(t, addr, got, 256);
	assert_int_equal(ng, nw);
	for (size_t i = 0; i < nw; i++)
		assert_int_equal(got[i], want[i]);
	ty->addrs++;
	ty->scoped += nw > 0;
	Dwarf_Die d;
	ty->inlined += nw && dwarf_offdie(dwarf_cu_getdwarf(cu->cu), got[0], &d) &&
		       dwarf_tag(&d) == DW_TAG_inlined_subroutine;
}

/* up to max addresses of each unit of path (libdw's getscopes_die walks the unit each
 * time); 0, or -1 when it has no DWARF */
static int check_file(const char *path, size_t max, struct tally *ty)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	Dwarf *dw = dwarf_begin(fd, DWARF_C_READ);
	if (!dw) {
		close(fd);
		return -1;
	}
	Dwarf_Off o = 0, next;
	size_t hsize;
	while (dwarf_nextcu(dw, o, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Lines *lines;
		size_t n;
		if (dwarf_offdie(dw, o + hsize, &cu) && !dwarf_getsrclines(&cu, &lines, &n)) {
			struct mp_dwscopes *t = mp_dwscopes_new(&cu);
			assert_non_null(t);
			ty->units++;
			size_t step = n / max + 1;
			for (size_t i = 0; i < n; i += step) {
				Dwarf_Addr a;
				assert_int_equal(dwarf_lineaddr(dwarf_onesrcline(lines, i), &a), 0);
				check_addr(t, &cu, a, ty);
				check_addr(t, &cu, a - 1, ty);
			}
			mp_dwscopes_free(t);
		}
		o = next;
	}
	dwarf_end(dw);
	close(fd);
	return 0;
}

static char fixture[2][4096]; /* vector_static_gcc, parallel_static_gcc: found by main() */

/* The shared fixtures (DWARF 4, GCC 9, static: libc's inlines) and this test itself. */
static void mp_dwscopes_path__fixtures_and_self__as_libdw(void **state)
{
	(void)state;
	struct tally ty = { 0 };
	for (size_t i = 0; i < 2; i++)
		assert_int_equal(check_file(fixture[i], 300, &ty), 0);
	assert_int_equal(check_file("/proc/self/exe", 300, &ty), 0);
	print_message("%zu units, %zu addresses, %zu in scopes, %zu innermost inlined\n", ty.units,
		      ty.addrs, ty.scoped, ty.inlined);
	assert_true(ty.units >= 8);
	assert_true(ty.scoped > 1000);
	assert_true(ty.inlined > 10);
}

/* Debian's separate debug files (DWARF 5, compressed, dwz's partial units) where
 * installed: up to 3 of them */
static void mp_dwscopes_path__debug_files__as_libdw(void **state)
{
	(void)state;
	glob_t g;
	if (glob("/usr/lib/debug/.build-id/*/*.debug", 0, NULL, &g)) {
		skip();
		return;
	}
	struct tally ty = { 0 };
	size_t done = 0;
	for (size_t i = 0; i < g.gl_pathc && done < 3; i++)
		done += check_file(g.gl_pathv[i], 40, &ty) == 0;
	globfree(&g);
	print_message("%zu files, %zu units, %zu addresses, %zu in scopes, %zu innermost inlined\n",
		      done, ty.units, ty.addrs, ty.scoped, ty.inlined);
}

int main(void)
{
	const struct CMUnitTest plain[] = {
		cmocka_unit_test(mp_dwscopes_path__debug_files__as_libdw),
	};
	const struct CMUnitTest fixtures[] = {
		cmocka_unit_test(mp_dwscopes_path__fixtures_and_self__as_libdw),
	};
	int failed = cmocka_run_group_tests(plain, NULL, NULL);
	if (mp_test_fixture(fixture[0], sizeof(fixture[0]), MP_FIXTURE_VECTOR) ||
	    mp_test_fixture(fixture[1], sizeof(fixture[1]), MP_FIXTURE_PARALLEL))
		return mp_test_skipped(failed);
	return failed + cmocka_run_group_tests(fixtures, NULL, NULL);
}
