/* SPDX-License-Identifier: MIT */
/*
 * Description: the pure state machine of one emulated timer (src/emu/timer-state.c), row by
 * row against the kernel's arithmetic: arming, expirations counted as hrtimer_forward()
 * counts them, the next expiry, the time left, the INT64 limits, tfd_ns() and
 * tfd_spec_valid().  No clock, no thread, no descriptor: every instant is given.
 *
 * Every expected value below was derived by hand from the kernel's definitions, never
 * taken from the code under test.  The kernel facts used (fs/timerfd.c,
 * kernel/time/hrtimer.c, kernel/time/alarmtimer.c, include/linux/ktime.h):
 *
 *  K1 hrtimer_forward(timer, now, I): delta = now - E.  delta < 0: returns 0, E unchanged.
 *     An I below hrtimer_resolution is raised to it (1 ns with high-resolution timers,
 *     assumed here; alarm_forward() has no such clamp).  If delta >= I: orun = delta / I
 *     and E += orun * I; if E > now it returns orun, else orun++ ("the correction for
 *     exact").  Last, E = ktime_add_safe(E, I).  Since orun * I <= delta, E + orun * I is
 *     never > now (timerfd uses no slack), so in every case:
 *         n = floor(delta / I) + 1,    E' = E + n * I, saturated at KTIME_MAX.
 *  K2 timerfd: the timer's callback counts 1 and does not restart it; read() and gettime
 *     then add hrtimer_forward_now() - 1 and restart it, so "expire at t" counts the n of
 *     K1.  A one-shot (interval 0) counts 1 once and is never forwarded.  An hrtimer fires
 *     when the clock reaches its expiry (now >= E).
 *  K3 timerfd_setup(): value and interval go through timespec64_to_ktime() (K5); the
 *     interval is stored even when the value is 0; value 0 starts nothing.  Relative:
 *     E = ktime_add_safe(value, now); absolute: E = value.  A non-alarm timer is set up
 *     again with expiry = value (0 when disarmed), so its time left is 0 once disarmed;
 *     alarm_init() does not touch the alarm's node.expires, so a disarmed alarm timer's
 *     time left is still its last expiry minus now (alarm_expires_remaining()).
 *  K4 timerfd_settime() first brings an expired periodic timer forward to now (K1), for
 *     the old value, then calls timerfd_setup(); for an alarm that forwarded expiry is the
 *     one K3 keeps.
 *  K5 ktime_set(sec, nsec): sec >= KTIME_SEC_MAX (KTIME_MAX / 1e9 = 9223372036) gives
 *     KTIME_MAX, else sec * 1e9 + nsec.  ktime_add_safe(): on overflow
 *     ktime_set(KTIME_SEC_MAX, 0), which is KTIME_MAX.
 *  K6 timerfd_get_remaining(): E - now, 0 if negative; ktime_to_timespec64() splits it
 *     into ns / 1e9 and ns % 1e9, likewise the interval.
 *  K7 timespec64_valid(): sec < 0 is invalid; nsec, taken as unsigned long, >= 1e9 is
 *     invalid (so any negative nsec too).
 */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <check.h>

#include "suite.h"

#include "emu/timer-state.h"

#define S TFD_NS_PER_S
#define KTIME_MAX INT64_MAX
#define MAX_STEPS 8

struct ts {
	int64_t sec, nsec;
};

enum step_kind { STEP_END, STEP_EXPIRE, STEP_GET, STEP_SET };

struct step {
	enum step_kind kind;
	int64_t t;		   /* the clock's time of the step */
	uint64_t count;		   /* EXPIRE: the expirations counted */
	bool armed;		   /* EXPIRE: still armed afterwards */
	int64_t next;		   /* EXPIRE: the next expiry, when armed */
	struct ts value, interval; /* GET: what gettime reports; SET: the new setting */
	bool absolute;		   /* SET */
};

struct row {
	const char *name;
	bool alarm;
	struct ts value, interval; /* the arming, at @now */
	bool absolute;
	int64_t now;
	struct step steps[MAX_STEPS];
	/* Not NULL: the code is known to differ from the kernel here (the row expects the
	 * kernel's values; it is reported, not failed, and fails once the code agrees). */
	const char *diverges;
};

#define REL false
#define ABS true
/* The arming of a row: value, interval, absolute?, the clock's time when armed. */
#define ARM(abs_, vs, vn, is, in, now_)                                                    \
	.value = { (vs), (vn) }, .interval = { (is), (in) }, .absolute = (abs_), .now = (now_)
/* "Expire at t": @n_ expirations, then armed with the next expiry at @next_. */
#define EXPIRE(t_, n_, next_) \
	{ .kind = STEP_EXPIRE, .t = (t_), .count = (n_), .armed = true, .next = (next_) }
/* "Expire at t": @n_ expirations, and no longer armed. */
#define EXPIRE_OFF(t_, n_) { .kind = STEP_EXPIRE, .t = (t_), .count = (n_), .armed = false }
/* "Get at t": the value left and the interval, as timerfd_gettime() reports them. */
#define GET(t_, vs, vn, is, in) \
	{ .kind = STEP_GET, .t = (t_), .value = { (vs), (vn) }, .interval = { (is), (in) } }
/* timerfd_settime() at t with a new setting. */
#define SET(t_, abs_, vs, vn, is, in)                                                      \
	{ .kind = STEP_SET, .t = (t_), .value = { (vs), (vn) }, .interval = { (is), (in) }, \
	  .absolute = (abs_) }

/* --- periodic timers on and around a period boundary ---------------------------------- */
/*
 * K1 with E the expiry, I the interval: n = floor((t - E) / I) + 1 for t >= E, 0 before;
 * the next expiry E + n * I.  On a boundary (t - E a multiple of I) the period that ends
 * at t counts and the next expiry is t + I; 1 ns before a boundary that period does not
 * count yet; 1 ns after, it does.
 */
static const struct row periodic_rows[] = {
	{ .name = "periodic: wakes exactly on period boundaries", ARM(REL, 0, 100, 0, 10, 1000),
	  /* E = 1000 + 100 = 1100.  1099: delta -1 -> 0.  1100: delta 0 -> 1, E 1110.
	   * 1130: delta 20 = 2 I -> 3, E 1140.  Left at 1135: 5 ns. */
	  .steps = { EXPIRE(1099, 0, 1100), EXPIRE(1100, 1, 1110), EXPIRE(1130, 3, 1140),
		     GET(1135, 0, 5, 0, 10) } },
	{ .name = "periodic: 1 ns before a period boundary", ARM(ABS, 0, 1000, 0, 10, 0),
	  /* E = 1000.  1029: delta 29 -> 2 + 1 = 3, E 1000 + 30 = 1030, 1 ns left. */
	  .steps = { EXPIRE(1029, 3, 1030), GET(1029, 0, 1, 0, 10), EXPIRE(1029, 0, 1030) } },
	{ .name = "periodic: 1 ns after a period boundary", ARM(ABS, 0, 1000, 0, 10, 0),
	  /* E = 1000.  1031: delta 31 -> 3 + 1 = 4, E 1040, 9 ns left. */
	  .steps = { EXPIRE(1031, 4, 1040), GET(1031, 0, 9, 0, 10) } },
	{ .name = "periodic: seconds, on, before and after a boundary",
	  ARM(REL, 1, 0, 1, 0, 5 * S),
	  /* E = 6 s.  9 s: delta 3 s -> 4, E 10 s.  10 s - 1: before E -> 0.
	   * 10 s + 1: delta 1 -> 1, E 11 s.  Left at 10.5 s: 0.5 s. */
	  .steps = { EXPIRE(9 * S, 4, 10 * S), EXPIRE(10 * S - 1, 0, 10 * S),
		     EXPIRE(10 * S + 1, 1, 11 * S), GET(10 * S + S / 2, 0, 500000000, 1, 0) } },
	{ .name = "periodic: absolute start in the past counts every period since",
	  ARM(ABS, 1, 0, 0, 250000000, 10 * S),
	  /* E = 1 s (the hrtimer fires at once).  10 s: delta 9 s = 36 I -> 37,
	   * E = 1 s + 37 * 0.25 s = 10.25 s. */
	  .steps = { EXPIRE(10 * S, 37, 10 * S + 250000000),
		     GET(10 * S, 0, 250000000, 0, 250000000) } },
	{ .name = "periodic: re-arming replaces the expiry and the interval",
	  ARM(REL, 10, 0, 0, 0, 0),
	  /* The new setting: absolute 500 ns (already past), interval 100 ns.
	   * At 1 s: delta 999999500 -> 9999995 + 1 = 9999996, E = 500 + 999999600. */
	  .steps = { SET(S, ABS, 0, 500, 0, 100), EXPIRE(S, 9999996, 1000000100),
		     GET(S, 0, 100, 0, 100) } },
};

/* --- one-shot timers ---------------------------------------------------------------- */
/*
 * K2: a one-shot counts 1 when the clock reaches its expiry (t >= E), however late it is
 * read, and is then disarmed: nothing left, nothing more counted.  1 ns before, 0 and the
 * 1 ns left.
 */
static const struct row oneshot_rows[] = {
	{ .name = "one-shot: 1 ns before its expiry, then exactly at it", ARM(REL, 1, 0, 0, 0, 0),
	  .steps = { EXPIRE(S - 1, 0, S), GET(S - 1, 0, 1, 0, 0), EXPIRE_OFF(S, 1),
		     GET(S, 0, 0, 0, 0), EXPIRE_OFF(2 * S, 0) } },
	{ .name = "one-shot: read long after its expiry counts once", ARM(ABS, 5, 0, 0, 0, S),
	  .steps = { EXPIRE_OFF(1000 * S, 1), GET(1000 * S, 0, 0, 0, 0) } },
	{ .name = "one-shot: absolute time already past fires at once", ARM(ABS, 0, 5, 0, 0, 100),
	  .steps = { EXPIRE_OFF(100, 1) } },
	{ .name = "one-shot: 1 ns", ARM(REL, 0, 1, 0, 0, 0),
	  .steps = { EXPIRE(0, 0, 1), GET(0, 0, 1, 0, 0), EXPIRE_OFF(1, 1) } },
};

/* --- 1 ns intervals and huge counts ------------------------------------------------- */
/*
 * K1 with 1 ns (not raised: the high-resolution hrtimer_resolution is 1 ns) and with
 * counts near 2^63; E + n * I past KTIME_MAX saturates (ktime_add_safe(), K5).
 */
static const struct row count_rows[] = {
	{ .name = "interval 1 ns: every nanosecond counts", ARM(ABS, 0, 1, 0, 1, 0),
	  /* E = 1.  1: 1, E 2.  2: 1, E 3.  1000002: delta 999999 -> 1000000, E 1000003. */
	  .steps = { EXPIRE(1, 1, 2), EXPIRE(2, 1, 3), EXPIRE(1000002, 1000000, 1000003),
		     GET(1000002, 0, 1, 0, 1) } },
	{ .name = "interval 1 ns: counted up to KTIME_MAX", ARM(ABS, 0, 1, 0, 1, 0),
	  /* E = 1.  KTIME_MAX: delta KTIME_MAX - 1 -> n = KTIME_MAX; E + (n - 1) = KTIME_MAX,
	   * + 1 overflows: KTIME_MAX.  Nothing left at KTIME_MAX. */
	  .steps = { EXPIRE(KTIME_MAX, (uint64_t)KTIME_MAX, KTIME_MAX),
		     GET(KTIME_MAX, 0, 0, 0, 1) } },
	{ .name = "interval 3 ns: counted up to KTIME_MAX, on a boundary", ARM(ABS, 0, 1, 0, 3, 0),
	  /* E = 1.  delta = KTIME_MAX - 1 = 9223372036854775806 = 3 * 3074457345618258602:
	   * n = 3074457345618258603; E + (n - 1) * 3 = KTIME_MAX, + 3 overflows: KTIME_MAX. */
	  .steps = { EXPIRE(KTIME_MAX, 3074457345618258603u, KTIME_MAX) } },
	{ .name = "interval 1 s: 1e9 periods at once", ARM(REL, 1, 0, 1, 0, 0),
	  /* E = 1 s.  1e18: delta 999999999 s -> 1e9, E = 1 s + 1e9 s = 1e18 + 1e9. */
	  .steps = { EXPIRE(1000000000 * S, 1000000000, 1000000001000000000),
		     GET(1000000000 * S, 1, 0, 1, 0) } },
	{ .name = "interval 7 ns: 1e15 + 1 periods, between boundaries", ARM(ABS, 0, 10, 0, 7, 0),
	  /* E = 10.  t = 7e15 + 13: delta 7e15 + 3 -> 1e15 + 1, E = 10 + 7 * (1e15 + 1)
	   * = 7000000000000017; 4 ns left. */
	  .steps = { EXPIRE(7000000000000013, 1000000000000001, 7000000000000017),
		     GET(7000000000000013, 0, 4, 0, 7) } },
};

/* --- the INT64 limits ------------------------------------------------------------- */
/*
 * K5: seconds >= 9223372036 convert to KTIME_MAX (9223372036.854775807 s), whatever the
 * nanoseconds; 9223372035.999999999 s converts exactly.  Relative arming and forwarding
 * add with ktime_add_safe(): a sum past KTIME_MAX is KTIME_MAX, a sum of exactly KTIME_MAX
 * is not an overflow.  K6 reports KTIME_MAX - t split at 1e9.
 */
static const struct row limit_rows[] = {
	{ .name = "relative value saturates at KTIME_MAX",
	  ARM(REL, 9223372035, 999999999, 0, 0, S),
	  /* 9223372035999999999 + 1e9 overflows: E = KTIME_MAX; left at 1 s:
	   * KTIME_MAX - 1e9 = 9223372035.854775807 s. */
	  .steps = { GET(S, 9223372035, 854775807, 0, 0), EXPIRE(KTIME_MAX - 1, 0, KTIME_MAX),
		     EXPIRE_OFF(KTIME_MAX, 1) } },
	{ .name = "relative value ending 1 ns before KTIME_MAX",
	  ARM(REL, 9223372035, 999999999, 0, 0, 854775807),
	  /* 9223372035999999999 + 854775807 = KTIME_MAX - 1, no saturation. */
	  .steps = { EXPIRE(854775807, 0, KTIME_MAX - 1),
		     GET(854775807, 9223372035, 999999999, 0, 0) } },
	{ .name = "relative value ending exactly at KTIME_MAX",
	  ARM(REL, 9223372035, 999999999, 0, 0, 854775808),
	  /* 9223372035999999999 + 854775808 = KTIME_MAX: no overflow. */
	  .steps = { EXPIRE(854775808, 0, KTIME_MAX),
		     GET(854775808, 9223372035, 999999999, 0, 0) } },
	{ .name = "relative value ending 1 ns past KTIME_MAX saturates",
	  ARM(REL, 9223372035, 999999999, 0, 0, 854775809),
	  /* The sum overflows by 1: E = KTIME_MAX; left KTIME_MAX - 854775809
	   * = 9223372035999999998 (1 ns less than the value given). */
	  .steps = { EXPIRE(854775809, 0, KTIME_MAX),
		     GET(854775809, 9223372035, 999999998, 0, 0) } },
	{ .name = "absolute time with INT64_MAX seconds is KTIME_MAX",
	  ARM(ABS, INT64_MAX, 999999999, 0, 0, 0),
	  .steps = { GET(0, 9223372036, 854775807, 0, 0), EXPIRE(KTIME_MAX - 1, 0, KTIME_MAX),
		     EXPIRE_OFF(KTIME_MAX, 1) } },
	{ .name = "absolute time of KTIME_SEC_MAX seconds is KTIME_MAX, not 9223372036 s",
	  ARM(ABS, 9223372036, 0, 0, 0, 0),
	  .steps = { GET(0, 9223372036, 854775807, 0, 0),
		     EXPIRE(9223372036000000000, 0, KTIME_MAX) } },
	{ .name = "absolute time of 9223372035.999999999 s is exact",
	  ARM(ABS, 9223372035, 999999999, 0, 0, 0),
	  .steps = { GET(0, 9223372035, 999999999, 0, 0),
		     EXPIRE(9223372035999999998, 0, 9223372035999999999),
		     EXPIRE_OFF(9223372035999999999, 1) } },
	{ .name = "interval of 9223372036.854775807 s: the next expiry saturates",
	  ARM(REL, 0, 1, 9223372036, 854775807, 0),
	  /* E = 1, I = KTIME_MAX.  1: delta 0 < I -> 1, 1 + KTIME_MAX overflows: KTIME_MAX;
	   * left KTIME_MAX - 1.  KTIME_MAX: delta 0 -> 1, KTIME_MAX + I saturates again. */
	  .steps = { EXPIRE(1, 1, KTIME_MAX), GET(1, 9223372036, 854775806, 9223372036, 854775807),
		     EXPIRE(KTIME_MAX - 1, 0, KTIME_MAX), EXPIRE(KTIME_MAX, 1, KTIME_MAX),
		     GET(KTIME_MAX, 0, 0, 9223372036, 854775807) } },
	{ .name = "interval of 9223372035.999999999 s: exact, then saturating",
	  ARM(ABS, 0, 1000, 9223372035, 999999999, 0),
	  /* E = 1000, I = 9223372035999999999.  1000: -> 1, E = 9223372036000000999 (fits).
	   * KTIME_MAX: delta 854774808 < I -> 1, E + I overflows: KTIME_MAX. */
	  .steps = { EXPIRE(1000, 1, 9223372036000000999),
		     GET(1000, 9223372035, 999999999, 9223372035, 999999999),
		     EXPIRE(KTIME_MAX, 1, KTIME_MAX),
		     GET(KTIME_MAX, 0, 0, 9223372035, 999999999) } },
	{ .name = "interval with INT64_MAX seconds is reported as KTIME_MAX",
	  ARM(REL, 0, 0, INT64_MAX, 999999999, 0),
	  .steps = { GET(0, 0, 0, 9223372036, 854775807) } },
};

/* --- disarming ------------------------------------------------------------------------ */
/*
 * K3: value 0 starts nothing, keeps the interval given for gettime, and (not an alarm)
 * leaves nothing to count down: the hrtimer's expiry is set to 0, 0 - now < 0 reads 0.
 */
static const struct row disarm_rows[] = {
	{ .name = "value 0 disarms and keeps the interval", ARM(REL, 0, 0, 2, 500, 100),
	  .steps = { EXPIRE_OFF(10 * S, 0), GET(10 * S, 0, 0, 2, 500) } },
	{ .name = "disarming a running periodic timer reports the new interval",
	  ARM(REL, 1, 0, 1, 0, 0),
	  /* E = 1 s.  1.5 s: delta 0.5 s -> 1, E 2 s.  Disarmed at 1.5 s with interval 3 s. */
	  .steps = { EXPIRE(S + S / 2, 1, 2 * S), SET(S + S / 2, REL, 0, 0, 3, 0),
		     GET(S + S / 2, 0, 0, 3, 0), EXPIRE_OFF(5 * S, 0), GET(5 * S, 0, 0, 3, 0) } },
	{ .name = "disarming a pending one-shot leaves nothing (not an alarm)",
	  ARM(REL, 10, 0, 0, 0, 0),
	  .steps = { SET(S, REL, 0, 0, 0, 0), GET(2 * S, 0, 0, 0, 0), EXPIRE_OFF(11 * S, 0),
		     GET(11 * S, 0, 0, 0, 0) } },
	{ .name = "disarming an unread periodic timer leaves nothing (not an alarm)",
	  ARM(REL, 1, 0, 1, 0, 0),
	  /* K4 forwards it to 3 s, but K3 then sets the hrtimer's expiry to 0. */
	  .steps = { SET(2 * S + S / 2, REL, 0, 0, 0, 0), GET(2 * S + S * 3 / 4, 0, 0, 0, 0) } },
};

/* --- alarm timers --------------------------------------------------------------------- */
/*
 * K3: a disarmed alarm timer reports its last expiry minus now, 0 once that is past; K4:
 * settime has brought an expired periodic alarm forward before disarming it, so "its last
 * expiry" is then the first period boundary after the settime.  Nothing is counted while
 * disarmed.
 */
static const struct row alarm_rows[] = {
	{ .name = "alarm: disarmed before its expiry, still counts down to it",
	  .alarm = true, ARM(REL, 10, 0, 0, 0, 0),
	  .steps = { SET(3 * S, REL, 0, 0, 0, 0), GET(4 * S, 6, 0, 0, 0), GET(10 * S, 0, 0, 0, 0),
		     GET(11 * S, 0, 0, 0, 0), EXPIRE_OFF(11 * S, 0) } },
	{ .name = "alarm: absolute alarm disarmed twice, still counts down to it",
	  .alarm = true, ARM(ABS, 100, 0, 0, 0, 0),
	  .steps = { SET(50 * S, REL, 0, 0, 0, 0), GET(60 * S, 40, 0, 0, 0),
		     SET(70 * S, ABS, 0, 0, 5, 0), GET(70 * S, 30, 0, 5, 0) } },
	{ .name = "alarm: read, then disarmed, counts down to the next period",
	  .alarm = true, ARM(REL, 1, 0, 1, 0, 0),
	  /* E = 1 s.  2.5 s: delta 1.5 s -> 2, E 3 s.  Disarmed at 2.5 s: 0.25 s left at
	   * 2.75 s, nothing at 3 s. */
	  .steps = { EXPIRE(2 * S + S / 2, 2, 3 * S), SET(2 * S + S / 2, REL, 0, 0, 0, 0),
		     GET(2 * S + S * 3 / 4, 0, 250000000, 0, 0), GET(3 * S, 0, 0, 0, 0),
		     EXPIRE_OFF(4 * S, 0) } },
	{ .name = "alarm: expired one-shot, then disarmed: nothing left",
	  .alarm = true, ARM(REL, 1, 0, 0, 0, 0),
	  .steps = { EXPIRE_OFF(S, 1), SET(2 * S, REL, 0, 0, 0, 0), GET(2 * S, 0, 0, 0, 0) } },
	{ .name = "alarm: never armed: nothing left, the interval kept",
	  .alarm = true, ARM(REL, 0, 0, 1, 0, 5 * S),
	  /* The context is zeroed at create: node.expires 0, 0 - now < 0 reads 0. */
	  .steps = { GET(5 * S, 0, 0, 1, 0) } },
	{ .name = "alarm: unread periodic alarm disarmed after it fired",
	  .alarm = true, ARM(REL, 1, 0, 1, 0, 0),
	  /* E = 1 s; it fired at 1 s, unread.  K4: settime at 2.5 s first forwards it:
	   * delta 1.5 s -> 2, E 3 s; alarm_init() keeps that: 0.25 s left at 2.75 s. */
	  .steps = { SET(2 * S + S / 2, REL, 0, 0, 0, 0),
		     GET(2 * S + S * 3 / 4, 0, 250000000, 0, 0) } },
};

static struct tfd_spec
spec_of(struct ts value, struct ts interval)
{
	struct tfd_spec spec;

	spec.value.sec = value.sec;
	spec.value.nsec = value.nsec;
	spec.interval.sec = interval.sec;
	spec.interval.nsec = interval.nsec;
	return spec;
}

static bool
same_i64(const struct row *r, int k, const char *what, int64_t got, int64_t want)
{
	if (got == want)
		return true;
	printf("  %s: step %d: %s is %" PRId64 ", the kernel's %" PRId64 "\n", r->name, k, what,
	       got, want);
	return false;
}

static bool
same_u64(const struct row *r, int k, const char *what, uint64_t got, uint64_t want)
{
	if (got == want)
		return true;
	printf("  %s: step %d: %s is %" PRIu64 ", the kernel's %" PRIu64 "\n", r->name, k, what,
	       got, want);
	return false;
}

/* Runs one row; true if every step gave the kernel's values. */
static bool
run_row(const struct row *r)
{
	struct tfd_timer_state st = { .alarm = r->alarm };
	struct tfd_spec spec = spec_of(r->value, r->interval);
	bool ok = true;

	tfd_state_arm(&st, &spec, r->absolute, r->now);
	for (int k = 0; k < MAX_STEPS && r->steps[k].kind != STEP_END; k++) {
		const struct step *s = &r->steps[k];
		struct tfd_spec out;

		switch (s->kind) {
		case STEP_EXPIRE:
			ok &= same_u64(r, k, "expirations", tfd_state_expire(&st, s->t), s->count);
			ok &= same_i64(r, k, "armed", st.armed, s->armed);
			if (st.armed && s->armed)
				ok &= same_i64(r, k, "next expiry", st.expiry, s->next);
			break;
		case STEP_GET:
			tfd_state_get(&st, s->t, &out);
			ok &= same_i64(r, k, "value.sec", out.value.sec, s->value.sec);
			ok &= same_i64(r, k, "value.nsec", out.value.nsec, s->value.nsec);
			ok &= same_i64(r, k, "interval.sec", out.interval.sec, s->interval.sec);
			ok &= same_i64(r, k, "interval.nsec", out.interval.nsec, s->interval.nsec);
			break;
		case STEP_SET:
			spec = spec_of(s->value, s->interval);
			tfd_state_arm(&st, &spec, s->absolute, s->t);
			break;
		case STEP_END:
			break;
		}
	}
	return ok;
}

/* Runs every row of a table: the number that failed (a marked divergence fails only once
 * the code agrees with the kernel, so that its mark is removed). */
static int
run_rows(const struct row *rows, size_t n)
{
	int failed = 0;

	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		bool ok = run_row(r);

		if (r->diverges && !ok) {
			printf("KNOWN DIVERGENCE from the kernel: %s: %s\n", r->name, r->diverges);
		} else if (r->diverges) {
			printf("FAIL: %s: marked as a divergence, but agrees with the kernel now\n",
			       r->name);
			failed++;
		} else if (!ok) {
			printf("FAIL: %s\n", r->name);
			failed++;
		}
	}
	fflush(stdout);
	return failed;
}

#define RUN_TABLE(rows)                                                                   \
	do {                                                                              \
		int failed_ = run_rows((rows), sizeof(rows) / sizeof((rows)[0]));         \
		ck_assert_msg(failed_ == 0, "%d of %zu rows differ from the kernel", failed_, \
			      sizeof(rows) / sizeof((rows)[0]));                          \
	} while (0)

START_TEST(periodic_timers_count_like_hrtimer_forward)
{
	RUN_TABLE(periodic_rows);
}
END_TEST

START_TEST(one_shot_timers_count_once)
{
	RUN_TABLE(oneshot_rows);
}
END_TEST

START_TEST(one_ns_intervals_and_huge_counts)
{
	RUN_TABLE(count_rows);
}
END_TEST

START_TEST(int64_limits_saturate_at_ktime_max)
{
	RUN_TABLE(limit_rows);
}
END_TEST

START_TEST(disarming_keeps_the_interval)
{
	RUN_TABLE(disarm_rows);
}
END_TEST

START_TEST(disarmed_alarm_timers_count_down_to_their_last_expiry)
{
	RUN_TABLE(alarm_rows);
}
END_TEST

/* --- tfd_spec_valid() (K7) ------------------------------------------------------------ */
struct valid_row {
	struct ts value, interval;
	bool valid;
};

static const struct valid_row valid_rows[] = {
	{ { 0, 0 }, { 0, 0 }, true },
	{ { 0, 999999999 }, { 0, 0 }, true },
	{ { 0, 0 }, { 0, 999999999 }, true },
	{ { 0, 1000000000 }, { 0, 0 }, false },
	{ { 0, 0 }, { 0, 1000000000 }, false },
	{ { 0, -1 }, { 0, 0 }, false },
	{ { 0, 0 }, { 0, -1 }, false },
	{ { 0, INT64_MIN }, { 0, 0 }, false },
	{ { 0, INT64_MAX }, { 0, 0 }, false },
	{ { -1, 0 }, { 0, 0 }, false },
	{ { 0, 0 }, { -1, 0 }, false },
	{ { INT64_MIN, 0 }, { 0, 0 }, false },
	{ { INT64_MAX, 999999999 }, { INT64_MAX, 999999999 }, true },
};

START_TEST(spec_valid_takes_what_the_kernel_takes)
{
	int failed = 0;

	for (size_t i = 0; i < sizeof(valid_rows) / sizeof(valid_rows[0]); i++) {
		struct tfd_spec spec = spec_of(valid_rows[i].value, valid_rows[i].interval);

		if (tfd_spec_valid(&spec) != valid_rows[i].valid) {
			printf("FAIL: tfd_spec_valid({%" PRId64 ", %" PRId64 "}, {%" PRId64
			       ", %" PRId64 "}) should be %s\n",
			       spec.value.sec, spec.value.nsec, spec.interval.sec, spec.interval.nsec,
			       valid_rows[i].valid ? "true" : "false");
			failed++;
		}
	}
	fflush(stdout);
	ck_assert_int_eq(failed, 0);
}
END_TEST

/* --- tfd_ns() (K5) -------------------------------------------------------------------- */
/* INT64_MAX / 1e9 = 9223372036 = KTIME_SEC_MAX: from there on, KTIME_MAX. */
struct ns_row {
	int64_t sec, nsec, ns;
};

static const struct ns_row ns_rows[] = {
	{ 0, 0, 0 },
	{ 0, 1, 1 },
	{ 0, 999999999, 999999999 },
	{ 1, 0, 1000000000 },
	{ 9223372035, 999999999, 9223372035999999999 },
	{ 9223372036, 0, KTIME_MAX },
	{ 9223372036, 854775807, KTIME_MAX },
	{ 9223372036, 854775808, KTIME_MAX },
	{ 9223372036, 999999999, KTIME_MAX },
	{ 9223372037, 0, KTIME_MAX },
	{ INT64_MAX, 999999999, KTIME_MAX },
};

START_TEST(ns_saturates_from_ktime_sec_max)
{
	int failed = 0;

	for (size_t i = 0; i < sizeof(ns_rows) / sizeof(ns_rows[0]); i++) {
		int64_t got = tfd_ns(ns_rows[i].sec, ns_rows[i].nsec);

		if (got != ns_rows[i].ns) {
			printf("FAIL: tfd_ns(%" PRId64 ", %" PRId64 ") is %" PRId64
			       ", the kernel's %" PRId64 "\n",
			       ns_rows[i].sec, ns_rows[i].nsec, got, ns_rows[i].ns);
			failed++;
		}
	}
	fflush(stdout);
	ck_assert_int_eq(failed, 0);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("timer-state");
	TCase *tc = tcase_create("timer-state");

	tcase_add_test(tc, periodic_timers_count_like_hrtimer_forward);
	tcase_add_test(tc, one_shot_timers_count_once);
	tcase_add_test(tc, one_ns_intervals_and_huge_counts);
	tcase_add_test(tc, int64_limits_saturate_at_ktime_max);
	tcase_add_test(tc, disarming_keeps_the_interval);
	tcase_add_test(tc, disarmed_alarm_timers_count_down_to_their_last_expiry);
	tcase_add_test(tc, spec_valid_takes_what_the_kernel_takes);
	tcase_add_test(tc, ns_saturates_from_ktime_sec_max);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
