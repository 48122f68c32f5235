/* Unit tests for util/: libraries loaded on first use (mp_dlib_open), growable arrays,
 * the u64 map, the TSV reader. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
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

/* ---- growable arrays ---- */
static void mp_grow__one_at_a_time__capacity_doubles_from_16_and_keeps_values(void **state)
{
	(void)state;
	int *v = NULL;
	size_t n = 0, cap = 0;
	size_t caps[5] = { 0 }, ncaps = 0;
	for (int i = 0; i < 100; i++) {
		size_t before = cap;
		assert_int_equal(MP_GROW(v, cap, n + 1), 0);
		if (cap != before)
			caps[ncaps++] = cap;
		v[n++] = i * 3;
	}
	assert_int_equal(ncaps, 4);
	assert_int_equal(caps[0], 16);
	assert_int_equal(caps[1], 32);
	assert_int_equal(caps[2], 64);
	assert_int_equal(caps[3], 128);
	for (int i = 0; i < 100; i++)
		assert_int_equal(v[i], i * 3);
	/* enough room already: nothing moves */
	int *same = v;
	assert_int_equal(MP_GROW(v, cap, 128), 0);
	assert_ptr_equal(v, same);
	assert_int_equal(cap, 128);
	free(v);
}

static void mp_grow__size_overflows__enomem_and_array_unchanged(void **state)
{
	(void)state;
	uint64_t *v = NULL;
	size_t cap = 0;
	assert_int_equal(MP_GROW(v, cap, SIZE_MAX / 4), -ENOMEM);
	assert_null(v);
	assert_int_equal(cap, 0);
	assert_int_equal(MP_GROW(v, cap, 3), 0);
	v[2] = 7;
	assert_int_equal(MP_GROW(v, cap, SIZE_MAX), -ENOMEM);
	assert_int_equal(cap, 16);
	assert_int_equal(v[2], 7);
	free(v);
}

static void mp_grow_zero__grown_part__zeroed(void **state)
{
	(void)state;
	uint32_t *v = NULL;
	size_t cap = 0;
	assert_int_equal(MP_GROW_ZERO(v, cap, 5), 0);
	assert_int_equal(cap, 16);
	for (size_t i = 0; i < cap; i++)
		v[i] = 0xdeadbeef;
	assert_int_equal(MP_GROW_ZERO(v, cap, 40), 0);
	assert_int_equal(cap, 64);
	for (size_t i = 0; i < cap; i++)
		assert_int_equal(v[i], i < 16 ? 0xdeadbeef : 0);
	free(v);
}

static void mp_grow2__two_columns__one_capacity_both_hold_it(void **state)
{
	(void)state;
	char **name = NULL;
	uint64_t *count = NULL;
	size_t n = 0, cap = 0;
	for (; n < 40; n++) {
		assert_int_equal(MP_GROW2(name, count, cap, n + 1), 0);
		name[n] = NULL;
		count[n] = n;
	}
	assert_int_equal(cap, 64);
	assert_int_equal(count[39], 39);
	assert_int_equal(MP_GROW2(name, count, cap, SIZE_MAX / 2), -ENOMEM);
	assert_int_equal(cap, 64);
	free(name);
	free(count);
}

/* A forked process's maps: the child's array becomes a copy (count and capacity the
 * source's), its old one freed; an empty source gives an empty array; an overflowing size
 * is refused with the array unchanged. */
static void mp_array_copy__source__replaces_array(void **state)
{
	(void)state;
	const uint32_t src[3] = { 7, 8, 9 };
	uint32_t *a = malloc(40 * sizeof(*a));
	size_t n = 40, cap = 40;
	assert_non_null(a);
	assert_int_equal(MP_ARRAY_COPY(a, n, cap, src, 3), 0);
	assert_int_equal(n, 3);
	assert_int_equal(cap, 3);
	assert_memory_equal(a, src, sizeof(src));
	assert_ptr_not_equal(a, src);
	assert_int_equal(mp_array_copy((void **)&a, &n, &cap, src, SIZE_MAX / 2, 4), -ENOMEM);
	assert_int_equal(n, 3);
	assert_int_equal(a[2], 9);
	assert_int_equal(MP_ARRAY_COPY(a, n, cap, src, 0), 0);
	assert_int_equal(n, 0);
	assert_non_null(a);
	free(a);
}

/* ---- the u64 -> u32 map ---- */
static void mp_u64map__many_keys__each_found_with_its_value(void **state)
{
	(void)state;
	struct mp_u64map m = { 0 };
	int found;
	assert_null(mp_u64map_get(&m, 1));
	for (uint64_t k = 0; k < 5000; k++) {
		uint32_t *slot = mp_u64map_slot(&m, k * 0x10001, &found);
		assert_non_null(slot);
		assert_int_equal(found, 0);
		*slot = (uint32_t)k + 1;
	}
	assert_int_equal(m.n, 5000);
	assert_true(m.cap >= 10000);
	for (uint64_t k = 0; k < 5000; k++) {
		const uint32_t *v = mp_u64map_get(&m, k * 0x10001);
		assert_non_null(v);
		assert_int_equal(*v, k + 1);
	}
	assert_null(mp_u64map_get(&m, 3));
	uint32_t *again = mp_u64map_slot(&m, 7 * 0x10001, &found);
	assert_int_equal(found, 1);
	assert_int_equal(*again, 8);
	/* the slot a failed caller made goes again */
	uint32_t *fresh = mp_u64map_slot(&m, 12345678901ULL, &found);
	assert_int_equal(found, 0);
	mp_u64map_unslot(&m, fresh);
	assert_null(mp_u64map_get(&m, 12345678901ULL));
	assert_int_equal(m.n, 5000);
	assert_int_equal(mp_u64map_key(UINT64_MAX), UINT64_MAX - 1);
	mp_u64map_fini(&m);
	assert_int_equal(m.cap, 0);
	assert_null(m.keys);
}

static void mp_strhash__strings__equal_for_equal_text_zero_for_null(void **state)
{
	(void)state;
	char a[] = "L2_LINES_IN", b[] = "L2_LINES_IN";
	assert_true(mp_strhash(a) == mp_strhash(b));
	assert_true(mp_strhash("L2_LINES_IN") != mp_strhash("L2_LINES_IM"));
	assert_true(mp_strhash(NULL) == 0);
	assert_true(mp_streq(a, b));
	assert_true(mp_streq(NULL, NULL));
	assert_false(mp_streq(a, NULL));
	assert_true(mp_mix64(1) != mp_mix64(2));
}

/* ---- the TSV reader ---- */
static const struct {
	const char *text;
	int rc;           /* of the last mp_tsv_next: 0 at the end, or the error */
	size_t rows;      /* rows read before it */
	const char *last; /* the last row read, fields joined by '|', or the message */
	int line;
} tsv_cases[] = {
	{ "h1\th2\th3\nA\tB\tC\n", 0, 1, "A|B|C", __LINE__ },
	{ "# c\n\nh1\th2\th3\r\n# more\nA\tB\r\n\nD\tE\tF", 0, 2, "D|E|F", __LINE__ },
	{ "h1\th2\th3\nA\n", -MP_EPARSE, 0, "t.tsv:2: 1 columns, expected 2 to 3 (h1, h2, h3)",
	  __LINE__ },
	{ "h1\th2\th3\nA\tB\n\n#\nA\tB\tC\tD\n", -MP_EPARSE, 1,
	  "t.tsv:5: 4 columns, expected 2 to 3 (h1, h2, h3)", __LINE__ },
	{ "h1\th2\nA\tB\n", -MP_EPARSE, 0, "t.tsv:1: expected the header h1, h2, h3", __LINE__ },
	{ "# only comments\n\n", -MP_EPARSE, 0, "t.tsv: no header row (h1, h2, h3)", __LINE__ },
	{ "", -MP_EPARSE, 0, "t.tsv: no header row (h1, h2, h3)", __LINE__ },
	{ "h1\th2\th3\n\tB\t\n", 0, 1, "|B|", __LINE__ },
};

static void mp_tsv_next__table__rows_or_file_line_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(tsv_cases) / sizeof(tsv_cases[0]); i++) {
		char *text = strdup(tsv_cases[i].text), got[128] = "";
		struct mp_err err = { 0 };
		struct mp_tsv t;
		size_t rows = 0;
		int rc;
		mp_tsv_init(&t, text, "t.tsv", "h1\th2\th3", 2, 3);
		while ((rc = mp_tsv_next(&t, &err)) > 0) {
			rows++;
			snprintf(got, sizeof(got), "%s|%s|%s", t.f[0], t.f[1], t.f[2]);
		}
		const char *want_text = rc ? err.msg : got;
		if (rc != tsv_cases[i].rc || rows != tsv_cases[i].rows ||
		    strcmp(want_text, tsv_cases[i].last))
			fail_msg("case at line %d: rc %d, %zu rows, '%s'", tsv_cases[i].line, rc, rows,
				 want_text);
		free(text);
	}
}

static void mp_tsv_copy__too_long__error_names_column_and_line(void **state)
{
	(void)state;
	char text[] = "name\tnote\n#\nshort\tthis note is long\n", dst[8];
	struct mp_err err = { 0 };
	struct mp_tsv t;
	mp_tsv_init(&t, text, "n.tsv", "name\tnote", 2, 2);
	assert_int_equal(mp_tsv_next(&t, &err), 1);
	assert_int_equal(t.line, 3);
	assert_int_equal(mp_tsv_copy(&t, 0, "name", dst, sizeof(dst), &err), 0);
	assert_string_equal(dst, "short");
	assert_int_equal(mp_tsv_copy(&t, 1, "note", dst, sizeof(dst), &err), -MP_EPARSE);
	assert_string_equal(err.msg, "n.tsv:3: note: 17 characters, at most 7");
	assert_int_equal(mp_tsv_error(&t, &err, -EINVAL, "bad %s", "x"), -EINVAL);
	assert_string_equal(err.msg, "n.tsv:3: bad x");
	assert_int_equal(mp_tsv_next(&t, &err), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mp_dlib_open__libc__functions_filled),
		cmocka_unit_test(mp_dlib_open__missing_library__one_line_naming_it),
		cmocka_unit_test(mp_dlib_open__missing_symbol__named),
		cmocka_unit_test(mp_grow__one_at_a_time__capacity_doubles_from_16_and_keeps_values),
		cmocka_unit_test(mp_grow__size_overflows__enomem_and_array_unchanged),
		cmocka_unit_test(mp_grow_zero__grown_part__zeroed),
		cmocka_unit_test(mp_grow2__two_columns__one_capacity_both_hold_it),
		cmocka_unit_test(mp_array_copy__source__replaces_array),
		cmocka_unit_test(mp_u64map__many_keys__each_found_with_its_value),
		cmocka_unit_test(mp_strhash__strings__equal_for_equal_text_zero_for_null),
		cmocka_unit_test(mp_tsv_next__table__rows_or_file_line_errors),
		cmocka_unit_test(mp_tsv_copy__too_long__error_names_column_and_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
