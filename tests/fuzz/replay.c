/* SPDX-License-Identifier: MIT */
/*
 * Description: runs the fuzz target over files, without libFuzzer, so that the seed corpus
 * and every regression input run in make check with any compiler and on every target.
 * Usage: timerfd-fuzz-replay FILE|DIR...
 */
#include "config.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
run_file(const char *path)
{
	static uint8_t buf[1 << 16];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		perror(path);
		return 1;
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	return 0;
}

/* Runs @path, or every file in it if it is a directory; the number of inputs run, or -1. */
static long
run_path(const char *path)
{
	struct stat st;
	struct dirent *e;
	long count = 0;
	DIR *d;

	if (stat(path, &st) != 0) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path) ? -1 : 1;
	d = opendir(path);
	if (!d) {
		perror(path);
		return -1;
	}
	while ((e = readdir(d))) {
		char sub[4096];

		if (e->d_name[0] == '.' || strcmp(e->d_name, "README.md") == 0)
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		if (run_file(sub)) {
			closedir(d);
			return -1;
		}
		count++;
	}
	closedir(d);
	return count;
}

int
main(int argc, char **argv)
{
	long total = 0;

	for (int i = 1; i < argc; i++) {
		long n = run_path(argv[i]);

		if (n < 0)
			return 1;
		printf("%s: %ld inputs\n", argv[i], n);
		total += n;
	}
	printf("%ld inputs run, no finding\n", total);
	return total > 0 ? 0 : 1;
}
