/* SPDX-License-Identifier: MIT */
/* The time64 calls, probed once per process, and their fallback to the 32-bit calls. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>

#include "emu/emu.h"
#include "emu/entry.h"
#include "emu/uaccess.h"
#include "internal.h"
#include "syscall.h"
#include "time64.h"

#ifdef TFD_NR_settime64

/* What the kernel is known to offer (time64.h); the entry points read it inline. */
int __tfd_t64_state;

/* A child forked while another thread was probing would wait for an answer that never comes. */
static void
t64_after_fork_child(void)
{
	if (__tfd_t64_state == TFD_T64_PROBING)
		__tfd_t64_state = TFD_T64_UNKNOWN;
}

/*
 * Registered at load, not at the first call: that call may come from a program's own
 * pthread_atfork() prepare handler, inside fork(), where musl holds the lock that
 * pthread_atfork() takes (a deadlock), or from a signal handler, where pthread_once() and
 * the allocator are not safe.
 */
__attribute__((constructor)) static void
t64_register_atfork(void)
{
	pthread_atfork(NULL, NULL, t64_after_fork_child);
}

/*
 * Makes the time64 call @nr, or returns -ENOSYS without a call once the
 * kernel is known to lack the time64 calls.  Only the first call of the
 * process probes: threads that arrive meanwhile wait for its answer.  The
 * probing thread blocks signals for the probe (two calls, once per process):
 * a handler on that thread would wait for its own probe for ever.  Once the
 * answer is PRESENT the entry points make the call inline (time64.h).
 */
static long
time64_call(long nr, long a1, long a2, long a3, long a4)
{
	sigset_t all, mask;
	long r;

	for (;;) {
		int state = __atomic_load_n(&__tfd_t64_state, __ATOMIC_ACQUIRE);
		int expected = TFD_T64_UNKNOWN;

		if (state == TFD_T64_PRESENT)
			return __tfd_syscall4(nr, a1, a2, a3, a4);
		if (state == TFD_T64_MISSING)
			return -ENOSYS;
		if (state == TFD_T64_PROBING) {
			/* Another thread's probe is one syscall away from its answer. */
			sched_yield();
			continue;
		}
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &mask);
		if (__atomic_compare_exchange_n(&__tfd_t64_state, &expected, TFD_T64_PROBING, 0,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			break;
		pthread_sigmask(SIG_SETMASK, &mask, NULL);
	}
	/* This thread owns the probe. */
	r = __tfd_syscall4(nr, a1, a2, a3, a4);
	__atomic_store_n(&__tfd_t64_state, r == -ENOSYS ? TFD_T64_MISSING : TFD_T64_PRESENT,
			 __ATOMIC_RELEASE);
	pthread_sigmask(SIG_SETMASK, &mask, NULL);
	return r;
}

#ifdef TFD_NR_settime
/* Narrows a 64-bit value for the 32-bit calls: 0, or -EOVERFLOW if tv_sec does not fit. */
static int
narrow(const struct tfd_timespec64 *in, struct tfd_timespec32 *out)
{
	if (in->tv_sec < INT32_MIN || in->tv_sec > INT32_MAX)
		return -EOVERFLOW;
	out->tv_sec = (int32_t)in->tv_sec;
	out->tv_nsec = in->tv_nsec;
	return 0;
}

static void
widen(const struct tfd_itimerspec32 *in, struct tfd_itimerspec64 *out)
{
	out->it_interval = (struct tfd_timespec64){ .tv_sec = in->it_interval.tv_sec,
						    .tv_nsec = in->it_interval.tv_nsec };
	out->it_value = (struct tfd_timespec64){ .tv_sec = in->it_value.tv_sec,
						 .tv_nsec = in->it_value.tv_nsec };
}
#endif

/* The kernel's calls: time64, else the 32-bit ones converting. */
static long
kernel_settime64(int fd, int flags, const struct tfd_itimerspec64 *new_value,
		 struct tfd_itimerspec64 *old_value)
{
	long r = time64_call(TFD_NR_settime64, fd, flags, (long)new_value, (long)old_value);

	if (r != -ENOSYS)
		return r;
#ifdef TFD_NR_settime
	struct tfd_itimerspec32 new32, old32;
	struct tfd_itimerspec64 in, out;

	/*
	 * The kernel reads the new value before anything else (EFAULT first), and writes the
	 * old one after the change (EFAULT then, the timer changed): copies that fail as its
	 * copy_from_user()/copy_to_user() do, never a fault in the program.
	 */
	if (__tfd_copy_from_user(&in, new_value, sizeof(in)) < 0)
		return -EFAULT;
	if (narrow(&in.it_interval, &new32.it_interval) < 0 || narrow(&in.it_value, &new32.it_value) < 0)
		return -EOVERFLOW;
	r = __tfd_syscall4(TFD_NR_settime, fd, flags, (long)&new32, old_value ? (long)&old32 : 0);
	if (r == 0 && old_value) {
		widen(&old32, &out);
		if (__tfd_copy_to_user(old_value, &out, sizeof(out)) < 0)
			return -EFAULT;
	}
#endif
	return r;
}

static long
kernel_gettime64(int fd, struct tfd_itimerspec64 *curr_value)
{
	long r = time64_call(TFD_NR_gettime64, fd, (long)curr_value, 0, 0);

	if (r != -ENOSYS)
		return r;
#ifdef TFD_NR_gettime
	struct tfd_itimerspec32 curr32;
	struct tfd_itimerspec64 out;

	/* The kernel looks the fd up first and only then copies out (EBADF before EFAULT). */
	r = __tfd_syscall2(TFD_NR_gettime, fd, (long)&curr32);
	if (r == 0) {
		widen(&curr32, &out);
		if (__tfd_copy_to_user(curr_value, &out, sizeof(out)) < 0)
			return -EFAULT;
	}
#endif
	return r;
}

long
__tfd_settime64(int fd, int flags, const struct tfd_itimerspec64 *new_value,
		struct tfd_itimerspec64 *old_value)
{
	long r = kernel_settime64(fd, flags, new_value, old_value);

	return __tfd_is_err(r) ? __tfd_emu_settime_after_its64(r, fd, flags, new_value, old_value) : r;
}

long
__tfd_gettime64(int fd, struct tfd_itimerspec64 *curr_value)
{
	long r = kernel_gettime64(fd, curr_value);

	return __tfd_is_err(r) ? __tfd_emu_gettime_after_its64(r, fd, curr_value) : r;
}

/* The entry points' slow halves (time64.h): all but a settled probe's success. */
TFD_SLOW_HALF int
__tfd_settime64_slow(long r, int fd, int flags, const struct tfd_itimerspec64 *new_value,
		     struct tfd_itimerspec64 *old_value)
{
	if (r == TFD_T64_NOT_ASKED)
		r = __tfd_settime64(fd, flags, new_value, old_value);
	else
		r = __tfd_emu_settime_after_its64(r, fd, flags, new_value, old_value);
	return (int)__tfd_ret(r);
}

TFD_SLOW_HALF int
__tfd_gettime64_slow(long r, int fd, struct tfd_itimerspec64 *curr_value)
{
	if (r == TFD_T64_NOT_ASKED)
		r = __tfd_gettime64(fd, curr_value);
	else
		r = __tfd_emu_gettime_after_its64(r, fd, curr_value);
	return (int)__tfd_ret(r);
}

#else
/* A 64-bit ABI: its plain calls already take 64-bit time; nothing to do here. */
typedef int tfd_time64_unused;
#endif /* TFD_NR_settime64 */
