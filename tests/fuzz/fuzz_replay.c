/* fuzz_replay.c - run a libFuzzer harness over files with the normal compiler, so the
 * corpus (past crashers included) replays under ctest, and under ASan+UBSan in the
 * sanitizer build. Usage: fuzz_replay_<name> FILE|DIR...  Fails when given no input. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 65536;
			uint8_t *nb = realloc(buf, cap);
			if (!nb) {
				fclose(f);
				free(buf);
				return -1;
			}
			buf = nb;
		}
		size_t n = fread(buf + len, 1, cap - len, f);
		if (n == 0)
			break;
		len += n;
	}
	fclose(f);
	/* an exactly sized copy, as libFuzzer gives, so over-reads hit the redzone */
	uint8_t *exact = malloc(len ? len : 1);
	if (!exact) {
		free(buf);
		return -1;
	}
	if (len)
		memcpy(exact, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	size_t done = 0;
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (run_file(argv[i]))
				return 1;
			done++;
			continue;
		}
		DIR *d = opendir(argv[i]);
		if (!d) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		char **names = NULL;
		size_t n = 0, cap = 0;
		struct dirent *e;
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				char **nn = realloc(names, cap * sizeof(*nn));
				if (!nn)
					return 1;
				names = nn;
			}
			size_t l = strlen(argv[i]) + strlen(e->d_name) + 2;
			names[n] = malloc(l);
			if (!names[n])
				return 1;
			snprintf(names[n], l, "%s/%s", argv[i], e->d_name);
			n++;
		}
		closedir(d);
		qsort(names, n, sizeof(*names), cmp);
		for (size_t k = 0; k < n; k++) {
			if (run_file(names[k]))
				return 1;
			free(names[k]);
			done++;
		}
		free(names);
	}
	if (!done) {
		fprintf(stderr, "fuzz_replay: no input files\n");
		return 1;
	}
	printf("replayed %zu inputs\n", done);
	return 0;
}
