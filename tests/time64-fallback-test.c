/* SPDX-License-Identifier: MIT */
/*
 * Description: the time64 logic against a simulated kernel: the time64 calls are probed
 * once per process, then the 32-bit calls serve with exact conversions and EOVERFLOW.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#include "suite.h"

#include "emu/emu.h"
#include "emu/entry.h"
#include "emu/timer.h"
#include "fake-kernel.h"
#include "time64.h"

/* No emulated timers here: the emulation gives back the kernel's answer, or its ENOSYS. */
long
__tfd_emu_settime_after_its64(long r, int fd, int flags, const struct tfd_itimerspec64 *new_value,
			      struct tfd_itimerspec64 *old_value)
{
	(void)fd, (void)flags, (void)new_value, (void)old_value;
	return r;
}

long
__tfd_emu_gettime_after_its64(long r, int fd, struct tfd_itimerspec64 *curr_value)
{
	(void)fd, (void)curr_value;
	return r;
}

/*
 * The process itself, for the copies that check the caller's memory (emu/uaccess.c); with
 * copies_meet_no_process, none: process_vm_readv() then fails (ESRCH), as it fails where it
 * is missing (ENOSYS), and the copies go through a pipe.
 */
static int copies_meet_no_process;

pid_t
__tfd_emu_pid(void)
{
	return copies_meet_no_process ? -1 : getpid();
}

/* The simulated kernel: one timer on fd 3, and whether it has the time64 calls. */
#define FAKE_FD 3
static int has_time64;
static int calls[FAKE_NR_MAX];
static int signal_inside_probe; /* raise SIGUSR1 inside the first time64 call */
static struct tfd_itimerspec32 timer32;
static struct tfd_itimerspec64 timer64;

long
__tfd_syscall2(long n, long a1, long a2)
{
	return __tfd_syscall4(n, a1, a2, 0, 0);
}

long
__tfd_syscall4(long n, long a1, long a2, long a3, long a4)
{
	__atomic_add_fetch(&calls[n], 1, __ATOMIC_SEQ_CST);
	if ((n == TFD_NR_settime64 || n == TFD_NR_gettime64) && signal_inside_probe) {
		signal_inside_probe = 0;
		raise(SIGUSR1);
	}
	if ((n == TFD_NR_settime64 || n == TFD_NR_gettime64) && !has_time64) {
		/* Slow enough that threads starting together overlap the probe. */
		nanosleep(&(struct timespec){ .tv_nsec = 20000000 }, NULL);
		return -ENOSYS;
	}
	/* The kernel's order: settime reads the new value first, then looks the fd up. */
	if ((n == TFD_NR_settime || n == TFD_NR_settime64) && !a3)
		return -EFAULT;
	if (a1 != FAKE_FD)
		return -EBADF;
	if ((n == TFD_NR_gettime || n == TFD_NR_gettime64) && !a2)
		return -EFAULT;
	switch (n) {
	case TFD_NR_settime:
		if (a4)
			*(struct tfd_itimerspec32 *)a4 = timer32;
		timer32 = *(const struct tfd_itimerspec32 *)a3;
		return 0;
	case TFD_NR_gettime:
		*(struct tfd_itimerspec32 *)a2 = timer32;
		return 0;
	case TFD_NR_settime64:
		if (a4)
			*(struct tfd_itimerspec64 *)a4 = timer64;
		timer64 = *(const struct tfd_itimerspec64 *)a3;
		return 0;
	case TFD_NR_gettime64:
		*(struct tfd_itimerspec64 *)a2 = timer64;
		return 0;
	}
	return -ENOSYS;
}

static struct tfd_itimerspec64
its64(int64_t value_s, int32_t value_ns, int64_t interval_s, int32_t interval_ns)
{
	struct tfd_itimerspec64 its;

	memset(&its, 0xa5, sizeof(its)); /* padding as garbage as a caller may leave it */
	its.it_value.tv_sec = value_s;
	its.it_value.tv_nsec = value_ns;
	its.it_interval.tv_sec = interval_s;
	its.it_interval.tv_nsec = interval_ns;
	return its;
}

START_TEST(missing_time64_calls_are_probed_once_then_32_bit_calls_serve)
{
	struct tfd_itimerspec64 its = its64(5, 6, 7, 8), cur;

	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(__tfd_settime64(FAKE_FD, 0, &its, NULL), 0);
		ck_assert_int_eq(__tfd_gettime64(FAKE_FD, &cur), 0);
	}
	ck_assert_int_eq(calls[TFD_NR_settime64] + calls[TFD_NR_gettime64], 1);
	ck_assert_int_eq(calls[TFD_NR_settime], 3);
	ck_assert_int_eq(calls[TFD_NR_gettime], 3);
}
END_TEST

START_TEST(present_time64_calls_are_used_and_32_bit_calls_never)
{
	struct tfd_itimerspec64 its = its64((int64_t)1 << 33, 6, 7, 8), cur;

	has_time64 = 1;
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(__tfd_settime64(FAKE_FD, 0, &its, NULL), 0);
		ck_assert_int_eq(__tfd_gettime64(FAKE_FD, &cur), 0);
	}
	ck_assert_int_eq(calls[TFD_NR_settime64], 3);
	ck_assert_int_eq(calls[TFD_NR_gettime64], 3);
	ck_assert_int_eq(calls[TFD_NR_settime] + calls[TFD_NR_gettime], 0);
	ck_assert_int_eq(cur.it_value.tv_sec, (int64_t)1 << 33);
}
END_TEST

START_TEST(fallback_converts_values_exactly_both_ways)
{
	struct tfd_itimerspec64 first = its64(INT32_MAX, 999999999, -1, -2);
	struct tfd_itimerspec64 second = its64(INT32_MIN, 1, 2, 3), old, cur;

	ck_assert_int_eq(__tfd_settime64(FAKE_FD, 0, &first, NULL), 0);
	ck_assert_int_eq(timer32.it_value.tv_sec, INT32_MAX);
	ck_assert_int_eq(timer32.it_value.tv_nsec, 999999999);
	/* Out-of-range values pass through for the kernel to refuse with EINVAL. */
	ck_assert_int_eq(timer32.it_interval.tv_sec, -1);
	ck_assert_int_eq(timer32.it_interval.tv_nsec, -2);
	memset(&old, 0xa5, sizeof(old));
	ck_assert_int_eq(__tfd_settime64(FAKE_FD, 0, &second, &old), 0);
	ck_assert_int_eq(old.it_value.tv_sec, INT32_MAX);
	ck_assert_int_eq(old.it_value.tv_nsec, 999999999);
	ck_assert_int_eq(old.it_interval.tv_sec, -1);
	ck_assert_int_eq(old.it_interval.tv_nsec, -2);
	ck_assert_int_eq(old.it_value.pad, 0);
	ck_assert_int_eq(__tfd_gettime64(FAKE_FD, &cur), 0);
	ck_assert_int_eq(cur.it_value.tv_sec, INT32_MIN);
	ck_assert_int_eq(cur.it_interval.tv_nsec, 3);
}
END_TEST

START_TEST(fallback_refuses_values_beyond_32_bits_with_eoverflow)
{
	struct tfd_itimerspec64 big_value = its64((int64_t)1 << 33, 0, 0, 0);
	struct tfd_itimerspec64 big_interval = its64(1, 0, (int64_t)INT32_MAX + 1, 0);
	struct tfd_itimerspec64 negative = its64((int64_t)INT32_MIN - 1, 0, 0, 0);

	ck_assert_int_eq(__tfd_settime64(FAKE_FD, 0, &big_value, NULL), -EOVERFLOW);
	ck_assert_int_eq(__tfd_settime64(FAKE_FD, 0, &big_interval, NULL), -EOVERFLOW);
	ck_assert_int_eq(__tfd_settime64(FAKE_FD, 0, &negative, NULL), -EOVERFLOW);
	/* Refused before the 32-bit call: the timer is untouched. */
	ck_assert_int_eq(calls[TFD_NR_settime], 0);
}
END_TEST

START_TEST(fallback_keeps_the_kernel_errno_order)
{
	struct tfd_itimerspec64 its = its64(1, 0, 0, 0);

	ck_assert_int_eq(__tfd_settime64(FAKE_FD, 0, NULL, NULL), -EFAULT);
	ck_assert_int_eq(__tfd_settime64(FAKE_FD + 1, 0, &its, NULL), -EBADF);
	ck_assert_int_eq(__tfd_gettime64(FAKE_FD + 1, NULL), -EBADF);
	ck_assert_int_eq(__tfd_gettime64(FAKE_FD, NULL), -EFAULT);
}
END_TEST

START_TEST(fallback_gives_efault_for_memory_the_kernel_could_not_touch)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *none = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *ro = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct tfd_itimerspec64 its = its64(7, 0, 0, 0);

	ck_assert_ptr_ne(none, MAP_FAILED);
	ck_assert_ptr_ne(ro, MAP_FAILED);
	/* An unreadable new value: EFAULT, as the kernel's copy_from_user(), before any call; */
	ck_assert_int_eq(__tfd_settime64(FAKE_FD, 0, none, NULL), -EFAULT);
	ck_assert_int_eq(calls[TFD_NR_settime], 0);
	/* an unwritable old value: EFAULT after the change, as the kernel's copy_to_user(); */
	ck_assert_int_eq(__tfd_settime64(FAKE_FD, 0, &its, ro), -EFAULT);
	ck_assert_int_eq(calls[TFD_NR_settime], 1);
	ck_assert_int_eq(timer32.it_value.tv_sec, 7);
	ck_assert_int_eq(__tfd_settime64(FAKE_FD, 0, &its, none), -EFAULT);
	/* an unwritable current value: EFAULT, after the fd was looked up (EBADF first). */
	ck_assert_int_eq(__tfd_gettime64(FAKE_FD, ro), -EFAULT);
	ck_assert_int_eq(__tfd_gettime64(FAKE_FD, none), -EFAULT);
	ck_assert_int_eq(__tfd_gettime64(FAKE_FD + 1, none), -EBADF);
	munmap(none, page);
	munmap(ro, page);
}
END_TEST

/*
 * A call that succeeds leaves errno as it was, whatever failed on the way (the kernel's own
 * calls set it only on failure): here the copies' process_vm_readv(), the first time and
 * once it is known missing.
 */
START_TEST(a_successful_fallback_call_leaves_errno_alone)
{
	struct tfd_itimerspec64 its = its64(1, 2, 3, 4), old, cur;

	copies_meet_no_process = 1;
	for (int round = 0; round < 2; round++) {
		errno = 1234;
		ck_assert_int_eq(__tfd_settime64_entry(FAKE_FD, 0, &its, &old), 0);
		ck_assert_int_eq(errno, 1234);
		ck_assert_int_eq(__tfd_gettime64_entry(FAKE_FD, &cur), 0);
		ck_assert_int_eq(errno, 1234);
		ck_assert_int_eq(cur.it_value.tv_nsec, 2);
	}
	ck_assert_int_eq(calls[TFD_NR_settime], 2);
	/* Failures set it, through the copies' pipe too. */
	ck_assert_int_eq(__tfd_settime64_entry(FAKE_FD, 0, (void *)1, NULL), -1);
	ck_assert_int_eq(errno, EFAULT);
}
END_TEST

START_TEST(present_time64_calls_keep_the_kernel_errno_order)
{
	struct tfd_itimerspec64 its = its64(1, 0, 0, 0);

	has_time64 = 1;
	ck_assert_int_eq(__tfd_settime64(FAKE_FD, 0, NULL, NULL), -EFAULT);
	ck_assert_int_eq(__tfd_settime64(FAKE_FD + 1, 0, &its, NULL), -EBADF);
	ck_assert_int_eq(__tfd_gettime64(FAKE_FD + 1, NULL), -EBADF);
	ck_assert_int_eq(__tfd_gettime64(FAKE_FD, NULL), -EFAULT);
	/* Each an answer of the time64 call itself: no second call, no fallback. */
	ck_assert_int_eq(calls[TFD_NR_settime64] + calls[TFD_NR_gettime64], 4);
	ck_assert_int_eq(calls[TFD_NR_settime] + calls[TFD_NR_gettime], 0);
}
END_TEST

static void *
first_call(void *arg)
{
	struct tfd_itimerspec64 cur;

	(void)arg;
	return (void *)(intptr_t)__tfd_gettime64(FAKE_FD, &cur);
}

START_TEST(threads_making_their_first_call_together_probe_once)
{
	pthread_t threads[8];

	for (int i = 0; i < 8; i++)
		ck_assert_int_eq(pthread_create(&threads[i], NULL, first_call, NULL), 0);
	for (int i = 0; i < 8; i++) {
		void *r;

		ck_assert_int_eq(pthread_join(threads[i], &r), 0);
		ck_assert_int_eq((intptr_t)r, 0);
	}
	ck_assert_int_eq(calls[TFD_NR_gettime64], 1);
	ck_assert_int_eq(calls[TFD_NR_gettime], 8);
}
END_TEST

/* A signal that comes while its own thread probes: its handler's call must not wait for it. */
static volatile sig_atomic_t handler_result = 1;

static void
handler_calls_the_api(int sig)
{
	struct tfd_itimerspec64 cur;

	(void)sig;
	handler_result = __tfd_gettime64(FAKE_FD, &cur);
}

START_TEST(a_signal_that_comes_during_the_probe_is_handled_after_it)
{
	struct tfd_itimerspec64 cur;

	signal(SIGUSR1, handler_calls_the_api);
	signal_inside_probe = 1;
	ck_assert_int_eq(__tfd_gettime64(FAKE_FD, &cur), 0);
	/* Handled once the probe had its answer: the handler's call took the fallback. */
	ck_assert_int_eq(handler_result, 0);
	ck_assert_int_eq(calls[TFD_NR_gettime64], 1);
	ck_assert_int_eq(calls[TFD_NR_gettime], 2);
}
END_TEST

/* The first call from a program's own fork prepare handler, inside fork(). */
static void
prepare_makes_the_first_call(void)
{
	struct tfd_itimerspec64 cur;

	handler_result = __tfd_gettime64(FAKE_FD, &cur);
}

START_TEST(the_first_call_may_come_from_a_fork_prepare_handler)
{
	int status;
	pid_t pid;

	ck_assert_int_eq(pthread_atfork(prepare_makes_the_first_call, NULL, NULL), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(handler_result == 0 ? 0 : 1);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_eq(handler_result, 0);
	ck_assert_int_eq(calls[TFD_NR_gettime64], 1);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("time64-fallback");
	TCase *tc = tcase_create("time64_fallback");

	/* Each case runs in a fresh process (Check's fork mode), so each starts unprobed. */
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, missing_time64_calls_are_probed_once_then_32_bit_calls_serve);
	tcase_add_test(tc, present_time64_calls_are_used_and_32_bit_calls_never);
	tcase_add_test(tc, fallback_converts_values_exactly_both_ways);
	tcase_add_test(tc, fallback_refuses_values_beyond_32_bits_with_eoverflow);
	tcase_add_test(tc, fallback_keeps_the_kernel_errno_order);
	tcase_add_test(tc, fallback_gives_efault_for_memory_the_kernel_could_not_touch);
	tcase_add_test(tc, a_successful_fallback_call_leaves_errno_alone);
	tcase_add_test(tc, present_time64_calls_keep_the_kernel_errno_order);
	tcase_add_test(tc, threads_making_their_first_call_together_probe_once);
	tcase_add_test(tc, a_signal_that_comes_during_the_probe_is_handled_after_it);
	tcase_add_test(tc, the_first_call_may_come_from_a_fork_prepare_handler);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
