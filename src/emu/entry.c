/* SPDX-License-Identifier: MIT */
/* The emulation behind the entry points: the callers' itimerspec layouts to and from struct tfd_spec. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/timerfd.h>

#include "emu/emu.h"
#include "emu/entry.h"
#include "emu/uaccess.h"
#include "time64.h"

/* A struct itimerspec as a tfd_spec, and back: -EOVERFLOW where time_t is too narrow. */
static void
from_its(const struct itimerspec *in, struct tfd_spec *out)
{
	out->value.sec = in->it_value.tv_sec;
	out->value.nsec = in->it_value.tv_nsec;
	out->interval.sec = in->it_interval.tv_sec;
	out->interval.nsec = in->it_interval.tv_nsec;
}

static long
to_its(const struct tfd_spec *in, struct itimerspec *out)
{
	if ((int64_t)(time_t)in->value.sec != in->value.sec ||
	    (int64_t)(time_t)in->interval.sec != in->interval.sec)
		return -EOVERFLOW;
	*out = (struct itimerspec){ 0 };
	out->it_value.tv_sec = (time_t)in->value.sec;
	out->it_value.tv_nsec = (long)in->value.nsec;
	out->it_interval.tv_sec = (time_t)in->interval.sec;
	out->it_interval.tv_nsec = (long)in->interval.nsec;
	return 0;
}

/* The same for the 64-bit time layout of 32-bit ABIs (never too narrow). */
static void
from_its64(const struct tfd_itimerspec64 *in, struct tfd_spec *out)
{
	out->value.sec = in->it_value.tv_sec;
	out->value.nsec = in->it_value.tv_nsec;
	out->interval.sec = in->it_interval.tv_sec;
	out->interval.nsec = in->it_interval.tv_nsec;
}

static long
to_its64(const struct tfd_spec *in, struct tfd_itimerspec64 *out)
{
	*out = (struct tfd_itimerspec64){ 0 };
	out->it_value.tv_sec = in->value.sec;
	out->it_value.tv_nsec = (int32_t)in->value.nsec;
	out->it_interval.tv_sec = in->interval.sec;
	out->it_interval.tv_nsec = (int32_t)in->interval.nsec;
	return 0;
}

/*
 * What a call on a descriptor that is no emulated timer answers: with @only_ours,
 * TFD_EMU_NOT_OURS (the kernel is asked next); otherwise the kernel's errno.
 */
static long
not_ours(long r, bool only_ours)
{
	return r == TFD_EMU_NOT_OURS && !only_ours ? -EINVAL : r;
}

/*
 * settime/gettime for one caller layout: copy in (EFAULT first, as the
 * kernel reads the new value before anything else; a plain copy when the
 * kernel, asked first, already read it: its EINVAL comes only after the
 * copy, for bad flags or values or a descriptor that is no timerfd, so the
 * process_vm_readv() check is saved), call the emulation,
 * copy out (EFAULT after the timer changed, as in the kernel).  Like every
 * internal function they answer -errno and leave errno as they found it:
 * only the entry points set it, and only on failure, as a system call does.
 */
#define DEFINE_EMU_CALLS(suffix, type, from, to)                                           \
	static long settime_##suffix(int fd, int flags, const type *new_value,             \
				     type *old_value, bool only_ours, bool known_readable) \
	{                                                                                  \
		struct tfd_spec spec, old;                                                 \
		type in, out;                                                              \
		uint64_t dev = 0, ino = 0;                                                 \
		int saved_errno = errno;                                                   \
		long r, id = __tfd_emu_identify(fd, &dev, &ino);                           \
		bool readable;                                                             \
                                                                                           \
		if (only_ours && id <= 0)                                                  \
			return TFD_EMU_NOT_OURS;                                           \
		readable = known_readable ||                                               \
			   __tfd_copy_from_user(&in, new_value, sizeof(in)) == 0;          \
		if (known_readable)                                                        \
			memcpy(&in, new_value, sizeof(in));                                \
		if (readable)                                                              \
			from(&in, &spec);                                                  \
		r = __tfd_emu_settime(fd, id, dev, ino, flags, readable ? &spec : NULL,    \
				      old_value ? &old : NULL);                            \
		if (r == 0 && old_value && (r = to(&old, &out)) == 0)                      \
			r = __tfd_copy_to_user(old_value, &out, sizeof(out));              \
		errno = saved_errno;                                                       \
		return not_ours(r, only_ours);                                             \
	}                                                                                  \
                                                                                           \
	static long gettime_##suffix(int fd, type *curr_value, bool only_ours)             \
	{                                                                                  \
		struct tfd_spec cur;                                                       \
		type out;                                                                  \
		uint64_t dev = 0, ino = 0;                                                 \
		int saved_errno = errno;                                                   \
		long r, id = __tfd_emu_identify(fd, &dev, &ino);                           \
                                                                                           \
		r = __tfd_emu_gettime(fd, id, dev, ino, &cur);                             \
                                                                                           \
		if (r == 0 && (r = to(&cur, &out)) == 0)                                   \
			r = __tfd_copy_to_user(curr_value, &out, sizeof(out));             \
		errno = saved_errno;                                                       \
		return not_ours(r, only_ours);                                             \
	}                                                                                  \
                                                                                           \
	long __tfd_emu_settime_##suffix(int fd, int flags, const type *new_value,          \
					type *old_value)                                   \
	{                                                                                  \
		return settime_##suffix(fd, flags, new_value, old_value, false, false);    \
	}                                                                                  \
	long __tfd_emu_gettime_##suffix(int fd, type *curr_value)                          \
	{                                                                                  \
		return gettime_##suffix(fd, curr_value, false);                            \
	}                                                                                  \
	long __tfd_emu_settime_after_##suffix(long r, int fd, int flags,                   \
					      const type *new_value, type *old_value)      \
	{                                                                                  \
		long e;                                                                    \
                                                                                           \
		if (r == -ENOSYS && __tfd_backend_switch_to_emulation())                   \
			return settime_##suffix(fd, flags, new_value, old_value, false,    \
						false);                                    \
		/* EINVAL: maybe a timer another process emulates (received, inherited). */ \
		if (!__tfd_emu_in_use() && r != -EINVAL)                                   \
			return r;                                                          \
		e = settime_##suffix(fd, flags, new_value, old_value, true, r == -EINVAL); \
		return e == TFD_EMU_NOT_OURS ? r : e;                                      \
	}                                                                                  \
	long __tfd_emu_gettime_after_##suffix(long r, int fd, type *curr_value)            \
	{                                                                                  \
		long e;                                                                    \
                                                                                           \
		if (r == -ENOSYS && __tfd_backend_switch_to_emulation())                   \
			return gettime_##suffix(fd, curr_value, false);                    \
		if (!__tfd_emu_in_use() && r != -EINVAL)                                   \
			return r;                                                          \
		e = gettime_##suffix(fd, curr_value, true);                                \
		return e == TFD_EMU_NOT_OURS ? r : e;                                      \
	}

DEFINE_EMU_CALLS(its, struct itimerspec, from_its, to_its)
DEFINE_EMU_CALLS(its64, struct tfd_itimerspec64, from_its64, to_its64)
