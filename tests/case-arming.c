/* SPDX-License-Identifier: MIT */
/* Test cases: arming relative and absolute timers on each clock, disarming, old values. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "helpers.h"
#include "suite.h"

/* Generous bound for "soon": shared, noisy machines may delay a wake-up a lot. */
#define LATE_NS scaled_ns(5 * NS_PER_S)

/* Arm @fd with a one-shot relative @value, block in read(); check when it expired. */
static void
check_relative_one_shot(clockid_t clock, int64_t value)
{
	struct itimerspec its = its_ns(value, 0);
	int fd = timerfd_create(clock, 0);
	uint64_t ticks = 0;
	int64_t start, waited;

	ck_assert_int_ge(fd, 0);
	start = now_ns(clock);
	ck_assert_int_eq(timerfd_settime(fd, 0, &its, NULL), 0);
	ck_assert_int_eq(read_ticks(fd, &ticks), 0);
	waited = now_ns(clock) - start;
	ck_assert_uint_eq(ticks, 1);
	/* A timer never expires early on its own clock. */
	ck_assert_int_ge(waited, value);
	ck_assert_int_lt(waited, value + LATE_NS);
	close(fd);
}

/* Arm a one-shot at an absolute time on @clock, block in read(); check the clock passed it. */
static void
check_absolute_one_shot(clockid_t clock)
{
	int fd = timerfd_create(clock, 0);
	int64_t target = now_ns(clock) + 30 * NS_PER_MS;
	struct itimerspec its = its_ns(target, 0);
	uint64_t ticks = 0;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL), 0);
	ck_assert_int_eq(read_ticks(fd, &ticks), 0);
	ck_assert_uint_eq(ticks, 1);
	ck_assert_int_ge(now_ns(clock), target);
	ck_assert_int_lt(now_ns(clock), target + LATE_NS);
	close(fd);
}

START_TEST(relative_timer_expires_after_its_value)
{
	check_relative_one_shot(CLOCK_MONOTONIC, 30 * NS_PER_MS);
	check_relative_one_shot(CLOCK_REALTIME, 30 * NS_PER_MS);
}
END_TEST

START_TEST(absolute_realtime_timer_expires_at_the_given_time)
{
	check_absolute_one_shot(CLOCK_REALTIME);
}
END_TEST

START_TEST(absolute_monotonic_timer_expires_at_the_given_time)
{
	check_absolute_one_shot(CLOCK_MONOTONIC);
}
END_TEST

START_TEST(boottime_timer_expires_relative_and_absolute)
{
	check_relative_one_shot(CLOCK_BOOTTIME, 20 * NS_PER_MS);
	check_absolute_one_shot(CLOCK_BOOTTIME);
}
END_TEST

START_TEST(absolute_time_in_the_past_expires_at_once)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	struct itimerspec its = its_ns(1, 0); /* 1 ns after boot */
	uint64_t ticks = 0;
	int64_t start = now_ns(CLOCK_MONOTONIC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL), 0);
	ck_assert_int_eq(read_ticks(fd, &ticks), 0);
	ck_assert_uint_eq(ticks, 1);
	ck_assert_int_lt(now_ns(CLOCK_MONOTONIC) - start, LATE_NS);
	close(fd);
}
END_TEST

START_TEST(zero_value_disarms_an_armed_timer)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	struct itimerspec arm = its_ns(20 * NS_PER_MS, 10 * NS_PER_MS);
	struct itimerspec zero = its_ns(0, 0), cur;
	uint64_t ticks;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(timerfd_settime(fd, 0, &arm, NULL), 0);
	ck_assert_int_eq(timerfd_settime(fd, 0, &zero, NULL), 0);
	sleep_ns(60 * NS_PER_MS);
	ck_assert_int_eq(read_ticks(fd, &ticks), -EAGAIN);
	ck_assert_int_eq(timerfd_gettime(fd, &cur), 0);
	ck_assert_int_eq(ts_ns(&cur.it_value), 0);
	close(fd);
}
END_TEST

START_TEST(settime_discards_pending_expirations)
{
	int fd = expired_timer(CLOCK_MONOTONIC, TFD_NONBLOCK);
	struct itimerspec later = its_ns(10 * NS_PER_S, 0);
	uint64_t ticks;

	ck_assert_int_eq(timerfd_settime(fd, 0, &later, NULL), 0);
	ck_assert_int_eq(read_ticks(fd, &ticks), -EAGAIN);
	close(fd);
}
END_TEST

START_TEST(old_value_returns_the_previous_setting)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	struct itimerspec first = its_ns(10 * NS_PER_S, 2 * NS_PER_S);
	struct itimerspec second = its_ns(20 * NS_PER_S, 0), old;

	int64_t t0, t1;

	ck_assert_int_ge(fd, 0);
	t0 = now_ns(CLOCK_MONOTONIC);
	ck_assert_int_eq(timerfd_settime(fd, 0, &first, &old), 0);
	/* A never-armed timer's old value is all zero. */
	ck_assert_int_eq(ts_ns(&old.it_value), 0);
	ck_assert_int_eq(ts_ns(&old.it_interval), 0);
	ck_assert_int_eq(timerfd_settime(fd, 0, &second, &old), 0);
	t1 = now_ns(CLOCK_MONOTONIC);
	ck_assert_int_eq(ts_ns(&old.it_interval), 2 * NS_PER_S);
	/* Less only by the time that passed between the settings, however slow the machine. */
	ck_assert_int_ge(ts_ns(&old.it_value), 10 * NS_PER_S - (t1 - t0));
	ck_assert_int_le(ts_ns(&old.it_value), 10 * NS_PER_S);
	close(fd);
}
END_TEST

START_TEST(old_value_of_an_expired_periodic_timer_is_its_next_expiry)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	struct itimerspec periodic = its_ns(10 * NS_PER_MS, 100 * NS_PER_MS);
	struct itimerspec later = its_ns(10 * NS_PER_S, 0), old;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(timerfd_settime(fd, 0, &periodic, NULL), 0);
	sleep_ns(35 * NS_PER_MS);
	ck_assert_int_eq(timerfd_settime(fd, 0, &later, &old), 0);
	/* The kernel brings the timer forward first: never negative, at most one interval. */
	ck_assert_int_eq(ts_ns(&old.it_interval), 100 * NS_PER_MS);
	ck_assert_int_gt(ts_ns(&old.it_value), 0);
	ck_assert_int_le(ts_ns(&old.it_value), 100 * NS_PER_MS);
	close(fd);
}
END_TEST

START_TEST(old_value_of_an_expired_one_shot_is_zero)
{
	int fd = expired_timer(CLOCK_MONOTONIC, 0);
	struct itimerspec later = its_ns(10 * NS_PER_S, 0), old;

	ck_assert_int_eq(timerfd_settime(fd, 0, &later, &old), 0);
	ck_assert_int_eq(ts_ns(&old.it_value), 0);
	ck_assert_int_eq(ts_ns(&old.it_interval), 0);
	close(fd);
}
END_TEST

START_TEST(cancel_on_set_is_accepted_with_absolute_realtime)
{
	int fd = timerfd_create(CLOCK_REALTIME, 0);
	struct itimerspec its = its_ns(now_ns(CLOCK_REALTIME) + 10 * NS_PER_S, 0), cur;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET,
					 &its, NULL), 0);
	ck_assert_int_eq(timerfd_gettime(fd, &cur), 0);
	ck_assert_int_gt(ts_ns(&cur.it_value), 0);
	close(fd);
}
END_TEST

/*
 * A realtime timer rearmed between relative and absolute settings, quickly: each old value
 * is the previous setting's, and only the last setting fires, once.  (A relative
 * CLOCK_REALTIME arming runs on the monotonic clock, an absolute one on the realtime
 * clock: the emulation's server must follow a timer from one queue to the other.)
 */
START_TEST(a_realtime_timer_rearmed_between_relative_and_absolute_fires_once_for_its_last_setting)
{
	int fd = timerfd_create(CLOCK_REALTIME, 0);
	struct itimerspec old;
	uint64_t ticks = 0;
	/* Each old value is the setting before it, less no more than the time since it was made. */
	int64_t t0, set_abs = 0;

	ck_assert_int_ge(fd, 0);
	for (int round = 0; round < 50; round++) {
		struct itimerspec rel = its_ns(10 * NS_PER_S + round * NS_PER_MS, 0), abs;
		int64_t set_rel = now_ns(CLOCK_MONOTONIC);

		ck_assert_int_eq(timerfd_settime(fd, 0, &rel, &old), 0);
		if (round > 0) /* the absolute setting before it: 20 s away when made */
			ck_assert_int_ge(ts_ns(&old.it_value),
					 20 * NS_PER_S - (now_ns(CLOCK_MONOTONIC) - set_abs));
		set_abs = now_ns(CLOCK_MONOTONIC);
		abs = its_ns(now_ns(CLOCK_REALTIME) + 20 * NS_PER_S, 0);
		ck_assert_int_eq(timerfd_settime(fd, TFD_TIMER_ABSTIME, &abs, &old), 0);
		ck_assert_int_ge(ts_ns(&old.it_value), ts_ns(&rel.it_value) - (now_ns(CLOCK_MONOTONIC) - set_rel));
		ck_assert_int_le(ts_ns(&old.it_value), ts_ns(&rel.it_value));
	}
	t0 = now_ns(CLOCK_MONOTONIC);
	{
		struct itimerspec last = its_ns(100 * NS_PER_MS, 0);

		ck_assert_int_eq(timerfd_settime(fd, 0, &last, &old), 0);
	}
	ck_assert_int_ge(ts_ns(&old.it_value), 20 * NS_PER_S - (now_ns(CLOCK_MONOTONIC) - set_abs));
	ck_assert_int_eq(read_ticks(fd, &ticks), 0);
	ck_assert_uint_eq(ticks, 1);
	ck_assert_int_ge(now_ns(CLOCK_MONOTONIC) - t0, 100 * NS_PER_MS);
	/* Nothing more: the earlier settings were all replaced. */
	ck_assert_int_eq(set_nonblock(fd), 0);
	sleep_ns(200 * NS_PER_MS);
	ck_assert_int_eq(read_ticks(fd, &ticks), -EAGAIN);
	close(fd);
}
END_TEST

TCase *
tcase_arming(void)
{
	TCase *tc = tcase_create("arming");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, relative_timer_expires_after_its_value);
	tcase_add_test(tc, absolute_realtime_timer_expires_at_the_given_time);
	tcase_add_test(tc, absolute_monotonic_timer_expires_at_the_given_time);
	tcase_add_test(tc, boottime_timer_expires_relative_and_absolute);
	tcase_add_test(tc, absolute_time_in_the_past_expires_at_once);
	tcase_add_test(tc, zero_value_disarms_an_armed_timer);
	tcase_add_test(tc, settime_discards_pending_expirations);
	tcase_add_test(tc, old_value_returns_the_previous_setting);
	tcase_add_test(tc, old_value_of_an_expired_periodic_timer_is_its_next_expiry);
	tcase_add_test(tc, old_value_of_an_expired_one_shot_is_zero);
	tcase_add_test(tc, cancel_on_set_is_accepted_with_absolute_realtime);
	tcase_add_test(tc, a_realtime_timer_rearmed_between_relative_and_absolute_fires_once_for_its_last_setting);
	return tc;
}
