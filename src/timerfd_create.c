/* SPDX-License-Identifier: MIT */
/* timerfd_create(): a new timer file descriptor from the kernel. */
#include "config.h"

#include <errno.h>
#include <sys/timerfd.h>

#include "internal.h"
#include "syscall.h"

TFD_EXPORT int
timerfd_create(clockid_t clockid, int flags)
{
	/*
	 * The kernel answers EINVAL to unknown flags; we check too because
	 * syscall translators such as qemu-user drop unknown bits instead.
	 */
	if (flags & ~(TFD_CLOEXEC | TFD_NONBLOCK))
		return (int)__tfd_ret(-EINVAL);
	return (int)__tfd_ret(__tfd_syscall2(TFD_NR_create, clockid, flags));
}
