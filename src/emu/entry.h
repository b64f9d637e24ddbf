/* SPDX-License-Identifier: MIT */
/* The emulation's settime/gettime for each itimerspec layout the entry points take. */
#ifndef TFD_EMU_ENTRY_H
#define TFD_EMU_ENTRY_H

#include <time.h>

struct tfd_itimerspec64;

/*
 * For the ABI's own struct itimerspec (plain entry points), and the 64-bit time layout of
 * 32-bit ABIs (time64 entry points):
 *
 * The emulation's call: a value, or -errno as the kernel would answer, also for
 * descriptors that are no emulated timer (the tests and benchmarks call it directly).
 *
 * The _after_ forms are everything an entry point does after the kernel refused the same
 * call with @r, in one place: the emulation answers for its own timers (a pipe, which the
 * kernel refuses: EINVAL, or an earlier errno for bad arguments, which the emulation then
 * gives too; with EINVAL the kernel had read the new value, so it is copied plainly), and
 * for every descriptor once the kernel turned out to have no timerfd (ENOSYS); otherwise
 * the answer is @r.
 */
long __tfd_emu_settime_its(int fd, int flags, const struct itimerspec *new_value,
			   struct itimerspec *old_value);
long __tfd_emu_gettime_its(int fd, struct itimerspec *curr_value);
long __tfd_emu_settime_after_its(long r, int fd, int flags, const struct itimerspec *new_value,
				 struct itimerspec *old_value);
long __tfd_emu_gettime_after_its(long r, int fd, struct itimerspec *curr_value);

long __tfd_emu_settime_its64(int fd, int flags, const struct tfd_itimerspec64 *new_value,
			     struct tfd_itimerspec64 *old_value);
long __tfd_emu_gettime_its64(int fd, struct tfd_itimerspec64 *curr_value);
long __tfd_emu_settime_after_its64(long r, int fd, int flags,
				   const struct tfd_itimerspec64 *new_value,
				   struct tfd_itimerspec64 *old_value);
long __tfd_emu_gettime_after_its64(long r, int fd, struct tfd_itimerspec64 *curr_value);

#endif /* TFD_EMU_ENTRY_H */
