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
	/* the kernel's symbols are root's secret: 0600 once unpacked, as the archive is */
	const char *leaf = strrchr(path, '/');
	snprintf(h.mode, sizeof(h.mode), "%07o", type == '5' || type == '2' ? 0755 :
		 leaf && !strcmp(leaf, "/kallsyms") ? 0600 : 0644);
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

/* The cache folder of an object, relative: "usr/lib/libc.so.6/<hex>"; NULL when it has a
 * "." or ".." component (no member may climb out of the cache) or its members' names and
 * the .build-id link would not fit a ustar header. */
static char *cache_dir(const char *path, const char *hex)
{
	char *d;
	struct ustar h;
	while (*path == '/')
		path++;
	if (asprintf(&d, "%s/%s", path, hex) < 0)
		return NULL;
	for (const char *s = d;; s++) {
		size_t n = strcspn(s, "/");
		if (!n || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
			goto bad;
		if (!s[n])
			break;
		s += n;
	}
	/* the longest member, "<dir>/kallsyms", and the link "../../<dir>" */
	char m[4096];
	memset(&h, 0, sizeof(h));
	if ((size_t)snprintf(m, sizeof(m), "%s/kallsyms", d) >= sizeof(m) || ustar_name(&h, m) ||
	    strlen(d) + 6 >= sizeof(h.linkname))
		goto bad;
	return d;
bad:
	free(d);
	return NULL;
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

int mp_archive_write(mp_session *ss, const char *input, const char *out_path,
		     struct mp_archive_stats *st, struct mp_err *err)
{
	memset(st, 0, sizeof(*st));
	struct mp_hist_query q = { .keys = MP_HK_DSO, .sort_attr = SIZE_MAX };
	struct mp_hist_result res = { 0 };
	int rc = mp_hist_query(mp_session_hist(ss), mp_session_sym(ss), &q, &res);
	if (rc)
		return mp_err_set(err, rc, "%s", mp_strerror(rc));
	struct mp_out o;
	if ((rc = mp_out_open(&o, out_path, input, err))) {
		mp_hist_result_fini(&res);
		return rc;
	}
	FILE *out = o.f;
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
			uint64_t t = mp_hist_total(mp_session_hist(ss), a)->period;
			if (t && 100.0 * (double)r->c[a].period / (double)t > pct)
				pct = 100.0 * (double)r->c[a].period / (double)t;
		}
		const struct mp_sym_dso_info *di =
			r->dso_idx == UINT32_MAX ? NULL
						 : mp_sym_dso(mp_session_sym(ss), r->dso_idx, 1);
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
		else if ((di->flags & MP_DSO_VDSO) && (!di->file || di->file[0] != '/'))
			why = "vdso"; /* the running image, not a copy in the build-id cache */
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
		if (!dir) { /* named as missing: the other objects are still packed */
			st->missing[st->nmissing++] = (struct mp_archive_missing){
				di->name, "a path a tar member cannot hold", pct };
			continue;
		}
		const char *debug = di->debug_file && strcmp(di->debug_file, di->file) ?
			di->debug_file : NULL;
		int vdso = (di->flags & MP_DSO_VDSO) != 0;
		rc = add_object(out, out_path, dir, hex,
				kernel ? "kallsyms" : vdso ? "vdso" : "elf", di->file,
				kernel || vdso ? NULL : debug, st, err);
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
	if (rc)
		mp_out_abort(&o);
	else
		rc = mp_out_commit(&o, err);
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

/* Member names must stay inside the folder: relative, no "..", "." or empty component. */
static int safe_name(const char *p)
{
	if (!*p || *p == '/')
		return 0;
	for (const char *s = p;;) {
		size_t n = strcspn(s, "/");
		if (!n || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
			return 0;
		if (!s[n] || !s[n + 1])
			return 1; /* "a/b" or "a/b/" (a folder) */
		s += n + 1;
	}
}

/* A symlink member's target, seen from the folder that holds the link (its name's depth):
 * relative, its ".." components all leading and no more than that depth. (A ".." after a
 * name could climb out through another link: "l/.." with l -> "." is the folder's parent.)
 * Every link then ends inside, and so does every path walked through links. */
static int safe_link(const char *name, const char *target)
{
	if (!*target || *target == '/')
		return 0;
	int depth = 0, named = 0;
	for (const char *s = name; (s = strchr(s, '/')) && s[1]; s++)
		depth++;
	for (const char *s = target;;) {
		size_t n = strcspn(s, "/");
		if (n == 2 && s[0] == '.' && s[1] == '.') {
			if (named || --depth < 0)
				return 0;
		} else if (n && !(n == 1 && s[0] == '.')) {
			named = 1;
		}
		if (!s[n])
			return 1;
		s += n + 1;
	}
}

/* The folder that will hold member name (all but its last component), opened below root
 * one component at a time with O_NOFOLLOW: a link (one an earlier member made, or one in
 * the name) is never walked through, and folders are made 0700. Returns an fd, the last
 * component in *leaf; or a negative errno (-ELOOP: a link on the way). */
static int member_parent(int root, char *name, char **leaf)
{
	int cur = dup(root);
	char *s = name;
	if (cur < 0)
		return -errno;
	for (char *slash; (slash = strchr(s, '/')) && slash[1]; s = slash + 1) {
		*slash = 0;
		int next = openat(cur, s, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT && !mkdirat(cur, s, 0700))
			next = openat(cur, s, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int e = errno == ENOTDIR ? ELOOP : errno;
		*slash = '/';
		close(cur);
		if (next < 0)
			return -e;
		cur = next;
	}
	*leaf = s;
	return cur;
}

/* Copy size bytes of the archive into fd (or skip them when fd < 0), then the padding. */
static int member_data(FILE *in, int fd, uint64_t size, const char *arch, const char *name,
		       struct mp_err *err)
{
	char buf[1 << 16];
	uint64_t left = (size + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK, data = size;
	while (left) {
		size_t n = left < sizeof(buf) ? (size_t)left : sizeof(buf);
		if (fread(buf, 1, n, in) != n)
			return mp_err_set(err, -EINVAL, "%s: truncated member %s", arch, name);
		size_t w = data < n ? (size_t)data : n;
		for (size_t off = 0; fd >= 0 && off < w;) {
			ssize_t k = write(fd, buf + off, w - off);
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0)
				return mp_err_set(err, -errno, "%s: member %s: %s", arch, name,
						  strerror(errno));
			off += (size_t)k;
		}
		data -= w;
		left -= n;
	}
	return 0;
}

/* One member: a folder, a regular file (created, never opened if it exists: a duplicate
 * name is refused) or a symlink whose target stays inside. */
static int member_make(FILE *in, int root, const struct ustar *h, char *name, uint64_t size,
		       const char *arch, struct mp_err *err)
{
	char *leaf = name, type = h->typeflag;
	int dfd = member_parent(root, name, &leaf), rc = 0;
	if (dfd < 0)
		return mp_err_set(err, dfd, "%s: member '%s': %s", arch, name, dfd == -ELOOP ?
				  "would be written through a link: refused" : strerror(-dfd));
	char *slash = strchr(leaf, '/');
	if (slash)
		*slash = 0; /* "dir/" */
	if (type == '5') {
		struct stat st;
		if (mkdirat(dfd, leaf, 0700) && (errno != EEXIST ||
		    fstatat(dfd, leaf, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode)))
			rc = mp_err_set(err, errno == EEXIST ? -EEXIST : -errno,
					"%s: member '%s': %s", arch, name, errno == EEXIST ?
					"a second member of that name: refused" : strerror(errno));
	} else if (type == '2') {
		char link[101];
		snprintf(link, sizeof(link), "%.*s", (int)strnlen(h->linkname, 100), h->linkname);
		if (!safe_link(name, link))
			rc = mp_err_set(err, -EINVAL, "%s: member '%s': a link to '%s', outside the "
					"archive: refused", arch, name, link);
		else if (symlinkat(link, dfd, leaf))
			rc = mp_err_set(err, -errno, "%s: member '%s': %s", arch, name, errno == EEXIST ?
					"a second member of that name: refused" : strerror(errno));
	} else {
		int fd = openat(dfd, leaf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				0600);
		if (fd < 0)
			rc = mp_err_set(err, -errno, "%s: member '%s': %s", arch, name, errno == EEXIST ?
					"a second member of that name: refused" : strerror(errno));
		else {
			rc = member_data(in, fd, size, arch, name, err);
			if (close(fd) && !rc)
				rc = mp_err_set(err, -errno, "%s: member '%s': %s", arch, name,
						strerror(errno));
		}
	}
	if (slash)
		*slash = '/';
	close(dfd);
	return rc;
}

int mp_archive_extract(const char *archive, const char *dir, struct mp_err *err)
{
	int fd = mp_open_input(archive, MP_OPEN_REGULAR, err); /* never blocks on a FIFO */
	if (fd < 0)
		return fd;
	FILE *in = fdopen(fd, "r");
	int root = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (!in || root < 0) {
		int e = errno;
		if (in)
			fclose(in);
		else
			close(fd);
		if (root >= 0)
			close(root);
		return mp_err_set(err, -e, "%s: %s", in ? dir : archive, strerror(e));
	}
	struct ustar h;
	int rc = 0, nmembers = 0;
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
		char name[300];
		snprintf(name, sizeof(name), "%.*s%s%.*s", (int)strnlen(h.prefix, sizeof(h.prefix)),
			 h.prefix, h.prefix[0] ? "/" : "", (int)strnlen(h.name, sizeof(h.name)), h.name);
		while (!strncmp(name, "./", 2))
			memmove(name, name + 2, strlen(name + 2) + 1);
		uint64_t size = octal(h.size, sizeof(h.size));
		char type = h.typeflag;
		if (type == 'x' || type == 'g') { /* pax headers: skipped by their size */
			if ((rc = member_data(in, -1, size, archive, name, err)))
				break;
			continue;
		}
		if (type != '0' && type != 0 && type != '5' && type != '2') {
			rc = mp_err_set(err, -EINVAL, "%s: member '%s': %s: refused", archive, name,
					type == '1' ? "a hard link" : type == '3' || type == '4' ?
					"a device" : type == '6' ? "a FIFO" : "an unknown member type");
			break;
		}
		if (!safe_name(name)) {
			rc = mp_err_set(err, -EINVAL, "%s: member '%s' would be written outside the "
					"folder: refused", archive, name);
			break;
		}
		/* folders and links carry no data, whatever their size field says */
		if ((rc = member_make(in, root, &h, name, type == '0' || type == 0 ? size : 0,
				      archive, err)))
			break;
	}
	close(root);
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
