/* SPDX-License-Identifier: MIT */
/*
 * Description: a timer's descriptor as real programs treat it: closed while in an epoll set,
 * counted by test harnesses, polled for writing, and the program's own descriptors closed
 * and reopened around it (close_range, daemon-style stdio).  The kernel is the reference.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>

#include "helpers.h"
#include "suite.h"

extern char **environ;

#ifndef TFD_IOC_SET_TICKS /* the C library's header, in the preload build of the suite */
#define TFD_IOC_SET_TICKS _IOW('T', 0, uint64_t)
#endif

static void
closed_timer_leaves_the_epoll_set(bool fired)
{
	int ep = epoll_create1(EPOLL_CLOEXEC);
	int fd = periodic_timer(NS_PER_MS, TFD_NONBLOCK);
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 42 }, got[4];

	ck_assert_int_ge(ep, 0);
	ck_assert_int_eq(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev), 0);
	if (fired)
		ck_assert_int_eq(epoll_wait(ep, got, 4, scaled_ms(5000)), 1);
	/* Closed without EPOLL_CTL_DEL, a common way to cancel a timeout. */
	close(fd);
	ck_assert_int_eq(epoll_wait(ep, got, 4, 50), 0);
	close(ep);
}

START_TEST(timer_closed_in_an_epoll_set_is_never_reported_again)
{
	closed_timer_leaves_the_epoll_set(false);
}
END_TEST

START_TEST(timer_that_fired_and_was_closed_unread_is_never_reported_again)
{
	closed_timer_leaves_the_epoll_set(true);
}
END_TEST

START_TEST(a_timer_counts_as_one_descriptor_until_closed)
{
	int before = open_fds();
	int fd = periodic_timer(NS_PER_MS, 0);

	ck_assert_int_eq(open_fds(), before + 1);
	close(fd);
	/* Right after close(), as a harness counts around each test. */
	ck_assert_int_eq(open_fds(), before);
}
END_TEST

START_TEST(poll_and_select_never_report_a_timer_writable)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT };
	struct timeval zero = { 0 };
	fd_set rd, wr;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(poll(&p, 1, 0), 0);
	close(fd);
	fd = expired_timer(CLOCK_MONOTONIC, TFD_NONBLOCK);
	p.fd = fd;
	ck_assert_int_eq(poll(&p, 1, 0), 1);
	ck_assert_int_eq(p.revents, POLLIN);
	FD_ZERO(&rd);
	FD_ZERO(&wr);
	FD_SET(fd, &rd);
	FD_SET(fd, &wr);
	ck_assert_int_eq(select(fd + 1, &rd, &wr, NULL, &zero), 1);
	ck_assert(FD_ISSET(fd, &rd));
	ck_assert(!FD_ISSET(fd, &wr));
	close(fd);
}
END_TEST

START_TEST(level_triggered_epollin_epollout_waits_for_the_expiry)
{
	int ep = epoll_create1(EPOLL_CLOEXEC);
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	struct itimerspec its = its_ns(30 * NS_PER_MS, 0);
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT }, got;
	int64_t t0 = now_ns(CLOCK_MONOTONIC);

	ck_assert_int_eq(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev), 0);
	ck_assert_int_eq(timerfd_settime(fd, 0, &its, NULL), 0);
	ck_assert_int_eq(epoll_wait(ep, &got, 1, scaled_ms(5000)), 1);
	ck_assert_uint_eq(got.events, EPOLLIN);
	ck_assert_int_ge(now_ns(CLOCK_MONOTONIC) - t0, 29 * NS_PER_MS);
	close(fd);
	close(ep);
}
END_TEST

/* A file of our own on @fd that must stay empty and open. */
static void
file_untouched(int fd)
{
	struct stat st;

	child_assert(fcntl(fd, F_GETFD) >= 0);
	child_assert(fstat(fd, &st) == 0 && st.st_size == 0);
}

static int
temp_file(void)
{
	char name[] = "/tmp/libtimerfd-test-XXXXXX";
	int fd = mkstemp(name);

	child_assert(fd >= 0);
	unlink(name);
	return fd;
}

/* A prefork worker: closes all it inherited (timers included) and opens its own files. */
static void
worker_closing_what_it_inherited(void)
{
	int timer = periodic_timer(NS_PER_MS, 0), files[8];
	struct itimerspec cur;

	(void)timer;
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	for (int i = 0; i < 8; i++)
		files[i] = temp_file();
	sleep_ns(50 * NS_PER_MS);
	for (int i = 0; i < 8; i++)
		file_untouched(files[i]);
	/* The old timer's number is one of the worker's files now: no timer. */
	child_assert(timerfd_gettime(files[0], &cur) == -1 && errno == EINVAL);
}

START_TEST(closing_every_inherited_descriptor_leaves_new_files_untouched)
{
	in_child(worker_closing_what_it_inherited);
}
END_TEST

/* A daemon-style start: stdin and stdout closed, a timer on 0, a log dup2()ed onto 1. */
static void
stdio_closed_then_a_log_on_stdout(void)
{
	int log, timer;
	uint64_t ticks = 0;

	close(0);
	close(1);
	timer = periodic_timer(NS_PER_MS, 0);
	child_assert(timer == 0);
	log = temp_file();
	if (log != 1) {
		child_assert(dup2(log, 1) == 1);
		close(log);
	}
	sleep_ns(30 * NS_PER_MS);
	file_untouched(1);
	child_assert(read_ticks(timer, &ticks) == 0 && ticks >= 1);
	close(timer);
	sleep_ns(10 * NS_PER_MS);
	file_untouched(1);
}

START_TEST(a_log_on_a_reused_stdio_number_is_never_written)
{
	in_child(stdio_closed_then_a_log_on_stdout);
}
END_TEST

/* Every descriptor closed while a timer is armed, new files opened: none is written to. */
static void
close_everything_then_open_files(void)
{
	int files[16];

	periodic_timer(NS_PER_MS, 0);
	periodic_timer(2 * NS_PER_MS, TFD_CLOEXEC);
	sleep_ns(5 * NS_PER_MS);
	for (int fd = 0; fd < 1024; fd++)
		close(fd);
	for (int i = 0; i < 16; i++)
		files[i] = temp_file();
	sleep_ns(50 * NS_PER_MS);
	for (int i = 0; i < 16; i++)
		file_untouched(files[i]);
	/* And the library still makes timers that work. */
	child_assert(read_ticks(periodic_timer(NS_PER_MS, 0), &(uint64_t){ 0 }) == 0);
}

START_TEST(closing_every_descriptor_with_timers_armed_leaves_new_files_untouched)
{
	in_child(close_everything_then_open_files);
}
END_TEST

/* How many descriptors a program started now with posix_spawn() finds open. */
static int
spawned_program_descriptors(void)
{
	/*
	 * Counted without /proc (the basic-ABI environment has none): each number the shell
	 * dups, below 64 (the suite's descriptors, and the timers made meanwhile, are far
	 * below; each number costs a fork, slow in an emulated CPU: make check-vm).
	 */
	char *argv[] = { "sh", "-c",
			 "n=0; fd=0; while [ $fd -lt 64 ]; do if (eval \": <&$fd\") 2>/dev/null; "
			 "then n=$((n+1)); fi; fd=$((fd+1)); done; exit $n",
			 NULL };
	pid_t pid;
	int status, err;

	err = posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ);
	/* Where clone(CLONE_VM | CLONE_VFORK) is refused (ENOSYS), as a program would: fork. */
	if (err == ENOSYS) {
		pid = fork();
		if (pid == 0) {
			execve("/bin/sh", argv, environ);
			_exit(127);
		}
		err = pid < 0 ? errno : 0;
	}
	ck_assert_int_eq(err, 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static int spawning;

static void *
make_cloexec_timers(void *arg)
{
	struct itimerspec its = its_ns(NS_PER_S, 0);

	(void)arg;
	while (__atomic_load_n(&spawning, __ATOMIC_RELAXED)) {
		int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);

		timerfd_settime(fd, 0, &its, NULL);
		close(fd);
	}
	return NULL;
}

START_TEST(cloexec_timers_made_meanwhile_never_reach_a_spawned_program)
{
	/*
	 * As many spawns as a third of the case's timeout holds, 8 at least, 40 at most: each
	 * forks 64 times, which a busy or emulated CPU makes slow.
	 */
	int64_t budget = scaled_ns(10 * NS_PER_S), start;
	int baseline, spawns = 0;
	pthread_t t;

	/* Before 2.6.27 nothing can make a timer and set FD_CLOEXEC at once (libtimerfd(7)). */
	if (getenv("TFD_TEST_NO_CREATE_FLAGS")) {
		case_skipped("cloexec_timers...: a kernel without create flags sets FD_CLOEXEC late (libtimerfd(7))");
		return;
	}
	start = now_ns(CLOCK_MONOTONIC);
	baseline = spawned_program_descriptors();
	/*
	 * Where one spawn alone takes a quarter of the budget (a third of the case's timeout),
	 * 9 do not fit in the timeout: a user-mode Linux emulator's forks timed it out.
	 */
	if ((now_ns(CLOCK_MONOTONIC) - start) * 4 > budget) {
		char why[200];

		snprintf(why, sizeof(why), "cloexec_timers...: one spawned program takes %lld ms "
			 "here: 8 do not fit in the case's time", (long long)((now_ns(CLOCK_MONOTONIC) - start) / NS_PER_MS));
		case_skipped(why);
		return;
	}
	__atomic_store_n(&spawning, 1, __ATOMIC_RELAXED);
	ck_assert_int_eq(pthread_create(&t, NULL, make_cloexec_timers, NULL), 0);
	start = now_ns(CLOCK_MONOTONIC);
	while (spawns < 40 && (spawns < 8 || now_ns(CLOCK_MONOTONIC) - start < budget)) {
		ck_assert_int_eq(spawned_program_descriptors(), baseline);
		spawns++;
	}
	__atomic_store_n(&spawning, 0, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	printf("cloexec_timers...: %d programs spawned in %lld ms\n", spawns,
	       (long long)((now_ns(CLOCK_MONOTONIC) - start) / NS_PER_MS));
	fflush(stdout);
}
END_TEST

START_TEST(write_to_a_timer_fails_and_the_timer_goes_on)
{
	int fd = periodic_timer(2 * NS_PER_MS, 0);
	uint64_t big = UINT64_MAX - 1, ticks = 0;

	/* The kernel: EINVAL; an emulated timer is a pipe's read end: EBADF (libtimerfd(7)). */
	ck_assert_fails_with(write(fd, &big, sizeof(big)), timer_is_emulated(fd) ? EBADF : EINVAL);
	ck_assert_int_eq(read_ticks(fd, &ticks), 0);
	ck_assert_uint_ge(ticks, 1);
	ck_assert_uint_lt(ticks, 1000);
	close(fd);
}
END_TEST

START_TEST(the_programs_file_status_flags_stay_its_own)
{
	int fd = periodic_timer(NS_PER_MS, 0);
	struct itimerspec its = its_ns(NS_PER_MS, NS_PER_MS);

	for (int i = 0; i < 200; i++) {
		int want = i % 2 ? O_NONBLOCK : 0;

		ck_assert_int_eq(fcntl(fd, F_SETFL, want), 0);
		ck_assert_int_eq(timerfd_settime(fd, 0, &its, NULL), 0);
		ck_assert_int_eq(timerfd_gettime(fd, &its), 0);
		ck_assert_int_eq(fcntl(fd, F_GETFL) & O_NONBLOCK, want);
	}
	close(fd);
}
END_TEST

START_TEST(set_ticks_ioctl_works_or_is_refused_with_enotty)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	uint64_t ticks = 5, got = 0;
	int r = ioctl(fd, TFD_IOC_SET_TICKS, &ticks);

	int err = errno, p[2], on_pipe;

	/*
	 * The kernel has it with CONFIG_CHECKPOINT_RESTORE; without, ENOTTY, which is
	 * also the emulation's answer (libtimerfd(7)): an emulated timer is a FIFO, so it
	 * gets what the platform answers for a pipe, ENOTTY on Linux. Platforms differ
	 * there (qemu-user: ENOSYS for an ioctl it does not translate; a user-mode Linux
	 * emulator: EINVAL), so that answer is probed on a pipe.
	 */
	ck_assert_int_eq(pipe(p), 0);
	errno = 0;
	ck_assert_int_eq(ioctl(p[0], TFD_IOC_SET_TICKS, &ticks), -1);
	on_pipe = errno;
	close(p[0]);
	close(p[1]);
	if (on_pipe != ENOTTY)
		fprintf(stderr, "this platform answers %s to an ioctl a pipe does not know, where "
				"Linux answers ENOTTY; an emulated timer (a FIFO) gets the same\n",
			strerror(on_pipe));
	if (timer_is_emulated(fd)) {
		ck_assert_int_eq(r, -1);
		ck_assert_int_eq(err, on_pipe);
	} else if (r < 0) {
		ck_assert_int_eq(err, under_qemu() && err == ENOSYS ? ENOSYS : ENOTTY);
	} else {
		ck_assert_int_eq(read_ticks(fd, &got), 0);
		ck_assert_uint_eq(got, 5);
	}
	close(fd);
}
END_TEST

TCase *
tcase_descriptors(void)
{
	TCase *tc = tcase_create("descriptors");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, timer_closed_in_an_epoll_set_is_never_reported_again);
	tcase_add_test(tc, timer_that_fired_and_was_closed_unread_is_never_reported_again);
	tcase_add_test(tc, a_timer_counts_as_one_descriptor_until_closed);
	tcase_add_test(tc, poll_and_select_never_report_a_timer_writable);
	tcase_add_test(tc, level_triggered_epollin_epollout_waits_for_the_expiry);
	tcase_add_test(tc, closing_every_inherited_descriptor_leaves_new_files_untouched);
	tcase_add_test(tc, a_log_on_a_reused_stdio_number_is_never_written);
	tcase_add_test(tc, closing_every_descriptor_with_timers_armed_leaves_new_files_untouched);
	tcase_add_test(tc, cloexec_timers_made_meanwhile_never_reach_a_spawned_program);
	tcase_add_test(tc, write_to_a_timer_fails_and_the_timer_goes_on);
	tcase_add_test(tc, the_programs_file_status_flags_stay_its_own);
	tcase_add_test(tc, set_ticks_ioctl_works_or_is_refused_with_enotty);
	return tc;
}
