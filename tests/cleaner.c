/* SPDX-License-Identifier: MIT */
/* What a temporary-file cleaner does to the emulation's directory (tests/cleaner.h). */
#include "config.h"

#include <fcntl.h>
#include <unistd.h>

#include "cleaner.h"
#include "dirs.h"

static bool remove_at(int at, const char *path, int depth);

/* Unlinks @name in @d, or removes it as a directory, @arg levels down (an int): never stops. */
static bool
unlink_entry(int d, const char *name, void *arg)
{
	int depth = *(const int *)arg;

	if (unlinkat(d, name, 0) < 0 && depth < 2)
		remove_at(d, name, depth + 1);
	return false;
}

/* Removes @at/@path and what is in it, @depth levels down at most: whether it is gone. */
static bool
remove_at(int at, const char *path, int depth)
{
	int d = openat(at, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (d < 0)
		return false;
	dir_any(d, unlink_entry, &depth);
	close(d);
	return unlinkat(at, path, AT_REMOVEDIR) == 0;
}

bool
remove_tree(const char *path)
{
	for (int tries = 0; tries < 50; tries++)
		if (remove_at(AT_FDCWD, path, 0))
			return true;
	return false;
}
