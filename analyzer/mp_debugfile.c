/* mp_debugfile.c - finding an object's separate debug information and perf's build-id
 * cache copy of it. */
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_debugfile.h"
#include "mp_sym_int.h"

void mp_hex_id(const uint8_t *id, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = 0;
}

/* Open a candidate debug file; keep it when its build-id (if both known) matches. */
static int try_debug(struct mp_dso *d, const char *cand, const uint8_t *bid, size_t bid_len)
{
	int fd;
	Elf *e = mp_elf_open(cand, &fd);

	if (!e)
		return 0;
	if (bid_len) {
		uint8_t id2[20];
		int n2 = mp_elf_build_id(e, id2, sizeof(id2));
		if (n2 > 0 && ((size_t)n2 != bid_len || memcmp(id2, bid, bid_len))) {
			elf_end(e);
			close(fd);
			return 0;
		}
	}
	if (!mp_elf_has_dwarf_lines(e) && !mp_elf_has_section(e, SHT_SYMTAB)) {
		elf_end(e);
		close(fd);
		return 0;
	}
	d->dwelf = e;
	d->dwfd = fd;
	d->debug_file = strdup(cand);
	return 1;
}

/* Try the candidate rel (under --symfs) unless it is the object's own file. */
static int try_rel(mp_sym *s, struct mp_dso *d, const char *rel, const uint8_t *bid,
		   size_t bid_len, int not_self)
{
	char *cand = mp_sym_join_symfs(s, rel);
	int ok = cand && !(not_self && !strcmp(cand, d->file)) && try_debug(d, cand, bid, bid_len);
	free(cand);
	return ok;
}

/* <symfs>/usr/lib/debug/.build-id/xx/yyyy.debug */
static int by_build_id(mp_sym *s, struct mp_dso *d, const uint8_t *bid, size_t bid_len)
{
	char hex[41], rel[128];

	mp_hex_id(bid, bid_len, hex);
	snprintf(rel, sizeof(rel), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	if (try_rel(s, d, rel, bid, bid_len, 0))
		return 1;
	/* perf's build-id cache (and memprof archive) keep it as .build-id/xx/yyyy/debug */
	char *cand;
	if (!s->buildid_dir ||
	    asprintf(&cand, "%s/.build-id/%.2s/%s/debug", s->buildid_dir, hex, hex + 2) < 0)
		return 0;
	int ok = try_debug(d, cand, bid, bid_len);
	free(cand);
	return ok;
}

/* .gnu_debuglink: the named file beside the object, in its .debug folder, and under
 * /usr/lib/debug. 1 found, 0 not, -1 out of memory. */
static int by_debuglink(mp_sym *s, struct mp_dso *d, const uint8_t *bid, size_t bid_len)
{
	Elf_Scn *scn = mp_elf_section(d->elf, ".gnu_debuglink");
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;

	if (!data || data->d_size <= 1 || !memchr(data->d_buf, 0, data->d_size))
		return 0;
	const char *link = data->d_buf;
	char *dir = strdup(d->path);
	if (!dir)
		return -1;
	char *sl = strrchr(dir, '/');
	if (sl)
		*sl = 0;
	else
		dir[0] = 0;
	static const char *const fmts[] = { "%s/%s", "%s/.debug/%s", "/usr/lib/debug%s/%s" };
	int found = 0;
	for (size_t i = 0; i < 3 && !found; i++) {
		char *rel;
		if (asprintf(&rel, fmts[i], dir, link) < 0)
			break;
		found = try_rel(s, d, rel, bid, bid_len, 1);
		free(rel);
	}
	free(dir);
	return found;
}

void mp_debugfile_find(mp_sym *s, struct mp_dso *d, const uint8_t *bid, size_t bid_len)
{
	if (bid_len && by_build_id(s, d, bid, bid_len))
		return;
	if (by_debuglink(s, d, bid, bid_len))
		return;
	/* /usr/lib/debug/<path>.debug (Fedora) */
	char *rel;
	if (asprintf(&rel, "/usr/lib/debug%s.debug", d->path) >= 0) {
		try_rel(s, d, rel, bid, bid_len, 0);
		free(rel);
	}
}

int mp_debugfile_as_object(mp_sym *s, struct mp_dso *d)
{
	if (!d->info.build_id_len || !by_build_id(s, d, d->info.build_id, d->info.build_id_len))
		return 0;
	d->elf = d->dwelf;
	d->fd = d->dwfd;
	d->dwelf = NULL;
	d->dwfd = -1;
	d->file = d->debug_file;
	d->debug_file = NULL;
	return 1;
}

/* perf's build-id cache: <dir>/.build-id/xx/yyyy links to the copy perf record kept of
 * the object (the file itself in the old layout, else a folder holding elf, vdso or debug).
 * On success d->elf/d->fd/d->file are set. */
int mp_debugfile_buildid_cache(mp_sym *s, struct mp_dso *d)
{
	if (!s->buildid_dir || !d->info.build_id_len)
		return 0;
	char hex[41];
	mp_hex_id(d->info.build_id, d->info.build_id_len, hex);
	free(d->file);
	d->file = NULL;
	static const char *const leaf[] = { "", "/elf", "/vdso", "/debug" };
	for (size_t k = 0; k < 4 && !d->elf; k++) {
		free(d->file);
		if (asprintf(&d->file, "%s/.build-id/%.2s/%s%s", s->buildid_dir, hex, hex + 2,
			     leaf[k]) < 0) {
			d->file = NULL;
			break;
		}
		if (!(d->elf = mp_elf_open(d->file, &d->fd)))
			continue;
		uint8_t got[20];
		int n = mp_elf_build_id(d->elf, got, sizeof(got));
		if (n != d->info.build_id_len || memcmp(got, d->info.build_id, (size_t)n)) {
			elf_end(d->elf);
			close(d->fd);
			d->elf = NULL;
			d->fd = -1;
		}
	}
	if (!d->elf) {
		free(d->file);
		d->file = NULL;
	}
	return d->elf != NULL;
}

