/* SPDX-License-Identifier: MIT */
/*
 * What settime does to a timer's state, for a process that holds the timer's memory
 * (emu.c) and for a server serving one that passed its descriptor (server.c's door).
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "emu/capability.h"
#include "emu/checked.h"
#include "emu/timer.h"

/* capable(CAP_WAKE_ALARM): the capability in the effective set of @pid (0: this thread). */
bool
__tfd_may_wake_alarm(pid_t pid)
{
	struct tfd_cap_header hdr = { .version = TFD_CAP_VERSION_3, .pid = pid };
	struct tfd_cap_data data[2] = { 0 }; /* valgrind knows capget writes only data[0] */

	if (syscall(SYS_capget, &hdr, data) != 0)
		return false;
	return data[TFD_CAP_WAKE_ALARM / 32].effective & (1u << (TFD_CAP_WAKE_ALARM % 32));
}

long
__tfd_slot_arm(struct tfd_slot *s, uint32_t i, int flags, const struct tfd_spec *new_value,
	       struct tfd_spec *old, int64_t *due, int (*drain)(uint32_t i, void *ctx), void *ctx)
{
	struct tfd_timer_state cur;
	enum tfd_base base = TFD_BASE_MONOTONIC;
	int64_t now;
	long err = 0;

	*due = INT64_MAX;
	/* A base out of range is the monotonic clock's: a rearm sets a valid one. */
	(void)tfd_checked_base(s, &base);
	/* An expired periodic timer is brought forward first; its ticks are about to be dropped. */
	now = __tfd_base_now(base);
	cur = s->st;
	tfd_state_expire(&cur, now);
	tfd_state_get(&cur, now, old);
	/*
	 * Setting discards pending expirations: the next read waits for a new one.  Drained
	 * before anything changes: if it cannot be, the timer stays as it was and the call
	 * fails, rather than leave a stale count readable after it (libtimerfd(7)).
	 */
	if (s->maybe_counted) {
		err = drain(i, ctx);
		if (err == 0)
			s->maybe_counted = false;
	}
	if (err)
		return err;
	/* The kernel reports a clock set that cancelled the old setting, yet applies the new one. */
	if (s->canceled)
		err = -ECANCELED;
	/*
	 * A relative CLOCK_REALTIME arming runs on the monotonic clock, so that a set of the
	 * realtime clock does not move it: hrtimer_init() turns relative realtime timers
	 * monotonic, as POSIX asks (alarm timers keep their clock's base).
	 */
	if (s->clockid == CLOCK_REALTIME) {
		enum tfd_base armed = (flags & TFD_TIMER_ABSTIME) ? TFD_BASE_REALTIME : TFD_BASE_MONOTONIC;

		if (armed != base) {
			base = armed;
			now = __tfd_base_now(base);
		}
	}
	s->base = base;
	tfd_state_arm(&s->st, new_value, flags & TFD_TIMER_ABSTIME, now);
	s->fwd = s->st; /* nothing of the new setting delivered yet */
	s->canceled = false;
	/* Cancel-on-set needs an absolute timer on a realtime clock; otherwise it is dropped quietly. */
	s->cancel_on_set = base == TFD_BASE_REALTIME && (flags & TFD_TIMER_ABSTIME) &&
			   (flags & TFD_TIMER_CANCEL_ON_SET);
	s->armed_offset = s->cancel_on_set ? __tfd_realtime_offset() : 0;
	if (s->st.armed)
		*due = __tfd_server_due(base, s->st.expiry);
	return err;
}

