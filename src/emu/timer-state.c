/* SPDX-License-Identifier: MIT */
/* The pure state machine of one emulated timer, following fs/timerfd.c. */
#include "config.h"

#include "emu/timer-state.h"

bool
tfd_spec_valid(const struct tfd_spec *spec)
{
	return spec->value.sec >= 0 && spec->value.nsec >= 0 && spec->value.nsec < TFD_NS_PER_S &&
	       spec->interval.sec >= 0 && spec->interval.nsec >= 0 &&
	       spec->interval.nsec < TFD_NS_PER_S;
}

int64_t
tfd_ns(int64_t sec, int64_t nsec)
{
	/* timespec64_to_ktime(): seconds beyond KTIME_SEC_MAX give KTIME_MAX. */
	if (sec >= INT64_MAX / TFD_NS_PER_S)
		return INT64_MAX;
	return sec * TFD_NS_PER_S + nsec;
}

void
tfd_state_arm(struct tfd_timer_state *st, const struct tfd_spec *spec, bool absolute, int64_t now)
{
	int64_t value = tfd_ns(spec->value.sec, spec->value.nsec);

	/*
	 * An expired periodic timer is brought forward to now first, as do_timerfd_settime()
	 * does before timerfd_setup(): an alarm timer keeps that expiry once disarmed.
	 */
	tfd_state_expire(st, now);
	st->interval = tfd_ns(spec->interval.sec, spec->interval.nsec);
	st->armed = value != 0;
	if (st->armed)
		st->expiry = absolute ? value : tfd_add_saturating(now, value);
}

uint64_t
tfd_state_expire(struct tfd_timer_state *st, int64_t now)
{
	uint64_t n;

	if (!st->armed || now < st->expiry)
		return 0;
	if (st->interval == 0) {
		st->armed = false;
		return 1;
	}
	/* hrtimer_forward(): every whole period that has passed counts. */
	n = 1 + (uint64_t)((now - st->expiry) / st->interval);
	st->expiry = tfd_add_saturating(st->expiry, (int64_t)(n * (uint64_t)st->interval) < 0
							? INT64_MAX
							: (int64_t)(n * (uint64_t)st->interval));
	return n;
}

void
tfd_state_get(const struct tfd_timer_state *st, int64_t now, struct tfd_spec *out)
{
	/*
	 * The kernel's alarm timers keep their last expiry when disarmed
	 * (timerfd_setup() only starts an alarm, alarm_expires_remaining()
	 * reads the stale one): gettime and old_value still count down to it.
	 */
	bool counts_down = st->armed || st->alarm;
	int64_t left = counts_down && st->expiry > now ? st->expiry - now : 0;

	out->value.sec = left / TFD_NS_PER_S;
	out->value.nsec = left % TFD_NS_PER_S;
	out->interval.sec = st->interval / TFD_NS_PER_S;
	out->interval.nsec = st->interval % TFD_NS_PER_S;
}
