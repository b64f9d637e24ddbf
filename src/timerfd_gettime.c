/* SPDX-License-Identifier: MIT */
/* timerfd_gettime(): the time left to a timer's next expiration, and its interval. */
#include "config.h"

#include <errno.h>
#include <sys/timerfd.h>

#include "emu/emu.h"
#include "emu/entry.h"
#include "internal.h"
#include "syscall.h"
#include "time64.h"

#if defined(TFD_NR_gettime64) && SIZEOF_TIME_T == 8
/* A 32-bit ABI built with 64-bit time_t (musl, riscv32): the time64 entry point's code. */
_Static_assert(sizeof(struct itimerspec) == sizeof(struct tfd_itimerspec64), "layout");

TFD_EXPORT int
timerfd_gettime(int fd, struct itimerspec *curr_value)
{
	return __tfd_gettime64_entry(fd, curr_value);
}
#else
/* As settime_after_error() in timerfd_settime.c. */
static TFD_SLOW_HALF int
gettime_after_error(long r, int fd, struct itimerspec *curr_value)
{
	return (int)__tfd_ret(__tfd_emu_gettime_after_its(r, fd, curr_value));
}

/*
 * The kernel first, as in timerfd_settime().  (qemu-user answers a NULL
 * buffer with success where the kernel gives EFAULT: the tests know it; the
 * hot path does not pay for it.)
 */
TFD_EXPORT int
timerfd_gettime(int fd, struct itimerspec *curr_value)
{
	long r = __tfd_syscall2(TFD_NR_gettime, fd, (long)curr_value);

	if (__tfd_is_err(r))
		return gettime_after_error(r, fd, curr_value);
	return (int)r;
}
#endif
