/* SPDX-License-Identifier: MIT */
/* An emulated timer's descriptor: a pipe, made, recognised and fed here and nowhere else. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emu/sys.h"
#include "emu/timer.h"

/*
 * The program holds the pipe's read end, the timer thread the write end in a
 * descriptor table of its own (DESIGN.md).  The pipe holds at most one
 * packet, a native-endian u64: the count since the last read, so a read()
 * returns what a timerfd's would; the thread replaces it as expirations come.
 */

/* Every pipe lives on one pseudo filesystem: its device tells a pipe from a named FIFO. */
static unsigned long pipefs_dev; /* a word: 32-bit targets have no 64-bit atomics of their own */
/* The thread's /proc/thread-self/fd, for reopening its own write ends as read ends. */
static int thread_fd_dir = -1;
/* Pipes hold one packet (F_SETPIPE_SZ, Linux 2.6.35): a write finds out whether it was read. */
static bool one_packet = true;

long
__tfd_pipe_identify(int fd, uint64_t *dev, uint64_t *ino)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -EBADF;
	if (!S_ISFIFO(st.st_mode) ||
	    (unsigned long)st.st_dev != __atomic_load_n(&pipefs_dev, __ATOMIC_RELAXED))
		return 0;
	*dev = (uint64_t)st.st_dev;
	*ino = (uint64_t)st.st_ino;
	return 1;
}

int
__tfd_pipe_thread_init(void)
{
	/* A thread of its own after fork(): the parent's thread's descriptors are not here. */
	thread_fd_dir = tfd_sys_openat(AT_FDCWD, "/proc/thread-self/fd",
				       O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return thread_fd_dir < 0 ? -ENOSYS : 0;
}

int
__tfd_pipe_make(int *r, int *w)
{
	int p[2];

	/*
	 * Non-blocking: the thread never waits on a pipe; the program's end gets
	 * its own flags.  Packets (O_DIRECT, Linux 3.4): a read returns one
	 * count, and one shorter than 8 bytes drops the rest of it instead of
	 * leaving bytes that the next read would take for a count.
	 */
	if (tfd_sys_pipe2(p, O_CLOEXEC | O_NONBLOCK | O_DIRECT) < 0 &&
	    (errno != EINVAL || tfd_sys_pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0))
		return -errno;
	/* One page: room for one packet, so that a write fails (EAGAIN) while a count waits. */
	if (one_packet && tfd_sys_fcntl(p[1], F_SETPIPE_SZ, 4096) < 0)
		one_packet = false;
	*r = p[0];
	*w = p[1];
	return 0;
}

int
__tfd_pipe_inode(int fd, uint64_t *dev, uint64_t *ino)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -EBADF;
	/* Every pipe lives on the one pipefs: the first one tells its device. */
	__atomic_store_n(&pipefs_dev, (unsigned long)st.st_dev, __ATOMIC_RELAXED);
	*dev = (uint64_t)st.st_dev;
	*ino = (uint64_t)st.st_ino;
	return 0;
}

/* "/proc/<pid>/task/<tid>/fd/<fd>": @fd in the table of thread @tid of this process. */
static void
fd_path(char *buf, size_t size, pid_t tid, int fd)
{
	snprintf(buf, size, "/proc/%ld/task/%ld/fd/%d", (long)__tfd_emu_pid(), (long)tid, fd);
}

long
__tfd_pipe_open_reader(pid_t tid, int r, int flags)
{
	char path[80];
	int fd;

	/*
	 * Opening a pipe through /proc makes a new open file of it, with exactly
	 * the flags asked for (O_CLOEXEC atomically), in the caller's table: one
	 * descriptor, as timerfd_create() takes.
	 */
	fd_path(path, sizeof(path), tid, r);
	fd = open(path, O_RDONLY | O_NOCTTY | (flags & (O_CLOEXEC | O_NONBLOCK)));
	if (fd >= 0)
		return fd;
	if (errno == EMFILE || errno == ENFILE || errno == ENOMEM)
		return -errno;
	return -ENOSYS; /* no /proc: the emulation cannot work safely (libtimerfd(7)) */
}

int
__tfd_pipe_open_writer(struct tfd_emu_timer *t)
{
	char path[80];
	struct stat st;
	int fd;

	/* Look before opening: the number may now be some other file of the program's. */
	fd_path(path, sizeof(path), t->rfd_tid, t->rfd);
	if (stat(path, &st) < 0 || !S_ISFIFO(st.st_mode) || (uint64_t)st.st_ino != t->ino ||
	    (uint64_t)st.st_dev != t->slot->dev)
		return -1;
	fd = tfd_sys_openat(AT_FDCWD, path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -1;
	/* Packets as from __tfd_pipe_make(); open() refuses O_DIRECT on a FIFO, fcntl() takes it. */
	tfd_sys_fcntl(fd, F_SETFL, O_NONBLOCK | O_DIRECT);
	snprintf(path, sizeof(path), "/proc/thread-self/fd/%d", fd);
	if (stat(path, &st) < 0 || (uint64_t)st.st_ino != t->ino) {
		tfd_sys_close(fd);
		return -1;
	}
	return fd;
}

/* Thread: opens a read end of @t's pipe from its write end, if it has none; -EPIPE: closed. */
static int
keep_read_end(struct tfd_emu_timer *t)
{
	char name[16];

	if (t->h >= 0)
		return 0;
	/*
	 * Never a reader for a pipe the program has closed: opening one would
	 * bring the timer back (its writes succeed again, no EPOLLERR), and each
	 * let-go would be followed by another open at the next expiration.
	 */
	if (tfd_sys_readers_gone(t->w))
		return -EPIPE;
	snprintf(name, sizeof(name), "%d", t->w);
	t->h = tfd_sys_openat(thread_fd_dir, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	return 0;
}

int
__tfd_pipe_add(struct tfd_emu_timer *t, uint64_t n)
{
	uint64_t count = 0;
	int queued;

	t->slot->maybe_counted = true;
	/*
	 * A pipe of one packet (__tfd_pipe_make()) takes a write only when the
	 * program has read the last count: then one write is the whole delivery.
	 */
	if (one_packet && !t->piled) {
		if (tfd_sys_write(t->w, &n, sizeof(n)) == sizeof(n))
			return 0;
		if (errno == EPIPE)
			return -EPIPE;
	}
	/*
	 * A count waits: take it out (the program may read it meanwhile: then it
	 * has it and we add to nothing), then put the sum in.  The read end for
	 * that is kept while counts pile up unread; the thread lets go of it
	 * within a second, because while it is open a close by the program
	 * leaves a reader behind.
	 */
	if ((one_packet || (tfd_sys_ioctl(t->w, FIONREAD, &queued) == 0 && queued > 0)) &&
	    keep_read_end(t) == -EPIPE)
		return -EPIPE;
	if (t->h >= 0 && tfd_sys_read(t->h, &count, sizeof(count)) != sizeof(count))
		count = 0;
	t->piled = count != 0;
	count = count + n < count ? UINT64_MAX : count + n;
	if (tfd_sys_write(t->w, &count, sizeof(count)) == sizeof(count))
		return 0;
	return errno == EPIPE ? -EPIPE : 0;
}

void
__tfd_pipe_let_go(struct tfd_emu_timer *t)
{
	if (t->h >= 0)
		tfd_sys_close(t->h);
	t->h = -1;
}

void
__tfd_pipe_drain(int fd)
{
	char path[40];
	uint64_t buf[8];
	int queued = 0, fl, h;

	if (ioctl(fd, FIONREAD, &queued) < 0 || queued == 0)
		return;
	/* Never block, and never touch the flags of the program's open file. */
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0 && (fl & O_NONBLOCK)) {
		while (read(fd, buf, sizeof(buf)) < 0 && errno == EINTR)
			;
		return;
	}
	snprintf(path, sizeof(path), "/proc/thread-self/fd/%d", fd);
	h = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (h < 0)
		return;
	while (read(h, buf, sizeof(buf)) < 0 && errno == EINTR)
		;
	close(h);
}
