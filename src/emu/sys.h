/* SPDX-License-Identifier: MIT */
/* The timer thread's calls on its own descriptor table, made through syscall(2). */
#ifndef TFD_EMU_SYS_H
#define TFD_EMU_SYS_H

#include <fcntl.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

/*
 * The thread's descriptors live in a table of its own (DESIGN.md): their
 * numbers are the same as some of the program's.  Tools that track
 * descriptors by number through the C library's functions (ThreadSanitizer)
 * would take the two for one, so the thread calls the kernel directly.
 * syscall(2) sets the thread's own errno, as the functions would.
 */
static inline int
tfd_sys_close(int fd)
{
	return (int)syscall(SYS_close, fd);
}

static inline ssize_t
tfd_sys_read(int fd, void *buf, size_t n)
{
	return syscall(SYS_read, fd, buf, n);
}

static inline ssize_t
tfd_sys_write(int fd, const void *buf, size_t n)
{
	return syscall(SYS_write, fd, buf, n);
}

static inline int
tfd_sys_openat(int dir, const char *path, int flags)
{
	return (int)syscall(SYS_openat, dir, path, flags, 0);
}

static inline int
tfd_sys_pipe2(int p[2], int flags)
{
	return (int)syscall(SYS_pipe2, p, flags);
}

static inline int
tfd_sys_fcntl(int fd, int cmd, long arg)
{
#ifdef SYS_fcntl64
	return (int)syscall(SYS_fcntl64, fd, cmd, arg);
#else
	return (int)syscall(SYS_fcntl, fd, cmd, arg);
#endif
}

static inline int
tfd_sys_ioctl(int fd, unsigned long request, void *arg)
{
	return (int)syscall(SYS_ioctl, fd, request, arg);
}

static inline int
tfd_sys_epoll_create1(int flags)
{
	return (int)syscall(SYS_epoll_create1, flags);
}

static inline int
tfd_sys_epoll_ctl(int ep, int op, int fd, void *event)
{
	return (int)syscall(SYS_epoll_ctl, ep, op, fd, event);
}

/* epoll_pwait: every architecture has it (aarch64 has no epoll_wait). */
static inline int
tfd_sys_epoll_wait(int ep, void *events, int max, int timeout)
{
	return (int)syscall(SYS_epoll_pwait, ep, events, max, timeout, NULL, 8);
}

/* Whether @fd, a pipe's write end, reports POLLERR: no reader is left. ppoll, as above. */
static inline int
tfd_sys_readers_gone(int fd)
{
	struct {
		int fd;
		short events, revents;
	} p = { fd, 0, 0 };
	long long zero[2] = { 0, 0 }; /* a zero timeout in the old and the time64 layouts */
#ifdef SYS_ppoll
	long n = syscall(SYS_ppoll, &p, 1, zero, NULL, 8);
#else
	long n = syscall(SYS_ppoll_time64, &p, 1, zero, NULL, 8);
#endif

	return n == 1 && (p.revents & 0x008 /* POLLERR */);
}

#endif /* TFD_EMU_SYS_H */
