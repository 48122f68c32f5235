/* test_dwline.c - mp_dwline's line tables answer as libdw's dwarf_getsrc_die() does, for
 * every unit of real files: at each row's address, one byte before and after it; also
 * when read from the sections mp_dwtrim_open() leaves libdw. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <glob.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "mp_dwline.h"
#include "mp_dwtrim.h"
#include "mp_test_fixture.h"

static const uint8_t *sec_data(Elf *e, const char *name, size_t *n)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	*n = 0;
	if (elf_getshdrstrndx(e, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *nm = gelf_getshdr(scn, &sh) ? elf_strptr(e, shstrndx, sh.sh_name) : NULL;
		if (nm && !strcmp(nm, name)) {
			Elf_Data *d = elf_getdata(scn, NULL);
			if (!d || !d->d_buf)
				return NULL;
			*n = d->d_size;
			return d->d_buf;
		}
	}
	return NULL;
}

struct tally {
	size_t units, ours, rows, trimmed;
};

/* both answers at addr: the same row (file and line) or none in both */
static void check_addr(const mp_dwline *t, Dwarf_Die *cu, uint64_t addr)
{
	const char *f = NULL;
	int ln = 0;
	int rc = mp_dwline_find(t, addr, &f, &ln);
	Dwarf_Line *l = dwarf_getsrc_die(cu, addr);
	if (!l) {
		assert_int_equal(rc, -1);
		return;
	}
	assert_int_equal(rc, 0);
	int dln = 0;
	const char *df = dwarf_linesrc(l, NULL, NULL);
	dwarf_lineno(l, &dln);
	assert_int_equal(ln, dln);
	assert_true(!f == !df);
	if (f)
		assert_string_equal(f, df);
}

static void check_unit(Dwarf_Die *cu, const struct mp_dwline_secs *s, struct tally *ty)
{
	Dwarf_Attribute at;
	Dwarf_Word off;
	uint8_t asz;
	Dwarf_Die cudie;
	if (!dwarf_attr(cu, DW_AT_stmt_list, &at) || dwarf_formudata(&at, &off) ||
	    !dwarf_diecu(cu, &cudie, &asz, NULL))
		return;
	ty->units++;
	const char *cd = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &at));
	mp_dwline *t = mp_dwline_read(s, off, asz, cd);
	Dwarf_Lines *lines;
	size_t n;
	if (!t)
		return;
	ty->ours++;
	assert_int_equal(mp_dwline_offset(t), off);
	/* a table mp_dwline reads is one libdw reads */
	assert_int_equal(dwarf_getsrclines(cu, &lines, &n), 0);
	for (size_t i = 0; i < n; i++) {
		Dwarf_Addr a;
		assert_int_equal(dwarf_lineaddr(dwarf_onesrcline(lines, i), &a), 0);
		check_addr(t, cu, a);
		check_addr(t, cu, a + 1);
		check_addr(t, cu, a - 1);
	}
	ty->rows += n;
	mp_dwline_free(t);
}

/* every unit of path, libdw on the whole file against mp_dwline on the sections of the
 * file as mp_dwtrim_open() leaves it for libdw (when it trims it); 0, or -1 when it has
 * no lines to compare */
static int check_file(const char *path, struct tally *ty)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	void *map = NULL;
	size_t maplen = 0;
	Elf *t = e ? mp_dwtrim_open(e, fd, &map, &maplen) : NULL;
	Dwarf *dw = e ? dwarf_begin_elf(e, DWARF_C_READ, NULL) : NULL;
	Dwarf *tdw = t ? dwarf_begin_elf(t, DWARF_C_READ, NULL) : NULL;
	Elf *se = tdw ? t : e;
	struct mp_dwline_secs s = { 0 };
	size_t n;
	if (tdw) {
		/* the sections line lookups never read are gone, those they read are there */
		ty->trimmed++;
		assert_null(sec_data(t, ".debug_loclists", &n));
		assert_null(sec_data(t, ".debug_aranges", &n));
		assert_non_null(sec_data(t, ".debug_info", &n));
	}
	if (dw) {
		s.line = sec_data(se, ".debug_line", &s.nline);
		s.line_str = sec_data(se, ".debug_line_str", &s.nline_str);
		s.str = sec_data(se, ".debug_str", &s.nstr);
	}
	int rc = s.line ? 0 : -1;
	Dwarf_Off o = 0, next;
	size_t hsize;
	while (!rc && dwarf_nextcu(dw, o, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(dw, o + hsize, &cu))
			check_unit(&cu, &s, ty);
		o = next;
	}
	if (dw)
		dwarf_end(dw);
	if (tdw)
		dwarf_end(tdw);
	if (t)
		elf_end(t);
	if (map)
		munmap(map, maplen);
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}

static char fixture[2][4096]; /* vector_static_gcc, parallel_static_gcc: found by main() */

/* The shared fixtures (DWARF 4, GCC 9) and this test itself (the toolchain's DWARF). */
static void mp_dwline_find__fixtures_and_self__as_libdw(void **state)
{
	(void)state;
	struct tally ty = { 0 };
	elf_version(EV_CURRENT);
	for (size_t i = 0; i < 2; i++)
		assert_int_equal(check_file(fixture[i], &ty), 0);
	assert_int_equal(check_file("/proc/self/exe", &ty), 0);
	/* every unit of these is one mp_dwline reads itself */
	assert_true(ty.units >= 8);
	assert_int_equal(ty.ours, ty.units);
	assert_true(ty.rows > 1000);
}

/* Debian's separate debug files (compressed sections, DWARF 5) where installed: up to
 * DWLINE_MAX of them (default 4; all with DWLINE_MAX=0), and the files of DWLINE_FILES. */
static void mp_dwline_find__debug_files__as_libdw(void **state)
{
	(void)state;
	glob_t g;
	if (glob("/usr/lib/debug/.build-id/*/*.debug", 0, NULL, &g)) {
		skip();
		return;
	}
	const char *mx = getenv("DWLINE_MAX");
	size_t max = mx ? strtoul(mx, NULL, 10) : 4, done = 0;
	struct tally ty = { 0 };
	elf_version(EV_CURRENT);
	for (size_t i = 0; i < g.gl_pathc && (!max || done < max); i++)
		done += check_file(g.gl_pathv[i], &ty) == 0;
	globfree(&g);
	/* and DWLINE_FILES (colon-separated) */
	char *more = getenv("DWLINE_FILES") ? strdup(getenv("DWLINE_FILES")) : NULL, *sp;
	for (char *f = more ? strtok_r(more, ":", &sp) : NULL; f; f = strtok_r(NULL, ":", &sp))
		done += check_file(f, &ty) == 0;
	free(more);
	print_message("%zu files (%zu trimmed), %zu units (%zu read by mp_dwline), %zu rows\n",
		      done, ty.trimmed, ty.units, ty.ours, ty.rows);
	if (done) {
		assert_true(ty.ours > 0);
		assert_true(ty.trimmed > 0); /* Debian's compress their sections */
	}
}

int main(void)
{
	const struct CMUnitTest plain[] = {
		cmocka_unit_test(mp_dwline_find__debug_files__as_libdw),
	};
	const struct CMUnitTest fixtures[] = {
		cmocka_unit_test(mp_dwline_find__fixtures_and_self__as_libdw),
	};
	int failed = cmocka_run_group_tests(plain, NULL, NULL);
	if (mp_test_fixture(fixture[0], sizeof(fixture[0]), MP_FIXTURE_VECTOR) ||
	    mp_test_fixture(fixture[1], sizeof(fixture[1]), MP_FIXTURE_PARALLEL))
		return mp_test_skipped(failed);
	return failed + cmocka_run_group_tests(fixtures, NULL, NULL);
}
