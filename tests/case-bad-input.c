/* SPDX-License-Identifier: MIT */
/* Test cases: every bad input gives the kernel's errno, in the kernel's order, and no crash. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "helpers.h"
#include "suite.h"

/* A page the process may not touch (@prot PROT_NONE) or only read (PROT_READ). */
static void *
page(int prot)
{
	void *p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	return p;
}

/* Values the kernel rejects: negative seconds, nanoseconds outside [0, 1e9). */
static const struct itimerspec bad_values[] = {
	{ .it_value = { 0, 1000000000 } },
	{ .it_value = { 1, -1 } },
	{ .it_value = { -1, 0 } },
	{ .it_value = { 1, LONG_MAX } },
	{ .it_value = { 1, 0 }, .it_interval = { 0, 1000000000 } },
	{ .it_value = { 1, 0 }, .it_interval = { 0, -1 } },
	{ .it_value = { 1, 0 }, .it_interval = { -1, 0 } },
	/* Checked even when the value disarms the timer. */
	{ .it_value = { 0, 0 }, .it_interval = { 0, 1000000000 } },
};
#define N_BAD_VALUES (sizeof(bad_values) / sizeof(bad_values[0]))

START_TEST(create_with_unknown_clock_gives_einval)
{
	static const clockid_t clocks[] = {
		-1, 12345, INT_MAX, CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID,
		CLOCK_MONOTONIC_RAW, CLOCK_REALTIME_COARSE, CLOCK_MONOTONIC_COARSE, CLOCK_TAI,
	};

	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++)
		ck_assert_fails_with(timerfd_create(clocks[i], 0), EINVAL);
}
END_TEST

START_TEST(create_with_unknown_flags_gives_einval)
{
	static const int flags[] = { 1, O_APPEND, O_RDWR, INT_MIN, TFD_CLOEXEC | O_EXCL };

	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		ck_assert_fails_with(timerfd_create(CLOCK_MONOTONIC, flags[i]), EINVAL);
}
END_TEST

START_TEST(settime_with_unknown_flags_gives_einval)
{
	static const int flags[] = { 4, 8, INT_MIN, TFD_TIMER_ABSTIME | 0x100 };
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	struct itimerspec its = its_ns(NS_PER_S, 0);

	ck_assert_int_ge(fd, 0);
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		ck_assert_fails_with(timerfd_settime(fd, flags[i], &its, NULL), EINVAL);
	close(fd);
}
END_TEST

START_TEST(settime_with_out_of_range_values_gives_einval)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	struct itimerspec cur;

	ck_assert_int_ge(fd, 0);
	for (size_t i = 0; i < N_BAD_VALUES; i++) {
		ck_assert_fails_with(timerfd_settime(fd, 0, &bad_values[i], NULL), EINVAL);
		ck_assert_fails_with(timerfd_settime(fd, TFD_TIMER_ABSTIME, &bad_values[i], NULL),
				     EINVAL);
	}
	/* Nothing was armed by the rejected calls. */
	ck_assert_int_eq(timerfd_gettime(fd, &cur), 0);
	ck_assert_int_eq(ts_ns(&cur.it_value), 0);
	close(fd);
}
END_TEST

START_TEST(bad_values_on_a_closed_fd_give_einval_not_ebadf)
{
	int fd = closed_fd();
	struct itimerspec good = its_ns(NS_PER_S, 0);

	for (size_t i = 0; i < N_BAD_VALUES; i++)
		ck_assert_fails_with(timerfd_settime(fd, 0, &bad_values[i], NULL), EINVAL);
	ck_assert_fails_with(timerfd_settime(fd, 4, &good, NULL), EINVAL);
}
END_TEST

START_TEST(closed_fd_gives_ebadf)
{
	struct itimerspec its = its_ns(NS_PER_S, 0), cur;
	int fd = closed_fd();

	ck_assert_fails_with(timerfd_settime(fd, 0, &its, NULL), EBADF);
	ck_assert_fails_with(timerfd_gettime(fd, &cur), EBADF);
	ck_assert_fails_with(timerfd_settime(-1, 0, &its, NULL), EBADF);
	ck_assert_fails_with(timerfd_gettime(-1, &cur), EBADF);
	ck_assert_fails_with(timerfd_gettime(INT_MAX, &cur), EBADF);
}
END_TEST

START_TEST(fd_that_is_not_a_timerfd_gives_einval)
{
	struct itimerspec its = its_ns(NS_PER_S, 0), cur;
	int pipefd[2];
	int null = open("/dev/null", O_RDWR);

	ck_assert_int_ge(null, 0);
	ck_assert_int_eq(pipe(pipefd), 0);
	ck_assert_fails_with(timerfd_settime(null, 0, &its, NULL), EINVAL);
	ck_assert_fails_with(timerfd_gettime(null, &cur), EINVAL);
	ck_assert_fails_with(timerfd_settime(pipefd[0], 0, &its, NULL), EINVAL);
	ck_assert_fails_with(timerfd_gettime(pipefd[1], &cur), EINVAL);
	close(null);
	close(pipefd[0]);
	close(pipefd[1]);
}
END_TEST

START_TEST(null_new_value_gives_efault)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);

	ck_assert_int_ge(fd, 0);
	ck_assert_fails_with(timerfd_settime(fd, 0, NULL, NULL), EFAULT);
	ck_assert_fails_with(timerfd_settime(fd, 0, page(PROT_NONE), NULL), EFAULT);
	/* The value is read before anything else is looked at. */
	ck_assert_fails_with(timerfd_settime(closed_fd(), 4, NULL, NULL), EFAULT);
	close(fd);
}
END_TEST

START_TEST(null_curr_value_gives_efault)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);

	ck_assert_int_ge(fd, 0);
	ck_assert_fails_with(timerfd_gettime(fd, NULL), EFAULT);
	ck_assert_fails_with(timerfd_gettime(fd, page(PROT_READ)), EFAULT);
	/* gettime looks the fd up first, so a closed one wins over the pointer. */
	ck_assert_fails_with(timerfd_gettime(closed_fd(), NULL), EBADF);
	close(fd);
}
END_TEST

START_TEST(unwritable_old_value_gives_efault_after_the_timer_changed)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	struct itimerspec its = its_ns(10 * NS_PER_S, NS_PER_S), cur;

	ck_assert_int_ge(fd, 0);
	ck_assert_fails_with(timerfd_settime(fd, 0, &its, page(PROT_READ)), EFAULT);
	ck_assert_int_eq(timerfd_gettime(fd, &cur), 0);
	ck_assert_int_gt(ts_ns(&cur.it_value), 0);
	ck_assert_int_eq(ts_ns(&cur.it_interval), NS_PER_S);
	close(fd);
}
END_TEST

TCase *
tcase_bad_input(void)
{
	TCase *tc = tcase_create("bad_input");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, create_with_unknown_clock_gives_einval);
	tcase_add_test(tc, create_with_unknown_flags_gives_einval);
	tcase_add_test(tc, settime_with_unknown_flags_gives_einval);
	tcase_add_test(tc, settime_with_out_of_range_values_gives_einval);
	tcase_add_test(tc, bad_values_on_a_closed_fd_give_einval_not_ebadf);
	tcase_add_test(tc, closed_fd_gives_ebadf);
	tcase_add_test(tc, fd_that_is_not_a_timerfd_gives_einval);
	tcase_add_test(tc, null_new_value_gives_efault);
	tcase_add_test(tc, null_curr_value_gives_efault);
	tcase_add_test(tc, unwritable_old_value_gives_efault_after_the_timer_changed);
	return tc;
}
