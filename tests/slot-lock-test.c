/* SPDX-License-Identifier: MIT */
/*
 * A slot's lock and its arming's sequence (src/emu/shared.c) when the holder dies: every
 * change of an arming is made under the slot's robust lock, so a gettime that waits on an
 * odd sequence left by a holder that died (a server killed in the middle of a door
 * settime, a process killed in a settime) gets its answer within seconds, a rearm goes on,
 * and a live holder's change is waited for and read whole.  Before the door's settime took
 * the lock, a server killed there left gettime waiting for ever.
 */
#include "config.h"

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#include "suite.h"

#include "emu/timer.h"

/* A slot in memory shared with children, as a family's slots are, its lock made. */
static struct tfd_slot *
shared_slot(void)
{
	struct tfd_slot *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
				  -1, 0);

	ck_assert_ptr_ne(s, MAP_FAILED);
	memset(s, 0, sizeof(*s));
	__tfd_slot_lock_init(s);
	return s;
}

/* A child takes @s's lock, makes its arming odd and dies holding both. */
static void
die_holding(struct tfd_slot *s)
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (!__tfd_slot_try_hold(s))
			_exit(1);
		__atomic_fetch_add(&s->seq, 1, __ATOMIC_SEQ_CST);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_uint_eq(__atomic_load_n(&s->seq, __ATOMIC_SEQ_CST) & 1, 1);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

START_TEST(a_gettime_gets_an_arming_a_dead_holder_left_odd)
{
	struct tfd_slot *s = shared_slot();
	struct tfd_arming a;
	double start;

	s->st.interval = 5000000;
	die_holding(s);
	start = now_s();
	__tfd_arming_read(s, &a); /* before the fix: for ever (Check's timeout fails it) */
	ck_assert_msg(now_s() - start < 3.0, "the read took %.1f s", now_s() - start);
	ck_assert_int_eq(a.st.interval, 5000000);
	ck_assert_uint_eq(__atomic_load_n(&s->seq, __ATOMIC_SEQ_CST) & 1, 0);
	/* The lock is free again: the next rearm takes it at once. */
	ck_assert(__tfd_slot_try_hold(s));
	__tfd_slot_release(s);
}
END_TEST

START_TEST(a_rearm_goes_on_after_a_dead_holder_left_the_arming_odd)
{
	struct tfd_slot *s = shared_slot();
	uint32_t before;

	die_holding(s);
	before = __atomic_load_n(&s->seq, __ATOMIC_SEQ_CST);
	__tfd_slot_hold(s);
	__tfd_arming_begin(s);
	ck_assert_uint_eq(__atomic_load_n(&s->seq, __ATOMIC_SEQ_CST) & 1, 1);
	ck_assert(__atomic_load_n(&s->seq, __ATOMIC_SEQ_CST) != before);
	__tfd_arming_end(s);
	__tfd_slot_release(s);
	ck_assert_uint_eq(__atomic_load_n(&s->seq, __ATOMIC_SEQ_CST) & 1, 0);
}
END_TEST

START_TEST(a_live_holders_change_is_waited_for_and_read_whole)
{
	struct tfd_slot *s = shared_slot();
	struct tfd_arming a;
	int ready[2], status;
	char c;
	pid_t pid;

	ck_assert_int_eq(pipe(ready), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct timespec pause = { 1, 500000000 }; /* past the reader's 1 s look at the lock */

		__tfd_slot_hold(s);
		__atomic_fetch_add(&s->seq, 1, __ATOMIC_SEQ_CST);
		s->st.interval = 1;
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		nanosleep(&pause, NULL);
		s->st.interval = 7000000;
		__atomic_fetch_add(&s->seq, 1, __ATOMIC_SEQ_CST);
		__tfd_slot_release(s);
		_exit(0);
	}
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	__tfd_arming_read(s, &a);
	ck_assert_int_eq(a.st.interval, 7000000);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(ready[0]);
	close(ready[1]);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("slot-lock");
	TCase *tc = tcase_create("slot-lock");

	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, a_gettime_gets_an_arming_a_dead_holder_left_odd);
	tcase_add_test(tc, a_rearm_goes_on_after_a_dead_holder_left_the_arming_odd);
	tcase_add_test(tc, a_live_holders_change_is_waited_for_and_read_whole);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
