/* SPDX-License-Identifier: MIT */
/* Syscall stubs for arches without inline asm of ours: syscall(2), converted back to -errno. */
#include <errno.h>
#include <unistd.h>

static inline long
__tfd_syscall2(long n, long a1, long a2)
{
	long ret = syscall(n, a1, a2);

	return ret == -1 ? -errno : ret;
}

static inline long
__tfd_syscall4(long n, long a1, long a2, long a3, long a4)
{
	long ret = syscall(n, a1, a2, a3, a4);

	return ret == -1 ? -errno : ret;
}
