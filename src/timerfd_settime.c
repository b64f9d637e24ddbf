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

TFD_EXPORT int
timerfd_settime(int fd, int flags, const struct itimerspec *new_value,
		struct itimerspec *old_value)
{
	long r;

	if (__tfd_emu_in_use() && __tfd_emu_owns(fd))
		return (int)__tfd_ret(__tfd_emu_settime_its(fd, flags, new_value, old_value));
	r = kernel_settime(fd, flags, new_value, old_value);
	/* No timerfd in this kernel: the emulation gives the errno a real one would. */
	if (r == -ENOSYS && __tfd_backend_switch_to_emulation())
		r = __tfd_emu_settime_its(fd, flags, new_value, old_value);
	return (int)__tfd_ret(r);
}
