/* SPDX-License-Identifier: MIT */
/* Which descriptors are emulated timers: a table by number, checked by file identity. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "emu/timer.h"

#ifndef KCMP_FILE
#define KCMP_FILE 0
#endif

static struct tfd_emu_timer **by_fd;
static size_t by_fd_len, sweep_cursor;
static int kcmp_missing;
/* Every eventfd shares one anonymous inode: only a descriptor with it can be a dup of ours. */
static dev_t eventfd_dev;
static ino_t eventfd_ino;

/*
 * Whether @fd and @shadow are the same open file.  A number the program
 * closed and reused must not pass for the timer it held.  kcmp(KCMP_FILE)
 * tells exactly; where it is missing or forbidden, flip O_APPEND (no effect
 * on an eventfd) through one descriptor and look for it through the other:
 * file status flags live in the open file, shared by its descriptors.
 */
static bool
same_file(int fd, int shadow)
{
	int a, b, flipped;

	if (!kcmp_missing) {
		long pid = __tfd_emu_pid();
		long r = syscall(SYS_kcmp, pid, pid, KCMP_FILE, fd, shadow);

		if (r >= 0)
			return r == 0;
		if (errno == EBADF)
			return false;
		kcmp_missing = 1;
	}
	a = fcntl(fd, F_GETFL);
	b = fcntl(shadow, F_GETFL);
	if (a < 0 || b < 0 || a != b)
		return false;
	if (fcntl(fd, F_SETFL, a ^ O_APPEND) < 0)
		return false;
	flipped = fcntl(shadow, F_GETFL);
	fcntl(fd, F_SETFL, a);
	return flipped >= 0 && ((flipped ^ b) & O_APPEND);
}

bool
__tfd_registry_alive(int fd, const struct tfd_emu_timer *t)
{
	return same_file(fd, t->shadow);
}

static void
destroy(struct tfd_emu_timer *t)
{
	__tfd_queue_remove(t);
	close(t->shadow);
	free(t);
}

static void
unregister(int fd)
{
	struct tfd_emu_timer *t = by_fd[fd];

	by_fd[fd] = NULL;
	if (--t->nfds == 0) {
		destroy(t);
		return;
	}
	if (t->fd == fd) {
		/* Another number still holds it: make that one the timer's own. */
		for (size_t i = 0; i < by_fd_len; i++) {
			if (by_fd[i] == t) {
				t->fd = (int)i;
				break;
			}
		}
	}
}

int
__tfd_registry_add(int fd, struct tfd_emu_timer *t)
{
	struct stat st;

	if ((size_t)fd >= by_fd_len) {
		size_t len = by_fd_len ? by_fd_len : 64;
		struct tfd_emu_timer **v;

		while (len <= (size_t)fd)
			len *= 2;
		v = realloc(by_fd, len * sizeof(*v));
		if (!v)
			return -ENOMEM;
		for (size_t i = by_fd_len; i < len; i++)
			v[i] = NULL;
		by_fd = v;
		by_fd_len = len;
	}
	/* A number still registered was closed by the program and has been reused. */
	if (by_fd[fd])
		unregister(fd);
	by_fd[fd] = t;
	t->nfds++;
	if (!eventfd_ino && fstat(t->shadow, &st) == 0) {
		eventfd_dev = st.st_dev;
		eventfd_ino = st.st_ino;
	}
	return 0;
}

/*
 * Whether @fd may be a dup of one of ours: an eventfd.  Every anonymous-inode
 * file (eventfd, timerfd, epoll, ...) shares one inode, so the inode only
 * rules out the rest; /proc names the kind, sparing a real kernel timerfd
 * the scan of every emulated timer.
 */
static bool
is_eventfd(int fd)
{
	char path[64], link[32];
	struct stat st;
	ssize_t n;

	if (!eventfd_ino || fstat(fd, &st) != 0 || st.st_ino != eventfd_ino ||
	    st.st_dev != eventfd_dev)
		return false;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return true; /* no /proc: cannot tell, so look */
	link[n] = '\0';
	return strcmp(link, "anon_inode:[eventfd]") == 0;
}

struct tfd_emu_timer *
__tfd_registry_lookup(int fd)
{
	struct tfd_emu_timer *t;

	if (fd < 0)
		return NULL;
	if ((size_t)fd < by_fd_len && by_fd[fd]) {
		t = by_fd[fd];
		if (same_file(fd, t->shadow))
			return t;
		unregister(fd);
	}
	/* A dup() of an emulated timer works with settime/gettime too, as in the kernel. */
	if (!is_eventfd(fd))
		return NULL;
	for (size_t i = 0; i < by_fd_len; i++) {
		t = by_fd[i];
		if (t && same_file(fd, t->shadow))
			return __tfd_registry_add(fd, t) == 0 ? t : NULL;
	}
	return NULL;
}

bool
__tfd_registry_reclaim_if_closed(struct tfd_emu_timer *t)
{
	while (!same_file(t->fd, t->shadow)) {
		int nfds = t->nfds;

		unregister(t->fd);
		if (nfds == 1)
			return true;
	}
	return false;
}

void
__tfd_registry_sweep(void)
{
	/* Two entries per call: timers the program closed are reclaimed as it makes new ones. */
	for (int checked = 0; checked < 2 && by_fd_len; checked++) {
		size_t i = sweep_cursor++ % by_fd_len;

		if (by_fd[i] && !same_file((int)i, by_fd[i]->shadow))
			unregister((int)i);
	}
}
