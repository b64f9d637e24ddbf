/* SPDX-License-Identifier: MIT */
/* The pure state machine of one emulated timer: arming, expirations, time left (no I/O, no clock reads). */
#ifndef TFD_EMU_TIMER_STATE_H
#define TFD_EMU_TIMER_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "emu/emu.h"

#define TFD_NS_PER_S 1000000000LL

struct tfd_timer_state {
	bool armed;
	int64_t expiry;   /* next expiration, ns on the timer's clock (valid when armed) */
	int64_t interval; /* ns; 0 for a one-shot; kept, unused, by a disarmed timer */
	bool alarm;       /* on an alarm clock: a disarmed timer still reports its last expiry */
};

/* Whether the kernel accepts @spec: seconds >= 0 and nanoseconds in [0, 1e9) in both parts. */
bool tfd_spec_valid(const struct tfd_spec *spec);
/* A (valid) seconds/nanoseconds pair in ns, saturating at INT64_MAX as the kernel's ktime does. */
int64_t tfd_ns(int64_t sec, int64_t nsec);
/* @a + @b for @b >= 0, saturating at INT64_MAX as ktime_add_safe() does (KTIME_MAX). */
static inline int64_t
tfd_add_saturating(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* Arms (or with a zero value disarms) as timerfd_settime() does; @now is the clock's time. */
void tfd_state_arm(struct tfd_timer_state *st, const struct tfd_spec *spec, bool absolute,
		   int64_t now);
/* Expirations due by @now, counting every missed period; advances the timer past @now. */
uint64_t tfd_state_expire(struct tfd_timer_state *st, int64_t now);
/* The current setting as timerfd_gettime() reports it (call tfd_state_expire() first). */
void tfd_state_get(const struct tfd_timer_state *st, int64_t now, struct tfd_spec *out);

#endif /* TFD_EMU_TIMER_STATE_H */
