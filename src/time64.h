/* SPDX-License-Identifier: MIT */
/* 64-bit time on 32-bit ABIs: the 64-bit itimerspec layout and the time64 calls with their fallback. */
#ifndef TFD_TIME64_H
#define TFD_TIME64_H

#include <stdint.h>

#include "internal.h"

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
 * that does not fit in 32 bits then gives -EOVERFLOW.  Then, after an error,
 * the emulation's answer for its timers.  Return 0 or -errno.
 */
long __tfd_settime64(int fd, int flags, const struct tfd_itimerspec64 *new_value,
		     struct tfd_itimerspec64 *old_value);
long __tfd_gettime64(int fd, struct tfd_itimerspec64 *curr_value);

/* Exported entry points for callers built with _TIME_BITS=64 on 32-bit time_t ABIs. */
int __timerfd_settime64(int fd, int flags, const struct tfd_itimerspec64 *new_value,
			struct tfd_itimerspec64 *old_value);
int __timerfd_gettime64(int fd, struct tfd_itimerspec64 *curr_value);

/* The entry points' halves below use the syscall layer: its header (syscall.h) comes first. */
#ifdef TFD_NR_settime64
/* What the kernel is known to offer: moves once from UNKNOWN to PRESENT or MISSING (time64.c). */
enum { TFD_T64_UNKNOWN, TFD_T64_PROBING, TFD_T64_PRESENT, TFD_T64_MISSING };
extern int __tfd_t64_state __attribute__((visibility("hidden")));

/*
 * The state as the fast halves read it: one aligned int load.  A volatile
 * read, not __atomic_load_n: GCC 12 builds a relaxed atomic load of a PIC
 * variable from two instructions (lea, mov), a volatile one from one; on
 * every target with these calls an aligned int load is single-copy atomic.
 */
static inline int
__tfd_t64_state_now(void)
{
	return *(volatile int *)&__tfd_t64_state;
}

/* What the fast halves below answer when they did not make the call (no timerfd call gives 1). */
#define TFD_T64_NOT_ASKED 1

/*
 * The entry points' fast halves: the time64 call itself once the probe found
 * it, else TFD_T64_NOT_ASKED.  Inline, so that the entry point is this, one
 * compare of the result, and a tail call of its slow half for anything else.
 */
static inline long
__tfd_settime64_fast(int fd, int flags, const void *new_value, void *old_value)
{
	if (__builtin_expect(__tfd_t64_state_now() == TFD_T64_PRESENT, 1))
		return __tfd_syscall4(TFD_NR_settime64, fd, flags, (long)new_value,
				      (long)old_value);
	return TFD_T64_NOT_ASKED;
}

static inline long
__tfd_gettime64_fast(int fd, void *curr_value)
{
	if (__builtin_expect(__tfd_t64_state_now() == TFD_T64_PRESENT, 1))
		return __tfd_syscall2(TFD_NR_gettime64, fd, (long)curr_value);
	return TFD_T64_NOT_ASKED;
}

/*
 * The slow halves, given the fast half's answer @r (an error, or
 * TFD_T64_NOT_ASKED; argument order: internal.h): the probe, the fallback, the emulation.  They finish
 * the entry point's work: errno set and -1 on failure, as the entry points
 * return; tail-called, so the fast half keeps nothing for them.
 */
int __tfd_settime64_slow(long r, int fd, int flags, const struct tfd_itimerspec64 *new_value,
			 struct tfd_itimerspec64 *old_value)
	TFD_SLOW_HALF __attribute__((visibility("hidden")));
int __tfd_gettime64_slow(long r, int fd, struct tfd_itimerspec64 *curr_value)
	TFD_SLOW_HALF __attribute__((visibility("hidden")));

/*
 * The whole of a time64 entry point (the __timerfd_*64 names, and the plain
 * names where time_t is 64-bit on a 32-bit ABI): the fast half, and for
 * anything but success a tail call of the slow half.
 */
static inline int
__tfd_settime64_entry(int fd, int flags, const void *new_value, void *old_value)
{
	long r = __tfd_settime64_fast(fd, flags, new_value, old_value);

	if (__builtin_expect(r == 0, 1))
		return 0;
	return __tfd_settime64_slow(r, fd, flags, new_value, old_value);
}

static inline int
__tfd_gettime64_entry(int fd, void *curr_value)
{
	long r = __tfd_gettime64_fast(fd, curr_value);

	if (__builtin_expect(r == 0, 1))
		return 0;
	return __tfd_gettime64_slow(r, fd, curr_value);
}
#endif

#endif /* TFD_TIME64_H */
