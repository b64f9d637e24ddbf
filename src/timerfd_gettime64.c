/* SPDX-License-Identifier: MIT */
/* __timerfd_gettime64(): timerfd_gettime() for callers built with 64-bit time_t on a 32-bit time_t ABI. */
#include "config.h"

#include "internal.h"
#include "syscall.h"
#include "time64.h"

TFD_EXPORT int
__timerfd_gettime64(int fd, struct tfd_itimerspec64 *curr_value)
{
	return __tfd_gettime64_entry(fd, curr_value);
}
