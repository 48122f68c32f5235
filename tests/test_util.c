/* Unit tests for util/: libraries loaded on first use (mp_dlib_open). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "mp_util.h"

struct libc_fns {
	size_t (*strlen)(const char *s);
	int (*abs)(int x);
};

static void mp_dlib_open__libc__functions_filled(void **state)
{
	(void)state;
	static const struct mp_dlib_sym syms[] = {
		{ "strlen", offsetof(struct libc_fns, strlen) },
		{ "abs", offsetof(struct libc_fns, abs) },
	};
	struct libc_fns f = { 0 };
	struct mp_err err = { 0, "" };
	assert_non_null(mp_dlib_open("libc.so.6", "the C library", syms, 2, &f, &err));
	assert_int_equal(f.strlen("memprof"), 7);
	assert_int_equal(f.abs(-3), 3);
	assert_int_equal(err.code, 0);
}

static void mp_dlib_open__missing_library__one_line_naming_it(void **state)
{
	(void)state;
	struct libc_fns f = { 0 };
	struct mp_err err = { 0, "" };
	assert_null(mp_dlib_open("libmemprof-none.so.9", "nothing, for the test", NULL, 0, &f, &err));
	assert_int_equal(err.code, -MP_ENOTSUP);
	assert_non_null(strstr(err.msg, "cannot load libmemprof-none.so.9 (nothing, for the test): "));
	assert_non_null(strstr(err.msg, "libmemprof-none.so.9: cannot open shared object file"));
	assert_null(strchr(err.msg, '\n'));
}

static void mp_dlib_open__missing_symbol__named(void **state)
{
	(void)state;
	static const struct mp_dlib_sym syms[] = {
		{ "strlen", offsetof(struct libc_fns, strlen) },
		{ "mp_no_such_function", offsetof(struct libc_fns, abs) },
	};
	struct libc_fns f = { 0 };
	struct mp_err err = { 0, "" };
	assert_null(mp_dlib_open("libc.so.6", "the C library", syms, 2, &f, &err));
	assert_string_equal(err.msg,
			    "cannot load libc.so.6 (the C library): no symbol mp_no_such_function");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mp_dlib_open__libc__functions_filled),
		cmocka_unit_test(mp_dlib_open__missing_library__one_line_naming_it),
		cmocka_unit_test(mp_dlib_open__missing_symbol__named),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
