/* mp_archive.c - what a recording needs to be reported elsewhere, as perf's build-id cache
 * in a tar file (memprof archive), and the tar read back (report --archive).
 *
 * Layout, relative to ~/.debug (perf's build-id cache, perf archive's):
 *   <path>/<build-id>/elf          the object as it was found
 *   <path>/<build-id>/debug        its separate debug information, when there is one
 *   [kernel.kallsyms]/<build-id>/kallsyms
 *   .build-id/<xx>/<yyyy...>       symlink to ../../<path>/<build-id>
 * The tar is POSIX ustar, uncompressed: it is read in place, member by member. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mp_analyzer.h"

#define TAR_BLOCK 512

struct ustar {
	char name[100], mode[8], uid[8], gid[8], size[12], mtime[12], chksum[8], typeflag;
	char linkname[100], magic[6], version[2], uname[32], gname[32], devmajor[8],
		devminor[8], prefix[155], pad[12];
};
_Static_assert(sizeof(struct ustar) == TAR_BLOCK, "ustar header is one block");

/* Split path into ustar prefix/name; -1 when it does not fit. */
static int ustar_name(struct ustar *h, const char *path)
{
	size_t n = strlen(path);
	if (n < sizeof(h->name)) {
		memcpy(h->name, path, n);
		return 0;
	}
	for (const char *s = path + n - 1; s > path; s--) {
		if (*s != '/')
			continue;
		size_t pre = (size_t)(s - path), rest = n - pre - 1;
		if (pre <= sizeof(h->prefix) && rest < sizeof(h->name) && rest > 0) {
			memcpy(h->prefix, path, pre);
			memcpy(h->name, s + 1, rest);
			return 0;
		}
	}
	return -1;
}

static int tar_header(FILE *out, const char *path, char type, uint64_t size, const char *link,
		      const char *arch, struct mp_err *err)
{
	struct ustar h;
	memset(&h, 0, sizeof(h));
	if (ustar_name(&h, path) || (link && strlen(link) >= sizeof(h.linkname)))
		return mp_err_set(err, -ENAMETOOLONG, "%s: %s: name too long for a tar member", arch,
				  path);
	snprintf(h.mode, sizeof(h.mode), "%07o", type == '5' || type == '2' ? 0755 : 0644);
	snprintf(h.uid, sizeof(h.uid), "%07o", 0);
	snprintf(h.gid, sizeof(h.gid), "%07o", 0);
	snprintf(h.size, sizeof(h.size), "%011" PRIo64, size);
	snprintf(h.mtime, sizeof(h.mtime), "%011o", 0);
	h.typeflag = type;
	if (link)
		memcpy(h.linkname, link, strlen(link));
	memcpy(h.magic, "ustar", 6);
	memcpy(h.version, "00", 2);
	memset(h.chksum, ' ', sizeof(h.chksum));
	unsigned sum = 0;
	for (size_t i = 0; i < sizeof(h); i++)
		sum += ((unsigned char *)&h)[i];
	snprintf(h.chksum, sizeof(h.chksum), "%06o", sum);
	if (fwrite(&h, sizeof(h), 1, out) != 1)
		return mp_err_set(err, -EIO, "%s: %s", arch, strerror(errno));
	return 0;
}

static int tar_pad(FILE *out, uint64_t size, const char *arch, struct mp_err *err)
{
	static const char zero[TAR_BLOCK];
	size_t pad = (size_t)((TAR_BLOCK - size % TAR_BLOCK) % TAR_BLOCK);
	if (pad && fwrite(zero, 1, pad, out) != pad)
		return mp_err_set(err, -EIO, "%s: %s", arch, strerror(errno));
	return 0;
}

/* A whole file into memory (works for /proc files, whose size is 0). */
static int slurp(const char *path, struct mp_buf *b)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	char tmp[65536];
	ssize_t n;
	while ((n = read(fd, tmp, sizeof(tmp))) > 0)
		if (mp_buf_append(b, tmp, (size_t)n)) {
			close(fd);
			return -ENOMEM;
		}
	int e = n < 0 ? -errno : 0;
	close(fd);
	return e;
}

static int tar_file(FILE *out, const char *member, const char *src, const char *arch,
		    uint64_t *bytes, struct mp_err *err)
{
	struct mp_buf b = { 0 };
	int rc = slurp(src, &b);
	if (rc) {
		mp_buf_fini(&b);
		return mp_err_set(err, rc, "%s: %s", src, strerror(-rc));
	}
	rc = tar_header(out, member, '0', b.len, NULL, arch, err);
	if (!rc && b.len && fwrite(b.data, 1, b.len, out) != b.len)
		rc = mp_err_set(err, -EIO, "%s: %s", arch, strerror(errno));
	if (!rc)
		rc = tar_pad(out, b.len, arch, err);
	*bytes += b.len;
	mp_buf_fini(&b);
	return rc;
}

/* The cache folder of an object, relative: "usr/lib/libc.so.6/<hex>". */
static char *cache_dir(const char *path, const char *hex)
{
	char *d;
	while (*path == '/')
		path++;
	if (asprintf(&d, "%s/%s", path, hex) < 0)
		return NULL;
	/* no member may climb out of the cache */
	if (strstr(d, "../") || !strncmp(d, "..", 2)) {
		free(d);
		return NULL;
	}
	return d;
}

static int add_object(FILE *out, const char *arch, const char *dir, const char *hex,
		      const char *leaf, const char *src, const char *debug,
		      struct mp_archive_stats *st, struct mp_err *err)
{
	char *m = NULL, *link = NULL, *lnk = NULL;
	int rc = -ENOMEM;
	if (asprintf(&m, "%s/%s", dir, leaf) < 0 || asprintf(&lnk, "../../%s", dir) < 0 ||
	    asprintf(&link, ".build-id/%.2s/%s", hex, hex + 2) < 0) {
		mp_err_set(err, rc, "out of memory");
		goto out;
	}
	if ((rc = tar_file(out, m, src, arch, &st->bytes, err)))
		goto out;
	if (debug) {
		free(m);
		if (asprintf(&m, "%s/debug", dir) < 0) {
			m = NULL;
			rc = mp_err_set(err, -ENOMEM, "out of memory");
			goto out;
		}
		if ((rc = tar_file(out, m, debug, arch, &st->bytes, err)))
			goto out;
		st->ndebug++;
	}
	rc = tar_header(out, link, '2', 0, lnk, arch, err);
	st->nobjects++;
out:
	free(m);
	free(link);
	free(lnk);
	return rc;
}

int mp_archive_write(struct mp_session *ss, const char *out_path, struct mp_archive_stats *st,
		     struct mp_err *err)
{
	memset(st, 0, sizeof(*st));
	struct mp_hist_query q = { .keys = MP_HK_DSO, .sort_attr = SIZE_MAX };
	struct mp_hist_result res = { 0 };
	int rc = mp_hist_query(ss->hist, ss->sym, &q, &res);
	if (rc)
		return mp_err_set(err, rc, "%s", mp_strerror(rc));
	FILE *out = fopen(out_path, "we");
	if (!out) {
		rc = -errno;
		mp_hist_result_fini(&res);
		return mp_err_set(err, rc, "%s: %s", out_path, strerror(-rc));
	}
	st->missing = calloc(res.nrows + 1, sizeof(*st->missing));
	if (!st->missing) {
		rc = mp_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < res.nrows; i++) {
		const struct mp_hist_row *r = &res.rows[i];
		/* the share of the event it hides most of, as report's missing list */
		double pct = 0;
		for (size_t a = 0; a < res.nattrs; a++) {
			uint64_t t = mp_hist_total(ss->hist, a)->period;
			if (t && 100.0 * (double)r->c[a].period / (double)t > pct)
				pct = 100.0 * (double)r->c[a].period / (double)t;
		}
		const struct mp_sym_dso_info *di =
			r->dso_idx == UINT32_MAX ? NULL : mp_sym_dso(ss->sym, r->dso_idx, 1);
		const char *why = NULL;
		if (!di)
			why = "no object";
		else if (di->flags & MP_DSO_ANON)
			why = "anonymous memory";
		else if (!(di->flags & MP_DSO_FOUND))
			why = di->flags & MP_DSO_BUILDID_MISMATCH ? "build-id mismatch" :
				(di->flags & MP_DSO_KERNEL) ? "no kernel symbols" :
				(di->flags & MP_DSO_NOT_ELF) ? "not a regular ELF file" : "file not found";
		else if (!di->build_id_len)
			why = "no build-id in the recording";
		else if (di->flags & MP_DSO_VDSO)
			why = "vdso";
		else if (!di->file)
			why = "file not found";
		if (why) {
			st->missing[st->nmissing++] = (struct mp_archive_missing){
				di ? di->name : (r->dso ? r->dso : "[unknown]"), why, pct };
			continue;
		}
		char hex[41];
		for (size_t k = 0; k < di->build_id_len; k++)
			sprintf(hex + 2 * k, "%02x", di->build_id[k]);
		int kernel = (di->flags & MP_DSO_KERNEL) && di->name[0] == '[';
		char *dir = cache_dir(kernel ? "[kernel.kallsyms]" : di->path, hex);
		if (!dir) {
			rc = mp_err_set(err, -EINVAL, "%s: a path the cache cannot hold", di->path);
			goto out;
		}
		const char *debug = di->debug_file && strcmp(di->debug_file, di->file) ?
			di->debug_file : NULL;
		rc = add_object(out, out_path, dir, hex, kernel ? "kallsyms" : "elf", di->file,
				kernel ? NULL : debug, st, err);
		free(dir);
		if (rc)
			goto out;
	}
	/* two zero blocks end the archive */
	static const char end[2 * TAR_BLOCK];
	if (fwrite(end, sizeof(end), 1, out) != 1)
		rc = mp_err_set(err, -EIO, "%s: %s", out_path, strerror(errno));
out:
	mp_hist_result_fini(&res);
	if (fclose(out) && !rc)
		rc = mp_err_set(err, -EIO, "%s: %s", out_path, strerror(errno));
	if (rc)
		unlink(out_path);
	return rc;
}

void mp_archive_stats_fini(struct mp_archive_stats *st)
{
	free(st->missing);
	memset(st, 0, sizeof(*st));
}

/* ---- reading ------------------------------------------------------------------------ */

static uint64_t octal(const char *s, size_t n)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n && s[i] >= '0' && s[i] <= '7'; i++)
		v = v * 8 + (uint64_t)(s[i] - '0');
	return v;
}

/* Member names must stay inside the folder. */
static int safe_name(const char *p)
{
	if (!*p || *p == '/')
		return 0;
	for (const char *s = p; *s; s = strchr(s, '/') ? strchr(s, '/') + 1 : s + strlen(s))
		if (!strncmp(s, "..", 2) && (s[2] == '/' || !s[2]))
			return 0;
	return 1;
}

static int mkdirs(char *path)
{
	for (char *s = path + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		int bad = mkdir(path, 0755) && errno != EEXIST;
		*s = '/';
		if (bad)
			return -errno;
	}
	return 0;
}

int mp_archive_extract(const char *archive, const char *dir, struct mp_err *err)
{
	FILE *in = fopen(archive, "re");
	if (!in)
		return mp_err_set(err, -errno, "%s: %s", archive, strerror(errno));
	struct ustar h;
	int rc = 0, nmembers = 0;
	char *data = NULL;
	for (;;) {
		size_t got = fread(&h, 1, sizeof(h), in);
		if (got == 0 && !nmembers) {
			rc = mp_err_set(err, -EINVAL, "%s: empty, not a tar archive", archive);
			break;
		}
		if (got != sizeof(h)) {
			rc = mp_err_set(err, -EINVAL, "%s: truncated tar archive", archive);
			break;
		}
		if (!h.name[0])
			break; /* the end blocks */
		unsigned sum = 0, want = (unsigned)octal(h.chksum, sizeof(h.chksum));
		for (size_t i = 0; i < sizeof(h); i++)
			sum += (i >= offsetof(struct ustar, chksum) &&
				i < offsetof(struct ustar, chksum) + sizeof(h.chksum)) ?
				' ' : ((unsigned char *)&h)[i];
		if (sum != want) {
			rc = mp_err_set(err, -EINVAL, "%s: not a tar archive (bad header checksum at "
					"member %d)", archive, nmembers + 1);
			break;
		}
		nmembers++;
		char name[300], *path = NULL;
		snprintf(name, sizeof(name), "%.*s%s%.*s", (int)strnlen(h.prefix, sizeof(h.prefix)),
			 h.prefix, h.prefix[0] ? "/" : "", (int)strnlen(h.name, sizeof(h.name)), h.name);
		while (!strncmp(name, "./", 2))
			memmove(name, name + 2, strlen(name + 2) + 1);
		uint64_t size = octal(h.size, sizeof(h.size));
		if (h.typeflag == '2' || h.typeflag == '5')
			size = 0;
		if (!name[0] || !safe_name(name)) {
			rc = mp_err_set(err, -EINVAL, "%s: member '%s' would be written outside the "
					"folder", archive, name);
			break;
		}
		if (asprintf(&path, "%s/%s", dir, name) < 0) {
			rc = mp_err_set(err, -ENOMEM, "out of memory");
			break;
		}
		if ((rc = mkdirs(path))) {
			mp_err_set(err, rc, "%s: %s", path, strerror(-rc));
			free(path);
			break;
		}
		if (h.typeflag == '5') {
			if (mkdir(path, 0755) && errno != EEXIST)
				rc = mp_err_set(err, -errno, "%s: %s", path, strerror(errno));
		} else if (h.typeflag == '2') {
			char link[101];
			snprintf(link, sizeof(link), "%.*s", (int)strnlen(h.linkname, 100), h.linkname);
			if (symlink(link, path) && errno != EEXIST)
				rc = mp_err_set(err, -errno, "%s: %s", path, strerror(errno));
		} else if (h.typeflag == '0' || h.typeflag == 0) {
			free(data);
			data = size ? malloc(size) : NULL;
			FILE *o = fopen(path, "we");
			if ((size && !data) || !o)
				rc = mp_err_set(err, -ENOMEM, "%s: %s", path, o ? "out of memory" :
						strerror(errno));
			else if (size && fread(data, 1, size, in) != size)
				rc = mp_err_set(err, -EINVAL, "%s: truncated member %s", archive, name);
			else if (size && fwrite(data, 1, size, o) != size)
				rc = mp_err_set(err, -EIO, "%s: %s", path, strerror(errno));
			if (o && fclose(o) && !rc)
				rc = mp_err_set(err, -EIO, "%s: %s", path, strerror(errno));
			size_t pad = (size_t)((TAR_BLOCK - size % TAR_BLOCK) % TAR_BLOCK);
			if (!rc && pad && fseek(in, (long)pad, SEEK_CUR))
				rc = mp_err_set(err, -EIO, "%s: %s", archive, strerror(errno));
			size = 0;
		}
		/* other member types (pax headers, devices) are skipped by their size */
		if (!rc && size && fseek(in, (long)((size + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK),
					 SEEK_CUR))
			rc = mp_err_set(err, -EIO, "%s: %s", archive, strerror(errno));
		free(path);
		if (rc)
			break;
	}
	free(data);
	fclose(in);
	return rc;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(p);
}

int mp_archive_remove_tree(const char *dir)
{
	return nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS) ? -errno : 0;
}

int mp_archive_kallsyms(const char *dir, const struct mp_pd_build_id *kernel, char **path)
{
	char hex[41];
	*path = NULL;
	if (!kernel)
		return -ENOENT;
	for (size_t k = 0; k < kernel->id_len; k++)
		sprintf(hex + 2 * k, "%02x", kernel->id[k]);
	hex[2 * kernel->id_len] = 0;
	if (asprintf(path, "%s/[kernel.kallsyms]/%s/kallsyms", dir, hex) < 0) {
		*path = NULL;
		return -ENOMEM;
	}
	if (access(*path, R_OK)) {
		free(*path);
		*path = NULL;
		return -ENOENT;
	}
	return 0;
}
