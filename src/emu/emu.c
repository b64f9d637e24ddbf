/* SPDX-License-Identifier: MIT */
/* timerfd_create/settime/gettime served in userspace: an eventfd per timer, kernel semantics. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "emu/emu.h"
#include "emu/timer.h"

int __tfd_emu_used;

/* The clocks fs/timerfd.c accepts, and the queue each one's deadlines go to. */
static int
base_of(clockid_t clockid, enum tfd_base *base)
{
	switch (clockid) {
	case CLOCK_MONOTONIC:
		*base = TFD_BASE_MONOTONIC;
		return 0;
	case CLOCK_BOOTTIME:
	case CLOCK_BOOTTIME_ALARM:
		*base = TFD_BASE_BOOTTIME;
		return 0;
	case CLOCK_REALTIME:
	case CLOCK_REALTIME_ALARM:
		*base = TFD_BASE_REALTIME;
		return 0;
	}
	return -EINVAL;
}

static bool
is_alarm(clockid_t clockid)
{
	return clockid == CLOCK_REALTIME_ALARM || clockid == CLOCK_BOOTTIME_ALARM;
}

/* capable(CAP_WAKE_ALARM): the capability in this thread's effective set. */
static bool
may_wake_alarm(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = { 0 }; /* valgrind knows capget writes only data[0] */

	if (syscall(SYS_capget, &hdr, data) != 0)
		return false;
	return data[CAP_WAKE_ALARM / 32].effective & (1u << (CAP_WAKE_ALARM % 32));
}

long
__tfd_emu_create(clockid_t clockid, int flags)
{
	struct tfd_emu_timer *t;
	enum tfd_base base;
	int fd, err;

	/* Same checks, same order as timerfd_create(2). */
	if ((flags & ~(TFD_CLOEXEC | TFD_NONBLOCK)) || base_of(clockid, &base) < 0)
		return -EINVAL;
	if (is_alarm(clockid) && !may_wake_alarm())
		return -EPERM;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	/* TFD_CLOEXEC and TFD_NONBLOCK are O_CLOEXEC and O_NONBLOCK, as are EFD_*. */
	fd = eventfd(0, flags);
	if (fd < 0) {
		err = -errno;
		free(t);
		return err;
	}
	/*
	 * dup() rather than F_DUPFD_CLOEXEC: qemu-user carries its eventfd
	 * byte-order translation over dup() only.  A fork+exec racing the
	 * next line could leak this descriptor into the new program, no more.
	 */
	t->shadow = dup(fd);
	if (t->shadow < 0 || fcntl(t->shadow, F_SETFD, FD_CLOEXEC) < 0) {
		err = -errno;
		close(fd);
		free(t);
		return err;
	}
	t->fd = fd;
	t->clockid = clockid;
	t->base = base;
	t->st.alarm = is_alarm(clockid);
	t->node.pos = TFD_HEAP_NONE;
	pthread_mutex_lock(&__tfd_emu_lock);
	__tfd_registry_sweep();
	err = __tfd_registry_add(fd, t);
	pthread_mutex_unlock(&__tfd_emu_lock);
	if (err) {
		close(t->shadow);
		close(fd);
		free(t);
		return err;
	}
	__atomic_store_n(&__tfd_emu_used, 1, __ATOMIC_RELAXED);
	return fd;
}

int
__tfd_emu_owns(int fd)
{
	struct tfd_emu_timer *t;

	if (!__tfd_emu_in_use())
		return 0;
	pthread_mutex_lock(&__tfd_emu_lock);
	t = __tfd_registry_lookup(fd);
	pthread_mutex_unlock(&__tfd_emu_lock);
	return t != NULL;
}

/* The timer behind @fd (lock held), or the kernel's errno for a descriptor that is not one. */
static struct tfd_emu_timer *
lookup(int fd, long *err)
{
	struct tfd_emu_timer *t = __tfd_registry_lookup(fd);

	if (!t)
		*err = fcntl(fd, F_GETFD) < 0 ? -EBADF : -EINVAL;
	return t;
}

/* Brings @t up to date: expirations due by now go to its descriptor, as the kernel banks them. */
static int64_t
catch_up(struct tfd_emu_timer *t, bool deliver)
{
	int64_t now = __tfd_base_now(t->base);
	uint64_t n = tfd_state_expire(&t->st, now);

	if (deliver)
		__tfd_deliver(t, n);
	return now;
}

long
__tfd_emu_settime(int fd, int flags, const struct tfd_spec *new_value, struct tfd_spec *old_value)
{
	struct tfd_emu_timer *t;
	struct tfd_spec old;
	long err = 0, r;
	int64_t now;

	/* The order of do_timerfd_settime(): EFAULT, EINVAL for flags and values, then the fd. */
	if (!new_value)
		return -EFAULT;
	if ((flags & ~(TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET)) || !tfd_spec_valid(new_value))
		return -EINVAL;
	pthread_mutex_lock(&__tfd_emu_lock);
	t = lookup(fd, &err);
	if (!t)
		goto out;
	if (is_alarm(t->clockid) && !may_wake_alarm()) {
		err = -EPERM;
		goto out;
	}
	/* Out of the queue while its flags change (the queue counts cancel-on-set timers). */
	__tfd_queue_remove(t);
	/* An expired periodic timer is brought forward first; its ticks are about to be dropped. */
	now = catch_up(t, false);
	tfd_state_get(&t->st, now, &old);
	/* The kernel reports a clock set that cancelled the old setting, yet applies the new one. */
	if (t->canceled)
		err = -ECANCELED;
	tfd_state_arm(&t->st, new_value, flags & TFD_TIMER_ABSTIME, now);
	t->canceled = false;
	/* Cancel-on-set needs an absolute timer on a realtime clock; otherwise it is dropped quietly. */
	t->cancel_on_set = t->base == TFD_BASE_REALTIME && (flags & TFD_TIMER_ABSTIME) &&
			   (flags & TFD_TIMER_CANCEL_ON_SET);
	t->armed_offset = t->cancel_on_set ? __tfd_realtime_offset() : 0;
	/* Setting discards pending expirations: the next read waits for a new one. */
	__tfd_discard(t);
	r = __tfd_queue_update(t);
	if (r < 0 && !err)
		err = r;
out:
	pthread_mutex_unlock(&__tfd_emu_lock);
	if (!err && old_value)
		*old_value = old;
	return err;
}

/* @curr_value is ours; the caller copies it out after the fd lookup, as the kernel does. */
long
__tfd_emu_gettime(int fd, struct tfd_spec *curr_value)
{
	struct tfd_emu_timer *t;
	struct tfd_spec cur;
	long err = 0;

	pthread_mutex_lock(&__tfd_emu_lock);
	t = lookup(fd, &err);
	if (t) {
		/* Missed periods stay banked for the next read; the value is the next expiry. */
		int64_t now = catch_up(t, true);

		tfd_state_get(&t->st, now, &cur);
		__tfd_queue_update(t);
	}
	pthread_mutex_unlock(&__tfd_emu_lock);
	if (t)
		*curr_value = cur;
	return err;
}
