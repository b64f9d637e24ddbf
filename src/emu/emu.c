/* SPDX-License-Identifier: MIT */
/* timerfd_create/settime/gettime served in userspace, with the kernel's checks in the kernel's order. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "emu/capability.h"
#include "emu/checked.h"
#include "emu/door.h"
#include "emu/emu.h"
#include "emu/family.h"
#include "emu/fifo.h"
#include "emu/process.h"
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

/*
 * A spare (an unnamed pipe, for a non-dumpable process) taken from the server becomes the
 * timer: the program's read end, or -errno.
 */
static long
make_timer(struct tfd_shared *sh, clockid_t clockid, enum tfd_base base, int flags)
{
	struct tfd_slot *s;
	long i, fd;

	/*
	 * A process that may not be looked into (not dumpable: PR_SET_DUMPABLE, a set-user-ID
	 * program) gets a timer that never had a name, handed over by its server: a spare's
	 * name may have been opened by a process of the same user meanwhile (DESIGN.md,
	 * "Names").  Where the server makes none (no /proc), or this process has too few
	 * descriptor numbers left for the exchange (2 more than the timer), a spare, as
	 * libtimerfd(7) says.
	 */
	if (prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 1) {
		int got;

		i = __tfd_server_take_unnamed(sh, flags, &got);
		if (i >= 0) {
			s = &sh->slots[i];
			fd = got;
			if (!(flags & TFD_NONBLOCK) && fcntl(got, F_SETFL, 0) < 0) {
				close(got);
				__atomic_store_n(&s->state, TFD_SLOT_GIVEN_BACK, __ATOMIC_SEQ_CST);
				__tfd_server_poke(sh, (uint32_t)i, INT64_MIN);
				return -ENOMEM;
			}
			goto made;
		}
		if (i != -ENOSYS && i != -EMFILE)
			return i;
	}
	/*
	 * A spare whose name leads nowhere (ENOSYS) is given back and another taken: a cleaner
	 * removed the directory, and the server, told by the give-back, makes it again with new
	 * spares.  Bounded: where no name can ever lead to them (chroot(): libtimerfd(7)), ENOSYS.
	 */
	for (int tries = 0;; tries++) {
		i = __tfd_server_take_spare(sh);
		if (i < 0)
			return i;
		s = &sh->slots[i];
		fd = __tfd_fifo_open_reader(sh, (uint32_t)i, flags);
		if (fd >= 0)
			break;
		/* Given back: the server frees it. */
		__atomic_store_n(&s->state, TFD_SLOT_GIVEN_BACK, __ATOMIC_SEQ_CST);
		__tfd_server_poke(sh, (uint32_t)i, INT64_MIN);
		if (fd != -ENOSYS || tries == TFD_SPARES)
			return fd;
	}
	if (__atomic_load_n(&tfd_shard_of(sh, (uint32_t)i)->names_go, __ATOMIC_ACQUIRE))
		__tfd_fifo_unname_taken(sh, (uint32_t)i);
made:
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
	if (is_alarm(clockid) && !__tfd_may_wake_alarm(0))
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
__tfd_emu_identify(int fd, uint64_t *dev, uint64_t *ino)
{
	struct tfd_shared *sh = __tfd_shared();
	struct tfd_slot *s;
	long r;

	/* One look at the descriptor (fstat), as the kernel's fdget(): the rest uses what it saw. */
	r = __tfd_fifo_identify(fd, dev, ino);
	if (r <= 0)
		return r;
	s = sh && __tfd_fifo_dev_of_a_shard(sh, *dev) ? __tfd_index_find(sh, *dev, *ino) : NULL;
	/* The slot's index + 1: a FIFO of the program's own on the same filesystem is no timer. */
	if (s)
		return (long)(s - sh->slots) + 1;
	/*
	 * Maybe a timer of a family this process does not share, served behind a door: one this
	 * process knows for that filesystem, or one /proc may name (door.c).
	 */
	return __tfd_door_may_serve(*dev) ? TFD_ID_DOOR : 0;
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

/* What a process's drain needs: the family, and the descriptor the call was given. */
struct drain_ctx {
	struct tfd_shared *sh;
	int fd;
};

/* A process's drain: through a read end of its own, else by the server. */
static int
drain_here(uint32_t i, void *ctx)
{
	const struct drain_ctx *d = ctx;
	int err = __tfd_fifo_drain(d->sh, i, d->fd);

	/* No descriptor for a momentary read end, the directory out of reach: the server. */
	return err < 0 ? __tfd_server_drain(d->sh, i) : 0;
}

long
__tfd_emu_settime(int fd, long id, uint64_t dev, uint64_t ino, int flags,
		  const struct tfd_spec *new_value, struct tfd_spec *old_value)
{
	struct tfd_shared *sh = __tfd_shared();
	struct drain_ctx d = { .sh = sh, .fd = fd };
	struct tfd_slot *s;
	struct tfd_guard g;
	struct tfd_spec old;
	int64_t due;
	long err;

	/* The order of do_timerfd_settime(): EFAULT, EINVAL for flags and values, then the fd. */
	if (!new_value)
		return -EFAULT;
	if ((flags & ~(TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET)) || !tfd_spec_valid(new_value))
		return -EINVAL;
	if (id <= 0)
		return id < 0 ? id : TFD_EMU_NOT_OURS;
	if (id == TFD_ID_DOOR) {
		struct tfd_door_req req = { .magic = TFD_DOOR_MAGIC, .op = TFD_DOOR_SETTIME,
					    .flags = flags, .want_old = old_value != NULL,
					    .spec = *new_value };

		return __tfd_door_call(fd, dev, &req, old_value);
	}
	s = lock_timer(sh, id, ino, &g);
	if (!s)
		return TFD_EMU_NOT_OURS;
	if (is_alarm(s->clockid) && !__tfd_may_wake_alarm(0)) {
		__tfd_slot_unlock(s, &g);
		return -EPERM;
	}
	__tfd_arming_begin(s);
	err = __tfd_slot_arm(s, (uint32_t)(id - 1), flags, new_value, &old, &due, drain_here, &d);
	/* A realtime thread's timer is served at its priority (server.c, "realtime"). */
	if (err == 0)
		s->rt_prio = __tfd_rt_priority_arming(new_value, 0);
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
catch_up(struct tfd_shared *sh, long id, int fd, uint64_t ino)
{
	struct tfd_guard g;
	struct tfd_slot *s = lock_timer(sh, id, ino, &g);
	enum tfd_base base;
	int64_t now;

	if (!s)
		return;
	if (!tfd_checked_base(s, &base)) {
		__tfd_slot_unlock(s, &g);
		return;
	}
	__tfd_arming_begin(s);
	now = __tfd_base_now(base);
	if (s->fwd.armed && s->fwd.expiry <= now) {
		struct tfd_timer_state fwd = s->fwd;
		uint64_t n = tfd_state_expire(&fwd, now);

		if (n && __tfd_fifo_catch_up(sh, (uint32_t)(id - 1), fd, n) == 0)
			s->fwd = fwd;
	}
	__tfd_arming_end(s);
	__tfd_slot_unlock(s, &g);
	/* The server requeues it by its new progress. */
	__tfd_server_poke(sh, (uint32_t)(id - 1), INT64_MAX);
}

/* @curr_value is ours; the caller copies it out after the fd lookup, as the kernel does. */
long
__tfd_emu_gettime(int fd, long id, uint64_t dev, uint64_t ino, struct tfd_spec *curr_value)
{
	struct tfd_shared *sh = __tfd_shared();
	struct tfd_arming a;
	enum tfd_base base;
	int64_t now;

	if (id <= 0)
		return id < 0 ? id : TFD_EMU_NOT_OURS;
	if (id == TFD_ID_DOOR) {
		struct tfd_door_req req = { .magic = TFD_DOOR_MAGIC, .op = TFD_DOOR_GETTIME };

		return __tfd_door_call(fd, dev, &req, curr_value);
	}
	__tfd_arming_read(&sh->slots[id - 1], &a);
	/* The base indexes the clocks: checked as everything read from the mapping (checked.h). */
	if (a.state != TFD_SLOT_LIVE || a.ino != ino || !tfd_checked_base_value(a.base, &base))
		return TFD_EMU_NOT_OURS;
	now = __tfd_base_now(base);
	if (a.fwd.armed && a.fwd.expiry <= now)
		catch_up(sh, id, fd, ino);
	/* Read, not changed: the time to the next expiry after now, from the clock. */
	tfd_state_expire(&a.st, now);
	tfd_state_get(&a.st, now, curr_value);
	return 0;
}
