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

/* Makes the timer under the lock: the program's descriptor, or -errno with nothing left over. */
static long
create_locked(struct tfd_emu_timer *t, clockid_t clockid, enum tfd_base base, int flags)
{
	uint64_t dev;
	pid_t tid;
	int r;
	long fd;

	t->slot = __tfd_slot_alloc();
	if (!t->slot)
		return -ENOMEM;
	fd = __tfd_thread_take_pipe(&r, &t->w, &tid);
	if (fd == 0)
		fd = __tfd_pipe_open_reader(tid, r, flags);
	if (fd >= 0 && __tfd_pipe_inode((int)fd, &dev, &t->ino) < 0) {
		close((int)fd);
		fd = -ENOMEM;
	}
	if (fd < 0) {
		__tfd_slot_free(t->slot);
		return fd;
	}
	t->gen = t->slot->gen;
	t->slot->dev = dev;
	t->slot->ino = t->ino;
	t->slot->clockid = clockid;
	t->slot->base = base;
	t->slot->st.alarm = is_alarm(clockid);
	t->rfd = (int)fd;
	__tfd_registry_insert(t);
	__tfd_thread_adopt(t);
	return fd;
}

/* What a new timer needs in the registry and the queues, allocated with the lock let go. */
struct room {
	size_t buckets, queue_cap[TFD_NBASES];
	void *bucket_mem, *queue_mem[TFD_NBASES];
};

static bool
room_short(struct room *r)
{
	bool short_of_room;

	r->buckets = __tfd_registry_room();
	__tfd_queue_room(__tfd_registry_count() + 1, r->queue_cap);
	short_of_room = r->buckets != 0;
	for (int b = 0; b < TFD_NBASES; b++)
		short_of_room |= r->queue_cap[b] != 0;
	return short_of_room;
}

static void
room_free(struct room *r)
{
	free(r->bucket_mem);
	for (int b = 0; b < TFD_NBASES; b++)
		free(r->queue_mem[b]);
}

static int
room_alloc(struct room *r)
{
	r->bucket_mem = r->buckets ? calloc(r->buckets, sizeof(struct tfd_emu_timer *)) : NULL;
	for (int b = 0; b < TFD_NBASES; b++)
		r->queue_mem[b] = r->queue_cap[b] ? malloc(r->queue_cap[b] * sizeof(struct tfd_heap_node *)) : NULL;
	if (r->buckets && !r->bucket_mem)
		return -ENOMEM;
	for (int b = 0; b < TFD_NBASES; b++)
		if (r->queue_cap[b] && !r->queue_mem[b])
			return -ENOMEM;
	return 0;
}

/*
 * Takes the lock with room for one more timer, or gives -ENOMEM without it.  The room is
 * allocated with the lock let go: the lock never covers a call into the allocator, since a
 * thread waiting for the allocator's own lock while it held ours would deadlock with any
 * thread interrupted inside malloc() whose signal handler calls timerfd_settime() (a system
 * call, safe there).  Another thread may use the room first: then look again.
 */
static int
lock_with_room(struct tfd_guard *g)
{
	for (;;) {
		struct room r = { 0 };

		__tfd_lock(g);
		if (!room_short(&r))
			return 0;
		__tfd_unlock(g);
		if (room_alloc(&r) < 0) {
			room_free(&r);
			return -ENOMEM;
		}
		__tfd_lock(g);
		if (r.bucket_mem)
			r.bucket_mem = __tfd_registry_grow(r.bucket_mem, r.buckets);
		__tfd_queue_grow(r.queue_mem, r.queue_cap);
		__tfd_unlock(g);
		room_free(&r); /* what was replaced, or what another thread's room made needless */
	}
}

long
__tfd_emu_create(clockid_t clockid, int flags)
{
	struct tfd_emu_timer *t, *dead, *bury_now = NULL;
	struct tfd_guard g;
	enum tfd_base base;
	int saved_errno = errno;
	long r;

	/* Same checks, same order as timerfd_create(2). */
	if ((flags & ~(TFD_CLOEXEC | TFD_NONBLOCK)) || base_of(clockid, &base) < 0)
		return -EINVAL;
	if (is_alarm(clockid) && !may_wake_alarm())
		return -EPERM;
	if (__tfd_shared_init() < 0)
		return -ENOMEM;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->w = t->h = -1;
	t->node.pos = TFD_HEAP_NONE;
	r = lock_with_room(&g);
	if (r < 0) {
		free(t);
		return r;
	}
	r = create_locked(t, clockid, base, flags);
	if (r < 0 && t->w >= 0)
		__tfd_thread_reap(t); /* the thread closes the write end it made, and frees */
	else if (r < 0)
		bury_now = t;
	dead = __tfd_graveyard_take();
	__tfd_unlock(&g);
	__tfd_graveyard_free(dead);
	free(bury_now);
	if (r >= 0)
		__atomic_store_n(&__tfd_emu_used, 1, __ATOMIC_RELAXED);
	errno = saved_errno;
	return r;
}

long
__tfd_emu_identify(int fd, uint64_t *ino)
{
	uint64_t dev;

	if (!__tfd_shared_ready())
		return fcntl(fd, F_GETFD) < 0 ? -EBADF : 0;
	return __tfd_pipe_identify(fd, &dev, ino);
}

/* The record of the pipe @ino (lock held), or NULL if it is no timer of this process. */
static struct tfd_emu_timer *
lookup(uint64_t ino)
{
	struct tfd_emu_timer *t = __tfd_registry_find(ino);

	if (t && !__tfd_slot_current(t)) {
		__tfd_thread_reap(t);
		return NULL;
	}
	return t;
}

long
__tfd_emu_settime(int fd, long id, uint64_t ino, int flags, const struct tfd_spec *new_value,
		  struct tfd_spec *old_value)
{
	struct tfd_emu_timer *t;
	struct tfd_slot *s;
	struct tfd_guard g;
	struct tfd_spec old;
	long err = 0;
	int64_t now;

	/* The order of do_timerfd_settime(): EFAULT, EINVAL for flags and values, then the fd. */
	if (!new_value)
		return -EFAULT;
	if ((flags & ~(TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET)) || !tfd_spec_valid(new_value))
		return -EINVAL;
	if (id <= 0)
		return id < 0 ? id : TFD_EMU_NOT_OURS;
	__tfd_lock(&g);
	t = lookup(ino);
	if (!t) {
		err = TFD_EMU_NOT_OURS;
		goto out;
	}
	s = t->slot;
	if (is_alarm(s->clockid) && !may_wake_alarm()) {
		err = -EPERM;
		goto out;
	}
	/* This process drives what it arms: it needs the thread (nothing is changed without it). */
	err = __tfd_thread_ensure();
	if (err)
		goto out;
	/* Out of the queue while its flags change (the queue counts cancel-on-set timers). */
	__tfd_queue_remove(t);
	/* An expired periodic timer is brought forward first; its ticks are about to be dropped. */
	now = __tfd_base_now(s->base);
	tfd_state_expire(&s->st, now);
	tfd_state_get(&s->st, now, &old);
	/* The kernel reports a clock set that cancelled the old setting, yet applies the new one. */
	if (s->canceled)
		err = -ECANCELED;
	tfd_state_arm(&s->st, new_value, flags & TFD_TIMER_ABSTIME, now);
	s->canceled = false;
	/* Cancel-on-set needs an absolute timer on a realtime clock; otherwise it is dropped quietly. */
	s->cancel_on_set = s->base == TFD_BASE_REALTIME && (flags & TFD_TIMER_ABSTIME) &&
			   (flags & TFD_TIMER_CANCEL_ON_SET);
	s->armed_offset = s->cancel_on_set ? __tfd_realtime_offset() : 0;
	/* Setting discards pending expirations: the next read waits for a new one. */
	if (s->maybe_counted) {
		__tfd_pipe_drain(fd);
		s->maybe_counted = false;
	}
	/* A timer inherited over fork whose write end this process could not reopen then. */
	if (t->w < 0) {
		t->rfd = fd;
		t->rfd_tid = (pid_t)syscall(SYS_gettid);
		__tfd_thread_adopt(t);
	}
	__tfd_queue_update(t);
out:
	__tfd_unlock(&g);
	if (err == 0 && old_value)
		*old_value = old;
	return err;
}

/* @curr_value is ours; the caller copies it out after the fd lookup, as the kernel does. */
long
__tfd_emu_gettime(long id, uint64_t ino, struct tfd_spec *curr_value)
{
	struct tfd_emu_timer *t;
	struct tfd_guard g;
	struct tfd_timer_state st;

	if (id <= 0)
		return id < 0 ? id : TFD_EMU_NOT_OURS;
	__tfd_lock(&g);
	t = lookup(ino);
	if (t) {
		/*
		 * Read, not changed: missed periods are the thread's to deliver, and
		 * the value is the time to the next expiry after now.
		 */
		int64_t now = __tfd_base_now(t->slot->base);

		st = t->slot->st;
		tfd_state_expire(&st, now);
		tfd_state_get(&st, now, curr_value);
	}
	__tfd_unlock(&g);
	return t ? 0 : TFD_EMU_NOT_OURS;
}
