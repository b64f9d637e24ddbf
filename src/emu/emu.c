/* SPDX-License-Identifier: MIT */
/* timerfd_create/settime/gettime served in userspace, with the kernel's checks in the kernel's order. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "emu/capability.h"
#include "emu/emu.h"
#include "emu/fifo.h"
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
	struct tfd_cap_header hdr = { .version = TFD_CAP_VERSION_3 };
	struct tfd_cap_data data[2] = { 0 }; /* valgrind knows capget writes only data[0] */

	if (syscall(SYS_capget, &hdr, data) != 0)
		return false;
	return data[TFD_CAP_WAKE_ALARM / 32].effective & (1u << (TFD_CAP_WAKE_ALARM % 32));
}

/* A spare taken from the server becomes the timer: the program's read end, or -errno. */
static long
make_timer(struct tfd_shared *sh, clockid_t clockid, enum tfd_base base, int flags)
{
	long i = __tfd_server_take_spare(sh), fd;
	struct tfd_slot *s;

	if (i < 0)
		return i;
	s = &sh->slots[i];
	fd = __tfd_fifo_open_reader(sh, (uint32_t)i, flags);
	if (fd < 0) {
		/* Given back: the server frees it. */
		__atomic_store_n(&s->state, TFD_SLOT_GIVEN_BACK, __ATOMIC_SEQ_CST);
		__tfd_server_poke(sh, (uint32_t)i, INT64_MIN);
		return fd;
	}
	/*
	 * The slot is this create's alone until it is live: its lock is made the first time.
	 * Not again: a process of the family may still hold it from the slot's last timer
	 * (closed under it); robust, it is never left held by a process that died.
	 */
	if (!__atomic_load_n(&s->lock_ready, __ATOMIC_ACQUIRE)) {
		__tfd_slot_lock_init(s);
		__atomic_store_n(&s->lock_ready, 1, __ATOMIC_RELEASE);
	}
	/* Made under the lock: a call on the slot's last timer may still be inside. */
	__tfd_slot_hold(s);
	__tfd_arming_begin(s);
	s->st = (struct tfd_timer_state){ .alarm = is_alarm(clockid) };
	s->fwd = s->st;
	s->maybe_counted = s->cancel_on_set = s->canceled = false;
	s->armed_offset = 0;
	s->clockid = clockid;
	s->base = base;
	__tfd_arming_end(s);
	__atomic_store_n(&s->state, TFD_SLOT_LIVE, __ATOMIC_SEQ_CST);
	__tfd_slot_release(s);
	/* The server closes the spare's read end now, so that a close by the program is seen. */
	__tfd_server_poke(sh, (uint32_t)i, INT64_MIN);
	return fd;
}

long
__tfd_emu_create(clockid_t clockid, int flags)
{
	struct tfd_shared *sh;
	struct tfd_guard g;
	enum tfd_base base;
	int saved_errno = errno;
	long r;

	/* Same checks, same order as timerfd_create(2). */
	if ((flags & ~(TFD_CLOEXEC | TFD_NONBLOCK)) || base_of(clockid, &base) < 0)
		return -EINVAL;
	if (is_alarm(clockid) && !may_wake_alarm())
		return -EPERM;
	sh = __tfd_shared_init();
	if (!sh)
		return -ENOMEM;
	/* The server starts with every signal blocked: it inherits the mask. */
	__tfd_guard_enter(&g);
	r = make_timer(sh, clockid, base, flags);
	__tfd_guard_leave(&g);
	if (r >= 0)
		__atomic_store_n(&__tfd_emu_used, 1, __ATOMIC_RELAXED);
	errno = saved_errno;
	return r;
}

long
__tfd_emu_identify(int fd, uint64_t *ino)
{
	struct tfd_shared *sh = __tfd_shared();
	struct tfd_slot *s;
	uint64_t dev;
	long r;

	if (!sh)
		return fcntl(fd, F_GETFD) < 0 ? -EBADF : 0;
	r = __tfd_fifo_identify(sh, fd, &dev, ino);
	if (r <= 0)
		return r;
	s = __tfd_index_find(sh, dev, *ino);
	/* The slot's index + 1: a FIFO of the program's own on the same filesystem is no timer. */
	return s ? (long)(s - sh->slots) + 1 : 0;
}

/* Slot @id - 1 locked if it is still the live timer @ino, else NULL (unlocked). */
static struct tfd_slot *
lock_timer(struct tfd_shared *sh, long id, uint64_t ino, struct tfd_guard *g)
{
	struct tfd_slot *s = &sh->slots[id - 1];

	__tfd_slot_lock(s, g);
	if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == TFD_SLOT_LIVE && s->ino == ino)
		return s;
	__tfd_slot_unlock(s, g);
	return NULL;
}

long
__tfd_emu_settime(int fd, long id, uint64_t ino, int flags, const struct tfd_spec *new_value,
		  struct tfd_spec *old_value)
{
	struct tfd_shared *sh = __tfd_shared();
	struct tfd_timer_state cur;
	struct tfd_slot *s;
	struct tfd_guard g;
	struct tfd_spec old;
	enum tfd_base base;
	long err = 0;
	int64_t now, due = INT64_MAX;

	/* The order of do_timerfd_settime(): EFAULT, EINVAL for flags and values, then the fd. */
	if (!new_value)
		return -EFAULT;
	if ((flags & ~(TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET)) || !tfd_spec_valid(new_value))
		return -EINVAL;
	if (id <= 0)
		return id < 0 ? id : TFD_EMU_NOT_OURS;
	s = lock_timer(sh, id, ino, &g);
	if (!s)
		return TFD_EMU_NOT_OURS;
	if (is_alarm(s->clockid) && !may_wake_alarm()) {
		__tfd_slot_unlock(s, &g);
		return -EPERM;
	}
	base = (enum tfd_base)s->base;
	__tfd_arming_begin(s);
	/* An expired periodic timer is brought forward first; its ticks are about to be dropped. */
	now = __tfd_base_now(base);
	cur = s->st;
	tfd_state_expire(&cur, now);
	tfd_state_get(&cur, now, &old);
	/*
	 * Setting discards pending expirations: the next read waits for a new one.  Drained
	 * before anything changes: if it cannot be, the timer stays as it was and the call
	 * fails, rather than leave a stale count readable after it (libtimerfd(7)).
	 */
	if (s->maybe_counted) {
		err = __tfd_fifo_drain(sh, (uint32_t)(id - 1), fd);
		/* No descriptor for a momentary read end, the directory out of reach: the server. */
		if (err < 0)
			err = __tfd_server_drain(sh, (uint32_t)(id - 1));
		if (err == 0)
			s->maybe_counted = false;
	}
	if (err == 0) {
		/* The kernel reports a clock set that cancelled the old setting, yet applies the new one. */
		if (s->canceled)
			err = -ECANCELED;
		/*
		 * A relative CLOCK_REALTIME arming runs on the monotonic clock, so that a set of
		 * the realtime clock does not move it: hrtimer_init() turns relative realtime
		 * timers monotonic, as POSIX asks (alarm timers keep their clock's base).
		 */
		enum tfd_base armed = base;

		if (s->clockid == CLOCK_REALTIME)
			armed = (flags & TFD_TIMER_ABSTIME) ? TFD_BASE_REALTIME : TFD_BASE_MONOTONIC;
		if (armed != base) {
			base = armed;
			now = __tfd_base_now(base);
			s->base = base;
		}
		tfd_state_arm(&s->st, new_value, flags & TFD_TIMER_ABSTIME, now);
		s->fwd = s->st; /* nothing of the new setting delivered yet */
		s->canceled = false;
		/* Cancel-on-set needs an absolute timer on a realtime clock; otherwise it is dropped quietly. */
		s->cancel_on_set = base == TFD_BASE_REALTIME && (flags & TFD_TIMER_ABSTIME) &&
				   (flags & TFD_TIMER_CANCEL_ON_SET);
		s->armed_offset = s->cancel_on_set ? __tfd_realtime_offset() : 0;
		if (s->st.armed)
			due = __tfd_server_due(base, s->st.expiry);
	}
	__tfd_arming_end(s);
	__tfd_slot_unlock(s, &g);
	/* Always: the server may have taken the timer off its queue while the arming was odd. */
	__tfd_server_poke(sh, (uint32_t)(id - 1), due);
	if (err == 0 && old_value)
		*old_value = old;
	return err;
}

/*
 * The server is late with an expiration that is due (it was not scheduled, or it is
 * loaded): deliver it now, as the kernel's gettime forwards the timer, so that a read
 * after gettime gets every expiration up to it.  Bounded: one write of the count, and
 * nothing if a momentary write end cannot be had (the count then comes from the server).
 */
static void
catch_up(struct tfd_shared *sh, long id, uint64_t ino)
{
	struct tfd_guard g;
	struct tfd_slot *s = lock_timer(sh, id, ino, &g);
	int64_t now;

	if (!s)
		return;
	__tfd_arming_begin(s);
	now = __tfd_base_now((enum tfd_base)s->base);
	if (s->fwd.armed && s->fwd.expiry <= now) {
		struct tfd_timer_state fwd = s->fwd;
		uint64_t n = tfd_state_expire(&fwd, now);

		if (n && __tfd_fifo_catch_up(sh, (uint32_t)(id - 1), n) == 0)
			s->fwd = fwd;
	}
	__tfd_arming_end(s);
	__tfd_slot_unlock(s, &g);
	/* The server requeues it by its new progress. */
	__tfd_server_poke(sh, (uint32_t)(id - 1), INT64_MAX);
}

/* @curr_value is ours; the caller copies it out after the fd lookup, as the kernel does. */
long
__tfd_emu_gettime(long id, uint64_t ino, struct tfd_spec *curr_value)
{
	struct tfd_shared *sh = __tfd_shared();
	struct tfd_arming a;
	int64_t now;

	if (id <= 0)
		return id < 0 ? id : TFD_EMU_NOT_OURS;
	__tfd_arming_read(&sh->slots[id - 1], &a);
	if (a.state != TFD_SLOT_LIVE || a.ino != ino)
		return TFD_EMU_NOT_OURS;
	now = __tfd_base_now((enum tfd_base)a.base);
	if (a.fwd.armed && a.fwd.expiry <= now)
		catch_up(sh, id, ino);
	/* Read, not changed: the time to the next expiry after now, from the clock. */
	tfd_state_expire(&a.st, now);
	tfd_state_get(&a.st, now, curr_value);
	return 0;
}
