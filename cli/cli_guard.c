/* cli_guard.c - standard output of the text commands with the control characters that a
 * recording's names and sources may carry made visible: an escape sequence from a symbol,
 * a comm or a source line must not retitle, clear or answer the user's terminal, nor a
 * carriage return overwrite a line. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "cli.h"

struct guard {
	int fd;
	int held_c2; /* the last chunk ended in 0xc2: a C1 control may follow */
};

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Whether c is written as it is (not a control, nor the first byte of a C1 control's
 * UTF-8 form). */
static inline int guard_plain(unsigned char c)
{
	return (c >= 0x20 || c == '\n' || c == '\t') && c != 0x7f && c != 0xc2;
}

static ssize_t guard_write(void *cookie, const char *buf, size_t size)
{
	struct guard *g = cookie;
	/* the common case, a buffer of plain text, written as it is: the byte loop below was
	 * a sixth of memprof script's time */
	size_t plain = 0;
	while (plain < size && guard_plain((unsigned char)buf[plain]))
		plain++;
	if (plain == size && !g->held_c2)
		return write_all(g->fd, buf, size) ? -1 : (ssize_t)size;
	char out[4 * 4096 + 16];
	size_t o = 0;
	for (size_t i = 0; i < size; i++) {
		unsigned char c = (unsigned char)buf[i];
		if (g->held_c2) {
			g->held_c2 = 0;
			if (c >= 0x80 && c <= 0x9f) { /* U+0080..U+009F: the C1 controls */
				o += (size_t)snprintf(out + o, sizeof(out) - o, "\\u%04x", c);
				goto next;
			}
			out[o++] = (char)0xc2;
		}
		if (c == 0xc2)
			g->held_c2 = 1;
		else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
			o += (size_t)snprintf(out + o, sizeof(out) - o, "\\x%02x", c);
		else
			out[o++] = (char)c;
next:
		if (o > sizeof(out) - 16) {
			if (write_all(g->fd, out, o))
				return -1;
			o = 0;
		}
	}
	if (o && write_all(g->fd, out, o))
		return -1;
	return (ssize_t)size;
}

static int guard_close(void *cookie)
{
	struct guard *g = cookie;
	if (g->held_c2 && write_all(g->fd, "\xc2", 1))
		return -1;
	g->held_c2 = 0;
	return 0;
}

int cli_text_guard(int argc, char **argv)
{
	static struct guard g;
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--tui") || !strcmp(argv[i], "--json"))
			return 0; /* curses draws its own (escaped) screen; JSON escapes itself */
	g.fd = STDOUT_FILENO;
	cookie_io_functions_t io = { .write = guard_write, .close = guard_close };
	FILE *f = fopencookie(&g, "w", io);
	if (!f)
		return -1;
	setvbuf(f, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, 1 << 16);
	fflush(stdout);
	stdout = f;
	return 0;
}
