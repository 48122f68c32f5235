/* mp_out.c - output files written whole, through a temporary file renamed into place,
 * so that a failure never leaves half a file and never removes what memprof did not make. */
#include "mp_util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *mp_tmp_template(const char *path)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	size_t dir = (size_t)(base - path), blen = strlen(base), suffix = strlen(".tmp.XXXXXX");
	if (blen + suffix > NAME_MAX)
		blen = NAME_MAX - suffix;
	char *t = malloc(dir + blen + suffix + 1);
	if (t)
		sprintf(t, "%.*s%.*s.tmp.XXXXXX", (int)dir, path, (int)blen, base);
	return t;
}

int mp_out_open(struct mp_out *o, const char *path, const char *input, struct mp_err *err)
{
	struct stat st, in;
	memset(o, 0, sizeof(*o));
	int have = stat(path, &st) == 0;
	if (!have && errno != ENOENT)
		return mp_err_set(err, -errno, "%s: %s", path, strerror(errno));
	if (have && input && strcmp(input, "-") && !stat(input, &in) && in.st_dev == st.st_dev &&
	    in.st_ino == st.st_ino)
		return mp_err_set(err, -EEXIST, "%s: is the input %s itself: not overwritten", path,
				  input);
	if (have && S_ISDIR(st.st_mode))
		return mp_err_set(err, -EISDIR, "%s: is a directory", path);
	if (!(o->path = strdup(path)))
		return mp_err_set(err, -ENOMEM, "%s: out of memory", path);
	int fd;
	if (have && !S_ISREG(st.st_mode)) {
		/* a device or FIFO: written in place, never created (O_NONBLOCK: a FIFO without
		 * a reader fails at once instead of hanging) */
		fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd >= 0)
			fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		else
			mp_err_set(err, -errno, "%s: %s", path, strerror(errno));
	} else if (!(o->tmp = mp_tmp_template(path))) {
		fd = mp_err_set(err, -ENOMEM, "%s: out of memory", path);
	} else if ((fd = mkostemp(o->tmp, O_CLOEXEC)) < 0) {
		fd = mp_err_set(err, -errno, "%s: cannot create: %s", o->tmp, strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
	}
	if (fd >= 0 && !(o->f = fdopen(fd, "w"))) {
		close(fd);
		fd = mp_err_set(err, -ENOMEM, "%s: out of memory", path);
	}
	if (fd < 0) {
		mp_out_abort(o);
		return fd;
	}
	return 0;
}

int mp_out_commit(struct mp_out *o, struct mp_err *err)
{
	int rc = 0;
	if (o->f) {
		int bad = fflush(o->f) | ferror(o->f);
		int e = errno;
		bad |= fclose(o->f);
		e = bad && !e ? errno : e;
		o->f = NULL;
		if (bad)
			rc = mp_err_set(err, -(e ? e : EIO), "%s: %s", o->path, strerror(e ? e : EIO));
	}
	if (!rc && o->tmp) {
		struct stat st;
		/* what is at path now must still be replaceable (not turned into a device) */
		if (!stat(o->path, &st) && !S_ISREG(st.st_mode))
			rc = mp_err_set(err, -EEXIST, "%s: is no longer a regular file: not replaced",
					o->path);
		else if (rename(o->tmp, o->path))
			rc = mp_err_set(err, -errno, "cannot rename %s to %s: %s", o->tmp, o->path,
					strerror(errno));
		else {
			free(o->tmp);
			o->tmp = NULL;
		}
	}
	mp_out_abort(o);
	return rc;
}

void mp_out_abort(struct mp_out *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	o->tmp = NULL;
	o->path = NULL;
}
