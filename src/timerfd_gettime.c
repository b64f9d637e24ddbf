/* SPDX-License-Identifier: MIT */
/* timerfd_gettime(): the time left to a timer's next expiration, and its interval. */
#include "config.h"

#include <sys/timerfd.h>

#include "internal.h"
#include "syscall.h"

TFD_EXPORT int
timerfd_gettime(int fd, struct itimerspec *curr_value)
{
	return (int)__tfd_ret(__tfd_syscall2(TFD_NR_gettime, fd, (long)curr_value));
}
