/* SPDX-License-Identifier: MIT */
/*
 * Test cases: several threads creating, arming, reading and closing timers at once, on
 * their own timers and on a shared one.  The workers never assert (Check's assertions
 * belong to the test's own thread): they count what went wrong, and the test checks the
 * counts.  Under ThreadSanitizer (CI) these cases also prove the library free of races.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "helpers.h"
#include "suite.h"

#define N_THREADS 4
#define ROUNDS 100

struct worker {
	pthread_t thread;
	int shared_fd;     /* the shared timer, for the shared-timer case */
	uint64_t ticks;    /* expirations read */
	int errors;        /* calls that failed or gave a wrong answer */
	char first_error[96];
};

static atomic_int stop;

static void
note_error(struct worker *w, const char *what, int err)
{
	if (w->errors++ == 0)
		snprintf(w->first_error, sizeof(w->first_error), "%s: %s", what, strerror(err));
}

/* Each round: a new timer, armed for 1 ms, read (blocking), looked at, closed. */
static void *
own_timers(void *arg)
{
	struct worker *w = arg;

	for (int i = 0; i < ROUNDS; i++) {
		struct itimerspec its = its_ns(NS_PER_MS, 0), cur;
		int fd = timerfd_create(i % 2 ? CLOCK_MONOTONIC : CLOCK_REALTIME, TFD_CLOEXEC);
		uint64_t n;
		int r;

		if (fd < 0) {
			note_error(w, "timerfd_create", errno);
			continue;
		}
		if (timerfd_settime(fd, 0, &its, NULL) != 0)
			note_error(w, "timerfd_settime", errno);
		else if ((r = read_ticks(fd, &n)) != 0)
			note_error(w, "read", -r);
		else if (n != 1)
			note_error(w, "read: count of a one-shot is not 1", EPROTO);
		else
			w->ticks += n;
		if (timerfd_gettime(fd, &cur) != 0)
			note_error(w, "timerfd_gettime", errno);
		else if (ts_ns(&cur.it_value) != 0)
			note_error(w, "timerfd_gettime: an expired one-shot is not disarmed", EPROTO);
		close(fd);
	}
	return NULL;
}

/* Reads the shared non-blocking timer whenever poll says it can, until told to stop. */
static void *
shared_reader(void *arg)
{
	struct worker *w = arg;
	struct pollfd pfd = { .fd = w->shared_fd, .events = POLLIN };

	while (!atomic_load(&stop)) {
		uint64_t n;
		int r;

		if (poll(&pfd, 1, 10) < 0) {
			note_error(w, "poll", errno);
			continue;
		}
		r = read_ticks(w->shared_fd, &n);
		/* Another reader may have taken the expirations between poll and read. */
		if (r == 0 && n > 0)
			w->ticks += n;
		else if (r != -EAGAIN)
			note_error(w, r == 0 ? "read: count 0" : "read", r == 0 ? EPROTO : -r);
	}
	return NULL;
}

/* Re-arms the shared timer with intervals of 1 to 3 ms and reads its setting, over and over. */
static void *
shared_armer(void *arg)
{
	struct worker *w = arg;

	for (int i = 0; !atomic_load(&stop); i++) {
		struct itimerspec its = its_ns(NS_PER_MS, (1 + i % 3) * NS_PER_MS), old, cur;

		if (timerfd_settime(w->shared_fd, 0, &its, &old) != 0)
			note_error(w, "timerfd_settime", errno);
		else if (old.it_value.tv_nsec < 0 || old.it_value.tv_nsec >= NS_PER_S ||
			 ts_ns(&old.it_value) > 3 * NS_PER_MS ||
			 (i > 0 && ts_ns(&old.it_interval) != (1 + (i - 1) % 3) * NS_PER_MS))
			note_error(w, "timerfd_settime: old value is not one that was set", EPROTO);
		if (timerfd_gettime(w->shared_fd, &cur) != 0)
			note_error(w, "timerfd_gettime", errno);
		else if (ts_ns(&cur.it_value) > 3 * NS_PER_MS)
			note_error(w, "timerfd_gettime: more left than any interval set", EPROTO);
		sleep_ns(2 * NS_PER_MS);
	}
	return NULL;
}

static void
join_and_check(struct worker *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(pthread_join(w[i].thread, NULL), 0);
		ck_assert_msg(w[i].errors == 0, "thread %zu: %d errors, the first %s", i, w[i].errors,
			      w[i].first_error);
	}
}

START_TEST(threads_create_arm_read_and_close_their_own_timers_at_once)
{
	struct worker w[N_THREADS] = { 0 };

	for (size_t i = 0; i < N_THREADS; i++)
		ck_assert_int_eq(pthread_create(&w[i].thread, NULL, own_timers, &w[i]), 0);
	join_and_check(w, N_THREADS);
	for (size_t i = 0; i < N_THREADS; i++)
		ck_assert_uint_eq(w[i].ticks, ROUNDS);
}
END_TEST

START_TEST(threads_read_and_rearm_one_shared_timer_at_once)
{
	struct worker w[N_THREADS] = { 0 };
	struct itimerspec off = { 0 };
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	uint64_t ticks = 0;

	ck_assert_int_ge(fd, 0);
	atomic_store(&stop, 0);
	for (size_t i = 0; i < N_THREADS; i++) {
		w[i].shared_fd = fd;
		ck_assert_int_eq(pthread_create(&w[i].thread, NULL,
						i == 0 ? shared_armer : shared_reader, &w[i]), 0);
	}
	sleep_ns(300 * NS_PER_MS);
	atomic_store(&stop, 1);
	join_and_check(w, N_THREADS);
	for (size_t i = 1; i < N_THREADS; i++)
		ticks += w[i].ticks;
	/* 300 ms of 1 to 3 ms periods, re-armed every 2 ms or so: some expirations at least. */
	ck_assert_uint_gt(ticks, 0);
	ck_assert_int_eq(timerfd_settime(fd, 0, &off, NULL), 0);
	close(fd);
}
END_TEST

TCase *
tcase_threads(void)
{
	TCase *tc = tcase_create("threads");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, threads_create_arm_read_and_close_their_own_timers_at_once);
	tcase_add_test(tc, threads_read_and_rearm_one_shared_timer_at_once);
	return tc;
}
