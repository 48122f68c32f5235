/* fuzz_archive.c - the archive reader of report/annotate --archive (mp_archive_extract):
 * the input is written as a tar file and unpacked into a fresh folder, which is then
 * removed. Besides crashes it checks the promise that nothing lands outside that folder:
 * the folder around it must hold only the tar afterwards. */
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mp_analyzer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char base[64];

static void cleanup(void)
{
	char tar[96];
	snprintf(tar, sizeof(tar), "%s/a.tar", base);
	unlink(tar);
	rmdir(base);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char tar[96], dir[96];
	if (!base[0]) {
		snprintf(base, sizeof(base), "/tmp/fuzz-archive.XXXXXX");
		if (!mkdtemp(base))
			abort();
		atexit(cleanup);
	}
	snprintf(tar, sizeof(tar), "%s/a.tar", base);
	snprintf(dir, sizeof(dir), "%s/x", base);
	FILE *f = fopen(tar, "w");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f))
		abort();
	if (mkdir(dir, 0700))
		abort();
	struct mp_err err = { 0, "" };
	mp_archive_extract(tar, dir, &err);
	if (mp_archive_remove_tree(dir))
		abort();
	DIR *d = opendir(base);
	if (!d)
		abort();
	for (struct dirent *e; (e = readdir(d));)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "a.tar"))
			abort(); /* a member escaped the unpacking folder */
	closedir(d);
	return 0;
}
