/* SPDX-License-Identifier: MIT */
/* timerfd_create(): a new timer file descriptor from the kernel. */
#include "config.h"

#include <sys/timerfd.h>

#include "internal.h"
#include "syscall.h"

TFD_EXPORT int
timerfd_create(clockid_t clockid, int flags)
{
	return (int)__tfd_ret(__tfd_syscall2(TFD_NR_create, clockid, flags));
}
