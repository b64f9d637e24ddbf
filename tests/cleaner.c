/* SPDX-License-Identifier: MIT */
/* What a temporary-file cleaner does to the emulation's directory (tests/cleaner.h). */
#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleaner.h"

/* Removes @at/@path and what is in it, @depth levels down at most: whether it is gone. */
static bool
remove_at(int at, const char *path, int depth)
{
	char buf[4096];
	long n;
	int d = openat(at, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (d < 0)
		return false;
	while ((n = syscall(SYS_getdents64, d, buf, sizeof(buf))) > 0)
		for (long off = 0; off < n;) {
			unsigned short reclen;
			const char *name = buf + off + 19; /* struct linux_dirent64 */

			memcpy(&reclen, buf + off + 16, sizeof(reclen));
			if (reclen == 0)
				break;
			if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0 &&
			    unlinkat(d, name, 0) < 0 && depth < 2)
				remove_at(d, name, depth + 1);
			off += reclen;
		}
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
