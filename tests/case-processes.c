/* SPDX-License-Identifier: MIT */
/*
 * Description: the calls where real programs make them: from signal handlers, in threads
 * that are cancelled, from fork handlers, after the main thread exits, at the descriptor
 * limit; timers shared with a child that outlives its parent.  The kernel is the reference.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>

#include "helpers.h"
#include "seccomp-abi.h"
#include "suite.h"

/* AddressSanitizer and ThreadSanitizer reserve terabytes of shadow: RLIMIT_AS stops them. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SHADOW_MEMORY 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SHADOW_MEMORY 1
#endif
#endif
/* AddressSanitizer's own thread exit trips over the stack a cancellation unwound (clang 14). */
#if defined(__SANITIZE_ADDRESS__)
#define ASAN_AND_CANCEL 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN_AND_CANCEL 1
#endif
#endif

/* --- signal handlers ---------------------------------------------------------------- */

static int handler_timer = -1;
static volatile sig_atomic_t handler_calls, handler_errors;
/*
 * The interval timer's period, in us.  A handler that takes more than a quarter of it
 * lengthens it (up to 100 ms): a slow CPU, or a tracer (strace -f stops the program at each
 * system call, each signal and the sigreturn), would otherwise have the next SIGALRM due
 * before the handler returns, and the interrupted loop would never run again.
 */
static volatile long alarm_period_us;

static void
start_alarms(long period_us)
{
	struct itimerval it = { { 0, period_us }, { 0, period_us } };

	alarm_period_us = period_us;
	setitimer(ITIMER_REAL, &it, NULL);
}

/* now_ns() without its check: Check's report of a passed check takes a lock of Check's. */
static int64_t
handler_now_ns(void)
{
	struct timespec ts = { 0 };

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

static void
pace_alarms(int64_t handler_entered)
{
	long took_us = (long)((handler_now_ns() - handler_entered) / 1000);
	long want = took_us * 4 < 100000 ? took_us * 4 : 100000;

	if (want > alarm_period_us)
		start_alarms(want);
}

static void
on_alarm(int sig)
{
	struct itimerspec its = its_ns(10 * NS_PER_S, 0), cur;
	int64_t entered = handler_now_ns();
	int saved = errno;

	(void)sig;
	if (timerfd_settime(handler_timer, 0, &its, NULL) != 0 ||
	    timerfd_gettime(handler_timer, &cur) != 0)
		handler_errors++;
	handler_calls++;
	pace_alarms(entered);
	errno = saved;
}

/* Whether a loop that the handler interrupts since @start has run long enough: @ms, and
 * more than 10 calls of the handler; it fails the case after 10 s (scaled) without them. */
static bool
enough_handler_calls(int64_t start, int ms)
{
	int64_t ran = now_ns(CLOCK_MONOTONIC) - start;
	bool enough = ran >= ms * NS_PER_MS && handler_calls > 10;

	if (!enough)
		ck_assert_msg(ran < scaled_ns(10 * NS_PER_S), "%d handler calls in %lld ms",
			      (int)handler_calls, (long long)(ran / NS_PER_MS));
	return enough;
}

START_TEST(settime_and_gettime_work_from_a_signal_handler)
{
	/*
	 * Every 200 us; every 2 ms under qemu-user, where a handler's emulated calls take
	 * longer than 200 us and the next signal would be due before the handler returned.
	 */
	long period = under_qemu() ? 2000 : 200;
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval off = { 0 };
	struct itimerspec its = its_ns(NS_PER_S, 0), cur;
	int own = timerfd_create(CLOCK_MONOTONIC, 0);
	int64_t start = now_ns(CLOCK_MONOTONIC);

	handler_calls = handler_errors = 0;
	handler_timer = timerfd_create(CLOCK_MONOTONIC, 0);
	ck_assert_int_ge(handler_timer, 0);
	sigaction(SIGALRM, &sa, NULL);
	start_alarms(period);
	/*
	 * Interrupted anywhere in these, the handler makes the same calls: for 300 ms and more
	 * than 10 handler calls, which a busy or emulated CPU may take longer to see.
	 */
	while (!enough_handler_calls(start, 300)) {
		ck_assert_int_eq(timerfd_settime(handler_timer, 0, &its, NULL), 0);
		ck_assert_int_eq(timerfd_gettime(handler_timer, &cur), 0);
		ck_assert_int_eq(timerfd_settime(own, 0, &its, NULL), 0);
	}
	/* The handler stays: a SIGALRM still on its way must not end the case. */
	setitimer(ITIMER_REAL, &off, NULL);
	ck_assert_int_gt(handler_calls, 10);
	ck_assert_int_eq(handler_errors, 0);
	close(handler_timer);
	close(own);
}
END_TEST

/*
 * The handler interrupts the program inside malloc() and free() while another thread makes
 * and closes timers (the allocator's lock held by the interrupted code, timers' records
 * made and freed meanwhile): the calls are as safe there as the system calls.
 */
static volatile int churning;

static void *
make_and_close_timers(void *arg)
{
	struct itimerspec its = its_ns(1000, 0);
	int fds[100];

	(void)arg;
	while (__atomic_load_n(&churning, __ATOMIC_RELAXED)) {
		int n = 0;

		while (n < 100 && (fds[n] = timerfd_create(CLOCK_MONOTONIC, 0)) >= 0)
			timerfd_settime(fds[n++], 0, &its, NULL);
		while (n)
			close(fds[--n]);
	}
	return NULL;
}

START_TEST(a_signal_handler_may_call_the_api_while_the_program_allocates)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval off = { 0 };
	int64_t start = now_ns(CLOCK_MONOTONIC);
	pthread_t churn;
	sigset_t alrm;

	/*
	 * qemu-user's own signal delivery does not survive this, whatever the timer: the same
	 * loop with the C library's timerfd crashes under qemu-i386 with musl (SIGSEGV) and
	 * starves with glibc.  Natively it runs on both backends.
	 */
	if (under_qemu()) {
		case_skipped("a_signal_handler...allocates: not under qemu-user, whose signal delivery fails it");
		return;
	}
	handler_calls = handler_errors = 0;
	handler_timer = timerfd_create(CLOCK_MONOTONIC, 0);
	ck_assert_int_ge(handler_timer, 0);
	__atomic_store_n(&churning, 1, __ATOMIC_RELAXED);
	/* The churning thread starts with SIGALRM blocked: the handler runs in this one only. */
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &alrm, NULL);
	ck_assert_int_eq(pthread_create(&churn, NULL, make_and_close_timers, NULL), 0);
	pthread_sigmask(SIG_UNBLOCK, &alrm, NULL);
	sigaction(SIGALRM, &sa, NULL);
	start_alarms(200);
	while (!enough_handler_calls(start, 500)) {
		void *p[16];

		for (int i = 0; i < 16; i++) {
			p[i] = malloc(16 + (size_t)i * 40);
			ck_assert_ptr_ne(p[i], NULL);
			memset(p[i], 1, 16);
		}
		for (int i = 0; i < 16; i++)
			free(p[i]);
	}
	setitimer(ITIMER_REAL, &off, NULL);
	__atomic_store_n(&churning, 0, __ATOMIC_RELAXED);
	ck_assert_int_eq(pthread_join(churn, NULL), 0);
	ck_assert_int_gt(handler_calls, 10);
	ck_assert_int_eq(handler_errors, 0);
	close(handler_timer);
}
END_TEST

/*
 * A program that blocks a signal in every thread and takes it with sigwait(): a
 * process-directed one, sent while the first timer is made (and the emulation starts its
 * server), must wait for sigwait(), never find a thread of the library that has it
 * unblocked (its default action would end the process).
 */
static void *
send_usr1(void *arg)
{
	(void)arg;
	for (int i = 0; i < 200; i++) {
		kill(getpid(), SIGUSR1);
		sched_yield();
	}
	return NULL;
}

static void
first_timer_while_signals_arrive(void)
{
	sigset_t usr1, pending;
	pthread_t sender;
	int sig = 0, fd;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	child_assert(pthread_sigmask(SIG_BLOCK, &usr1, NULL) == 0);
	child_assert(pthread_create(&sender, NULL, send_usr1, NULL) == 0);
	fd = timerfd_create(CLOCK_MONOTONIC, 0);
	child_assert(fd >= 0);
	child_assert(pthread_join(sender, NULL) == 0);
	/* Pending for the program (sigwait() takes it; rt_sigtimedwait is not in the basic ABI). */
	child_assert(sigpending(&pending) == 0 && sigismember(&pending, SIGUSR1));
	/* glibc gives the error number, musl -1 and errno (ENOSYS where the call is refused). */
	errno = 0;
	if (sigwait(&usr1, &sig) == 0)
		child_assert(sig == SIGUSR1);
	else
		child_assert(errno == ENOSYS || errno == 0);
	close(fd);
}

/* The same program without a timer: what the platform itself does with the signals. */
static void
signals_arrive_without_a_timer(void)
{
	sigset_t usr1, pending;
	pthread_t sender;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	child_assert(pthread_sigmask(SIG_BLOCK, &usr1, NULL) == 0);
	child_assert(pthread_create(&sender, NULL, send_usr1, NULL) == 0);
	child_assert(pthread_join(sender, NULL) == 0);
	child_assert(sigpending(&pending) == 0 && sigismember(&pending, SIGUSR1));
}

START_TEST(a_blocked_signal_sent_as_the_first_timer_is_made_waits_for_the_program)
{
	/* Each round is a new process (the thread starts once per process); fewer under qemu. */
	int rounds = under_qemu() ? 5 : 20;
	/*
	 * A user-mode Linux emulator that keeps the signal mask on its side only lets a
	 * blocked signal with its default action end the process: found without a timer.
	 */
	int status = child_status(signals_arrive_without_a_timer);

	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGUSR1) {
		case_skipped("a_blocked_signal_sent...: here a blocked SIGUSR1 ends the process, "
			     "with no timer made");
		return;
	}
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "without a timer: status %#x",
		      status);

	for (int i = 0; i < rounds; i++)
		in_child(first_timer_while_signals_arrive);
}
END_TEST

/* --- cancellation --------------------------------------------------------------------- */

#ifndef ASAN_AND_CANCEL
static void *
settime_until_cancelled(void *arg)
{
	struct itimerspec its = its_ns(NS_PER_S, 0);
	int fd = *(int *)arg;

	/* Deferred, the default: cancelled at a cancellation point, inside the calls or not. */
	for (;;) {
		timerfd_settime(fd, 0, &its, NULL);
		pthread_testcancel();
		sched_yield(); /* lets the canceller run where threads take turns (valgrind) */
	}
	return NULL;
}

static void
cancel_threads_inside_the_calls(void)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0), other = timerfd_create(CLOCK_MONOTONIC, 0);
	struct itimerspec its = its_ns(NS_PER_MS, 0);
	uint64_t ticks = 0;

	for (int i = 0; i < 20; i++) {
		pthread_t t;

		ck_assert_int_eq(pthread_create(&t, NULL, settime_until_cancelled, &fd), 0);
		sleep_ns(2 * NS_PER_MS);
		pthread_cancel(t);
		ck_assert_int_eq(pthread_join(t, NULL), 0);
	}
	ck_assert_int_eq(timerfd_settime(other, 0, &its, NULL), 0);
	ck_assert_int_eq(read_ticks(other, &ticks), 0);
	ck_assert_uint_eq(ticks, 1);
	close(fd);
	close(other);
}
#endif

START_TEST(a_thread_cancelled_inside_the_calls_leaves_the_others_working)
{
#ifdef ASAN_AND_CANCEL
	case_skipped("a_thread_cancelled...: not under AddressSanitizer (a false report at thread exit)");
#else
	cancel_threads_inside_the_calls();
#endif
}
END_TEST

/* --- fork handlers -------------------------------------------------------------------- */

static int atfork_timer = -1;

static void
prepare_calls_the_api(void)
{
	struct itimerspec cur;

	timerfd_gettime(atfork_timer, &cur);
}

static void
fork_with_a_prepare_handler_that_calls_the_api(void)
{
	pid_t pid;
	int status;

	atfork_timer = timerfd_create(CLOCK_MONOTONIC, 0);
	child_assert(atfork_timer >= 0);
	child_assert(pthread_atfork(prepare_calls_the_api, NULL, NULL) == 0);
	pid = fork();
	child_assert(pid >= 0);
	if (pid == 0)
		_exit(0);
	child_assert(waitpid(pid, &status, 0) == pid && WIFEXITED(status));
}

START_TEST(a_programs_own_prepare_handler_may_call_the_api)
{
	in_child(fork_with_a_prepare_handler_that_calls_the_api);
}
END_TEST

/* --- the main thread's pthread_exit() ------------------------------------------------- */

static int main_exit_timer;

static void *
after_main_exits(void *arg)
{
	struct itimerspec its = its_ns(2 * NS_PER_MS, 0), cur;
	uint64_t ticks = 0;
	int fd;

	(void)arg;
	sleep_ns(20 * NS_PER_MS);
	child_assert(timerfd_settime(main_exit_timer, 0, &its, NULL) == 0);
	child_assert(timerfd_gettime(main_exit_timer, &cur) == 0);
	child_assert(read_ticks(main_exit_timer, &ticks) == 0 && ticks == 1);
	fd = timerfd_create(CLOCK_MONOTONIC, 0);
	child_assert(fd >= 0);
	child_assert(timerfd_settime(fd, 0, &its, NULL) == 0);
	child_assert(read_ticks(fd, &ticks) == 0 && ticks == 1);
	/* _exit: the main thread's stack is gone, and with it what a leak checker would follow. */
	_exit(0);
}

static void
main_thread_exits_first(void)
{
	pthread_t t;

	main_exit_timer = timerfd_create(CLOCK_MONOTONIC, 0);
	child_assert(main_exit_timer >= 0);
	child_assert(pthread_create(&t, NULL, after_main_exits, NULL) == 0);
	pthread_exit(NULL);
}

START_TEST(timers_work_after_the_main_thread_exits)
{
	in_child(main_thread_exits_first);
}
END_TEST

/* --- the descriptor limit ------------------------------------------------------------- */

static void
fill_the_table_then_close_one(void)
{
	struct rlimit rl;
	int fds[64], n = 0, fd;
	uint64_t ticks = 0;

	/* The soft limit only: valgrind keeps the hard one for itself. */
	child_assert(getrlimit(RLIMIT_NOFILE, &rl) == 0);
	rl.rlim_cur = 64;
	child_assert(setrlimit(RLIMIT_NOFILE, &rl) == 0);
	while (n < 64 && (fd = timerfd_create(CLOCK_MONOTONIC, 0)) >= 0)
		fds[n++] = fd;
	child_assert(n > 0 && n < 64 && errno == EMFILE);
	close(fds[--n]);
	/* The room made by one close takes one timer at once. */
	fd = timerfd_create(CLOCK_MONOTONIC, 0);
	if (fd < 0)
		fprintf(stderr, "after a close at the limit (%d timers): %s\n", n, strerror(errno));
	child_assert(fd >= 0);
	child_assert(timerfd_settime(fd, 0, &(struct itimerspec){ .it_value = { 0, 1000000 } },
				     NULL) == 0);
	child_assert(read_ticks(fd, &ticks) == 0 && ticks == 1);
	child_assert(timerfd_create(CLOCK_MONOTONIC, 0) == -1 && errno == EMFILE);
}

START_TEST(closing_a_timer_at_the_descriptor_limit_makes_room_at_once)
{
	in_child(fill_the_table_then_close_one);
}
END_TEST

/* A blocking periodic timer with a count waiting in it, unread. */
static int
timer_with_a_count_pending(void)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);

	child_assert(fd >= 0);
	child_assert(timerfd_settime(fd, 0, &(struct itimerspec){ { 0, 1000000 }, { 0, 1000000 } },
				     NULL) == 0);
	child_assert(becomes_readable(fd, 10000));
	return fd;
}

/* A rearm to 10 s: it succeeds, and nothing is readable after it (the pending count went). */
static void
rearm_leaves_nothing_readable(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct itimerspec cur;
	int64_t rearmed = now_ns(CLOCK_MONOTONIC);

	child_assert(timerfd_settime(fd, 0, &(struct itimerspec){ .it_value = { 10, 0 } }, NULL) == 0);
	child_assert(poll(&pfd, 1, 0) == 0);
	child_assert(timerfd_gettime(fd, &cur) == 0 &&
		     ts_ns(&cur.it_value) >= 10 * NS_PER_S - (now_ns(CLOCK_MONOTONIC) - rearmed));
	child_assert(cur.it_interval.tv_sec == 0 && cur.it_interval.tv_nsec == 0);
}

static void
rearm_at_the_limit(void)
{
	struct rlimit rl;
	int fd = timer_with_a_count_pending(), n = 0;

	/* Every descriptor taken: the emulation's own momentary read end cannot be had. */
	child_assert(getrlimit(RLIMIT_NOFILE, &rl) == 0);
	rl.rlim_cur = 64;
	child_assert(setrlimit(RLIMIT_NOFILE, &rl) == 0);
	while (open("/dev/null", O_RDONLY) >= 0)
		n++;
	child_assert(errno == EMFILE);
	rearm_leaves_nothing_readable(fd);
}

START_TEST(a_rearm_at_the_descriptor_limit_leaves_no_stale_count)
{
	in_child(rearm_at_the_limit);
}
END_TEST

/* An empty directory the child makes its root; the case removes it afterwards. */
static char chroot_dir[] = "/tmp/libtimerfd-chroot-XXXXXX";

static void
rearm_after_chroot(void)
{
	int fd = timer_with_a_count_pending(), made;
	bool emulated = timer_is_emulated(fd);

	if (chroot(chroot_dir) < 0) {
		child_assert(errno == EPERM);
		case_skipped("a_rearm_after_chroot...: chroot(2) needs CAP_SYS_CHROOT");
		return;
	}
	child_assert(chdir("/") == 0);
	/* The FIFO's name is out of reach now: the rearm is still whole. */
	rearm_leaves_nothing_readable(fd);
	/* A new timer: the kernel makes it; the emulation cannot reach its directory (ENOSYS). */
	made = timerfd_create(CLOCK_MONOTONIC, 0);
	if (emulated)
		child_assert(made == -1 && errno == ENOSYS);
	else
		child_assert(made >= 0);
}

START_TEST(a_rearm_after_chroot_leaves_no_stale_count)
{
	ck_assert_ptr_ne(mkdtemp(chroot_dir), NULL);
	in_child(rearm_after_chroot);
	ck_assert_int_eq(rmdir(chroot_dir), 0);
}
END_TEST

/* --- the program's own seccomp filter ---------------------------------------------------- */

/* Descriptors 0-255 open now (fcntl only: the filter below allows little else). */
static int
low_fds(void)
{
	int n = 0;

	for (int fd = 0; fd < 256; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

/*
 * A filter such as a program installs once it set up: what it calls against a kernel
 * timerfd (read, poll, the timerfd calls, memory, sleeping, exit), EPERM for the rest.
 */
static int
install_own_filter(void)
{
	static const long allowed[] = {
#ifdef SYS_read
		SYS_read,
#endif
#ifdef SYS_write
		SYS_write,
#endif
#ifdef SYS_close
		SYS_close,
#endif
#ifdef SYS_exit
		SYS_exit,
#endif
#ifdef SYS_exit_group
		SYS_exit_group,
#endif
#ifdef SYS_rt_sigreturn
		SYS_rt_sigreturn,
#endif
#ifdef SYS_restart_syscall
		SYS_restart_syscall,
#endif
#ifdef SYS_rt_sigprocmask
		SYS_rt_sigprocmask,
#endif
#ifdef SYS_fcntl
		SYS_fcntl,
#endif
#ifdef SYS_fcntl64
		SYS_fcntl64,
#endif
#ifdef SYS_brk
		SYS_brk,
#endif
#ifdef SYS_munmap
		SYS_munmap,
#endif
#ifdef SYS_mprotect
		SYS_mprotect,
#endif
#ifdef SYS_mmap
		SYS_mmap,
#endif
#ifdef SYS_mmap2
		SYS_mmap2,
#endif
#ifdef SYS_poll
		SYS_poll,
#endif
#ifdef SYS_ppoll
		SYS_ppoll,
#endif
#ifdef SYS_ppoll_time32
		SYS_ppoll_time32,
#endif
#ifdef SYS_ppoll_time64
		SYS_ppoll_time64,
#endif
#ifdef SYS_futex
		SYS_futex,
#endif
#ifdef SYS_futex_time32
		SYS_futex_time32,
#endif
#ifdef SYS_futex_time64
		SYS_futex_time64,
#endif
#ifdef SYS_nanosleep
		SYS_nanosleep,
#endif
#ifdef SYS_clock_nanosleep
		SYS_clock_nanosleep,
#endif
#ifdef SYS_clock_nanosleep_time32
		SYS_clock_nanosleep_time32,
#endif
#ifdef SYS_clock_nanosleep_time64
		SYS_clock_nanosleep_time64,
#endif
#ifdef SYS_clock_gettime
		SYS_clock_gettime,
#endif
#ifdef SYS_clock_gettime32
		SYS_clock_gettime32,
#endif
#ifdef SYS_clock_gettime64
		SYS_clock_gettime64,
#endif
#ifdef SYS_timerfd_create
		SYS_timerfd_create,
#endif
#ifdef SYS_timerfd_settime
		SYS_timerfd_settime,
#endif
#ifdef SYS_timerfd_settime32
		SYS_timerfd_settime32,
#endif
#ifdef SYS_timerfd_settime64
		SYS_timerfd_settime64,
#endif
#ifdef SYS_timerfd_gettime
		SYS_timerfd_gettime,
#endif
#ifdef SYS_timerfd_gettime32
		SYS_timerfd_gettime32,
#endif
#ifdef SYS_timerfd_gettime64
		SYS_timerfd_gettime64,
#endif
	};
	struct tfd_sock_filter f[2 * sizeof(allowed) / sizeof(allowed[0]) + 2];
	struct tfd_sock_fprog prog;
	size_t n = 0;

	f[n++] = (struct tfd_sock_filter)BPF_STMT(TFD_BPF_LD_W_ABS, offsetof(struct tfd_seccomp_data, nr));
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++) {
		f[n++] = (struct tfd_sock_filter)BPF_JUMP(TFD_BPF_JEQ_K, (uint32_t)allowed[i], 0, 1);
		f[n++] = (struct tfd_sock_filter)BPF_STMT(TFD_BPF_RET_K, TFD_SECCOMP_RET_ALLOW);
	}
	f[n] = (struct tfd_sock_filter)BPF_STMT(TFD_BPF_RET_K, TFD_SECCOMP_RET_ERRNO | EPERM);
	prog.len = (unsigned short)(n + 1);
	prog.filter = f;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	return prctl(PR_SET_SECCOMP, TFD_SECCOMP_MODE_FILTER, &prog) < 0 ? -errno : 0;
}

static void
calls_under_the_programs_own_filter(void)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0), made, before, r;
	struct itimerspec its = its_ns(NS_PER_MS, NS_PER_MS), cur;
	bool emulated = timer_is_emulated(fd);
	uint64_t ticks = 0;

	child_assert(fd >= 0 && timerfd_settime(fd, 0, &its, NULL) == 0);
	child_assert(read_ticks(fd, &ticks) == 0);
	/* A kernel without CONFIG_SECCOMP (or a user-mode Linux emulator) answers EINVAL. */
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0) {
		fprintf(stderr, "prctl(PR_GET_SECCOMP): %s\n", strerror(errno));
		_exit(77);
	}
	/*
	 * A kernel with seccomp's strict mode alone (CONFIG_SECCOMP_FILTER off) answers EINVAL
	 * to the filter mode: no filter of the program's own there.  On the kernels that have
	 * it, the filter is known good (make check runs this case).
	 */
	r = install_own_filter();
	if (r == -EINVAL) {
		fprintf(stderr, "prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER): EINVAL\n");
		_exit(77);
	}
	child_assert(r == 0);
	/* The kernel's timer: everything works.  An emulated one: an errno, never a crash. */
	errno = 0;
	r = timerfd_settime(fd, 0, &its, NULL);
	child_assert(emulated ? (r == 0 || (r == -1 && errno != 0)) : r == 0);
	errno = 0;
	r = timerfd_gettime(fd, &cur);
	child_assert(emulated ? (r == 0 || (r == -1 && errno != 0)) : r == 0);
	/* It fires on whatever the calls said: reads are the program's own. */
	child_assert(read_ticks(fd, &ticks) == 0 && ticks >= 1);
	/* A new timer: made whole, or an errno and no descriptor left behind. */
	before = low_fds();
	errno = 0;
	made = timerfd_create(CLOCK_MONOTONIC, 0);
	if (made < 0) {
		child_assert(emulated && errno != 0);
		child_assert(low_fds() == before);
	} else {
		child_assert(low_fds() == before + 1);
		child_assert(timerfd_settime(made, 0, &its, NULL) == 0);
		child_assert(read_ticks(made, &ticks) == 0 && ticks >= 1);
	}
}

START_TEST(a_programs_own_seccomp_filter_gets_an_errno_never_a_half_made_timer)
{
	if (under_qemu()) {
		case_skipped("a_programs_own_seccomp_filter...: qemu-user cannot install seccomp filters");
		return;
	}
	/* valgrind's and the sanitizers' own system calls would meet the filter. */
	if (under_valgrind() || sanitizer()) {
		case_skipped("a_programs_own_seccomp_filter...: not under valgrind or a sanitizer, whose own calls the filter refuses");
		return;
	}
	in_child_or_skip(calls_under_the_programs_own_filter,
			 "a_programs_own_seccomp_filter...: this kernel has no seccomp filters "
			 "(PR_GET_SECCOMP refused, or its filter mode: EINVAL)");
}
END_TEST

/* --- memory: RLIMIT_AS ---------------------------------------------------------------- */


/* This process's address space in bytes (/proc/self/statm's first field, in pages). */
static rlim_t
address_space(void)
{
	unsigned long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	struct rlimit rl;
	rlim_t lo = 0, hi = (rlim_t)1 << (sizeof(void *) * 8 - 2);

	if (f) {
		child_assert(fscanf(f, "%lu", &pages) == 1);
		fclose(f);
		return (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE);
	}
	/* Without /proc: the least limit under which one more page can still be mapped. */
	child_assert(getrlimit(RLIMIT_AS, &rl) == 0);
	while (hi - lo > 4096) {
		rlim_t mid = lo + (hi - lo) / 2;
		void *p;

		rl.rlim_cur = mid;
		child_assert(setrlimit(RLIMIT_AS, &rl) == 0);
		p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			lo = mid;
		} else {
			munmap(p, 4096);
			hi = mid;
		}
	}
	rl.rlim_cur = RLIM_INFINITY;
	child_assert(setrlimit(RLIMIT_AS, &rl) == 0);
	return hi - 4096;
}

static void
run_out_of_memory(void)
{
	struct rlimit rl, fds;
	struct itimerspec its = its_ns(NS_PER_MS, 0);
	uint64_t ticks = 0;
	int first, fd, n = 0;

	/* No room for anything new before the first timer: a thread, its stack, the slots. */
	child_assert(getrlimit(RLIMIT_AS, &rl) == 0 && getrlimit(RLIMIT_NOFILE, &fds) == 0);
	rl.rlim_cur = address_space() + 256 * 1024;
	child_assert(setrlimit(RLIMIT_AS, &rl) == 0);
	first = timerfd_create(CLOCK_MONOTONIC, 0);
	child_assert(first >= 0 || errno == ENOMEM);
	rl.rlim_cur = RLIM_INFINITY;
	child_assert(setrlimit(RLIMIT_AS, &rl) == 0);
	if (first < 0)
		first = timerfd_create(CLOCK_MONOTONIC, 0);
	child_assert(first >= 0);
	/* Then timers until memory (or descriptors) run out: the kernel's errno, the rest intact. */
	rl.rlim_cur = address_space() + 256 * 1024;
	child_assert(setrlimit(RLIMIT_AS, &rl) == 0);
	while ((fd = timerfd_create(CLOCK_MONOTONIC, 0)) >= 0 && n < 100000)
		n++;
	child_assert(fd < 0 && (errno == ENOMEM || errno == EMFILE || errno == ENFILE));
	child_assert(timerfd_settime(first, 0, &its, NULL) == 0);
	child_assert(read_ticks(first, &ticks) == 0 && ticks == 1);
	(void)fds;
}

START_TEST(running_out_of_memory_gives_the_kernels_errno_and_breaks_nothing)
{
	/* valgrind's own allocations fail first under RLIMIT_AS, and it stops the process. */
	if (under_valgrind()) {
		case_skipped("running_out_of_memory...: not under valgrind, whose own allocations fail first");
		return;
	}
	/* Under qemu-user the limit binds the emulator's own memory too (one host process). */
	if (under_qemu()) {
		case_skipped("running_out_of_memory...: not under qemu-user, whose allocations it limits");
		return;
	}
#ifdef SHADOW_MEMORY
	case_skipped("running_out_of_memory...: not under a sanitizer with shadow memory");
	return;
#endif
	in_child(run_out_of_memory);
}
END_TEST

/* --- fork: one timer for parent and child --------------------------------------------- */

/* Reads @fd (non-blocking) for @ns; the expirations seen, and in *@periods how many 10 ms
 * periods that took (longer than @ns on a slow machine, or under valgrind). */
static uint64_t
count_for(int fd, int64_t ns, int64_t *periods)
{
	int64_t start = now_ns(CLOCK_MONOTONIC), end = start + ns;
	uint64_t total = 0, ticks;

	while (now_ns(CLOCK_MONOTONIC) < end) {
		if (read_ticks(fd, &ticks) == 0)
			total += ticks;
		sleep_ns(NS_PER_MS);
	}
	if (read_ticks(fd, &ticks) == 0)
		total += ticks;
	*periods = (now_ns(CLOCK_MONOTONIC) - start) / (10 * NS_PER_MS);
	return total;
}

START_TEST(parent_and_child_reading_one_timer_count_each_expiration_once)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK), link[2], status;
	struct itimerspec its = its_ns(10 * NS_PER_MS, 10 * NS_PER_MS), cur;
	uint64_t mine, theirs = 0;
	int64_t periods;
	pid_t pid;

	ck_assert_int_eq(pipe(link), 0);
	ck_assert_int_eq(timerfd_settime(fd, 0, &its, NULL), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* The child also asks for the time left: that must not count twice. */
		uint64_t n = 0, ticks;
		int64_t end = now_ns(CLOCK_MONOTONIC) + 500 * NS_PER_MS;

		while (now_ns(CLOCK_MONOTONIC) < end) {
			timerfd_gettime(fd, &cur);
			if (read_ticks(fd, &ticks) == 0)
				n += ticks;
			sleep_ns(NS_PER_MS);
		}
		_exit(write(link[1], &n, sizeof(n)) == sizeof(n) ? 0 : 1);
	}
	/* The parent reads longer than the child, so that it sees every period. */
	mine = count_for(fd, 600 * NS_PER_MS, &periods);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_int_eq(read(link[0], &theirs, sizeof(theirs)), sizeof(theirs));
	/* One count per period (from the arming); twice that if both processes delivered each. */
	ck_assert_msg(mine + theirs >= (uint64_t)periods / 2 &&
			      mine + theirs <= (uint64_t)periods * 5 / 4 + 3,
		      "parent %llu + child %llu in %lld periods", (unsigned long long)mine,
		      (unsigned long long)theirs, (long long)periods);
	close(fd);
	close(link[0]);
	close(link[1]);
}
END_TEST

static int outlive_link;

/* The timer's holder after its parent (and, with @twice, grandparent) exited. */
static void
child_outlives_its_parent(bool twice)
{
	/* How late this machine wakes a process now (before the timer: the relay holds none of
	 * it): the server's delivery may be as late. */
	int64_t periods, machine = wakeup_lateness_ns(10), armed;
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK), r;
	struct itimerspec its = its_ns(10 * NS_PER_MS, 10 * NS_PER_MS);
	uint64_t n = 0, report[2];
	pid_t pid;

	armed = now_ns(CLOCK_MONOTONIC);
	child_assert(fd >= 0 && timerfd_settime(fd, 0, &its, NULL) == 0);
	/* daemon(): fork, the parent exits, setsid, (fork again, the parent exits). */
	for (int i = 0; i < (twice ? 2 : 1); i++) {
		pid = fork();
		child_assert(pid >= 0);
		if (pid > 0)
			_exit(0);
		setsid();
	}
	sleep_ns(scaled_ns(50 * NS_PER_MS) + 4 * machine); /* the parents are gone */
	/* What piled up meanwhile comes in one read, as from a kernel timer. */
	r = read_ticks(fd, &n);
	if (r != 0 || n < 3) {
		fprintf(stderr, "child: first read after the parents exited: %s, count %llu, %lld ms "
				"after the arming (wake-ups late by up to %lld us here)\n",
			r ? strerror(-r) : "8 bytes", (unsigned long long)n,
			(long long)((now_ns(CLOCK_MONOTONIC) - armed) / NS_PER_MS), (long long)(machine / 1000));
		_exit(1);
	}
	n = count_for(fd, 300 * NS_PER_MS, &periods);
	report[0] = n;
	report[1] = (uint64_t)periods;
	child_assert(write(outlive_link, report, sizeof(report)) == sizeof(report));
	_exit(0);
}

static void
outlive_once(void)
{
	child_outlives_its_parent(false);
}

static void
outlive_twice(void)
{
	child_outlives_its_parent(true);
}

static void
timer_fires_for_the_survivor(void (*fn)(void))
{
	int link[2];
	uint64_t r[2] = { 0 };

	ck_assert_int_eq(pipe(link), 0);
	outlive_link = link[1];
	in_child(fn);
	close(link[1]);
	ck_assert_int_eq(read(link[0], r, sizeof(r)), sizeof(r));
	/* One per 10 ms period: a timer that stopped with its first holder gives 0. */
	ck_assert_msg(r[0] >= r[1] / 2 && r[0] <= r[1] + 3, "%llu expirations in %llu periods",
		      (unsigned long long)r[0], (unsigned long long)r[1]);
	close(link[0]);
}

START_TEST(a_childs_timer_fires_on_after_its_parent_exits)
{
	timer_fires_for_the_survivor(outlive_once);
}
END_TEST

START_TEST(a_daemons_timer_fires_on_after_both_its_parents_exit)
{
	timer_fires_for_the_survivor(outlive_twice);
}
END_TEST

START_TEST(a_successful_call_leaves_errno_alone)
{
	struct itimerspec its = its_ns(NS_PER_S, 0), cur;
	int fd;

	errno = 1234;
	fd = timerfd_create(CLOCK_MONOTONIC, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(errno, 1234);
	ck_assert_int_eq(timerfd_settime(fd, 0, &its, &cur), 0);
	ck_assert_int_eq(errno, 1234);
	ck_assert_int_eq(timerfd_gettime(fd, &cur), 0);
	ck_assert_int_eq(errno, 1234);
	/* Also with expirations pending, which settime drops. */
	its = its_ns(1, 0);
	ck_assert_int_eq(timerfd_settime(fd, 0, &its, NULL), 0);
	sleep_ns(5 * NS_PER_MS);
	ck_assert_int_eq(timerfd_settime(fd, 0, &its, NULL), 0);
	ck_assert_int_eq(errno, 1234);
	close(fd);
}
END_TEST

TCase *
tcase_processes(void)
{
	TCase *tc = tcase_create("processes");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, settime_and_gettime_work_from_a_signal_handler);
	tcase_add_test(tc, a_signal_handler_may_call_the_api_while_the_program_allocates);
	tcase_add_test(tc, a_blocked_signal_sent_as_the_first_timer_is_made_waits_for_the_program);
	tcase_add_test(tc, a_thread_cancelled_inside_the_calls_leaves_the_others_working);
	tcase_add_test(tc, a_programs_own_prepare_handler_may_call_the_api);
	tcase_add_test(tc, timers_work_after_the_main_thread_exits);
	tcase_add_test(tc, closing_a_timer_at_the_descriptor_limit_makes_room_at_once);
	tcase_add_test(tc, a_rearm_at_the_descriptor_limit_leaves_no_stale_count);
	tcase_add_test(tc, a_rearm_after_chroot_leaves_no_stale_count);
	tcase_add_test(tc, a_programs_own_seccomp_filter_gets_an_errno_never_a_half_made_timer);
	tcase_add_test(tc, running_out_of_memory_gives_the_kernels_errno_and_breaks_nothing);
	tcase_add_test(tc, parent_and_child_reading_one_timer_count_each_expiration_once);
	tcase_add_test(tc, a_childs_timer_fires_on_after_its_parent_exits);
	tcase_add_test(tc, a_daemons_timer_fires_on_after_both_its_parents_exit);
	tcase_add_test(tc, a_successful_call_leaves_errno_alone);
	return tc;
}
