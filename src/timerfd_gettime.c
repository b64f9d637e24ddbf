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

static long
kernel_gettime(int fd, struct itimerspec *curr_value)
{
#if defined(TFD_NR_gettime64) && SIZEOF_TIME_T == 8
	/* A 32-bit ABI built with 64-bit time_t (musl, riscv32): the time64 calls' layout. */
	_Static_assert(sizeof(struct itimerspec) == sizeof(struct tfd_itimerspec64), "layout");
	return __tfd_gettime64(fd, (void *)curr_value);
#else
	struct itimerspec scratch;

	/*
	 * The kernel looks the fd up first and only then faults on a NULL
	 * buffer; qemu-user instead ignores NULL and succeeds.  Ask about the
	 * fd with a buffer of ours so that the kernel's errno order holds.
	 */
	if (!curr_value) {
		long r = __tfd_syscall2(TFD_NR_gettime, fd, (long)&scratch);
		return r < 0 ? r : -EFAULT;
	}
	return __tfd_syscall2(TFD_NR_gettime, fd, (long)curr_value);
#endif
}

/* As settime_slow() in timerfd_settime.c: emulated timers and the switch to the emulation. */
static __attribute__((noinline, cold)) long
gettime_slow(int fd, struct itimerspec *curr_value, long r)
{
	if (r == 1) {
		r = __tfd_emu_try_gettime_its(fd, curr_value);
		if (r != TFD_EMU_NOT_OURS)
			return r;
		r = kernel_gettime(fd, curr_value);
	}
	/* No timerfd in this kernel: the emulation gives the errno a real one would. */
	if (r == -ENOSYS && __tfd_backend_switch_to_emulation())
		r = __tfd_emu_gettime_its(fd, curr_value);
	return r;
}

TFD_EXPORT int
timerfd_gettime(int fd, struct itimerspec *curr_value)
{
	long r;

	if (__tfd_emu_in_use())
		return (int)__tfd_ret(gettime_slow(fd, curr_value, 1));
	r = kernel_gettime(fd, curr_value);
	if (r == -ENOSYS)
		r = gettime_slow(fd, curr_value, r);
	return (int)__tfd_ret(r);
}
