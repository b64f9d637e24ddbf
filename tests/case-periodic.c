/* SPDX-License-Identifier: MIT */
/* Test cases: one-shot then periodic timers and the u64 expiration count read() returns. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "helpers.h"
#include "suite.h"

START_TEST(one_shot_timer_expires_exactly_once)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	struct itimerspec its = its_ns(10 * NS_PER_MS, 0);
	uint64_t ticks = 0;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(timerfd_settime(fd, 0, &its, NULL), 0);
	sleep_ns(60 * NS_PER_MS);
	ck_assert_int_eq(read_ticks(fd, &ticks), 0);
	ck_assert_uint_eq(ticks, 1);
	ck_assert_int_eq(set_nonblock(fd), 0);
	ck_assert_int_eq(read_ticks(fd, &ticks), -EAGAIN);
	close(fd);
}
END_TEST

/*
 * The kernel counts every period that has passed, whether or not anyone was
 * reading.  With t0/t1 taken around settime and t2/t3 around read, the count
 * must lie between the periods surely passed (t2 - t1) and those possibly
 * passed (t3 - t0): exact bounds, however slow the machine.  An emulated
 * count is written by the timer server, which a loaded machine or qemu-user
 * may schedule late: the periods surely passed are counted from t2 less two
 * periods (scaled as Check's timeouts are) and four times the lateness of
 * this machine's own wake-ups, measured first (see libtimerfd(7)).
 */
START_TEST(periodic_timer_accumulates_expirations_before_one_read)
{
	const int64_t value = 10 * NS_PER_MS, interval = 10 * NS_PER_MS;
	int64_t machine = wakeup_lateness_ns(20);
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	struct itimerspec its = its_ns(value, interval);
	uint64_t ticks = 0;
	int64_t t0, t1, t2, t3, lag;

	ck_assert_int_ge(fd, 0);
	lag = timer_is_emulated(fd) ? scaled_ns(2 * interval) + 4 * machine : 0;
	t0 = now_ns(CLOCK_MONOTONIC);
	ck_assert_int_eq(timerfd_settime(fd, 0, &its, NULL), 0);
	t1 = now_ns(CLOCK_MONOTONIC);
	sleep_ns(105 * NS_PER_MS);
	t2 = now_ns(CLOCK_MONOTONIC);
	ck_assert_int_eq(read_ticks(fd, &ticks), 0);
	t3 = now_ns(CLOCK_MONOTONIC);
	ck_assert_int_ge((int64_t)ticks, (t2 - lag - t1 - value) / interval + 1);
	ck_assert_uint_le(ticks, (uint64_t)((t3 - t0 - value) / interval + 1));
	ck_assert_uint_ge(ticks, 1);
	close(fd);
}
END_TEST

START_TEST(periodic_timer_keeps_firing_after_each_read)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	struct itimerspec its = its_ns(5 * NS_PER_MS, 15 * NS_PER_MS);
	uint64_t ticks;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(timerfd_settime(fd, 0, &its, NULL), 0);
	for (int i = 0; i < 4; i++) {
		ticks = 0;
		ck_assert_int_eq(read_ticks(fd, &ticks), 0);
		ck_assert_uint_ge(ticks, 1);
	}
	close(fd);
}
END_TEST

START_TEST(read_resets_the_expiration_count)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	struct itimerspec its = its_ns(5 * NS_PER_MS, 10 * NS_PER_S);
	uint64_t ticks = 0;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(timerfd_settime(fd, 0, &its, NULL), 0);
	sleep_ns(30 * NS_PER_MS);
	/* Readable: at once on the kernel, when the server was scheduled on the emulation. */
	ck_assert(becomes_readable(fd, 5000));
	ck_assert_int_eq(read_ticks(fd, &ticks), 0);
	ck_assert_uint_eq(ticks, 1);
	ck_assert_int_eq(read_ticks(fd, &ticks), -EAGAIN);
	close(fd);
}
END_TEST

TCase *
tcase_periodic(void)
{
	TCase *tc = tcase_create("periodic");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, one_shot_timer_expires_exactly_once);
	tcase_add_test(tc, periodic_timer_accumulates_expirations_before_one_read);
	tcase_add_test(tc, periodic_timer_keeps_firing_after_each_read);
	tcase_add_test(tc, read_resets_the_expiration_count);
	return tc;
}
