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

static long
kernel_settime(int fd, int flags, const struct itimerspec *new_value,
	       struct itimerspec *old_value)
{
#if defined(TFD_NR_settime64) && SIZEOF_TIME_T == 8
	/* A 32-bit ABI built with 64-bit time_t (musl, riscv32): the time64 calls' layout. */
	_Static_assert(sizeof(struct itimerspec) == sizeof(struct tfd_itimerspec64), "layout");
	return __tfd_settime64(fd, flags, (const void *)new_value, (void *)old_value);
#else
	return __tfd_syscall4(TFD_NR_settime, fd, flags, (long)new_value, (long)old_value);
#endif
}

/*
 * Everything but the kernel's plain answer: emulated timers, and the switch
 * to the emulation when the kernel has no timerfd.  Out of line, so the fast
 * path keeps no registers for it.  @r is the kernel's answer, or 1 when the
 * kernel was not asked yet because emulated timers exist.
 */
static __attribute__((noinline, cold)) long
settime_slow(int fd, int flags, const struct itimerspec *new_value,
	     struct itimerspec *old_value, long r)
{
	if (r == 1) {
		r = __tfd_emu_try_settime_its(fd, flags, new_value, old_value);
		if (r != TFD_EMU_NOT_OURS)
			return r;
		r = kernel_settime(fd, flags, new_value, old_value);
	}
	/* No timerfd in this kernel: the emulation gives the errno a real one would. */
	if (r == -ENOSYS && __tfd_backend_switch_to_emulation())
		r = __tfd_emu_settime_its(fd, flags, new_value, old_value);
	return r;
}

TFD_EXPORT int
timerfd_settime(int fd, int flags, const struct itimerspec *new_value,
		struct itimerspec *old_value)
{
	long r;

	if (__tfd_emu_in_use())
		return (int)__tfd_ret(settime_slow(fd, flags, new_value, old_value, 1));
	r = kernel_settime(fd, flags, new_value, old_value);
	if (r == -ENOSYS)
		r = settime_slow(fd, flags, new_value, old_value, r);
	return (int)__tfd_ret(r);
}
