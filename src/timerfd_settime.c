/* SPDX-License-Identifier: MIT */
/* timerfd_settime(): arm or disarm a timer, optionally returning its old setting. */
#include "config.h"

#include <sys/timerfd.h>

#include "internal.h"
#include "syscall.h"

TFD_EXPORT int
timerfd_settime(int fd, int flags, const struct itimerspec *new_value,
		struct itimerspec *old_value)
{
	return (int)__tfd_ret(__tfd_syscall4(TFD_NR_settime, fd, flags,
					     (long)new_value, (long)old_value));
}
