/* SPDX-License-Identifier: MIT */
/* Which descriptors are emulated timers: a table by number, checked by file identity. */
#include "config.h"

#include <dirent.h>
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
/* Which numbers are our shadows, so that a scan of the descriptors can skip them. */
static bool *is_shadow;
static size_t is_shadow_len;
/*
 * Orphans: timers none of whose registered numbers is open any more.  The program may
 * still hold a dup() the library has not seen, and the kernel's timer lives as long as
 * any descriptor does; so they are kept (armed, firing) and looked for in batches: one
 * scan of the open descriptors resolves ORPHAN_BATCH of them, adopting each dup found
 * and destroying the rest, once a batch has gathered or a second after the last scan.  A
 * scan per closed timer made a create among 9,000 open timers 5,000 times slower.
 */
#define ORPHAN_BATCH 64
/* A scan costs in proportion to the descriptors: with many, batches are larger. */
#define BATCH_SIZE (by_fd_len / 32 > ORPHAN_BATCH ? by_fd_len / 32 : ORPHAN_BATCH)
static struct tfd_emu_timer **orphans;
static size_t norphans, orphans_len;
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

/* Grows @v (of *@len elements of @size bytes, zeroed) to hold index @i: 0 or -ENOMEM. */
static int
grow(void **v, size_t *len, size_t size, size_t i)
{
	size_t n = *len ? *len : 64;
	char *p;

	if (i < *len)
		return 0;
	while (n <= i)
		n *= 2;
	p = realloc(*v, n * size);
	if (!p)
		return -ENOMEM;
	memset(p + *len * size, 0, (n - *len) * size);
	*v = p;
	*len = n;
	return 0;
}

static void
destroy(struct tfd_emu_timer *t)
{
	__tfd_queue_remove(t);
	if ((size_t)t->shadow < is_shadow_len)
		is_shadow[t->shadow] = false;
	close(t->shadow);
	free(t);
}

/* @t has no registered number left: an orphan until the next batch (destroyed if no memory). */
static void
orphan(struct tfd_emu_timer *t)
{
	if (grow((void **)&orphans, &orphans_len, sizeof(*orphans), norphans)) {
		destroy(t);
		return;
	}
	orphans[norphans++] = t;
}

static void
unregister(int fd)
{
	struct tfd_emu_timer *t = by_fd[fd];

	by_fd[fd] = NULL;
	if (--t->nfds == 0) {
		orphan(t);
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

	if (grow((void **)&by_fd, &by_fd_len, sizeof(*by_fd), (size_t)fd) ||
	    grow((void **)&is_shadow, &is_shadow_len, sizeof(*is_shadow), (size_t)t->shadow))
		return -ENOMEM;
	/* A number still registered was closed by the program and has been reused. */
	if (by_fd[fd])
		unregister(fd);
	by_fd[fd] = t;
	t->fd = fd;
	t->nfds++;
	is_shadow[t->shadow] = true;
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
/* What /proc says of @fd: 1 an eventfd, 0 something else, -1 no answer (no /proc). */
static int
proc_says_eventfd(int fd)
{
	char path[64], link[32];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return -1;
	link[n] = '\0';
	return strcmp(link, "anon_inode:[eventfd]") == 0;
}

static bool
is_eventfd(int fd)
{
	struct stat st;

	if (!eventfd_ino || fstat(fd, &st) != 0 || st.st_ino != eventfd_ino ||
	    st.st_dev != eventfd_dev)
		return false;
	return proc_says_eventfd(fd) != 0; /* no /proc: cannot tell, so look */
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
	/* The last dup of an orphan, used before its batch came. */
	for (size_t i = 0; i < norphans; i++) {
		t = orphans[i];
		if (same_file(fd, t->shadow) && __tfd_registry_add(fd, t) == 0) {
			orphans[i] = orphans[--norphans];
			return t;
		}
	}
	return NULL;
}

void
__tfd_registry_drop_closed(struct tfd_emu_timer *t)
{
	while (t->nfds > 0 && !same_file(t->fd, t->shadow))
		unregister(t->fd);
}

/* kcmp(KCMP_FILE)'s order of two descriptors' files: <0, 0 (the same file), >0. */
static int
file_order(int a, int b)
{
	long pid = __tfd_emu_pid();
	long r = syscall(SYS_kcmp, pid, pid, KCMP_FILE, a, b);

	return r == 0 ? 0 : r == 1 ? -1 : 1;
}

static int
by_file(const void *a, const void *b)
{
	return file_order((*(struct tfd_emu_timer *const *)a)->shadow,
			  (*(struct tfd_emu_timer *const *)b)->shadow);
}

/* The orphan of @batch (@n, sorted by file unless kcmp is missing) whose file @fd is, or NULL. */
static struct tfd_emu_timer *
find_orphan(struct tfd_emu_timer **batch, size_t n, int fd)
{
	size_t lo = 0, hi = n;

	if (kcmp_missing) {
		for (size_t i = 0; i < n; i++)
			if (same_file(fd, batch[i]->shadow))
				return batch[i];
		return NULL;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = file_order(fd, batch[mid]->shadow);

		if (c == 0)
			return batch[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* One scan of the open descriptors: each orphan with a dup left is adopted, the rest go. */
static void
resolve_orphans(void)
{
	struct tfd_emu_timer **batch = orphans;
	size_t n = norphans;
	struct dirent *e;
	DIR *d;

	orphans = NULL;
	norphans = orphans_len = 0;
	same_file(batch[0]->shadow, batch[0]->shadow); /* finds out whether kcmp works */
	if (!kcmp_missing)
		qsort(batch, n, sizeof(*batch), by_file);
	d = opendir("/proc/self/fd");
	while (d && (e = readdir(d))) {
		struct tfd_emu_timer *t;
		char *end;
		long fd = strtol(e->d_name, &end, 10);

		if (*end || end == e->d_name || fd == dirfd(d) ||
		    ((size_t)fd < is_shadow_len && is_shadow[fd]))
			continue;
		/* Most descriptors are the live timers registered for them: one kcmp each. */
		if ((size_t)fd < by_fd_len && by_fd[fd] && same_file((int)fd, by_fd[fd]->shadow))
			continue;
		/*
		 * By name only: the scan runs in the timer thread, and these are the
		 * program's descriptors, which its threads may be opening or closing
		 * meanwhile; /proc and kcmp look at them without touching them.
		 */
		if (proc_says_eventfd((int)fd) != 1)
			continue;
		t = find_orphan(batch, n, (int)fd);
		if (t)
			__tfd_registry_add((int)fd, t);
	}
	if (d)
		closedir(d);
	for (size_t i = 0; i < n; i++)
		if (batch[i]->nfds == 0)
			destroy(batch[i]);
	free(batch);
}

void
__tfd_registry_resolve_orphans(void)
{
	static int64_t next;
	int64_t now;

	if (norphans == 0)
		return;
	/* A full batch, or any orphan at least a second after the last scan. */
	now = __tfd_base_now(TFD_BASE_MONOTONIC);
	if (norphans < BATCH_SIZE && now < next)
		return;
	next = now + TFD_NS_PER_S;
	resolve_orphans();
}

void
__tfd_registry_sweep(void)
{
	__tfd_registry_resolve_orphans();
	/* Two entries per call: timers the program closed are reclaimed as it makes new ones. */
	for (int checked = 0; checked < 2 && by_fd_len; checked++) {
		size_t i = sweep_cursor++ % by_fd_len;

		if (by_fd[i] && !same_file((int)i, by_fd[i]->shadow))
			unregister((int)i);
	}
}
