/* SPDX-License-Identifier: MIT */
/* Test cases: timerfd_create() clocks and flags, and the flag values of the header. */
#include "config.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "helpers.h"
#include "suite.h"

START_TEST(header_flags_equal_the_kernel_values)
{
	ck_assert_int_eq(TFD_CLOEXEC, O_CLOEXEC);
	ck_assert_int_eq(TFD_NONBLOCK, O_NONBLOCK);
	ck_assert_int_eq(TFD_TIMER_ABSTIME, 1);
	ck_assert_int_eq(TFD_TIMER_CANCEL_ON_SET, 2);
#ifdef TFD_IOC_SET_TICKS /* absent from older C libraries' headers (a libc-only build) */
	ck_assert_uint_eq(TFD_IOC_SET_TICKS, _IOW('T', 0, uint64_t));
#endif
}
END_TEST

START_TEST(cloexec_flag_sets_fd_cloexec)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	ck_assert_int_eq(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	close(fd);
}
END_TEST

START_TEST(nonblock_flag_sets_o_nonblock)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fcntl(fd, F_GETFL) & O_NONBLOCK, O_NONBLOCK);
	ck_assert_int_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
	close(fd);
}
END_TEST

START_TEST(no_flags_leave_cloexec_and_nonblock_clear)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
	ck_assert_int_eq(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	/* The kernel opens timerfds read-write; an emulated timer is a pipe's read end. */
	ck_assert_int_eq(fcntl(fd, F_GETFL) & O_ACCMODE, timer_is_emulated(fd) ? O_RDONLY : O_RDWR);
	close(fd);
}
END_TEST

START_TEST(both_flags_together_set_both)
{
	int fd = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC | TFD_NONBLOCK);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	ck_assert_int_eq(fcntl(fd, F_GETFL) & O_NONBLOCK, O_NONBLOCK);
	close(fd);
}
END_TEST

START_TEST(each_supported_clock_creates_a_timer)
{
	static const clockid_t clocks[] = { CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_BOOTTIME };

	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		int fd = timerfd_create(clocks[i], 0);

		ck_assert_msg(fd >= 0, "clock %d: %m", (int)clocks[i]);
		close(fd);
	}
}
END_TEST

TCase *
tcase_create_flags(void)
{
	TCase *tc = tcase_create("create");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, header_flags_equal_the_kernel_values);
	tcase_add_test(tc, cloexec_flag_sets_fd_cloexec);
	tcase_add_test(tc, nonblock_flag_sets_o_nonblock);
	tcase_add_test(tc, no_flags_leave_cloexec_and_nonblock_clear);
	tcase_add_test(tc, both_flags_together_set_both);
	tcase_add_test(tc, each_supported_clock_creates_a_timer);
	return tc;
}
