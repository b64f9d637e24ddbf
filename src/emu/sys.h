/* SPDX-License-Identifier: MIT */
/* The system calls the emulation makes directly: the timer server's, and the futex calls. */
#ifndef TFD_EMU_SYS_H
#define TFD_EMU_SYS_H

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

/*
 * The timer server (server.c) is a process cloned from the program without the C
 * library's fork() (spawn.c): the C library's own state there (its cached thread id, locks
 * other threads held) is not to be used, so the server calls the kernel through
 * syscall(2) only.  syscall(2) sets errno in the copy of the cloning thread's TLS, which
 * is the server's own memory.
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
tfd_sys_openat(int dir, const char *path, int flags, int mode)
{
	return (int)syscall(SYS_openat, dir, path, flags, mode);
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

static inline int
tfd_sys_mknodat(int dir, const char *path, unsigned int mode)
{
	return (int)syscall(SYS_mknodat, dir, path, mode, 0);
}

static inline int
tfd_sys_mkdirat(int dir, const char *path, unsigned int mode)
{
	return (int)syscall(SYS_mkdirat, dir, path, mode);
}

static inline int
tfd_sys_unlinkat(int dir, const char *path, int flags)
{
	return (int)syscall(SYS_unlinkat, dir, path, flags);
}

/*
 * The futex word is in memory shared with other processes (MAP_SHARED): no
 * FUTEX_PRIVATE_FLAG.  A wait's timeout is relative, on CLOCK_MONOTONIC, in the
 * layout of the call each ABI has: the 32-bit time one where SYS_futex exists (a
 * timeout here is at most a few seconds), else futex_time64's.
 */
#define TFD_FUTEX_WAIT 0
#define TFD_FUTEX_WAKE 1

static inline int
tfd_sys_futex_wait(uint32_t *word, uint32_t val, int64_t timeout_ns)
{
#ifdef SYS_futex
	struct {
		long sec, nsec;
	} ts = { (long)(timeout_ns / 1000000000), (long)(timeout_ns % 1000000000) };

	return (int)syscall(SYS_futex, word, TFD_FUTEX_WAIT, val, timeout_ns < 0 ? NULL : &ts, NULL, 0);
#else
	struct {
		int64_t sec, nsec;
	} ts = { timeout_ns / 1000000000, timeout_ns % 1000000000 };

	return (int)syscall(SYS_futex_time64, word, TFD_FUTEX_WAIT, val, timeout_ns < 0 ? NULL : &ts,
			    NULL, 0);
#endif
}

static inline void
tfd_sys_futex_wake(uint32_t *word, int n)
{
#ifdef SYS_futex
	syscall(SYS_futex, word, TFD_FUTEX_WAKE, n, NULL, NULL, 0);
#else
	syscall(SYS_futex_time64, word, TFD_FUTEX_WAKE, n, NULL, NULL, 0);
#endif
}

#endif /* TFD_EMU_SYS_H */
