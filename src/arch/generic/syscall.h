/* SPDX-License-Identifier: MIT */
/* Syscall stubs for arches without inline asm of ours: syscall(2), converted back to -errno. */
#include <errno.h>
#include <unistd.h>

/*
 * syscall(2) sets errno on failure; the stubs answer -errno instead and
 * leave errno as it was, as the inline-asm ones do: a call that succeeds
 * after an internal failure (ENOSYS, then the emulation) must not show it.
 */
static inline long
__tfd_syscall_ret(long ret, int saved_errno)
{
	if (ret != -1)
		return ret;
	ret = -errno;
	errno = saved_errno;
	return ret;
}

static inline long
__tfd_syscall2(long n, long a1, long a2)
{
	int saved_errno = errno;

	return __tfd_syscall_ret(syscall(n, a1, a2), saved_errno);
}

static inline long
__tfd_syscall4(long n, long a1, long a2, long a3, long a4)
{
	int saved_errno = errno;

	return __tfd_syscall_ret(syscall(n, a1, a2, a3, a4), saved_errno);
}
