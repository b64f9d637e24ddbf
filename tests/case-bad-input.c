/* SPDX-License-Identifier: MIT */
/* Test cases: every bad input of tests/bad-input-table.c gives the kernel's errno, and no crash. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "bad-input-table.h"
#include "helpers.h"
#include "suite.h"

/* Pages the process may not touch (PROT_NONE) and may only read (PROT_READ). */
static void *no_access_page, *read_only_page;

static void
map_pages(void)
{
	size_t size = (size_t)sysconf(_SC_PAGESIZE);

	no_access_page = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	read_only_page = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(no_access_page, MAP_FAILED);
	ck_assert_ptr_ne(read_only_page, MAP_FAILED);
}

static void
unmap_pages(void)
{
	size_t size = (size_t)sysconf(_SC_PAGESIZE);

	munmap(no_access_page, size);
	munmap(read_only_page, size);
}

/* The descriptor of @kind; *@other gets a second one to close with it (a pipe's), or -1. */
static int
open_fd(enum bad_fd kind, int *other)
{
	int p[2];

	*other = -1;
	switch (kind) {
	case FD_TIMER:
		return timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	case FD_REALTIME_TIMER:
		return timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK);
	case FD_EXPIRED_TIMER:
		return expired_timer(CLOCK_MONOTONIC, TFD_NONBLOCK);
	case FD_CLOSED:
		return closed_fd();
	case FD_MINUS_ONE:
		return -1;
	case FD_INT_MAX:
		return INT_MAX;
	case FD_DEV_NULL:
		return open("/dev/null", O_RDWR);
	case FD_PIPE:
		ck_assert_int_eq(pipe(p), 0);
		*other = p[1];
		return p[0];
	case FD_EVENTFD:
		return eventfd(0, EFD_NONBLOCK);
	}
	return -1;
}

static bool
fd_is_owned(enum bad_fd kind)
{
	return kind != FD_CLOSED && kind != FD_MINUS_ONE && kind != FD_INT_MAX;
}

/* @kind as a pointer; PTR_OK is @ok. */
static void *
pointer(enum bad_ptr kind, void *ok)
{
	switch (kind) {
	case PTR_OK:
		return ok;
	case PTR_NULL:
		return NULL;
	case PTR_NO_ACCESS:
		return no_access_page;
	case PTR_READ_ONLY:
		return read_only_page;
	}
	return ok;
}



/* The read-only page holds a valid one-second value, for the row "read-only new value". */
static void
fill_read_only_page(void)
{
	struct itimerspec one_s = its_ns(NS_PER_S, 0);
	size_t size = (size_t)sysconf(_SC_PAGESIZE);

	ck_assert_int_eq(mprotect(read_only_page, size, PROT_READ | PROT_WRITE), 0);
	memcpy(read_only_page, &one_s, sizeof(one_s));
	ck_assert_int_eq(mprotect(read_only_page, size, PROT_READ), 0);
}

/* Makes the call of row @r; its result, with errno set when it is -1. */
static long
bad_input_call(const struct bad_input *r, int fd)
{
	struct itimerspec value = r->value, old, cur;
	char buf[64] = { 0 };

	switch (r->op) {
	case BAD_CREATE:
		return timerfd_create(r->clock, r->flags);
	case BAD_SETTIME:
		return timerfd_settime(fd, r->flags, pointer(r->ptr, &value), pointer(r->old, &old));
	case BAD_GETTIME:
		return timerfd_gettime(fd, pointer(r->ptr, &cur));
	case BAD_READ:
		return read(fd, pointer(r->ptr, buf), r->len);
	case BAD_WRITE:
		return write(fd, pointer(r->ptr, buf), r->len);
	}
	return 0;
}

/*
 * Whether this platform's read() checks its buffer before it looks for data. Linux's
 * pipe_read() and timerfd_read() answer EAGAIN when nothing is there, before they copy
 * anything; qemu-user and user-mode Linux emulators translate the buffer first and answer
 * EFAULT. Probed on a pipe, no timer involved.
 */
static bool
read_checks_buffer_first(void)
{
	void *volatile none = NULL; /* not seen as NULL by the compiler's checks */
	int p[2];
	bool first;

	ck_assert_int_eq(pipe2(p, O_NONBLOCK), 0);
	errno = 0;
	first = read(p[0], none, 8) == -1 && errno == EFAULT;
	close(p[0]);
	close(p[1]);
	return first;
}

/* Runs row @r and checks its answer; false, with the reason appended to @why, if it differs. */
static bool
check_row(const struct bad_input *r, char *why, size_t size)
{
	int other = -1, fd = r->op == BAD_CREATE ? -1 : open_fd(r->fd, &other);
	int want = r->err, got;
	long ret;

	/* The basic-ABI environment has no eventfd: that row cannot be made there. */
	if (r->fd == FD_EVENTFD && fd < 0 && errno == ENOSYS) {
		fprintf(stderr, "\"%s\" not run: eventfd(2) answers ENOSYS here\n", r->what);
		return true;
	}
	if (r->op != BAD_CREATE && fd_is_owned(r->fd))
		ck_assert_msg(fd >= 0, "%s: fixture: %s", r->what, strerror(errno));
	if (r->emulation_differs && timer_is_emulated(fd))
		want = r->emulation_err;
	/* qemu-user translates every read() but, of settime/gettime, only the kernel's. */
	if (r->qemu_differs && under_qemu() &&
	    !(timer_is_emulated(fd) && (r->op == BAD_SETTIME || r->op == BAD_GETTIME))) {
		want = r->qemu_err;
		fprintf(stderr, "under qemu, \"%s\" wants %s: %s\n", r->what, strerror(want),
			r->qemu_differs);
	}
	if (r->op == BAD_READ && r->ptr == PTR_NULL && want == EAGAIN && read_checks_buffer_first()) {
		want = EFAULT;
		fprintf(stderr, "\"%s\" wants EFAULT: this platform's read() checks its buffer "
				"before it looks for data (a NULL read of an empty pipe gives EFAULT)\n",
			r->what);
	}
	errno = 0;
	ret = bad_input_call(r, fd);
	got = ret == -1 ? errno : 0;
	if (r->op == BAD_CREATE && ret >= 0)
		close((int)ret);
	if (r->op != BAD_CREATE && fd_is_owned(r->fd)) {
		close(fd);
		if (other >= 0)
			close(other);
	}
	if (got == want && (ret == -1) == (want != 0))
		return true;
	snprintf(why + strlen(why), size - strlen(why), "; \"%s\": got %ld (%s), want %s",
		 r->what, ret, got ? strerror(got) : "no error", want ? strerror(want) : "success");
	return false;
}

START_TEST(every_bad_input_gives_the_kernels_errno)
{
	char why[1024] = "";
	size_t failed = 0;

	map_pages();
	fill_read_only_page();
	for (size_t i = 0; i < n_bad_inputs; i++)
		failed += !check_row(&bad_inputs[i], why, sizeof(why));
	unmap_pages();
	ck_assert_msg(failed == 0, "%zu of %zu bad inputs got another answer than the kernel's%s",
		      failed, n_bad_inputs, why);
}
END_TEST

START_TEST(rejected_settime_leaves_the_timer_as_it_was)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	struct itimerspec armed = its_ns(100 * NS_PER_S, 3 * NS_PER_S), cur;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(timerfd_settime(fd, 0, &armed, NULL), 0);
	for (size_t i = 0; i < n_bad_inputs; i++) {
		const struct bad_input *r = &bad_inputs[i];

		if (r->op == BAD_SETTIME && r->err == EINVAL && r->fd == FD_TIMER)
			ck_assert_fails_with(timerfd_settime(fd, r->flags, &r->value, NULL), EINVAL);
	}
	ck_assert_int_eq(timerfd_gettime(fd, &cur), 0);
	ck_assert_int_gt(ts_ns(&cur.it_value), 90 * NS_PER_S);
	ck_assert_int_eq(ts_ns(&cur.it_interval), 3 * NS_PER_S);
	close(fd);
}
END_TEST

START_TEST(unwritable_old_value_gives_efault_after_the_timer_changed)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	struct itimerspec its = its_ns(10 * NS_PER_S, NS_PER_S), cur;

	map_pages();
	ck_assert_int_ge(fd, 0);
	ck_assert_fails_with(timerfd_settime(fd, 0, &its, read_only_page), EFAULT);
	ck_assert_int_eq(timerfd_gettime(fd, &cur), 0);
	ck_assert_int_gt(ts_ns(&cur.it_value), 0);
	ck_assert_int_eq(ts_ns(&cur.it_interval), NS_PER_S);
	close(fd);
	unmap_pages();
}
END_TEST

/*
 * Seconds that overflow when added to now: the kernel saturates at KTIME_MAX (2^63 - 1 ns,
 * some 292 years of uptime) instead of wrapping, and reads the interval back saturated too.
 */
START_TEST(huge_values_saturate_instead_of_wrapping)
{
	static const int flags[] = { 0, TFD_TIMER_ABSTIME };
	const time_t max = (time_t)(((uint64_t)1 << (sizeof(time_t) * 8 - 1)) - 1);
	const int64_t ktime_max_sec = INT64_MAX / NS_PER_S, ktime_max_nsec = INT64_MAX % NS_PER_S;
	const bool saturates = (int64_t)max >= ktime_max_sec;
	struct itimerspec huge = { .it_value = { max, 999999999 }, .it_interval = { max, 0 } }, cur;
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	uint64_t ticks;
	int64_t cpu, wall;

	ck_assert_int_ge(fd, 0);
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		ck_assert_int_eq(timerfd_settime(fd, flags[i], &huge, NULL), 0);
		ck_assert_int_eq(timerfd_gettime(fd, &cur), 0);
		/* Decades away (a 32-bit time_t reaches 2038 only), as a valid timespec. */
		ck_assert_int_gt(cur.it_value.tv_sec, 10LL * 365 * 86400);
		ck_assert_int_ge(cur.it_value.tv_nsec, 0);
		ck_assert_int_lt(cur.it_value.tv_nsec, NS_PER_S);
		ck_assert_int_eq(cur.it_interval.tv_sec, saturates ? ktime_max_sec : (int64_t)max);
		ck_assert_int_eq(cur.it_interval.tv_nsec, saturates ? ktime_max_nsec : 0);
		ck_assert_int_eq(read_ticks(fd, &ticks), -EAGAIN);
	}
	/* Nothing spins waiting for it: the process stays idle while the timer is pending. */
	wall = now_ns(CLOCK_MONOTONIC);
	cpu = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	sleep_ns(300 * NS_PER_MS);
	cpu = now_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu;
	wall = now_ns(CLOCK_MONOTONIC) - wall;
	/* A spin takes what the scheduler gives; an idle process, next to nothing of it. */
	ck_assert_msg(cpu < wall / 2, "%lld ms of CPU in %lld ms with a huge timer armed",
		      (long long)(cpu / NS_PER_MS), (long long)(wall / NS_PER_MS));
	close(fd);
}
END_TEST

TCase *
tcase_bad_input(void)
{
	TCase *tc = tcase_create("bad_input");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, every_bad_input_gives_the_kernels_errno);
	tcase_add_test(tc, rejected_settime_leaves_the_timer_as_it_was);
	tcase_add_test(tc, unwritable_old_value_gives_efault_after_the_timer_changed);
	tcase_add_test(tc, huge_values_saturate_instead_of_wrapping);
	return tc;
}
