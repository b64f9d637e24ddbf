/* SPDX-License-Identifier: MIT */
/* Directories as the tests look into them (dirs.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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
dir_any(int d, bool (*fn)(int d, const char *name, void *arg), void *arg)
{
	size_t len_at = 16, name_at = 19; /* struct linux_dirent64 */
	long nr = SYS_getdents64, n;
	char buf[4096];

	n = syscall(nr, d, buf, sizeof(buf));
#ifdef SYS_getdents
	if (n < 0 && errno == ENOSYS) {
		nr = SYS_getdents;
		len_at = 2 * sizeof(long); /* struct linux_dirent: two longs, reclen, name */
		name_at = len_at + 2;
		n = syscall(nr, d, buf, sizeof(buf));
	}
#endif
	for (; n > 0; n = syscall(nr, d, buf, sizeof(buf)))
		for (long off = 0; off < n;) {
			const char *name = buf + off + name_at;
			unsigned short reclen;

			memcpy(&reclen, buf + off + len_at, sizeof(reclen));
			if (reclen == 0)
				break;
			if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0 && fn(d, name, arg))
				return true;
			off += reclen;
		}
	return false;
}

/* Whether @name in @d is the inode @arg (a struct stat: device and number), not followed. */
static bool
is_inode(int d, const char *name, void *arg)
{
	const struct stat *st = arg;
	struct stat es;

	return fstatat(d, name, &es, AT_SYMLINK_NOFOLLOW) == 0 && es.st_dev == st->st_dev &&
	       es.st_ino == st->st_ino;
}

/* Whether directory @name in @d holds the inode @arg. */
static bool
holds_inode(int d, const char *name, void *arg)
{
	int in = openat(d, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	bool found;

	if (in < 0)
		return false;
	found = dir_any(in, is_inode, arg);
	close(in);
	return found;
}

/* What library_dir_by_inode() looks for, and where it says what it found. */
struct inode_search {
	struct stat st;
	char *out;
	size_t size;
	const char *base;
};

/* Whether @name in @d is a directory of the library's with an inner one holding the inode. */
static bool
library_dir_holding(int d, const char *name, void *arg)
{
	struct inode_search *q = arg;
	int outer;
	bool found;

	if (strncmp(name, ".libtimerfd-", 12) != 0)
		return false;
	outer = openat(d, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (outer < 0)
		return false;
	found = dir_any(outer, holds_inode, &q->st);
	close(outer);
	return found && (size_t)snprintf(q->out, q->size, "%s/%s", q->base, name) < q->size;
}

/*
 * Without /proc: the library's directory in the usual places ($TMPDIR, /dev/shm, /tmp,
 * /var/tmp) one of whose inner directories holds the FIFO @fd reads (a timer that kept its
 * name: where there is no /proc, all do).
 */
static bool
library_dir_by_inode(int fd, char *out, size_t size)
{
	const char *bases[] = { getenv("TMPDIR"), "/dev/shm", "/tmp", "/var/tmp" };
	struct inode_search q = { .out = out, .size = size };

	if (fstat(fd, &q.st) != 0 || !S_ISFIFO(q.st.st_mode))
		return false;
	for (size_t b = 0; b < sizeof(bases) / sizeof(bases[0]); b++) {
		int d = bases[b] ? open(bases[b], O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
		bool found;

		if (d < 0)
			continue;
		q.base = bases[b];
		found = dir_any(d, library_dir_holding, &q);
		close(d);
		if (found)
			return true;
	}
	return false;
}

bool
library_dir_of(int fd, char *out, size_t size)
{
	static const char gone[] = " (deleted)";
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = size > 0 ? readlink(link, out, size - 1) : -1;
	if (n < 0 && errno == ENOENT && access("/proc/self", F_OK) != 0)
		return library_dir_by_inode(fd, out, size);
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
