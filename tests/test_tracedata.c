/* test_tracedata.c - the tracing-data reader (mp_pd_trace_parse) and the tracepoint printer
 * (mp_pd_tp_print): payloads printed from event formats built here, as a 6.18 kernel's
 * tracefs writes them, with the text perf 6.1's libtraceevent prints for them; hostile
 * tracing data refused with its one-line message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_perfdata.h"

struct blob {
	uint8_t b[16384];
	size_t n;
};

static void put(struct blob *x, const void *p, size_t n)
{
	assert_true(x->n + n <= sizeof(x->b));
	memcpy(x->b + x->n, p, n);
	x->n += n;
}

static void put32(struct blob *x, uint32_t v)
{
	put(x, &v, 4);
}

static void put64(struct blob *x, uint64_t v)
{
	put(x, &v, 8);
}

/* Tracing data in perf's layout with one system "t" holding one event of format fmt. */
static void make(struct blob *x, const char *fmt)
{
	static const char hp[] = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n";
	x->n = 0;
	put(x, "\027\010\104tracing", 10);
	put(x, "0.6", 4);
	put(x, "\0\10", 2);
	put32(x, 4096);
	put(x, "header_page", 12);
	put64(x, sizeof(hp) - 1);
	put(x, hp, sizeof(hp) - 1);
	put(x, "header_event", 13);
	put64(x, 0);
	put32(x, 0); /* ftrace formats */
	put32(x, 1); /* systems */
	put(x, "t", 2);
	put32(x, 1);
	put64(x, strlen(fmt));
	put(x, fmt, strlen(fmt));
	put32(x, 0); /* kallsyms */
	put32(x, 0); /* printk formats */
	put64(x, 0); /* saved cmdlines */
}

#define COMMON                                                                                   \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"                 \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"                 \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"         \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char sched_switch[] =
	"name: sched_switch\nID: 372\nformat:\n" COMMON
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s "
	"next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, "
	"(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | "
	"0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)) ? __print_flags(REC->prev_state & "
	"((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | "
	"0x00000020 | 0x00000040) + 1) << 1) - 1), \"|\", { 0x00000001, \"S\" }, { 0x00000002, "
	"\"D\" }, { 0x00000004, \"T\" }, { 0x00000008, \"t\" }, { 0x00000010, \"X\" }, { "
	"0x00000020, \"Z\" }, { 0x00000040, \"P\" }, { 0x00000080, \"I\" }) : \"R\", "
	"REC->prev_state & (((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | "
	"0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) ? \"+\" : \"\", REC->next_comm, "
	"REC->next_pid, REC->next_prio\n";

struct sw {
	uint8_t common[8];
	char prev_comm[16];
	int32_t prev_pid, prev_prio;
	int64_t prev_state;
	char next_comm[16];
	int32_t next_pid, next_prio;
};

static const struct mp_pd_tp_event *one(struct blob *x, const char *fmt, mp_pd_trace **t)
{
	struct mp_err err = { 0 };
	make(x, fmt);
	*t = mp_pd_trace_parse(x->b, x->n, "td", &err);
	assert_non_null(*t);
	assert_int_equal(mp_pd_trace_nevents(*t), 1);
	return mp_pd_trace_event_at(*t, 0);
}

static void print__sched_switch__perf_text(void **state)
{
	(void)state;
	static const struct {
		int64_t st;
		const char *want;
		int line;
	} rows[] = {
		{ 1, "S", __LINE__ },      { 2, "D", __LINE__ },     { 0, "R", __LINE__ },
		{ 0x100, "R+", __LINE__ }, { 3, "S|D", __LINE__ },   { 0x80, "I", __LINE__ },
		{ 0x101, "S+", __LINE__ }, { 0x10, "X", __LINE__ },
	};
	struct blob x;
	mp_pd_trace *t;
	const struct mp_pd_tp_event *e = one(&x, sched_switch, &t);
	assert_string_equal(e->system, "t");
	assert_string_equal(e->name, "sched_switch");
	assert_int_equal(e->id, 372);
	assert_int_equal(e->nfields, 11);
	const struct mp_pd_tp_field *f = mp_pd_tp_field(e, "prev_state");
	assert_non_null(f);
	assert_int_equal(f->offset, 32);
	assert_int_equal(f->size, 8);
	assert_true(f->flags & MP_TPF_SIGNED);
	assert_true(mp_pd_tp_field(e, "prev_comm")->flags & MP_TPF_STRING);
	assert_string_equal(mp_pd_tp_field(e, "prev_pid")->type, "pid_t");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct sw r = { .prev_pid = 12, .prev_prio = 120, .prev_state = rows[i].st,
				.next_pid = 0, .next_prio = 139 };
		strcpy(r.prev_comm, "sleep");
		memcpy(r.next_comm, "swapper/17abcdefgh", 16); /* no NUL: 16 chars */
		struct mp_buf b = { 0 };
		char want[256];
		snprintf(want, sizeof(want), "prev_comm=sleep prev_pid=12 prev_prio=120 prev_state=%s "
			 "==> next_comm=swapper/17abcdef next_pid=0 next_prio=139", rows[i].want);
		assert_int_equal(mp_pd_tp_print(e, &r, sizeof(r), &b), 0);
		assert_int_equal(mp_buf_append(&b, "", 1), 0);
		if (strcmp(b.data, want))
			fail_msg("line %d: got '%s'", rows[i].line, b.data);
		uint64_t v;
		assert_int_equal(mp_pd_tp_num(e, "prev_pid", &r, sizeof(r), &v), 0);
		assert_int_equal(v, 12);
		assert_int_equal(mp_pd_tp_num(e, "prev_comm", &r, sizeof(r), &v), -ENOENT);
		assert_int_equal(mp_pd_tp_num(e, "next_prio", &r, 60, &v), -ERANGE);
		mp_buf_fini(&b);
	}
	mp_pd_trace_free(t);
}

/* One event with fields a (int, signed), u (unsigned int), l (unsigned long), p (pointer),
 * s (__data_loc char[]), then print format pf: the payload a=-5 u=7 l=0x340 p=0x7ffd s="/bin/sh" */
static void check_fmt(const char *pf, const char *want, int line)
{
	char fmt[2048];
	snprintf(fmt, sizeof(fmt),
		 "name: e\nID: 9\nformat:\n" COMMON
		 "\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n"
		 "\tfield:unsigned int u;\toffset:12;\tsize:4;\tsigned:0;\n"
		 "\tfield:unsigned long l;\toffset:16;\tsize:8;\tsigned:0;\n"
		 "\tfield:char * p;\toffset:24;\tsize:8;\tsigned:0;\n"
		 "\tfield:__data_loc char[] s;\toffset:32;\tsize:4;\tsigned:0;\n\n"
		 "print fmt: %s\n", pf);
	struct {
		uint8_t common[8];
		int32_t a;
		uint32_t u;
		uint64_t l, p;
		uint32_t s;
		char str[8];
	} r = { .a = -5, .u = 7, .l = 0x340, .p = 0x7ffd, .s = (8u << 16) | 36 };
	memcpy(r.str, "/bin/sh", 8);
	struct blob x;
	mp_pd_trace *t;
	const struct mp_pd_tp_event *e = one(&x, fmt, &t);
	struct mp_buf b = { 0 };
	assert_int_equal(mp_pd_tp_print(e, &r, sizeof(r), &b), 0);
	assert_int_equal(mp_buf_append(&b, "", 1), 0);
	if (strcmp(b.data, want))
		fail_msg("line %d: '%s' gave '%s', want '%s'", line, pf, b.data, want);
	mp_buf_fini(&b);
	mp_pd_trace_free(t);
}

#define GENERIC "a=-5 u=7 l=0x340 p=0x7ffd s=/bin/sh"

static void print__formats__libtraceevent_text(void **state)
{
	(void)state;
	static const struct {
		const char *pf, *want;
		int line;
	} rows[] = {
		{ "\"fd: 0x%08lx, buf: 0x%08lx\", ((unsigned long)(REC->u)), ((unsigned long)(REC->p))",
		  "fd: 0x00000007, buf: 0x00007ffd", __LINE__ },
		{ "\"0x%lx\", REC->l", "0x340", __LINE__ },
		{ "\"%d %u %x %03d\", REC->a, REC->a, REC->a, REC->u", "-5 4294967291 fffffffb 007",
		  __LINE__ },
		{ "\"%lld %llu %Lu\", REC->a, REC->a, REC->l", "-5 18446744073709551611 832", __LINE__ },
		{ "\"%hhx %hd %c%c %%\", REC->a, REC->a, 'x', REC->u + 60", "fb -5 xC %", __LINE__ },
		{ "\"filename=%s pid=%d\", __get_str(s), REC->a", "filename=/bin/sh pid=-5", __LINE__ },
		{ "\"%s\", __print_symbolic(REC->u, { 1, \"one\" }, { 7, \"seven\" })", "seven",
		  __LINE__ },
		{ "\"%s\", __print_symbolic(REC->u, { 1, \"one\" })", "0x7", __LINE__ },
		{ "\"%s\", __print_flags(REC->l, \"|\", { 0x40, \"A\" }, { 0x100, \"B\" })", "A|B|0x200",
		  __LINE__ },
		{ "\"%d %d %d %d\", REC->a < 0, REC->u >= 7, -REC->a * 3 % 4, !REC->u || ~0 == -1",
		  "1 1 3 1", __LINE__ },
		{ "\"%d\", (int)(REC->l >> 4) - (u8)0x1ff", "-203", __LINE__ },
		{ "\"%-5s|%5.2s|\", \"ab\" \"c\", \"xyz\"", "abc  |   xy|", __LINE__ },
		/* outside the subset: the fields, generically */
		{ "\"%pS\", REC->p", GENERIC, __LINE__ },
		{ "\"%s\", __print_hex(REC->p, 8)", GENERIC, __LINE__ },
		{ "\"%d\", REC->a / 0", GENERIC, __LINE__ },
		{ "\"%d %d\", REC->a", GENERIC, __LINE__ },
		{ "\"%d\", REC->a, REC->u", GENERIC, __LINE__ },
		{ "\"%d\", REC->nosuch", GENERIC, __LINE__ },
		{ "\"%s\", REC->a", GENERIC, __LINE__ },
		{ "\"%d\", REC->a +", GENERIC, __LINE__ },
		{ "\"unterminated", GENERIC, __LINE__ },
		{ "", GENERIC, __LINE__ },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		check_fmt(rows[i].pf, rows[i].want, rows[i].line);
}

static void print__short_payload__fields_out_of_bounds(void **state)
{
	(void)state;
	struct blob x;
	mp_pd_trace *t;
	const struct mp_pd_tp_event *e = one(&x, sched_switch, &t);
	struct sw r = { .prev_pid = 12 };
	strcpy(r.prev_comm, "a");
	struct mp_buf b = { 0 };
	assert_int_equal(mp_pd_tp_print(e, &r, 30, &b), 0);
	assert_int_equal(mp_buf_append(&b, "", 1), 0);
	assert_string_equal(b.data, "prev_comm=a prev_pid=12 prev_prio=[out of bounds] "
				    "prev_state=[out of bounds] next_comm=[out of bounds] "
				    "next_pid=[out of bounds] next_prio=[out of bounds]");
	mp_buf_fini(&b);
	mp_pd_trace_free(t);
}

static void parse__hostile__one_line_errors(void **state)
{
	(void)state;
	struct blob x;
	struct mp_err err = { 0 };
	make(&x, sched_switch);
	/* every cut: refused with a message naming the input, never read past it */
	for (size_t n = 0; n < x.n - 16; n++) {
		uint8_t *cut = malloc(n ? n : 1);
		memcpy(cut, x.b, n);
		mp_pd_trace *t = mp_pd_trace_parse(cut, n, "cut", &err);
		free(cut);
		if (t) /* the parts after the formats are not needed */
			mp_pd_trace_free(t);
		else
			assert_non_null(strstr(err.msg, "cut: tracing data: "));
		assert_null(strchr(err.msg, '\n'));
	}
	static const struct {
		const char *fmt, *msg;
		int line;
	} rows[] = {
		{ "name: x\nformat:\n", "td: tracing data: event format of t:x: no 'ID:' line at byte ",
		  __LINE__ },
		{ "ID: 3\nformat:\n", "td: tracing data: event format of t:?: no 'name:' line at byte ",
		  __LINE__ },
		{ "name: x\nID: 3\n\tfield:int a;\toffset:x;\tsize:4;\tsigned:1;\n",
		  "td: tracing data: event format of t:x: a malformed field line at byte ", __LINE__ },
		{ "name: x\nID: 3\n\tfield:;\toffset:0;\tsize:4;\tsigned:1;\n",
		  "td: tracing data: event format of t:x: a malformed field line at byte ", __LINE__ },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		make(&x, rows[i].fmt);
		assert_null(mp_pd_trace_parse(x.b, x.n, "td", &err));
		if (strncmp(err.msg, rows[i].msg, strlen(rows[i].msg)))
			fail_msg("line %d: '%s'", rows[i].line, err.msg);
	}
	make(&x, sched_switch);
	x.b[0] = 'X';
	assert_null(mp_pd_trace_parse(x.b, x.n, "td", &err));
	char want[80];
	snprintf(want, sizeof(want), "td: tracing data: bad magic at byte 0 of %zu", x.n);
	assert_string_equal(err.msg, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(print__sched_switch__perf_text),
		cmocka_unit_test(print__formats__libtraceevent_text),
		cmocka_unit_test(print__short_payload__fields_out_of_bounds),
		cmocka_unit_test(parse__hostile__one_line_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
