/* SPDX-License-Identifier: MIT */
/* timerfd_gettime(): the time left to a timer's next expiration, and its interval. */
#include "config.h"

#include <errno.h>
#include <sys/timerfd.h>

#include "internal.h"
#include "syscall.h"
#include "time64.h"

TFD_EXPORT int
timerfd_gettime(int fd, struct itimerspec *curr_value)
{
#if defined(TFD_NR_gettime64) && SIZEOF_TIME_T == 8
	/* A 32-bit ABI built with 64-bit time_t (musl, riscv32): the time64 calls' layout. */
	_Static_assert(sizeof(struct itimerspec) == sizeof(struct tfd_itimerspec64), "layout");
	return (int)__tfd_ret(__tfd_gettime64(fd, (void *)curr_value));
#else
	struct itimerspec scratch;
	long r;

	/*
	 * The kernel looks the fd up first and only then faults on a NULL
	 * buffer; qemu-user instead ignores NULL and succeeds.  Ask about the
	 * fd with a buffer of ours so that the kernel's errno order holds.
	 */
	if (!curr_value) {
		r = __tfd_syscall2(TFD_NR_gettime, fd, (long)&scratch);
		return (int)__tfd_ret(r < 0 ? r : -EFAULT);
	}
	return (int)__tfd_ret(__tfd_syscall2(TFD_NR_gettime, fd, (long)curr_value));
#endif
}
