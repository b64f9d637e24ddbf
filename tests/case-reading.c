/* SPDX-License-Identifier: MIT */
/* Test cases: read(), poll() and write() on a timer descriptor. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "helpers.h"
#include "suite.h"

START_TEST(poll_reports_pollin_only_after_expiry)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	/* Long enough that even a slow emulator cannot reach the expiry between two lines. */
	struct itimerspec its = its_ns(200 * NS_PER_MS, 0);
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int64_t start;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(poll(&pfd, 1, 0), 0);
	start = now_ns(CLOCK_MONOTONIC);
	ck_assert_int_eq(timerfd_settime(fd, 0, &its, NULL), 0);
	{
		int ready = poll(&pfd, 1, 0);

		/* Not yet, unless the machine was so slow that the expiry came meanwhile. */
		if (now_ns(CLOCK_MONOTONIC) - start < 200 * NS_PER_MS)
			ck_assert_int_eq(ready, 0);
	}
	ck_assert_int_eq(poll(&pfd, 1, scaled_ms(10000)), 1);
	ck_assert_int_eq(pfd.revents, POLLIN);
	ck_assert_int_ge(now_ns(CLOCK_MONOTONIC) - start, 200 * NS_PER_MS);
	close(fd);
}
END_TEST

START_TEST(poll_stops_reporting_pollin_after_read)
{
	int fd = expired_timer(CLOCK_MONOTONIC, 0);
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t ticks;

	ck_assert_int_eq(poll(&pfd, 1, 0), 1);
	ck_assert_int_eq(read_ticks(fd, &ticks), 0);
	ck_assert_int_eq(poll(&pfd, 1, 0), 0);
	close(fd);
}
END_TEST

START_TEST(nonblocking_read_without_expiry_gives_eagain)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	struct itimerspec its = its_ns(10 * NS_PER_S, 0);
	uint64_t ticks;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(read_ticks(fd, &ticks), -EAGAIN);
	ck_assert_int_eq(timerfd_settime(fd, 0, &its, NULL), 0);
	ck_assert_int_eq(read_ticks(fd, &ticks), -EAGAIN);
	close(fd);
}
END_TEST

START_TEST(blocking_read_waits_for_expiry)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	struct itimerspec its = its_ns(80 * NS_PER_MS, 0);
	uint64_t ticks = 0;
	int64_t start;

	ck_assert_int_ge(fd, 0);
	start = now_ns(CLOCK_MONOTONIC);
	ck_assert_int_eq(timerfd_settime(fd, 0, &its, NULL), 0);
	ck_assert_int_eq(read_ticks(fd, &ticks), 0);
	ck_assert_int_ge(now_ns(CLOCK_MONOTONIC) - start, 80 * NS_PER_MS);
	ck_assert_uint_eq(ticks, 1);
	close(fd);
}
END_TEST

START_TEST(read_with_buffer_under_8_bytes_gives_einval)
{
	int fd = expired_timer(CLOCK_MONOTONIC, TFD_NONBLOCK);
	unsigned char buf[16];
	uint64_t ticks;

	/* An emulated timer is a pipe, which gives what fits (libtimerfd(7), BUGS). */
	if (timer_is_emulated(fd)) {
		ck_assert_int_eq(read(fd, buf, 7), 7);
		close(fd);
		return;
	}
	for (size_t n = 0; n < 8; n++) {
		errno = 0;
		ck_assert_int_eq(read(fd, buf, n), -1);
		ck_assert_int_eq(errno, EINVAL);
	}
	/* The failed reads did not consume the expiration. */
	ck_assert_int_eq(read(fd, buf, sizeof(buf)), 8);
	memcpy(&ticks, buf, sizeof(ticks));
	ck_assert_uint_eq(ticks, 1);
	close(fd);
}
END_TEST

TCase *
tcase_reading(void)
{
	TCase *tc = tcase_create("reading");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, poll_reports_pollin_only_after_expiry);
	tcase_add_test(tc, poll_stops_reporting_pollin_after_read);
	tcase_add_test(tc, nonblocking_read_without_expiry_gives_eagain);
	tcase_add_test(tc, blocking_read_waits_for_expiry);
	tcase_add_test(tc, read_with_buffer_under_8_bytes_gives_einval);
	return tc;
}
