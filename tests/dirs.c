/* SPDX-License-Identifier: MIT */
/* Directories as the tests look into them (dirs.h). */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dirs.h"

int
dir_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

bool
library_dir_of(int fd, char *out, size_t size)
{
	static const char gone[] = " (deleted)";
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = size > 0 ? readlink(link, out, size - 1) : -1;
	if (n <= 0 || out[0] != '/')
		return false;
	out[n] = '\0';
	if ((size_t)n > sizeof(gone) && strcmp(out + n - (sizeof(gone) - 1), gone) == 0)
		out[n - (sizeof(gone) - 1)] = '\0';
	for (int up = 0; up < 2; up++) {
		char *slash = strrchr(out, '/');

		if (!slash || slash == out)
			return false;
		*slash = '\0';
	}
	return strstr(out, "/.libtimerfd-") != NULL;
}
