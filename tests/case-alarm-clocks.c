/* SPDX-License-Identifier: MIT */
/* Test cases: the alarm clocks need CAP_WAKE_ALARM, at create and again at settime. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu/capability.h"
#include "helpers.h"
#include "suite.h"

static const clockid_t alarm_clocks[] = { CLOCK_REALTIME_ALARM, CLOCK_BOOTTIME_ALARM };
#define N_ALARM_CLOCKS (sizeof(alarm_clocks) / sizeof(alarm_clocks[0]))

/* Read (and with @drop, remove) CAP_WAKE_ALARM in this thread's effective set. */
static bool
wake_alarm_capability(bool drop)
{
	struct tfd_cap_header hdr = { .version = TFD_CAP_VERSION_3 };
	struct tfd_cap_data data[2] = { 0 }; /* valgrind knows capget writes only data[0] */
	const unsigned int word = TFD_CAP_WAKE_ALARM / 32, bit = 1u << (TFD_CAP_WAKE_ALARM % 32);
	bool held;

	ck_assert_int_eq(syscall(SYS_capget, &hdr, data), 0);
	held = (data[word].effective & bit) != 0;
	if (drop) {
		data[word].effective &= ~bit;
		data[word].permitted &= ~bit;
		ck_assert_int_eq(syscall(SYS_capset, &hdr, data), 0);
	}
	return held;
}

/* Without the capability, creating an alarm timer is refused with EPERM. */
static void
check_create_refused(void)
{
	for (size_t i = 0; i < N_ALARM_CLOCKS; i++)
		ck_assert_fails_with(timerfd_create(alarm_clocks[i], 0), EPERM);
}

START_TEST(alarm_clocks_are_refused_without_cap_wake_alarm)
{
	struct itimerspec its = its_ns(NS_PER_S, 0);
	int fds[N_ALARM_CLOCKS];

	/*
	 * Without capget(2) (the basic-ABI environment) nobody can tell that the caller holds
	 * the capability: the emulation refuses alarm timers, as to an unprivileged caller.
	 */
	if (syscall(SYS_capget, &(struct tfd_cap_header){ .version = TFD_CAP_VERSION_3 },
		    (struct tfd_cap_data[2]){ 0 }) < 0 && errno == ENOSYS) {
		check_create_refused();
		return;
	}
	if (!wake_alarm_capability(false)) {
		/* Unprivileged: the kernel refuses, and we cannot grant ourselves the right. */
		check_create_refused();
		return;
	}
	/* Privileged: alarm timers work; then, with the capability dropped, they are refused. */
	for (size_t i = 0; i < N_ALARM_CLOCKS; i++) {
		fds[i] = timerfd_create(alarm_clocks[i], 0);
		ck_assert_msg(fds[i] >= 0, "alarm clock %d: %m", (int)alarm_clocks[i]);
		ck_assert_int_eq(timerfd_settime(fds[i], 0, &its, NULL), 0);
	}
	ck_assert(wake_alarm_capability(true));
	ck_assert(!wake_alarm_capability(false));
	check_create_refused();
	/* The kernel checks again when an existing alarm timer is armed. */
	for (size_t i = 0; i < N_ALARM_CLOCKS; i++) {
		ck_assert_fails_with(timerfd_settime(fds[i], 0, &its, NULL), EPERM);
		close(fds[i]);
	}
}
END_TEST

TCase *
tcase_alarm_clocks(void)
{
	TCase *tc = tcase_create("alarm_clocks");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, alarm_clocks_are_refused_without_cap_wake_alarm);
	return tc;
}
