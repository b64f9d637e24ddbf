/* SPDX-License-Identifier: MIT */
/* timerfd_settime(): arm or disarm a timer, optionally returning its old setting. */
#include "config.h"

#include <errno.h>
#include <sys/timerfd.h>

#include "emu/emu.h"
#include "emu/entry.h"
#include "internal.h"
#include "syscall.h"
#include "time64.h"

#if defined(TFD_NR_settime64) && SIZEOF_TIME_T == 8
/* A 32-bit ABI built with 64-bit time_t (musl, riscv32): the time64 entry point's code. */
_Static_assert(sizeof(struct itimerspec) == sizeof(struct tfd_itimerspec64), "layout");

TFD_EXPORT int
timerfd_settime(int fd, int flags, const struct itimerspec *new_value,
		struct itimerspec *old_value)
{
	return __tfd_settime64_entry(fd, flags, new_value, old_value);
}
#else
/*
 * Everything after the kernel's error @r (argument order: internal.h): the
 * emulation's part (emu/entry.h), then errno and -1.  Tail-called with the entry
 * point's own arguments, so the success path saves nothing for it.
 */
static TFD_SLOW_HALF int
settime_after_error(long r, int fd, int flags, const struct itimerspec *new_value,
		    struct itimerspec *old_value)
{
	return (int)__tfd_ret(__tfd_emu_settime_after_its(r, fd, flags, new_value, old_value));
}

/* The kernel first: on success this is the C library's wrapper, instruction for instruction. */
TFD_EXPORT int
timerfd_settime(int fd, int flags, const struct itimerspec *new_value,
		struct itimerspec *old_value)
{
	long r = __tfd_syscall4(TFD_NR_settime, fd, flags, (long)new_value, (long)old_value);

	if (__tfd_is_err(r))
		return settime_after_error(r, fd, flags, new_value, old_value);
	return (int)r;
}
#endif
