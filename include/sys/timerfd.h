/* SPDX-License-Identifier: MIT */
/* libtimerfd public header: the timerfd API, a drop-in for the C library's <sys/timerfd.h>. */

/*
 * The guard is the C library's own, so whichever of the two headers comes
 * first wins and the declarations are never made twice with different types.
 */
#ifndef _SYS_TIMERFD_H
#define _SYS_TIMERFD_H 1

#include <time.h>
#ifdef __GLIBC__
/* In strict ISO C modes glibc's <time.h> hides these two POSIX types. */
#include <bits/types/clockid_t.h>
#include <bits/types/struct_itimerspec.h>
#endif

/* timerfd_settime() flags; values fixed by the kernel ABI. */
#define TFD_TIMER_ABSTIME (1 << 0)
#define TFD_TIMER_CANCEL_ON_SET (1 << 1)

/*
 * timerfd_create() flags are the kernel's O_CLOEXEC and O_NONBLOCK, whose
 * values differ between architectures; spelled out here so that this header
 * does not drag <fcntl.h> into the caller's namespace.
 */
#if defined(__alpha__)
#define TFD_CLOEXEC 010000000
#define TFD_NONBLOCK 000000004
#elif defined(__hppa__)
#define TFD_CLOEXEC 010000000
#define TFD_NONBLOCK 000200004
#elif defined(__mips__)
#define TFD_CLOEXEC 002000000
#define TFD_NONBLOCK 000000200
#elif defined(__sparc__)
#define TFD_CLOEXEC 0x400000
#define TFD_NONBLOCK 0x004000
#else
#define TFD_CLOEXEC 002000000
#define TFD_NONBLOCK 000004000
#endif

/*
 * ioctl(fd, TFD_IOC_SET_TICKS, &u64): the kernel's _IOW('T', 0, __u64).
 * The direction bits of _IOW sit higher on the arches below (see their
 * asm/ioctl.h), hence two encodings.
 */
#if defined(__alpha__) || defined(__hppa__) || defined(__mips__) || \
	defined(__powerpc__) || defined(__sparc__)
#define TFD_IOC_SET_TICKS 0x80085400UL
#else
#define TFD_IOC_SET_TICKS 0x40085400UL
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Create a timer that delivers its expirations through a file descriptor. */
extern int timerfd_create(clockid_t clockid, int flags);

/*
 * A program built with _TIME_BITS=64 on an ABI whose time_t is 32-bit by
 * default (glibc then defines __USE_TIME_BITS64) passes 64-bit
 * itimerspecs: it calls the time64 entry points under the plain names, as
 * the C library does for its own functions.  musl defines the same macro on
 * every ABI, its time_t being 64-bit everywhere: a library built with it
 * takes that layout under the plain names, so nothing is renamed there.
 */
#if defined(__GLIBC__) && defined(__USE_TIME_BITS64)
#define __TFD_TIME64_NAME(name) __asm__("__" #name "64")
#else
#define __TFD_TIME64_NAME(name)
#endif

/* Arm (or disarm, with a zero it_value) the timer; optionally return the old setting. */
extern int timerfd_settime(int fd, int flags, const struct itimerspec *new_value,
			   struct itimerspec *old_value) __TFD_TIME64_NAME(timerfd_settime);

/* Return the time left to the next expiration and the interval. */
extern int timerfd_gettime(int fd, struct itimerspec *curr_value)
	__TFD_TIME64_NAME(timerfd_gettime);

#ifdef __cplusplus
}
#endif

#endif /* _SYS_TIMERFD_H */
