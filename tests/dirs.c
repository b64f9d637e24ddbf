/* SPDX-License-Identifier: MIT */
/* Directories as the tests look into them (dirs.h). */
#include "config.h"

#include <dirent.h>
#include <string.h>

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
