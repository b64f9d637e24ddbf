/* SPDX-License-Identifier: MIT */
/* 64-bit time on 32-bit ABIs: the 64-bit itimerspec layout and the time64 calls with their fallback. */
#ifndef TFD_TIME64_H
#define TFD_TIME64_H

#include <stdint.h>

/*
 * A struct itimerspec of a program built with 64-bit time_t on a 32-bit ABI
 * (glibc's struct __timespec64, musl's struct timespec): tv_nsec is a 32-bit
 * long beside 32 bits of padding.  The time64 syscalls take it as it is:
 * the kernel reads the pair as one 64-bit tv_nsec and, for a 32-bit task,
 * keeps only its low half (get_timespec64()), whatever the padding holds.
 */
struct tfd_timespec64 {
	int64_t tv_sec;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	int32_t pad;
	int32_t tv_nsec;
#else
	int32_t tv_nsec;
	int32_t pad;
#endif
};

struct tfd_itimerspec64 {
	struct tfd_timespec64 it_interval;
	struct tfd_timespec64 it_value;
};

/* The kernel's old_itimerspec32, taken by the plain calls of 32-bit ABIs. */
struct tfd_timespec32 {
	int32_t tv_sec;
	int32_t tv_nsec;
};

struct tfd_itimerspec32 {
	struct tfd_timespec32 it_interval;
	struct tfd_timespec32 it_value;
};

/*
 * timerfd_settime64 / timerfd_gettime64, or, once the kernel has answered
 * ENOSYS (before 5.1), the 32-bit calls with the values converted; a value
 * that does not fit in 32 bits then gives -EOVERFLOW.  Return 0 or -errno.
 */
long __tfd_settime64(int fd, int flags, const struct tfd_itimerspec64 *new_value,
		     struct tfd_itimerspec64 *old_value);
long __tfd_gettime64(int fd, struct tfd_itimerspec64 *curr_value);

/* Exported entry points for callers built with _TIME_BITS=64 on 32-bit time_t ABIs. */
int __timerfd_settime64(int fd, int flags, const struct tfd_itimerspec64 *new_value,
			struct tfd_itimerspec64 *old_value);
int __timerfd_gettime64(int fd, struct tfd_itimerspec64 *curr_value);

#endif /* TFD_TIME64_H */
