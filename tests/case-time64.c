/* SPDX-License-Identifier: MIT */
/* Test cases: absolute times as late as this build's time_t reaches, kept exactly (y2038). */
#include "config.h"

#include <stdint.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "helpers.h"
#include "suite.h"

/*
 * 2^33 s (year 2242) where time_t is 64-bit — past 2038, within the
 * kernel's range — and the last 32-bit second where it is not.
 */
#define LATEST_SECOND ((time_t)(sizeof(time_t) >= 8 ? (int64_t)1 << 33 : INT32_MAX))
/* An interval that needs more than 32 bits where time_t has them. */
#define LONG_INTERVAL ((time_t)(sizeof(time_t) >= 8 ? ((int64_t)1 << 32) + 5 : INT32_MAX - 1))

START_TEST(latest_representable_absolute_time_reads_back_exactly)
{
	int fd = timerfd_create(CLOCK_REALTIME, 0);
	struct itimerspec its = { .it_value = { LATEST_SECOND, 7 },
				  .it_interval = { LONG_INTERVAL, 999999999 } };
	struct itimerspec cur, old, later = its_ns(NS_PER_S, 0);
	int64_t now;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL), 0);
	now = now_ns(CLOCK_REALTIME) / NS_PER_S;
	ck_assert_int_eq(timerfd_gettime(fd, &cur), 0);
	/* Remaining time, to the second (the clock moves while we look). */
	ck_assert_int_le((int64_t)cur.it_value.tv_sec, (int64_t)LATEST_SECOND - now + 1);
	ck_assert_int_ge((int64_t)cur.it_value.tv_sec, (int64_t)LATEST_SECOND - now - 5);
	ck_assert_int_eq((int64_t)cur.it_interval.tv_sec, (int64_t)LONG_INTERVAL);
	ck_assert_int_eq(cur.it_interval.tv_nsec, 999999999);
	ck_assert_int_eq(timerfd_settime(fd, 0, &later, &old), 0);
	ck_assert_int_le((int64_t)old.it_value.tv_sec, (int64_t)cur.it_value.tv_sec);
	ck_assert_int_ge((int64_t)old.it_value.tv_sec, (int64_t)cur.it_value.tv_sec - 5);
	ck_assert_int_eq((int64_t)old.it_interval.tv_sec, (int64_t)LONG_INTERVAL);
	ck_assert_int_eq(old.it_interval.tv_nsec, 999999999);
	close(fd);
}
END_TEST

START_TEST(relative_value_beyond_2038_is_kept)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	struct itimerspec its = { .it_value = { LONG_INTERVAL, 0 } }, cur;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(timerfd_settime(fd, 0, &its, NULL), 0);
	ck_assert_int_eq(timerfd_gettime(fd, &cur), 0);
	ck_assert_int_le((int64_t)cur.it_value.tv_sec, (int64_t)LONG_INTERVAL);
	ck_assert_int_ge((int64_t)cur.it_value.tv_sec, (int64_t)LONG_INTERVAL - 5);
	close(fd);
}
END_TEST

TCase *
tcase_time64(void)
{
	TCase *tc = tcase_create("time64");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, latest_representable_absolute_time_reads_back_exactly);
	tcase_add_test(tc, relative_value_beyond_2038_is_kept);
	return tc;
}
