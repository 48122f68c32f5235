#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mp_analyzer.h"

volatile sig_atomic_t cli_stop_flag;

static void cli_on_stop(int sig)
{
	cli_stop_flag = sig;
}

void cli_sigbus_exit(void)
{
	static const char msg[] = "memprof: a file being read was truncated by another process "
				  "while memprof had it mapped: stopped (no result)\n";
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(CLI_EXIT_RUNTIME);
	_exit(CLI_EXIT_RUNTIME);
}

static void cli_on_sigbus(int sig)
{
	(void)sig;
	cli_sigbus_exit();
}

void cli_install_sigbus_handler(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = cli_on_sigbus;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

void cli_install_stop_handler(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = cli_on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* One line on stderr: "memprof CMD: " KIND and the message. */
static void say(const char *cmd, const char *kind, const char *fmt, va_list ap)
{
	fprintf(stderr, "memprof %s: %s", cmd, kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* Error lines printed so far: main adds no second line about an unwritable stdout to a
 * command that already said why it failed. */
static unsigned cli_nerrors;

void cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(cmd, "", fmt, ap);
	va_end(ap);
	cli_nerrors++;
}

unsigned cli_errors_printed(void)
{
	return cli_nerrors;
}

void cli_warn(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(cmd, "warning: ", fmt, ap);
	va_end(ap);
}

const char *cli_default_input(void)
{
	if (access("memprof.data", F_OK) == 0)
		return "memprof.data";
	if (access("perf.data", F_OK) == 0)
		return "perf.data";
	return "memprof.data";
}

const char *cli_default_input_of(const char *cmd)
{
	const char *in = cli_default_input();
	if (access(in, F_OK) == 0)
		return in;
	cli_error(cmd, "no memprof.data or perf.data in the current directory (name a recording "
		  "with -i FILE)");
	return NULL;
}

void cli_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; p && *p;) {
		unsigned c = *p, len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 :
				      (c & 0xf8) == 0xf0 ? 4 : 0;
		uint32_t cp = len == 1 ? c : len == 2 ? c & 0x1f : len == 3 ? c & 0x0f : c & 0x07;
		for (unsigned k = 1; k < len; k++) {
			if ((p[k] & 0xc0) != 0x80) {
				len = 0; /* cut short */
				break;
			}
			cp = cp << 6 | (p[k] & 0x3f);
		}
		/* valid UTF-8 only: overlong forms, surrogates and bytes that start nothing are
		 * written as U+FFFD, one per byte */
		if (!len || (len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
		    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp < 0xe000)) {
			fputs("\\ufffd", f);
			p++;
			continue;
		}
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) /* C0, DEL, C1 */
			fprintf(f, "\\u%04x", (unsigned)cp);
		else
			fwrite(p, 1, len, f);
		p += len;
	}
	fputc('"', f);
}

const char *cli_nl(const char *s, char *buf, size_t n)
{
	if (!s || !strchr(s, '\n') || n < 3)
		return s;
	size_t o = 0;
	for (; *s && o + 3 <= n; s++) {
		if (*s == '\n') {
			buf[o++] = '\\';
			buf[o++] = 'n';
		} else {
			buf[o++] = *s;
		}
	}
	buf[o] = 0;
	return buf;
}

void cli_csv_str(FILE *f, const char *s)
{
	if (!s)
		s = "";
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* A temporary file "PATH.tmp.XXXXXX" of a record to path that never finished (killed),
 * owned by us: its name into buf (n bytes), 1; else 0. */
static int leftover_of(const char *path, char *buf, size_t n)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + (slash == path) : 1,
		 slash ? path : ".");
	const char *base = slash ? slash + 1 : path;
	size_t blen = strlen(base);
	int found = 0;
	DIR *d = opendir(dir);
	for (struct dirent *e; d && !found && (e = readdir(d));) {
		struct stat st;
		found = !strncmp(e->d_name, base, blen) && !strncmp(e->d_name + blen, ".tmp.", 5) &&
			strlen(e->d_name + blen + 5) == 6 &&
			!fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
			S_ISREG(st.st_mode) && st.st_uid == geteuid();
		if (found)
			snprintf(buf, n, "%s%s%s", slash ? dir : "", slash && slash != path ? "/" : "",
				 e->d_name);
	}
	if (d)
		closedir(d);
	return found;
}

int cli_input_owner_ok(const char *cmd, const char *paths, int force)
{
	/* paths: one recording, or several joined with ',' (repeated -i) */
	for (const char *p = paths; !force && *p;) {
		size_t n = strcspn(p, ",");
		char path[4096];
		struct stat st;

		if (n < sizeof(path)) {
			memcpy(path, p, n);
			path[n] = 0;
			char left[4200];
			if (strcmp(path, "-") && stat(path, &st) && errno == ENOENT &&
			    leftover_of(path, left, sizeof(left))) {
				cli_error(cmd, "%s: no such file; %s was left by a record that did "
					  "not finish (killed?): memprof %s -i %s reads it", path, left,
					  cmd, left);
				return CLI_EXIT_RUNTIME;
			}
			if (strcmp(path, "-") && !stat(path, &st) && st.st_uid != geteuid() &&
			    st.st_uid != 0) {
				cli_error(cmd, "%s: owned by another user (uid %u), not by you or "
					  "root: not read (--force reads it, as perf -f)", path,
					  (unsigned)st.st_uid);
				return CLI_EXIT_RUNTIME;
			}
		}
		p += n + (p[n] == ',');
	}
	return 0;
}

int cli_input_ready(const char *cmd, const char **input, int force)
{
	if (!*input && !(*input = cli_default_input_of(cmd)))
		return CLI_EXIT_RUNTIME;
	return cli_input_owner_ok(cmd, *input, force);
}

int cli_input_arg(const char *cmd, const char **input, int nargs, char **argv)
{
	if (nargs == 0)
		return 0;
	if (*input || nargs > 1) {
		cli_error(cmd, "unexpected argument '%s' (the input file is -i FILE)", argv[1]);
		return CLI_EXIT_USAGE;
	}
	*input = argv[1];
	return 0;
}

int cli_sym_paths_ok(const char *cmd, const char *symfs, const char *kallsyms)
{
	struct stat st;
	if (symfs && (stat(symfs, &st) || !S_ISDIR(st.st_mode))) {
		cli_error(cmd, "--symfs %s: not a directory", symfs);
		return CLI_EXIT_RUNTIME;
	}
	if (kallsyms && strcmp(kallsyms, "/dev/null") && access(kallsyms, R_OK)) {
		cli_error(cmd, "--kallsyms %s: %s", kallsyms, strerror(errno));
		return CLI_EXIT_RUNTIME;
	}
	return 0;
}

char *cli_buildid_dir(const char *symfs)
{
	const char *e = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");
	char *out = NULL;
	if (symfs)
		return NULL;
	if (e && *e)
		return strdup(e);
	if (home && *home && asprintf(&out, "%s/.debug", home) < 0)
		out = NULL;
	return out;
}

void cli_print_help(const struct cli_cmd *cmd, const struct cli_opt *opts)
{
	printf("usage: memprof %s %s\n\n", cmd->name, cmd->usage);
	if (cmd->summary)
		printf("%s\n\n", cmd->summary);
	printf("options:\n");
	for (const struct cli_opt *o = opts; o && o->type != CLI_END; o++) {
		char left[64];
		int n = 0;
		if (o->short_name)
			n += snprintf(left + n, sizeof(left) - (size_t)n, "-%c%s", o->short_name,
				      o->long_name ? ", " : "");
		else
			n += snprintf(left + n, sizeof(left) - (size_t)n, "    ");
		if (o->long_name)
			n += snprintf(left + n, sizeof(left) - (size_t)n, "--%s", o->long_name);
		if (o->argname && n < (int)sizeof(left))
			snprintf(left + n, sizeof(left) - (size_t)n,
				 o->type == CLI_OPTSTR ? " [%s]" : " %s", o->argname);
		printf("  %-28s %s\n", left, o->help);
	}
	printf("  %-28s %s\n", "-h, --help", "show this help");
	printf("\nSee memprof-%s(1).\n", cmd->name);
}

static int cli_store(const char *cmd, const struct cli_opt *o, const char *val)
{
	char *end;
	const char *name = o->long_name ? o->long_name : (char[]){o->short_name, 0};

	switch (o->type) {
	case CLI_FLAG:
		(*(int *)o->dst)++;
		return 0;
	case CLI_STR:
	case CLI_OPTSTR:
		*(const char **)o->dst = val;
		return 0;
	case CLI_STRLIST: {
		char **dst = o->dst;
		size_t old = *dst ? strlen(*dst) : 0;
		char *s = realloc(*dst, old + strlen(val) + 2);
		if (!s) {
			cli_error(cmd, "out of memory");
			return CLI_EXIT_USAGE;
		}
		if (old)
			s[old++] = ',';
		strcpy(s + old, val);
		*dst = s;
		return 0;
	}
	case CLI_U64: {
		errno = 0;
		if (val[0] == '-')
			goto bad;
		unsigned long long v = strtoull(val, &end, 0);
		if (errno || end == val || *end)
			goto bad;
		*(uint64_t *)o->dst = v;
		return 0;
	}
	case CLI_INT: {
		errno = 0;
		long v = strtol(val, &end, 0);
		if (errno || end == val || *end || v < -2147483647L || v > 2147483647L)
			goto bad;
		*(int *)o->dst = (int)v;
		return 0;
	}
	case CLI_DOUBLE: {
		errno = 0;
		double v = strtod(val, &end);
		if (errno || end == val || *end)
			goto bad;
		*(double *)o->dst = v;
		return 0;
	}
	case CLI_END:
		break;
	}
bad:
	cli_error(cmd, "option '%s%s': bad value '%s'", o->long_name ? "--" : "-", name, val);
	return CLI_EXIT_USAGE;
}

int cli_parse(const struct cli_cmd *command, const struct cli_opt *opts, int argc, char **argv,
	      int *nargs)
{
	const char *cmd = command->name;
	int stop_at_arg = command->stop_at_arg;
	char **args = calloc((size_t)argc + 1, sizeof(*args));
	int nargs_found = 0, i;

	if (!args) {
		cli_error(cmd, "out of memory");
		return CLI_EXIT_USAGE;
	}
	for (i = 1; i < argc; i++) {
		char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (a[0] != '-' || a[1] == '\0') {
			if (stop_at_arg)
				break;
			args[nargs_found++] = a;
			continue;
		}
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			cli_print_help(command, opts);
			free(args);
			return 1;
		}
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t nl = eq ? (size_t)(eq - name) : strlen(name);
			const struct cli_opt *o;
			for (o = opts; o->type != CLI_END; o++)
				if (o->long_name && strlen(o->long_name) == nl &&
				    strncmp(o->long_name, name, nl) == 0)
					break;
			if (o->type == CLI_END) {
				cli_error(cmd, "unknown option '--%.*s' (see memprof %s --help)",
					  (int)nl, name, cmd);
				free(args);
				return CLI_EXIT_USAGE;
			}
			const char *val = NULL;
			if (o->type != CLI_FLAG) {
				if (eq)
					val = eq + 1;
				else if (o->type == CLI_OPTSTR && (i + 1 >= argc || argv[i + 1][0] == '-'))
					val = "";
				else if (i + 1 < argc)
					val = argv[++i];
				else {
					cli_error(cmd, "option '--%s' needs a value", o->long_name);
					free(args);
					return CLI_EXIT_USAGE;
				}
			} else if (eq) {
				cli_error(cmd, "option '--%s' takes no value", o->long_name);
				free(args);
				return CLI_EXIT_USAGE;
			}
			if (cli_store(cmd, o, val)) {
				free(args);
				return CLI_EXIT_USAGE;
			}
			continue;
		}
		/* short options, possibly bundled: -ag, -e cycles, -ecycles */
		for (const char *p = a + 1; *p; p++) {
			const struct cli_opt *o;
			for (o = opts; o->type != CLI_END; o++)
				if (o->short_name == *p)
					break;
			if (o->type == CLI_END) {
				cli_error(cmd, "unknown option '-%c' (see memprof %s --help)", *p, cmd);
				free(args);
				return CLI_EXIT_USAGE;
			}
			if (o->type == CLI_FLAG) {
				if (cli_store(cmd, o, NULL)) {
					free(args);
					return CLI_EXIT_USAGE;
				}
				continue;
			}
			const char *val;
			if (p[1])
				val = p + 1;
			else if (o->type == CLI_OPTSTR && (i + 1 >= argc || argv[i + 1][0] == '-'))
				val = "";
			else if (i + 1 < argc)
				val = argv[++i];
			else {
				cli_error(cmd, "option '-%c' needs a value", *p);
				free(args);
				return CLI_EXIT_USAGE;
			}
			if (cli_store(cmd, o, val)) {
				free(args);
				return CLI_EXIT_USAGE;
			}
			break;
		}
	}
	/* Reorder: options consumed, then collected args, then the rest verbatim. */
	int out = 1;
	int rest = i;
	char **tail = calloc((size_t)(argc - rest) + 1, sizeof(*tail));
	if (!tail) {
		free(args);
		cli_error(cmd, "out of memory");
		return CLI_EXIT_USAGE;
	}
	for (int k = rest; k < argc; k++)
		tail[k - rest] = argv[k];
	for (int k = 0; k < nargs_found; k++)
		argv[out++] = args[k];
	for (int k = 0; k < argc - rest; k++)
		argv[out++] = tail[k];
	for (int k = out; k < argc; k++)
		argv[k] = NULL;
	free(tail);
	free(args);
	if (nargs) {
		*nargs = out - 1;
		return 0;
	}
	if (out > 1) {
		cli_error(cmd, "unexpected argument '%s' (the input file is -i FILE)", argv[1]);
		return CLI_EXIT_USAGE;
	}
	return 0;
}

static const char *event_name(const struct mp_pd_attr *a)
{
	return a->spec && *a->spec ? a->spec : a->name ? a->name : "";
}

int cli_select_events(const char *cmd, const struct mp_pd *pd, const char *list, size_t *ev,
		      size_t *nev)
{
	size_t na = mp_pd_nattrs(pd), n = 0;
	if (!strcmp(list, "all"))
		return 0; /* every sampled event, as without -e (and without the key columns) */
	for (const char *p = list; *p;) {
		size_t k = strcspn(p, ","), i;
		for (i = 0; i < na; i++) {
			const struct mp_pd_attr *a = mp_pd_attr(pd, i);
			if ((strlen(event_name(a)) == k && !strncmp(event_name(a), p, k)) ||
			    (a->name && strlen(a->name) == k && !strncmp(a->name, p, k)))
				break;
		}
		if (i == na) {
			char names[512] = "";
			for (size_t j = 0; j < na; j++) {
				size_t len = strlen(names);
				snprintf(names + len, sizeof(names) - len, "%s%s", j ? ", " : "",
					 event_name(mp_pd_attr(pd, j)));
			}
			cli_error(cmd, "-e: no event '%.*s' in the recording (it has %s)", (int)k, p,
				  names);
			return CLI_EXIT_USAGE;
		}
		size_t j;
		for (j = 0; j < n && ev[j] != i; j++)
			;
		if (j == n)
			ev[n++] = i;
		p += k + (p[k] == ',');
	}
	if (!n) {
		cli_error(cmd, "-e: no event named");
		return CLI_EXIT_USAGE;
	}
	*nev = n;
	return 0;
}

size_t cli_sim_key_events(const struct mp_pd *pd, size_t *ev, size_t nev, size_t max, char *note,
			  size_t len)
{
	/* instructions (the work), then the data misses at L1 and the last level, reads first */
	static const char *const key[] = { "Ir", "D1mr", "DLmr", "D1mw", "DLmw" };
	size_t *rest = calloc(nev + 1, sizeof(size_t)), nk = 0, nr = 0;
	int *used = calloc(nev + 1, sizeof(int));
	if (note && len)
		note[0] = 0;
	if (!rest || !used || !mp_pd_meta(pd, MP_META_SIMULATED) || nev <= CLI_SIM_MANY_EVENTS)
		goto out;
	size_t *kept = rest; /* the key events first, into rest, then the others after them */
	for (size_t k = 0; k < sizeof(key) / sizeof(key[0]) && nk < max; k++)
		for (size_t j = 0; j < nev; j++)
			if (!used[j] && !strcmp(event_name(mp_pd_attr(pd, ev[j])), key[k])) {
				used[j] = 1;
				kept[nk++] = ev[j];
				break;
			}
	if (nk < 2)
		goto out;
	nr = nk;
	for (size_t j = 0; j < nev; j++)
		if (!used[j])
			kept[nr++] = ev[j];
	memcpy(ev, kept, nev * sizeof(size_t));
	if (note && len) {
		size_t w = (size_t)snprintf(note, len, "# columns: %zu of the %zu simulated events (instructions, L1 and last-level data misses); not shown:",
					    nk, nev);
		for (size_t j = nk; j < nev && w < len; j++)
			w += (size_t)snprintf(note + w, len - w, "%s %s", j > nk ? "," : "",
					      event_name(mp_pd_attr(pd, ev[j])));
		if (w < len)
			snprintf(note + w, len - w, " (-e NAMES to choose, -e all for every one)");
	}
	nev = nk;
out:
	free(rest);
	free(used);
	return nev;
}

/* The host's coherency line size (sysfs), else 64. */
unsigned cli_host_line_size(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size", "r");
	unsigned v = 0;
	if (f) {
		if (fscanf(f, "%u", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v && v <= 4096 && !(v & (v - 1)) ? v : 64;
}
