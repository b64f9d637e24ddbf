/* SPDX-License-Identifier: MIT */
/* The emulation's settime/gettime for each itimerspec layout the entry points take. */
#ifndef TFD_EMU_ENTRY_H
#define TFD_EMU_ENTRY_H

#include <time.h>

struct tfd_itimerspec64;

/*
 * The ABI's own struct itimerspec (plain entry points): a value, or -errno
 * as the kernel would answer, also for descriptors that are no emulated
 * timer.  The _try_ forms return TFD_EMU_NOT_OURS (emu.h) for those instead,
 * having done nothing; the entry points call them after the kernel refused
 * the same call with @kernel_r (an emulated timer is a pipe, no timerfd).
 */
long __tfd_emu_settime_its(int fd, int flags, const struct itimerspec *new_value,
			   struct itimerspec *old_value);
long __tfd_emu_try_settime_its(int fd, int flags, const struct itimerspec *new_value,
			       struct itimerspec *old_value, long kernel_r);
long __tfd_emu_gettime_its(int fd, struct itimerspec *curr_value);
long __tfd_emu_try_gettime_its(int fd, struct itimerspec *curr_value);
/* The 64-bit time layout of 32-bit ABIs (time64 entry points). */
long __tfd_emu_settime_its64(int fd, int flags, const struct tfd_itimerspec64 *new_value,
			     struct tfd_itimerspec64 *old_value);
long __tfd_emu_try_settime_its64(int fd, int flags, const struct tfd_itimerspec64 *new_value,
				 struct tfd_itimerspec64 *old_value, long kernel_r);
long __tfd_emu_gettime_its64(int fd, struct tfd_itimerspec64 *curr_value);
long __tfd_emu_try_gettime_its64(int fd, struct tfd_itimerspec64 *curr_value);

#endif /* TFD_EMU_ENTRY_H */
