/* mp_alloc_spool.c - record --alloc's side of the preload library: where the library is,
 * the spool folder, and the spool read into the recording's allocation records. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mp_alloc.h"

int mp_alloc_lib_path(char *path, size_t len, struct mp_err *err)
{
	const char *env = getenv(MP_ALLOC_ENV_LIB);
	if (env && *env) {
		snprintf(path, len, "%s", env);
		if (access(path, R_OK))
			return mp_err_set(err, -ENOENT, "%s (from %s): %s", path, MP_ALLOC_ENV_LIB,
					  strerror(errno));
		return 0;
	}
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return mp_err_set(err, -ENOENT, "/proc/self/exe: cannot find memprof's folder");
	exe[n] = 0;
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = 0;
	static const char *const rel[] = { "lib/memprof", "../lib/memprof" };
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(path, len, "%s/%s/%s", exe, rel[i], MP_ALLOC_LIB_NAME);
		if (!access(path, R_OK))
			return 0;
	}
	return mp_err_set(err, -ENOENT, "%s is not in %s/lib/memprof nor %s/../lib/memprof (set %s "
			  "to its path)", MP_ALLOC_LIB_NAME, exe, exe, MP_ALLOC_ENV_LIB);
}

int mp_alloc_spool_new(char *dir, size_t len, struct mp_err *err)
{
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp)
		tmp = "/tmp";
	snprintf(dir, len, "%s/memprof-alloc.XXXXXX", tmp);
	if (!mkdtemp(dir))
		return mp_err_set(err, -errno, "%s: cannot make the allocation spool: %s", dir,
				  strerror(errno));
	return 0;
}

int mp_alloc_spool_parse(const void *buf, size_t len, const char *name, mp_pdw *w,
			 struct mp_alloc_stats *st)
{
	const unsigned char *p = buf;
	struct mp_alloc_spool_head h;
	if (len < sizeof(h)) {
		mp_log(MP_LOG_WARN, "%s: allocation spool of %zu bytes, shorter than its head: "
		       "left out", name, len);
		st->bad++;
		return 0;
	}
	memcpy(&h, p, sizeof(h));
	if (h.magic != MP_ALLOC_SPOOL_MAGIC || h.version != 1) {
		mp_log(MP_LOG_WARN, "%s: not an allocation spool (magic %#" PRIx64 ", version %u): "
		       "left out", name, h.magic, h.version);
		st->bad++;
		return 0;
	}
	st->files++;
	uint64_t ips[MP_ALLOC_WIRE_DEPTH];
	size_t off = sizeof(h);
	while (off < len) {
		struct mp_alloc_wire r;
		if (len - off < sizeof(r)) {
			mp_log(MP_LOG_WARN, "%s: allocation spool ends inside a record at byte %zu: "
			       "the rest left out", name, off);
			st->bad++;
			break;
		}
		memcpy(&r, p + off, sizeof(r));
		if (r.nr > MP_ALLOC_WIRE_DEPTH || r.size != sizeof(r) + 8u * r.nr ||
		    r.size > len - off || r.kind < 1 || r.kind > MP_ALLOC_KIND_MAX) {
			mp_log(MP_LOG_WARN, "%s: bad allocation record at byte %zu (size %u, kind %u, "
			       "%u frames): the rest left out", name, off, r.size, r.kind, r.nr);
			st->bad++;
			break;
		}
		for (unsigned i = 0; i < r.nr; i++)
			ips[i] = mp_ld64(p + off + sizeof(r) + 8 * i);
		off += r.size;
		struct mp_alloc_rec a = { .time = r.time, .addr = r.addr, .size = r.size_bytes,
					  .old = r.old, .pid = h.pid, .tid = r.tid,
					  .site = MP_ALLOC_NO_SITE, .kind = r.kind };
		int rc;
		if (r.kind == MP_ALLOC_LOST) {
			st->lost += r.size_bytes;
			mp_pdw_alloc_lost(w, r.size_bytes);
		}
		if (r.kind == MP_ALLOC_FORK || r.kind == MP_ALLOC_EXEC) {
			/* the process's own record: its pid is the file's, its tid the thread
			 * that forked or started */
			a.tid = h.pid;
		} else if (r.nr && (rc = mp_pdw_alloc_site(w, h.pid, ips, r.nr, &a.site))) {
			return rc;
		}
		if ((rc = mp_pdw_alloc_add(w, &a)))
			return rc;
		st->records++;
	}
	return 0;
}

static int collect_one(const char *dir, const char *leaf, mp_pdw *w, struct mp_alloc_stats *st,
		       struct mp_err *err)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, leaf);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		mp_log(MP_LOG_WARN, "%s: %s: left out", path, strerror(errno));
		st->bad++;
		return 0;
	}
	struct stat sb;
	int rc = 0;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		mp_log(MP_LOG_WARN, "%s: not a regular file: left out", path);
		st->bad++;
	} else if (sb.st_size > 0) {
		void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m == MAP_FAILED) {
			rc = mp_err_set(err, -errno, "%s: mmap: %s", path, strerror(errno));
		} else {
			rc = mp_alloc_spool_parse(m, (size_t)sb.st_size, path, w, st);
			if (rc)
				mp_err_set(err, rc, "%s: allocation records: %s", path, strerror(-rc));
			munmap(m, (size_t)sb.st_size);
		}
	}
	close(fd);
	return rc;
}

int mp_alloc_spool_collect(const char *dir, mp_pdw *w, struct mp_alloc_stats *st,
			   struct mp_err *err)
{
	memset(st, 0, sizeof(*st));
	DIR *d = opendir(dir);
	if (!d)
		return mp_err_set(err, -errno, "%s: %s", dir, strerror(errno));
	int rc = 0;
	struct dirent *e;
	while (!rc && (e = readdir(d)))
		if (e->d_name[0] != '.')
			rc = collect_one(dir, e->d_name, w, st, err);
	closedir(d);
	mp_alloc_spool_remove(dir);
	return rc;
}

void mp_alloc_spool_remove(const char *dir)
{
	if (!dir || !*dir)
		return;
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)))
			if (e->d_name[0] != '.')
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	rmdir(dir);
}
