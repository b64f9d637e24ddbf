/* SPDX-License-Identifier: MIT */
/*
 * Test cases: timers across a set of CLOCK_REALTIME (clock_settime).  A step moves the clock
 * of the whole machine, so these run only where the suite has a machine of its own: the
 * guests of make check-vm say so with TFD_TEST_CLOCK_STEPS=1.  Elsewhere each case says why
 * it is skipped.  Each case steps the clock back when it is done.
 */
#include "config.h"

#include <stdlib.h>
#include <sys/timerfd.h>
#include <time.h>

#include "helpers.h"
#include "suite.h"

/* Whether this case may step the clock; if not, says so (@name: the case's own name). */
static bool
may_step_the_clock(const char *name)
{
	const char *allowed = getenv("TFD_TEST_CLOCK_STEPS");
	char why[200];

	if (allowed && strcmp(allowed, "1") == 0)
		return true;
	snprintf(why, sizeof(why),
		 "%s: sets CLOCK_REALTIME, which only a machine of the suite's own may have done "
		 "(make check-vm runs it)", name);
	case_skipped(why);
	return false;
}

/* Moves CLOCK_REALTIME by @delta ns, as an administrator or NTP's step would. */
static void
step_realtime(int64_t delta)
{
	struct timespec ts = ns_ts(now_ns(CLOCK_REALTIME) + delta);

	ck_assert_msg(clock_settime(CLOCK_REALTIME, &ts) == 0, "clock_settime: %m");
}

/* An absolute CLOCK_REALTIME arming @in ns from now, with @interval and @flags added. */
static void
arm_realtime_at(int fd, int64_t in, int64_t interval, int flags)
{
	struct itimerspec its = its_ns(now_ns(CLOCK_REALTIME) + in, interval);

	ck_assert_int_eq(timerfd_settime(fd, TFD_TIMER_ABSTIME | flags, &its, NULL), 0);
}

/* A new CLOCK_REALTIME timer, armed as arm_realtime_at() arms it. */
static int
realtime_timer_at(int64_t in, int64_t interval, int flags)
{
	int fd = timerfd_create(CLOCK_REALTIME, 0);

	ck_assert_int_ge(fd, 0);
	arm_realtime_at(fd, in, interval, flags);
	return fd;
}

/* The time to @fd's next expiry, in ns. */
static int64_t
remaining_ns(int fd)
{
	struct itimerspec cur;

	ck_assert_int_eq(timerfd_gettime(fd, &cur), 0);
	return ts_ns(&cur.it_value);
}

/*
 * A set of the realtime clock while a cancel-on-set timer is armed: the kernel applies the
 * next settime and fails it with ECANCELED (do_timerfd_settime() checks timerfd_canceled());
 * the emulation does the same once it noticed the set, at most 100 ms later (libtimerfd(7)).
 * The set is reported once: the settime after it succeeds.
 */
START_TEST(the_settime_after_a_set_of_the_clock_fails_with_ecanceled_and_applies_on_both)
{
	int fd;

	if (!may_step_the_clock("the_settime_after_a_set_of_the_clock..."))
		return;
	fd = realtime_timer_at(60 * NS_PER_S, 0, TFD_TIMER_CANCEL_ON_SET);
	step_realtime(NS_PER_S);
	/* The emulation's bound, with room for a loaded machine. */
	sleep_ns(scaled_ns(300 * NS_PER_MS));
	{
		int64_t set = now_ns(CLOCK_MONOTONIC), left;
		struct itimerspec its = its_ns(now_ns(CLOCK_REALTIME) + 30 * NS_PER_S, 0);

		ck_assert_fails_with(timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET,
						     &its, NULL),
				     ECANCELED);
		/* The new setting was applied all the same. */
		left = remaining_ns(fd);
		ck_assert_int_ge(left, 30 * NS_PER_S - (now_ns(CLOCK_MONOTONIC) - set));
		ck_assert_int_le(left, 30 * NS_PER_S);
	}
	arm_realtime_at(fd, 30 * NS_PER_S, 0, TFD_TIMER_CANCEL_ON_SET);
	close(fd);
	step_realtime(-NS_PER_S);
}
END_TEST

/*
 * The kernel also makes the timer readable at the set, and the read fails with ECANCELED;
 * the timer stays armed and fires at its instant.  An emulated timer's FIFO cannot fail a
 * read with ECANCELED: the set does not make it readable, its read gives the expiration,
 * and the next settime reports the set instead (libtimerfd(7)).
 */
START_TEST(a_set_of_the_clock_fails_a_read_with_ecanceled_on_the_kernel_and_the_next_settime_on_the_emulation)
{
	struct itimerspec its = its_ns(0, 0);
	uint64_t ticks = 0;
	int fd;

	if (!may_step_the_clock("a_set_of_the_clock_fails_a_read..."))
		return;
	fd = realtime_timer_at(2500 * NS_PER_MS, 0, TFD_TIMER_CANCEL_ON_SET);
	step_realtime(500 * NS_PER_MS);
	if (!timer_is_emulated(fd)) {
		ck_assert(becomes_readable(fd, 1000));
		ck_assert_int_eq(read_ticks(fd, &ticks), -ECANCELED);
		ck_assert_int_eq(readable_within(fd, 0), 0);
		/* Still armed, for the instant it was armed for. */
		ck_assert_int_gt(remaining_ns(fd), 0);
		ck_assert_int_le(remaining_ns(fd), 2 * NS_PER_S);
		ck_assert_int_eq(read_ticks(fd, &ticks), 0);
		ck_assert_uint_eq(ticks, 1);
		/* The read reported the set: the settime does not again. */
		ck_assert_int_eq(timerfd_settime(fd, 0, &its, NULL), 0);
	} else {
		/* Not before its instant (at most 2 s away), however slow the machine: half of that. */
		ck_assert_int_eq(readable_within(fd, (int)(remaining_ns(fd) / NS_PER_MS / 2)), 0);
		ck_assert_int_eq(read_ticks(fd, &ticks), 0);
		ck_assert_uint_eq(ticks, 1);
		ck_assert_fails_with(timerfd_settime(fd, 0, &its, NULL), ECANCELED);
		ck_assert_int_eq(timerfd_settime(fd, 0, &its, NULL), 0);
	}
	close(fd);
	step_realtime(-500 * NS_PER_MS);
}
END_TEST

/*
 * A forward jump past an absolute realtime timer's instant fires it at once (the kernel's
 * clock_was_set() reprograms the realtime base), with every period it jumped over counted;
 * the emulation notices within its bound of 100 ms.
 */
START_TEST(a_jump_past_an_absolute_realtime_timer_fires_it_at_once_with_every_period_on_both)
{
	uint64_t ticks = 0;
	int64_t t0, late, machine;
	int fd;

	if (!may_step_the_clock("a_jump_past_an_absolute_realtime_timer..."))
		return;
	/* How late this machine wakes a process now: the bound's room beyond the emulation's. */
	machine = wakeup_lateness_ns(20);
	/* Due in 5 s, then every second: 10.5 s later 6 instants have passed (5 s .. 10 s). */
	fd = realtime_timer_at(5 * NS_PER_S, NS_PER_S, 0);
	step_realtime(10500 * NS_PER_MS);
	t0 = now_ns(CLOCK_MONOTONIC);
	ck_assert(becomes_readable(fd, 5000));
	late = now_ns(CLOCK_MONOTONIC) - t0;
	printf("%s timer readable %lld ms after the jump (wake-ups late by up to %lld ms here)\n",
	       timer_is_emulated(fd) ? "emulated" : "kernel", (long long)(late / NS_PER_MS),
	       (long long)(machine / NS_PER_MS));
	/*
	 * 100 ms is the emulation's bound on an idle machine; a busy or emulated CPU adds its
	 * own lateness (not CK_TIMEOUT_MULTIPLIER: a second late would then pass in a guest).
	 */
	ck_assert_int_lt(late, 600 * NS_PER_MS + 4 * machine);
	ck_assert_int_eq(read_ticks(fd, &ticks), 0);
	ck_assert_msg(ticks == 6 || ticks == 7, "count %llu after jumping over 6 instants",
		      (unsigned long long)ticks);
	close(fd);
	step_realtime(-10500 * NS_PER_MS);
}
END_TEST

/* A backward jump puts an absolute realtime timer's instant further off: it waits for it. */
START_TEST(a_jump_back_makes_an_absolute_realtime_timer_wait_on_both)
{
	uint64_t ticks = 0;
	int64_t left, armed;
	int fd;

	if (!may_step_the_clock("a_jump_back_makes_an_absolute_realtime_timer_wait..."))
		return;
	armed = now_ns(CLOCK_MONOTONIC);
	fd = realtime_timer_at(NS_PER_S, 0, 0);
	step_realtime(-10 * NS_PER_S);
	/* Its instant as first armed passes, unnoticed. */
	ck_assert_int_eq(readable_within(fd, 2000), 0);
	left = remaining_ns(fd);
	/* 11 s from the arming: less the time since, however slow the machine, and the 2 s waited. */
	ck_assert_msg(left >= 11 * NS_PER_S - (now_ns(CLOCK_MONOTONIC) - armed) && left <= 9 * NS_PER_S,
		      "%lld ns left, want about 9 s", (long long)left);
	/* Forward again, past it: it fires. */
	step_realtime(10 * NS_PER_S);
	ck_assert(becomes_readable(fd, 5000));
	ck_assert_int_eq(read_ticks(fd, &ticks), 0);
	ck_assert_uint_eq(ticks, 1);
	close(fd);
}
END_TEST

/*
 * A relative CLOCK_REALTIME timer runs on the monotonic clock (the kernel's hrtimer_init()
 * turns relative realtime timers monotonic, as POSIX asks); monotonic and boottime timers
 * never see the realtime clock.  None of them moves when it is set, forward or back.
 */
START_TEST(relative_realtime_and_monotonic_and_boottime_timers_ignore_a_set_of_the_clock_on_both)
{
	static const clockid_t clocks[] = { CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_BOOTTIME };
	struct itimerspec two_s = its_ns(2 * NS_PER_S, 0);
	int64_t armed;
	int fds[3];

	if (!may_step_the_clock("relative_realtime_and_monotonic_and_boottime_timers..."))
		return;
	armed = now_ns(CLOCK_MONOTONIC);
	for (int k = 0; k < 3; k++) {
		fds[k] = timerfd_create(clocks[k], 0);
		ck_assert_int_ge(fds[k], 0);
		ck_assert_int_eq(timerfd_settime(fds[k], 0, &two_s, NULL), 0);
	}
	step_realtime(10 * NS_PER_S);
	sleep_ns(500 * NS_PER_MS);
	step_realtime(-20 * NS_PER_S);
	for (int k = 0; k < 3; k++) {
		bool readable = readable_within(fds[k], 0) == 1;
		int64_t left = remaining_ns(fds[k]), since = now_ns(CLOCK_MONOTONIC) - armed;

		/* 2 s from the arming, less the time since (however slow the machine): not moved. */
		ck_assert_msg(left >= 2 * NS_PER_S - since && left <= 1500 * NS_PER_MS,
			      "clock %d: %lld ns left %lld ms after the arming, want 2 s less that",
			      (int)clocks[k], (long long)left, (long long)(since / NS_PER_MS));
		if (since < 2 * NS_PER_S)
			ck_assert_msg(!readable, "clock %d: readable %lld ms after a 2 s arming",
				      (int)clocks[k], (long long)(since / NS_PER_MS));
	}
	for (int k = 0; k < 3; k++) {
		uint64_t ticks = 0;

		ck_assert(becomes_readable(fds[k], 5000));
		ck_assert_int_eq(read_ticks(fds[k], &ticks), 0);
		ck_assert_uint_eq(ticks, 1);
		close(fds[k]);
	}
	step_realtime(10 * NS_PER_S);
}
END_TEST

TCase *
tcase_clock_steps(void)
{
	TCase *tc = tcase_create("clock_steps");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, the_settime_after_a_set_of_the_clock_fails_with_ecanceled_and_applies_on_both);
	tcase_add_test(tc, a_set_of_the_clock_fails_a_read_with_ecanceled_on_the_kernel_and_the_next_settime_on_the_emulation);
	tcase_add_test(tc, a_jump_past_an_absolute_realtime_timer_fires_it_at_once_with_every_period_on_both);
	tcase_add_test(tc, a_jump_back_makes_an_absolute_realtime_timer_wait_on_both);
	tcase_add_test(tc, relative_realtime_and_monotonic_and_boottime_timers_ignore_a_set_of_the_clock_on_both);
	return tc;
}
