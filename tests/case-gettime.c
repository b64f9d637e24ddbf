/* SPDX-License-Identifier: MIT */
/* Test cases: timerfd_gettime() on never-armed, running, expired and periodic timers. */
#include "config.h"

#include <stdint.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "helpers.h"
#include "suite.h"

START_TEST(never_armed_timer_reads_zero)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	struct itimerspec cur = its_ns(123, 456);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(timerfd_gettime(fd, &cur), 0);
	ck_assert_int_eq(cur.it_value.tv_sec, 0);
	ck_assert_int_eq(cur.it_value.tv_nsec, 0);
	ck_assert_int_eq(cur.it_interval.tv_sec, 0);
	ck_assert_int_eq(cur.it_interval.tv_nsec, 0);
	close(fd);
}
END_TEST

START_TEST(remaining_time_decreases_and_interval_is_echoed)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	struct itimerspec its = its_ns(10 * NS_PER_S, 3 * NS_PER_S + 250), first, second;
	int64_t armed;

	ck_assert_int_ge(fd, 0);
	armed = now_ns(CLOCK_MONOTONIC);
	ck_assert_int_eq(timerfd_settime(fd, 0, &its, NULL), 0);
	ck_assert_int_eq(timerfd_gettime(fd, &first), 0);
	/* Less than the value by no more than the time since the arming, however slow the machine. */
	ck_assert_int_ge(ts_ns(&first.it_value), 10 * NS_PER_S - (now_ns(CLOCK_MONOTONIC) - armed));
	sleep_ns(20 * NS_PER_MS);
	ck_assert_int_eq(timerfd_gettime(fd, &second), 0);
	ck_assert_int_le(ts_ns(&first.it_value), 10 * NS_PER_S);
	ck_assert_int_le(ts_ns(&second.it_value), ts_ns(&first.it_value) - 20 * NS_PER_MS);
	ck_assert_int_eq(second.it_interval.tv_sec, 3);
	ck_assert_int_eq(second.it_interval.tv_nsec, 250);
	close(fd);
}
END_TEST

START_TEST(absolute_timer_reads_as_time_remaining)
{
	int fd = timerfd_create(CLOCK_REALTIME, 0);
	int64_t armed = now_ns(CLOCK_MONOTONIC);
	struct itimerspec its = its_ns(now_ns(CLOCK_REALTIME) + 10 * NS_PER_S, 0), cur;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL), 0);
	ck_assert_int_eq(timerfd_gettime(fd, &cur), 0);
	ck_assert_int_le(ts_ns(&cur.it_value), 10 * NS_PER_S);
	ck_assert_int_ge(ts_ns(&cur.it_value), 10 * NS_PER_S - (now_ns(CLOCK_MONOTONIC) - armed));
	close(fd);
}
END_TEST

START_TEST(expired_one_shot_reads_zero)
{
	int fd = expired_timer(CLOCK_MONOTONIC, 0);
	struct itimerspec cur;

	ck_assert_int_eq(timerfd_gettime(fd, &cur), 0);
	ck_assert_int_eq(ts_ns(&cur.it_value), 0);
	ck_assert_int_eq(ts_ns(&cur.it_interval), 0);
	close(fd);
}
END_TEST

START_TEST(expired_periodic_timer_reads_next_expiry_and_keeps_missed_periods)
{
	const int64_t value = 10 * NS_PER_MS, interval = 20 * NS_PER_MS;
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	struct itimerspec its = its_ns(value, interval), cur;
	uint64_t ticks = 0;
	int64_t t1, t2;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(timerfd_settime(fd, 0, &its, NULL), 0);
	t1 = now_ns(CLOCK_MONOTONIC);
	sleep_ns(55 * NS_PER_MS);
	t2 = now_ns(CLOCK_MONOTONIC);
	ck_assert_int_eq(timerfd_gettime(fd, &cur), 0);
	ck_assert_int_gt(ts_ns(&cur.it_value), 0);
	ck_assert_int_le(ts_ns(&cur.it_value), interval);
	ck_assert_int_eq(ts_ns(&cur.it_interval), interval);
	/* gettime brought the timer forward; the periods it skipped are still counted. */
	ck_assert_int_eq(read_ticks(fd, &ticks), 0);
	ck_assert_uint_ge(ticks, (uint64_t)((t2 - t1 - value) / interval + 1));
	close(fd);
}
END_TEST

TCase *
tcase_gettime(void)
{
	TCase *tc = tcase_create("gettime");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, never_armed_timer_reads_zero);
	tcase_add_test(tc, remaining_time_decreases_and_interval_is_echoed);
	tcase_add_test(tc, absolute_timer_reads_as_time_remaining);
	tcase_add_test(tc, expired_one_shot_reads_zero);
	tcase_add_test(tc, expired_periodic_timer_reads_next_expiry_and_keeps_missed_periods);
	return tc;
}
