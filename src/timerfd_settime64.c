/* SPDX-License-Identifier: MIT */
/* __timerfd_settime64(): timerfd_settime() for callers built with 64-bit time_t on a 32-bit time_t ABI. */
#include "config.h"

#include "internal.h"
#include "syscall.h"
#include "time64.h"

TFD_EXPORT int
__timerfd_settime64(int fd, int flags, const struct tfd_itimerspec64 *new_value,
		    struct tfd_itimerspec64 *old_value)
{
	return __tfd_settime64_entry(fd, flags, new_value, old_value);
}
