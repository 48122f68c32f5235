/* safe_truncate_shim.c - LD_PRELOAD shim of e2e_safe_truncate (test only, never linked into
 * memprof): the first time the program maps a file whose name ends with $MP_SHIM_CUT_NAME,
 * the file is cut to $MP_SHIM_CUT_SIZE bytes right after the mapping is made, as another
 * process truncating it would. The reader then touches pages past the end: SIGBUS, every
 * time, whatever the machine's load. "$MP_SHIM_CUT_NAME.cut" is created to show it ran. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static void *(*real)(void *, size_t, int, int, int, off_t);
	static int done;
	if (!real)
		real = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
	void *m = real(addr, len, prot, flags, fd, off);
	const char *name = getenv("MP_SHIM_CUT_NAME"), *size = getenv("MP_SHIM_CUT_SIZE");
	if (done || m == MAP_FAILED || fd < 0 || !name || !size)
		return m;
	char link[64], path[PATH_MAX];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0)
		return m;
	path[n] = 0;
	size_t pl = (size_t)n, nl = strlen(name);
	if (pl < nl || strcmp(path + pl - nl, name))
		return m;
	done = 1;
	if (truncate(path, atol(size)) == 0) {
		char mark[PATH_MAX + 8];
		snprintf(mark, sizeof(mark), "%s.cut", path);
		int mfd = open(mark, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (mfd >= 0)
			close(mfd);
	}
	return m;
}
