/* marker.c - the region markers: off (one branch) unless MEMPROF_CONTROL names a
 * collector's descriptors at load time. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "memprof/marker.h"

enum { MODE_OFF, MODE_MEMPROF, MODE_PERF };

/* Process-wide by nature: the descriptors are the process's, set once by the constructor
 * and switched off when the collector stops answering. */
static struct {
	volatile int mode;
	int ctl, ack;
	unsigned depth; /* open regions of the process (perf mode) */
	pthread_mutex_t lock;
} mk = { MODE_OFF, -1, -1, 0, PTHREAD_MUTEX_INITIALIZER };

static int parse_fds(const char *s, int *ctl, int *ack)
{
	char *e;
	long c = strtol(s, &e, 10), a;
	if (e == s || *e != ',' || c < 0 || c > 1 << 20)
		return -1;
	s = e + 1;
	a = strtol(s, &e, 10);
	if (e == s || *e || a < 0 || a > 1 << 20)
		return -1;
	*ctl = (int)c;
	*ack = (int)a;
	return 0;
}

__attribute__((constructor)) static void marker_init(void)
{
	const char *v = getenv(MEMPROF_CONTROL_ENV);
	int mode = MODE_OFF, ctl, ack;
	if (!v)
		return;
	if (!strncmp(v, "fd:", 3))
		mode = MODE_MEMPROF, v += 3;
	else if (!strncmp(v, "perf-fd:", 8))
		mode = MODE_PERF, v += 8;
	if (mode == MODE_OFF || parse_fds(v, &ctl, &ack))
		return;
	mk.ctl = ctl;
	mk.ack = ack;
	mk.mode = mode;
}

static int send_all(int fd, const char *p, size_t n)
{
	while (n) {
		/* a socket: no SIGPIPE when the collector is gone; a fifo: plain write */
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
		if (k < 0 && errno == ENOTSOCK)
			k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* perf answers "ack\n\0" (sizeof its tag); memprof does the same. */
static int wait_ack(int fd)
{
	char b[5];
	size_t got = 0;
	while (got < sizeof(b)) {
		ssize_t k = read(fd, b + got, sizeof(b) - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		got += (size_t)k;
	}
	return memcmp(b, "ack\n", 5) ? -1 : 0;
}

static int transact(const char *msg, size_t n, const char *name, size_t len)
{
	if (send_all(mk.ctl, msg, n) || (len && send_all(mk.ctl, name, len)) || wait_ack(mk.ack)) {
		mk.mode = MODE_OFF;
		return -1;
	}
	return 0;
}

static int marker_slow(int begin, const char *name, size_t len)
{
	char hdr[64];
	int rc = 0, n;

	if (len > MEMPROF_REGION_NAME_MAX)
		len = MEMPROF_REGION_NAME_MAX;
	pthread_mutex_lock(&mk.lock);
	if (mk.mode == MODE_MEMPROF) {
		n = snprintf(hdr, sizeof(hdr), "%s %ld %zu\n", begin ? "begin" : "end",
			     (long)syscall(SYS_gettid), len);
		rc = transact(hdr, (size_t)n, name, len);
	} else if (mk.mode == MODE_PERF) {
		if (begin && mk.depth++ == 0)
			rc = transact("enable\n", 7, NULL, 0);
		else if (!begin && mk.depth && --mk.depth == 0)
			rc = transact("disable\n", 8, NULL, 0);
	}
	pthread_mutex_unlock(&mk.lock);
	return rc;
}

int memprof_region_begin_n(const char *name, size_t len)
{
	if (__builtin_expect(mk.mode == MODE_OFF, 1))
		return 0;
	return marker_slow(1, name, len);
}

int memprof_region_end_n(const char *name, size_t len)
{
	if (__builtin_expect(mk.mode == MODE_OFF, 1))
		return 0;
	return marker_slow(0, name, len);
}

int memprof_region_begin(const char *name)
{
	if (__builtin_expect(mk.mode == MODE_OFF, 1))
		return 0;
	return marker_slow(1, name, name ? strlen(name) : 0);
}

int memprof_region_end(const char *name)
{
	if (__builtin_expect(mk.mode == MODE_OFF, 1))
		return 0;
	return marker_slow(0, name, name ? strlen(name) : 0);
}

int memprof_markers_active(void)
{
	return mk.mode != MODE_OFF;
}
