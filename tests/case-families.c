/* SPDX-License-Identifier: MIT */
/*
 * Test cases: a family of processes: privilege changes, recycled workers, stopped processes,
 * passed descriptors, namespaces.  What daemons do to themselves after their first timer
 * (ntpd, sshd's privilege separation, nginx and php-fpm workers, containers): the kernel's
 * timer does not care, so neither may the emulation (its server holds the timers, not the
 * processes).  The kernel is the reference; the one documented difference (settime and
 * gettime on a timer received from another family: EINVAL) is asserted as such.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>

#include "helpers.h"
#include "suite.h"

/* Where privileges are dropped to: nobody, nogroup. */
#define NOBODY 65534

/* A sanitizer's runtime slows every call and every fork. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif

/* --- helpers of this file ------------------------------------------------------------- */

/*
 * Whether every call is many times slower here: qemu-user, valgrind, a
 * sanitizer, an emulated CPU (make check-vm's guests say so: TFD_TEST_EMULATED_CPU=1).
 * The scale cases then use fewer timers; they run at full scale natively.
 */
static bool
slow_here(void)
{
#ifdef SANITIZED
	return true;
#else
	const char *cpu = getenv("TFD_TEST_EMULATED_CPU");

	return under_qemu() || under_valgrind() || (cpu && strcmp(cpu, "1") == 0);
#endif
}

/* Waits for @pid (a child of the test process) and asserts that it exited with 0. */
static void
reap(pid_t pid)
{
	int status;

	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %d: status %#x",
		      (int)pid, status);
}

/* In a child: uid and gid nobody, for good (real, effective, saved), and checked. */
static void
become_nobody(void)
{
	become_user(NOBODY);
	child_assert(getuid() == NOBODY && geteuid() == NOBODY && getgid() == NOBODY &&
		     getegid() == NOBODY);
}

/* What read_for() saw: every read must give 8 bytes holding a count >= 1. */
struct reads {
	uint64_t total;     /* expirations counted after the first read */
	int n;              /* reads after the first */
	int bad;            /* reads that gave anything else (0, end-of-file, an error, nothing in 2 s) */
	long bad_ret;       /* the first bad one: what read() returned, */
	int bad_errno;      /* its errno, */
	uint64_t bad_ticks; /* and the count it held */
	int64_t elapsed;    /* ns from the end of the first read to the end of the last */
};

/* One read of @fd (blocking or not, POLLIN awaited for 2 s at most), recorded in @r. */
static uint64_t
read_one(int fd, struct reads *r)
{
	uint64_t ticks = 0;
	ssize_t n = -1;

	errno = 0;
	if (becomes_readable(fd, 2000))
		n = read(fd, &ticks, sizeof(ticks));
	else
		errno = ETIMEDOUT;
	if (n == (ssize_t)sizeof(ticks) && ticks >= 1)
		return ticks;
	if (!r->bad++) {
		r->bad_ret = (long)n;
		r->bad_errno = errno;
		r->bad_ticks = ticks;
	}
	return 0;
}

/*
 * Reads the periodic timer @fd for @ns: a first read takes what piled up before (and is
 * checked like the others), then the counts of the reads that end within @ns are added up.
 */
static struct reads
read_for(int fd, int64_t ns)
{
	struct reads r = { 0 };
	int64_t start, now;

	read_one(fd, &r);
	start = now_ns(CLOCK_MONOTONIC);
	do {
		r.total += read_one(fd, &r);
		r.n++;
		now = now_ns(CLOCK_MONOTONIC);
	} while (now - start < ns && r.bad < 3);
	r.elapsed = now - start;
	return r;
}

#define READS_FMT "%llu expirations in %d reads over %lld ms; %d bad reads (first: returned %ld, errno %d, count %llu)"
#define READS_ARGS(r)                                                                      \
	(unsigned long long)(r).total, (r).n, (long long)((r).elapsed / NS_PER_MS), (r).bad, \
		(r).bad_ret, (r).bad_errno, (unsigned long long)(r).bad_ticks

/* A descriptor over a UNIX socket (SCM_RIGHTS): 0, or -1. */
static int
send_fd(int sock, int fd)
{
	char byte = 't';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			      .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c;

	memset(&u, 0, sizeof(u));
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

/* The descriptor sent by send_fd(), or -1. */
static int
recv_fd(int sock)
{
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			      .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c;
	int fd = -1;

	memset(&u, 0, sizeof(u));
	if (recvmsg(sock, &msg, 0) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
	    c->cmsg_len != CMSG_LEN(sizeof(int)))
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* --- privilege drops ---------------------------------------------------------------------- */

/*
 * ntpd, sshd's privilege separation, nginx's workers: a process makes its timers as root,
 * forks, and the child gives up root for good.  Its timers, old and new, work as before.
 */
static int priv_timer = -1;

static void
after_the_privilege_drop(void)
{
	struct itimerspec shot = its_ns(2 * NS_PER_MS, 0), later = its_ns(10 * NS_PER_S, 0);
	struct itimerspec old, cur;
	uint64_t ticks = 0;
	int64_t rearmed;
	int b;

	become_nobody();
	/* A new timer: made, armed and read as nobody. */
	b = timerfd_create(CLOCK_MONOTONIC, 0);
	child_assert(b >= 0);
	child_assert(timerfd_settime(b, 0, &shot, NULL) == 0);
	child_assert(read_ticks(b, &ticks) == 0 && ticks == 1);
	/* The parent's periodic timer, rearmed while a count waits on it (a blocking descriptor). */
	child_assert(becomes_readable(priv_timer, 2000));
	rearmed = now_ns(CLOCK_MONOTONIC);
	child_assert(timerfd_settime(priv_timer, 0, &later, &old) == 0);
	child_assert(ts_ns(&old.it_interval) == 10 * NS_PER_MS);
	/* Setting discards what was pending: nothing stale is readable. */
	child_assert(readable_within(priv_timer, 0) == 0);
	child_assert(timerfd_gettime(priv_timer, &cur) == 0);
	child_assert(ts_ns(&cur.it_interval) == 0);
	child_assert(ts_ns(&cur.it_value) >= 10 * NS_PER_S - (now_ns(CLOCK_MONOTONIC) - rearmed) &&
		     ts_ns(&cur.it_value) <= 10 * NS_PER_S);
	/* The new timer, expired: 0, 0. */
	child_assert(timerfd_gettime(b, &cur) == 0);
	child_assert(ts_ns(&cur.it_value) == 0 && ts_ns(&cur.it_interval) == 0);
	/* And the new timer rearmed with a count pending too. */
	shot = its_ns(NS_PER_MS, NS_PER_MS);
	child_assert(timerfd_settime(b, 0, &shot, NULL) == 0);
	child_assert(becomes_readable(b, 2000));
	child_assert(timerfd_settime(b, 0, &later, NULL) == 0);
	child_assert(readable_within(b, 0) == 0);
	close(b);
}

START_TEST(a_child_that_dropped_root_makes_arms_reads_and_rearms_timers)
{
	struct itimerspec its = its_ns(10 * NS_PER_MS, 10 * NS_PER_MS), cur;
	char said[200];

	if (geteuid() != 0) {
		case_skipped("a_child_that_dropped_root...: needs root, to drop it");
		return;
	}
	if (!root_can_become(NOBODY, said, sizeof(said))) {
		char why[300];

		snprintf(why, sizeof(why), "a_child_that_dropped_root...: root cannot be dropped: %s", said);
		case_skipped(why);
		return;
	}
	priv_timer = timerfd_create(CLOCK_MONOTONIC, 0);
	ck_assert_int_ge(priv_timer, 0);
	ck_assert_int_eq(timerfd_settime(priv_timer, 0, &its, NULL), 0);
	in_child(after_the_privilege_drop);
	/* One timer for parent and child: the parent sees the child's rearm. */
	ck_assert_int_eq(timerfd_gettime(priv_timer, &cur), 0);
	ck_assert_int_eq(ts_ns(&cur.it_interval), 0);
	ck_assert_int_gt(ts_ns(&cur.it_value), 5 * NS_PER_S);
	close(priv_timer);
}
END_TEST

/* What the daemon of the next case tells the test process. */
struct daemon_report {
	struct reads r;
	int reparented; /* its parent had exited before it read */
};

START_TEST(a_daemon_that_dropped_root_reads_its_parents_timer_after_the_parent_exits)
{
	struct itimerspec its = its_ns(10 * NS_PER_MS, 10 * NS_PER_MS);
	struct daemon_report rep;
	int fd, link[2];
	int64_t upper;
	pid_t middle;
	char said[200];

	if (geteuid() != 0) {
		case_skipped("a_daemon_that_dropped_root...: needs root, to drop it");
		return;
	}
	if (!root_can_become(NOBODY, said, sizeof(said))) {
		char why[300];

		snprintf(why, sizeof(why), "a_daemon_that_dropped_root...: root cannot be dropped: %s", said);
		case_skipped(why);
		return;
	}
	fd = timerfd_create(CLOCK_MONOTONIC, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(timerfd_settime(fd, 0, &its, NULL), 0);
	ck_assert_int_eq(pipe(link), 0);
	middle = fork();
	ck_assert_int_ge(middle, 0);
	if (middle == 0) {
		pid_t parent = getpid(), daemon_pid = fork();

		if (daemon_pid != 0)
			_exit(daemon_pid > 0 ? 0 : 1); /* at once */
		child_alarm(20);
		close(link[0]);
		setsid();
		memset(&rep, 0, sizeof(rep));
		/* The middle process is gone once this one is adopted. */
		for (int i = 0; i < 5000 && getppid() == parent; i++)
			sleep_ns(NS_PER_MS);
		rep.reparented = getppid() != parent;
		become_nobody();
		rep.r = read_for(fd, 300 * NS_PER_MS);
		child_assert(write(link[1], &rep, sizeof(rep)) == sizeof(rep));
		_exit(0);
	}
	close(link[1]);
	reap(middle);
	/* The daemon's report, or end-of-file if it failed (its message is on stderr). */
	ck_assert(becomes_readable(link[0], 15000));
	ck_assert_int_eq(read(link[0], &rep, sizeof(rep)), sizeof(rep));
	ck_assert(rep.reparented);
	ck_assert_msg(rep.r.bad == 0, READS_FMT, READS_ARGS(rep.r));
	/* One per 10 ms period: 30 in 300 ms; more only if the loop overran its 300 ms. */
	upper = 35;
	if (rep.r.elapsed > 300 * NS_PER_MS)
		upper += (rep.r.elapsed - 300 * NS_PER_MS) / (10 * NS_PER_MS);
	ck_assert_msg(rep.r.total >= 20 && (int64_t)rep.r.total <= upper, READS_FMT,
		      READS_ARGS(rep.r));
	close(link[0]);
	close(fd);
}
END_TEST

/* --- a thread that changes its fsuid -------------------------------------------------- */

/* setfsuid(2), the system call itself: it changes the calling thread's credentials only. */
static long
set_fsuid(long uid)
{
#ifdef SYS_setfsuid32
	return syscall(SYS_setfsuid32, uid);
#else
	return syscall(SYS_setfsuid, uid);
#endif
}

static int fsuid_old_timer = -1;

/* As fsuid nobody: make, arm, read, rearm with a count pending (blocking), query. */
static void *
as_fsuid_nobody(void *arg)
{
	struct itimerspec shot = its_ns(2 * NS_PER_MS, 0), fast = its_ns(NS_PER_MS, NS_PER_MS);
	struct itimerspec later = its_ns(10 * NS_PER_S, 0), cur;
	uint64_t ticks = 0;
	int fd;

	(void)arg;
	set_fsuid(NOBODY);
	child_assert(set_fsuid(-1) == NOBODY); /* -1 changes nothing, and tells the fsuid */
	child_assert(geteuid() == 0);
	fd = timerfd_create(CLOCK_MONOTONIC, 0);
	child_assert(fd >= 0);
	child_assert(timerfd_settime(fd, 0, &shot, NULL) == 0);
	child_assert(read_ticks(fd, &ticks) == 0 && ticks == 1);
	child_assert(timerfd_settime(fd, 0, &fast, NULL) == 0);
	child_assert(becomes_readable(fd, 2000));
	child_assert(timerfd_settime(fd, 0, &later, NULL) == 0);
	child_assert(readable_within(fd, 0) == 0);
	child_assert(timerfd_gettime(fd, &cur) == 0);
	child_assert(ts_ns(&cur.it_value) > 5 * NS_PER_S && ts_ns(&cur.it_interval) == 0);
	if (fsuid_old_timer >= 0) {
		/* A timer the process made before, as root: the same. */
		child_assert(timerfd_settime(fsuid_old_timer, 0, &fast, NULL) == 0);
		child_assert(becomes_readable(fsuid_old_timer, 2000));
		child_assert(timerfd_settime(fsuid_old_timer, 0, &later, NULL) == 0);
		child_assert(readable_within(fsuid_old_timer, 0) == 0);
		child_assert(timerfd_gettime(fsuid_old_timer, &cur) == 0);
		child_assert(ts_ns(&cur.it_value) > 5 * NS_PER_S);
	}
	return (void *)(intptr_t)fd;
}

/* @first: this process's first timer is made in the fsuid thread; otherwise before it. */
static void
fsuid_thread(bool first)
{
	struct itimerspec fast = its_ns(NS_PER_MS, NS_PER_MS), later = its_ns(NS_PER_S, 0), cur;
	pthread_t t;
	void *ret;
	int fd;

	if (!first) {
		fsuid_old_timer = timerfd_create(CLOCK_MONOTONIC, 0);
		child_assert(fsuid_old_timer >= 0);
	}
	child_assert(pthread_create(&t, NULL, as_fsuid_nobody, NULL) == 0);
	child_assert(pthread_join(t, &ret) == 0);
	/* This thread (fsuid root) goes on with the timer the other made. */
	fd = (int)(intptr_t)ret;
	child_assert(set_fsuid(-1) == 0);
	child_assert(timerfd_settime(fd, 0, &fast, NULL) == 0);
	child_assert(becomes_readable(fd, 2000));
	child_assert(timerfd_settime(fd, 0, &later, NULL) == 0);
	child_assert(readable_within(fd, 0) == 0);
	child_assert(timerfd_gettime(fd, &cur) == 0 && ts_ns(&cur.it_value) > 0);
	close(fd);
}

static void
fsuid_thread_first(void)
{
	fsuid_thread(true);
}

static void
fsuid_thread_after(void)
{
	fsuid_thread(false);
}

START_TEST(a_thread_that_changes_only_its_fsuid_makes_arms_reads_and_rearms_timers)
{
	errno = 0;
	if (set_fsuid(-1) == -1 && errno == ENOSYS) {
		case_skipped("a_thread_that_changes_only_its_fsuid...: setfsuid(2) refused here (ENOSYS, as in the basic ABI)");
		return;
	}
	if (geteuid() != 0) {
		case_skipped("a_thread_that_changes_only_its_fsuid...: needs root (CAP_SETUID)");
		return;
	}
	/* The family's first timer made in that thread (the emulation's server starts from it), and after. */
	in_child(fsuid_thread_first);
	in_child(fsuid_thread_after);
}
END_TEST

/* --- recycled workers ------------------------------------------------------------------- */

#define WORKER_TIMERS 200

/* A prefork worker: 200 timers, half of them armed at 1 ms; then it exits, or waits to be killed. */
static void
worker(int ready, bool killed)
{
	struct itimerspec fast = its_ns(NS_PER_MS, NS_PER_MS);

	for (int i = 0; i < WORKER_TIMERS; i++) {
		int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);

		if (fd < 0) {
			fprintf(stderr, "worker %d: timer %d: %s\n", (int)getpid(), i, strerror(errno));
			_exit(1);
		}
		if (i % 2 == 0)
			child_assert(timerfd_settime(fd, 0, &fast, NULL) == 0);
	}
	if (!killed)
		_exit(0);
	child_assert(write(ready, "k", 1) == 1);
	for (;;)
		pause();
}

/* Whether the worker @pid said it is ready (on @ready) before it ended (its *@status then). */
static bool
worker_ready(int ready, pid_t pid, int *status)
{
	char c;

	for (int ms = 0; ms < scaled_ms(15000); ms += 10) {
		if (readable_within(ready, 10) == 1)
			return read(ready, &c, 1) == 1;
		if (waitpid(pid, status, WNOHANG) == pid)
			return false;
	}
	return false;
}

START_TEST(recycled_workers_never_run_out_of_timers)
{
	/* More than 70,000 timers in all; 2,000 under qemu-user, valgrind or a sanitizer. */
	int rounds = slow_here() ? 10 : 70000 / WORKER_TIMERS + 1;
	int64_t bound = scaled_ns(40 * NS_PER_S);
	struct itimerspec its = its_ns(10 * NS_PER_MS, 10 * NS_PER_MS), shot = its_ns(NS_PER_MS, 0);
	int64_t start = now_ns(CLOCK_MONOTONIC), took, periods;
	int first = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK), ready[2], fd;
	uint64_t ticks = 0;

	ck_assert_int_ge(first, 0);
	ck_assert_int_eq(timerfd_settime(first, 0, &its, NULL), 0);
	ck_assert_int_eq(pipe(ready), 0);
	for (int round = 0; round < rounds; round++) {
		bool killed = round % 2;
		int status = 0;
		pid_t pid = fork();

		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			child_alarm(20);
			close(ready[0]);
			worker(ready[1], killed);
		}
		if (killed) {
			/* Killed with its timers armed, as a master recycles a worker. */
			ck_assert_msg(worker_ready(ready[0], pid, &status),
				      "round %d (%d timers made before): worker status %#x", round,
				      round * WORKER_TIMERS, status);
			ck_assert_int_eq(kill(pid, SIGKILL), 0);
		}
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert_msg(killed ? WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL
				     : WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "round %d (%d timers made before): worker status %#x", round,
			      round * WORKER_TIMERS, status);
	}
	took = now_ns(CLOCK_MONOTONIC) - start;
	/* The master still makes, arms and reads a timer, */
	fd = timerfd_create(CLOCK_MONOTONIC, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(timerfd_settime(fd, 0, &shot, NULL), 0);
	ck_assert_int_eq(read_ticks(fd, &ticks), 0);
	ck_assert_uint_eq(ticks, 1);
	/* and its first timer counted every period meanwhile, and still counts. */
	periods = (now_ns(CLOCK_MONOTONIC) - start) / (10 * NS_PER_MS);
	ck_assert_int_eq(read_ticks(first, &ticks), 0);
	ck_assert_msg((int64_t)ticks >= periods / 2 && (int64_t)ticks <= periods + 3,
		      "%llu expirations in %lld periods", (unsigned long long)ticks,
		      (long long)periods);
	ck_assert(becomes_readable(first, 2000));
	ck_assert_int_eq(read_ticks(first, &ticks), 0);
	ck_assert_uint_ge(ticks, 1);
	/* Well within the case's timeout (measured here: 0.3 s on the kernel, 20 s emulated). */
	ck_assert_msg(took < bound, "%d timers in %lld ms", rounds * WORKER_TIMERS,
		      (long long)(took / NS_PER_MS));
	close(fd);
	close(first);
	close(ready[0]);
	close(ready[1]);
}
END_TEST

/* --- many live timers in several workers at once ---------------------------------------- */

#define BUSY_WORKERS 4

/* What each busy worker reports to the master. */
struct busy_workers {
	int64_t took_ns[BUSY_WORKERS]; /* to make and arm every one of its timers */
	int go;                        /* set by the master once every timer of every worker lives */
};

/*
 * A worker holding @n live timers at once, each armed 60 s (scaled) ahead; once told that every
 * worker holds its own, it rearms every 100th at 1 ms and reads it, and finds the others
 * still armed.
 */
static void
hold_live_timers(int n, int ready, struct busy_workers *w, int index)
{
	struct rlimit rl;
	/* Far enough that none expires while every worker makes its own, however slow the machine. */
	struct itimerspec later = its_ns(scaled_ns(60 * NS_PER_S), 0), soon = its_ns(NS_PER_MS, 0), cur;
	int64_t start = now_ns(CLOCK_MONOTONIC);
	int *fds = malloc((size_t)n * sizeof(*fds));
	uint64_t ticks;

	child_assert(fds && getrlimit(RLIMIT_NOFILE, &rl) == 0);
	if (rl.rlim_cur < (rlim_t)n + 64) {
		rl.rlim_cur = (rlim_t)n + 64;
		child_assert(setrlimit(RLIMIT_NOFILE, &rl) == 0);
	}
	for (int i = 0; i < n; i++) {
		fds[i] = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (fds[i] < 0) {
			fprintf(stderr, "worker %d: timer %d of %d: %s\n", index, i, n, strerror(errno));
			_exit(1);
		}
		child_assert(timerfd_settime(fds[i], 0, &later, NULL) == 0);
	}
	w->took_ns[index] = now_ns(CLOCK_MONOTONIC) - start;
	child_assert(write(ready, "r", 1) == 1);
	while (!__atomic_load_n(&w->go, __ATOMIC_ACQUIRE))
		sleep_ns(NS_PER_MS);
	for (int i = 0; i < n; i++) {
		if (i % 100 == 0) {
			child_assert(timerfd_settime(fds[i], 0, &soon, NULL) == 0);
			/* Liveness, not latency: 72,000 timers in an emulated CPU (make check-vm) may be slow. */
			child_assert(becomes_readable(fds[i], 30000));
			child_assert(read_ticks(fds[i], &ticks) == 0 && ticks == 1);
		} else if (i % 100 == 50) {
			child_assert(timerfd_gettime(fds[i], &cur) == 0);
			child_assert(cur.it_value.tv_sec > 0 && ts_ns(&cur.it_value) <= ts_ns(&later.it_value));
		}
	}
	_exit(0);
}

START_TEST(four_workers_hold_18000_live_timers_each_at_once)
{
	/* 4 x 500 under qemu-user, valgrind or a sanitizer. */
	int n = slow_here() ? 500 : 18000, ready[2], started = 0, first;
	struct busy_workers *w = mmap(NULL, sizeof(*w), PROT_READ | PROT_WRITE,
				      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct rlimit rl;
	pid_t pids[BUSY_WORKERS];
	char c;

	/* Each worker's own limit must allow its timers (as with the kernel's); the emulation's
	 * servers share the family's 72,000 among themselves (libtimerfd(7), shards). */
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < (rlim_t)n + 64) {
		rl.rlim_max = (rlim_t)n + 64;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
			case_skipped("four_workers_hold_18000_live_timers_each_at_once: the hard "
				     "RLIMIT_NOFILE is below 18,064 and cannot be raised here");
			return;
		}
	}
	ck_assert_ptr_ne(w, MAP_FAILED);
	ck_assert_int_eq(pipe(ready), 0);
	/* The master's own timer first: the workers it forks are then one family with it. */
	first = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	ck_assert_int_ge(first, 0);
	for (int i = 0; i < BUSY_WORKERS; i++) {
		pids[i] = fork();
		ck_assert_int_ge(pids[i], 0);
		if (pids[i] == 0) {
			child_alarm(50);
			close(ready[0]);
			hold_live_timers(n, ready[1], w, i);
		}
	}
	close(ready[1]);
	/* Every worker holds all of its timers, armed, at once (unless one ended first); */
	for (int ms = 0; started < BUSY_WORKERS && ms < scaled_ms(45000); ms += 100) {
		siginfo_t si = { .si_pid = 0 };

		if (readable_within(ready[0], 100) == 1 && read(ready[0], &c, 1) == 1)
			started++;
		else if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid != 0)
			break;
	}
	__atomic_store_n(&w->go, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < BUSY_WORKERS; i++)
		reap(pids[i]);
	ck_assert_int_eq(started, BUSY_WORKERS);
	/* and none waited on the others: each made its own in well under the case's timeout
	 * (measured here: about 0.3 s on the kernel, 2-4 s emulated). */
	for (int i = 0; i < BUSY_WORKERS; i++)
		ck_assert_msg(w->took_ns[i] < scaled_ns(30 * NS_PER_S), "worker %d: %d timers in %lld ms", i, n,
			      (long long)(w->took_ns[i] / NS_PER_MS));
	close(ready[0]);
	close(first);
	munmap(w, sizeof(*w));
}
END_TEST

/*
 * A worker of a family whose descriptor limit is 256: 200 timers made, said on @made; once
 * @go ends (every worker holds its 200), each armed at 1 ms and read once.
 */
static void
two_hundred_timers(int made, int go)
{
	struct itimerspec soon = its_ns(NS_PER_MS, 0);
	int fds[200];
	uint64_t ticks;
	char c;

	for (int i = 0; i < 200; i++) {
		fds[i] = timerfd_create(CLOCK_MONOTONIC, 0);
		if (fds[i] < 0) {
			fprintf(stderr, "worker %d: timer %d: %s\n", (int)getpid(), i, strerror(errno));
			_exit(1);
		}
	}
	child_assert(write(made, "m", 1) == 1);
	child_assert(read(go, &c, 1) == 0);
	for (int i = 0; i < 200; i++)
		child_assert(timerfd_settime(fds[i], 0, &soon, NULL) == 0);
	for (int i = 0; i < 200; i++) {
		child_assert(read_ticks(fds[i], &ticks) == 0 && ticks == 1);
		close(fds[i]);
	}
	_exit(0);
}

START_TEST(a_family_holds_more_timers_than_one_process_may_hold_descriptors)
{
	/* Every process of the family (the servers too, where they cannot raise it) at 256. */
	struct rlimit rl = { 256, 256 };
	int first, made[2], go[2], n = 0;
	pid_t pids[4];
	char c;

	if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
		case_skipped("a_family_holds_more_timers_than_one_process...: the hard RLIMIT_NOFILE "
			     "cannot be lowered here (valgrind keeps its own)");
		return;
	}
	first = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	ck_assert_int_ge(first, 0);
	ck_assert_int_eq(pipe(made), 0);
	ck_assert_int_eq(pipe(go), 0);
	for (int i = 0; i < 4; i++) {
		pids[i] = fork();
		ck_assert_int_ge(pids[i], 0);
		if (pids[i] == 0) {
			child_alarm(20);
			close(made[0]);
			close(go[1]);
			two_hundred_timers(made[1], go[0]);
		}
	}
	close(made[1]);
	close(go[0]);
	/* 4 x 200 live at once: 800 timers, as four processes of 256 descriptors hold them, */
	while (n < 4 && read(made[0], &c, 1) == 1)
		n++;
	close(go[1]);
	/* each of which then fires once for its worker. */
	for (int i = 0; i < 4; i++)
		reap(pids[i]);
	ck_assert_int_eq(n, 4);
	close(made[0]);
	close(first);
}
END_TEST

/* --- stopped processes ------------------------------------------------------------------ */

/* Shared with the child: how far it got, and when to stop. */
struct busy_child {
	unsigned long progress;
	int stop;
};

/* The child: settime and gettime round and round, on its own timers and on the shared one. */
static void
keep_calling(int shared, struct busy_child *b)
{
	int own[4];

	for (int i = 0; i < 4; i++) {
		own[i] = timerfd_create(CLOCK_MONOTONIC, i % 2 ? TFD_NONBLOCK : 0);
		child_assert(own[i] >= 0);
	}
	for (unsigned long n = 0; !__atomic_load_n(&b->stop, __ATOMIC_RELAXED); n++) {
		/* Short periods: counts wait on them, so that a rearm has something to drop. */
		struct itimerspec its = its_ns((int64_t)(n % 50 + 1) * NS_PER_MS,
					       (int64_t)(n % 3) * NS_PER_MS),
				  cur;
		int fd = own[n % 4];

		child_assert(timerfd_settime(fd, 0, &its, NULL) == 0);
		child_assert(timerfd_gettime(fd, &cur) == 0);
		child_assert(timerfd_settime(shared, 0, &its, NULL) == 0);
		child_assert(timerfd_gettime(shared, &cur) == 0);
		if (n % 16 == 0) {
			int t = timerfd_create(CLOCK_MONOTONIC, 0);

			child_assert(t >= 0 && timerfd_settime(t, 0, &its, NULL) == 0);
			close(t);
		}
		__atomic_store_n(&b->progress, n + 1, __ATOMIC_RELAXED);
	}
	_exit(0);
}

START_TEST(a_stopped_process_never_stops_another_processs_timers)
{
	struct itimerspec tick_its = its_ns(10 * NS_PER_MS, 10 * NS_PER_MS), cur, old;
	struct itimerspec later = its_ns(10 * NS_PER_S, 0), shot = its_ns(NS_PER_MS, 0);
	int shared = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK), tick, own, status;
	struct busy_child *b = mmap(NULL, sizeof(*b), PROT_READ | PROT_WRITE,
				    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint64_t ticks = 0;
	pid_t pid;

	ck_assert_int_ge(shared, 0);
	ck_assert_ptr_ne(b, MAP_FAILED);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		child_alarm(30);
		keep_calling(shared, b);
	}
	/* The parent's own timers, made after the fork: the child holds none of them. */
	tick = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	own = timerfd_create(CLOCK_MONOTONIC, 0);
	ck_assert_int_ge(tick, 0);
	ck_assert_int_ge(own, 0);
	ck_assert_int_eq(timerfd_settime(tick, 0, &tick_its, NULL), 0);
	for (int i = 0; i < scaled_ms(2000) && !__atomic_load_n(&b->progress, __ATOMIC_RELAXED); i++)
		sleep_ns(NS_PER_MS);
	ck_assert_uint_gt(__atomic_load_n(&b->progress, __ATOMIC_RELAXED), 0);
	for (int i = 0; i < 40; i++) {
		int64_t t0;
		int fd, err;

		/* Between 0.1 and 5 ms of work, never the same: stopped anywhere in its calls. */
		sleep_ns((int64_t)(i * 7919 % 4900 + 100) * 1000);
		ck_assert_int_eq(kill(pid, SIGSTOP), 0);
		ck_assert_int_eq(waitpid(pid, &status, WUNTRACED), pid);
		ck_assert_msg(WIFSTOPPED(status), "child status %#x", status);
		/* While it is stopped, the parent's periodic timer goes on expiring, */
		read_ticks(tick, &ticks);
		err = read_ready_ticks(tick, &ticks, 1000);
		ck_assert_msg(err != -ETIMEDOUT, "stop %d: the periodic timer stopped", i);
		ck_assert_int_eq(err, 0);
		ck_assert_uint_ge(ticks, 1);
		/* and the parent's calls on its own timers (and a new one) return at once. */
		t0 = now_ns(CLOCK_MONOTONIC);
		ck_assert_int_eq(timerfd_settime(own, 0, &later, &old), 0);
		ck_assert_int_eq(timerfd_gettime(own, &cur), 0);
		ck_assert_int_eq(timerfd_gettime(tick, &cur), 0);
		ck_assert_int_eq(timerfd_settime(tick, 0, &tick_its, NULL), 0);
		fd = timerfd_create(CLOCK_MONOTONIC, 0);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(timerfd_settime(fd, 0, &shot, NULL), 0);
		ck_assert_int_eq(timerfd_gettime(fd, &cur), 0);
		close(fd);
		t0 = now_ns(CLOCK_MONOTONIC) - t0;
		ck_assert_msg(t0 < scaled_ns(NS_PER_S), "stop %d: the calls took %lld ms", i,
			      (long long)(t0 / NS_PER_MS));
		ck_assert_int_eq(kill(pid, SIGCONT), 0);
		ck_assert_int_eq(waitpid(pid, &status, WCONTINUED), pid);
		ck_assert_msg(WIFCONTINUED(status), "child status %#x", status);
	}
	/*
	 * The child was at work between the stops and works on after them: 40 more rounds
	 * (each a round trip to the shared timer's server on the emulation, the slowest of its
	 * calls), however it was stopped.  It ends at a call's end.
	 */
	{
		unsigned long p0 = __atomic_load_n(&b->progress, __ATOMIC_RELAXED);

		for (int i = 0; i < scaled_ms(5000) &&
				__atomic_load_n(&b->progress, __ATOMIC_RELAXED) <= p0 + 40;
		     i++)
			sleep_ns(NS_PER_MS);
		ck_assert_uint_gt(__atomic_load_n(&b->progress, __ATOMIC_RELAXED), p0 + 40);
	}
	__atomic_store_n(&b->stop, 1, __ATOMIC_RELAXED);
	reap(pid);
	/* The shared timer works for the parent once the child is gone. */
	ck_assert_int_eq(timerfd_settime(shared, 0, &shot, NULL), 0);
	ck_assert(becomes_readable(shared, 2000));
	ck_assert_int_eq(read_ticks(shared, &ticks), 0);
	ck_assert_uint_eq(ticks, 1);
	ck_assert_int_eq(timerfd_gettime(shared, &cur), 0);
	ck_assert_int_eq(ts_ns(&cur.it_value), 0);
	close(shared);
	close(tick);
	close(own);
	munmap(b, sizeof(*b));
}
END_TEST

/* --- a child that holds no timer ----------------------------------------------------------- */

static int64_t
tv_ns(const struct timeval *tv)
{
	return (int64_t)tv->tv_sec * NS_PER_S + (int64_t)tv->tv_usec * 1000;
}

/* What unshare(CLONE_NEWUSER) answers a process of one thread: 0, or its errno. */
static int
single_threaded_unshare_errno(void)
{
	int status;
	pid_t pid = fork();

	child_assert(pid >= 0);
	if (pid == 0)
		_exit(unshare(CLONE_NEWUSER) == 0 ? 0 : errno);
	child_assert(waitpid(pid, &status, 0) == pid && WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* In a child: its own CPU time over 300 ms while the parent's timers fire, and its one thread. */
static void
costs_nothing(void)
{
	struct rusage before, after;
	int64_t cpu, bound = (under_qemu() ? 100 : 20) * NS_PER_MS;
	DIR *d;

	child_assert(getrusage(RUSAGE_SELF, &before) == 0);
	sleep_ns(300 * NS_PER_MS);
	child_assert(getrusage(RUSAGE_SELF, &after) == 0);
	cpu = tv_ns(&after.ru_utime) - tv_ns(&before.ru_utime) + tv_ns(&after.ru_stime) -
	      tv_ns(&before.ru_stime);
	if (cpu >= bound) {
		fprintf(stderr, "child: %lld us of CPU in 300 ms\n", (long long)(cpu / 1000));
		_exit(1);
	}
	/* qemu-user runs threads of its own in every process. */
	if (under_qemu())
		return;
	/* One thread: its /proc/self/task has one entry (where there is a /proc), */
	d = opendir("/proc/self/task");
	if (d) {
		const struct dirent *e;
		int n = 0;

		while ((e = readdir(d)))
			n += e->d_name[0] != '.';
		closedir(d);
		child_assert(n == 1);
	}
	/* and unshare(CLONE_NEWUSER) does not refuse it as multi-threaded (EINVAL). */
	if (unshare(CLONE_NEWUSER) != 0) {
		int err = errno;

		/*
		 * A kernel built without user namespaces answers EINVAL too (create_user_ns()):
		 * a child forked now, which has one thread whatever this process has, is told
		 * EINVAL as well.  Then only /proc counted the threads (without it: unseen).
		 */
		if (err == EINVAL && single_threaded_unshare_errno() == EINVAL)
			return;
		if (err == EINVAL)
			fprintf(stderr, "child: unshare(CLONE_NEWUSER): EINVAL: it has threads\n");
		/* Refused by policy: EPERM; no more user namespaces: ENOSPC; not offered: ENOSYS. */
		child_assert(err == EPERM || err == ENOSPC || err == ENOSYS);
	}
}

static void
closes_everything_then_costs_nothing(void)
{
	/* What a worker or a daemon does first: every inherited descriptor past stdio goes. */
#ifdef SYS_close_range
	if (syscall(SYS_close_range, 3U, ~0U, 0U) != 0)
#endif
	{
		struct rlimit rl;

		child_assert(getrlimit(RLIMIT_NOFILE, &rl) == 0);
		for (rlim_t fd = 3; fd < rl.rlim_cur && fd < 1u << 20; fd++)
			close((int)fd);
	}
	costs_nothing();
}

START_TEST(a_child_that_holds_no_timer_costs_nothing)
{
	struct itimerspec its = its_ns(10 * NS_PER_MS, 10 * NS_PER_MS);
	int fds[100];

	/* Its runtime runs a thread of its own in every process: the child is never alone. */
	if (sanitizer() && strcmp(sanitizer(), "thread") == 0) {
		case_skipped("a_child_that_holds_no_timer...: ThreadSanitizer's runtime has a thread in every process");
		return;
	}

	for (int i = 0; i < 100; i++) {
		fds[i] = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
		ck_assert_int_ge(fds[i], 0);
		/* Spread over the period: expirations all the time. */
		its.it_value = ns_ts(10 * NS_PER_MS + i * 100000);
		ck_assert_int_eq(timerfd_settime(fds[i], 0, &its, NULL), 0);
	}
	/* A child that never touches the timers it inherited, and one that closes them all. */
	in_child(costs_nothing);
	in_child(closes_everything_then_costs_nothing);
	for (int i = 0; i < 100; i++)
		close(fds[i]);
}
END_TEST

/* --- descriptors passed with SCM_RIGHTS ----------------------------------------------------- */

/*
 * qemu-user byte-swaps a kernel timerfd's count for a target of the other byte order only
 * on the descriptors it saw made (its fd translator): a received one's count reads in the
 * host's order (31 as 0x1f00000000000000).  An emulated timer's count is the target's own.
 */
static bool
qemu_swaps_received_timerfd_counts(void)
{
	return under_qemu() && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__;
}

#define QEMU_SWAPS_WHY \
	": under qemu-user for a big-endian target a received kernel timerfd's count reads byte-swapped"

/* What the receiver of a passed timer saw. */
struct passed_report {
	struct reads r;
	int emulated;            /* the timer is the emulation's (a FIFO) */
	int get_ret, get_errno;  /* timerfd_gettime() on it */
	int64_t interval;        /* the interval it gave */
	int set_ret, set_errno;  /* timerfd_settime() on it */
	int after;               /* a read after the settime gave a count >= 1 */
};

/* Receives a timer and reads it for 300 ms, then asks for its time and arms it again. */
static void
receive_read_and_report(int sock, int link)
{
	struct itimerspec its = its_ns(10 * NS_PER_MS, 10 * NS_PER_MS), cur;
	struct passed_report rep;
	struct reads again = { 0 };
	int fd = recv_fd(sock);
	char gone;

	memset(&rep, 0, sizeof(rep));
	child_assert(fd >= 0);
	/* Read only once the sender has exited (the test process says so). */
	child_assert(becomes_readable(sock, 15000) && read(sock, &gone, 1) == 1);
	rep.emulated = timer_is_emulated(fd);
	rep.r = read_for(fd, 300 * NS_PER_MS);
	errno = 0;
	memset(&cur, 0, sizeof(cur));
	rep.get_ret = timerfd_gettime(fd, &cur);
	rep.get_errno = errno;
	rep.interval = ts_ns(&cur.it_interval);
	errno = 0;
	rep.set_ret = timerfd_settime(fd, 0, &its, NULL);
	rep.set_errno = errno;
	/* It goes on firing either way. */
	rep.after = read_one(fd, &again) >= 1;
	child_assert(write(link, &rep, sizeof(rep)) == sizeof(rep));
	close(fd);
}

/* A sender's child: makes a timer armed with @its, sends it over @sock, closes it, exits. */
static void __attribute__((noreturn))
make_and_send_a_timer(int sock, const struct itimerspec *its)
{
	int fd;

	child_alarm(20);
	fd = timerfd_create(CLOCK_MONOTONIC, 0);
	child_assert(fd >= 0);
	child_assert(timerfd_settime(fd, 0, its, NULL) == 0);
	child_assert(send_fd(sock, fd) == 0);
	close(fd);
	_exit(0);
}

START_TEST(a_timer_passed_to_an_unrelated_process_fires_on_after_the_sender_exits)
{
	struct itimerspec its = its_ns(10 * NS_PER_MS, 10 * NS_PER_MS);
	struct passed_report rep;
	int sv[2], link[2];
	pid_t receiver, sender;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	ck_assert_int_eq(pipe(link), 0);
	/* Forked before any timer exists in this process: it is of no family of the sender's. */
	receiver = fork();
	ck_assert_int_ge(receiver, 0);
	if (receiver == 0) {
		child_alarm(20);
		close(sv[0]);
		close(link[0]);
		receive_read_and_report(sv[1], link[1]);
		_exit(0);
	}
	sender = fork();
	ck_assert_int_ge(sender, 0);
	if (sender == 0)
		make_and_send_a_timer(sv[0], &its);
	reap(sender);
	ck_assert_int_eq(write(sv[0], "g", 1), 1);
	close(sv[0]);
	close(sv[1]);
	close(link[1]);
	ck_assert(becomes_readable(link[0], 15000));
	ck_assert_int_eq(read(link[0], &rep, sizeof(rep)), sizeof(rep));
	reap(receiver);
	close(link[0]);
	if (!rep.emulated && qemu_swaps_received_timerfd_counts()) {
		case_skipped("a_timer_passed_to_an_unrelated_process..." QEMU_SWAPS_WHY);
		return;
	}
	/* Every read a count, never 0 or end-of-file: about 30 in 300 ms. */
	ck_assert_msg(rep.r.bad == 0 && rep.r.total >= 15 &&
			      (int64_t)rep.r.total <= rep.r.elapsed / (10 * NS_PER_MS) + 5,
		      READS_FMT, READS_ARGS(rep.r));
	ck_assert(rep.after);
	if (rep.emulated && !proc_is_mounted()) {
		/*
		 * libtimerfd(7): without /proc, a timer from a family the receiver does not descend
		 * from fires, but its settime and gettime give EINVAL (its server's door is unknown).
		 */
		ck_assert_msg(rep.get_ret == -1 && rep.get_errno == EINVAL, "gettime: %d, errno %d",
			      rep.get_ret, rep.get_errno);
		ck_assert_msg(rep.set_ret == -1 && rep.set_errno == EINVAL, "settime: %d, errno %d",
			      rep.set_ret, rep.set_errno);
	} else {
		ck_assert_msg(rep.get_ret == 0 && rep.interval == 10 * NS_PER_MS,
			      "gettime: %d, errno %d, interval %lld", rep.get_ret, rep.get_errno,
			      (long long)rep.interval);
		ck_assert_msg(rep.set_ret == 0, "settime: %d, errno %d", rep.set_ret, rep.set_errno);
	}
}
END_TEST

START_TEST(a_timer_passed_within_its_family_works_for_the_receiver_after_the_sender_exits)
{
	struct itimerspec its = its_ns(10 * NS_PER_MS, 10 * NS_PER_MS), cur, old;
	struct itimerspec shot = its_ns(5 * NS_PER_MS, 0);
	/* The family's first timer: the child forked after it is of the family. */
	int first = timerfd_create(CLOCK_MONOTONIC, 0), sv[2], fd;
	uint64_t ticks = 0;
	struct reads r;
	pid_t pid;

	ck_assert_int_ge(first, 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		make_and_send_a_timer(sv[1], &its);
	reap(pid);
	fd = recv_fd(sv[0]);
	ck_assert_int_ge(fd, 0);
	if (!timer_is_emulated(fd) && qemu_swaps_received_timerfd_counts()) {
		case_skipped("a_timer_passed_within_its_family..." QEMU_SWAPS_WHY);
		close(fd);
		close(first);
		close(sv[0]);
		close(sv[1]);
		return;
	}
	r = read_for(fd, 300 * NS_PER_MS);
	ck_assert_msg(r.bad == 0 && r.total >= 15 &&
			      (int64_t)r.total <= r.elapsed / (10 * NS_PER_MS) + 5,
		      READS_FMT, READS_ARGS(r));
	/*
	 * The child's timer is of the child's own family (fork hands a family nothing): its
	 * server's door is found through /proc, and without it the calls give EINVAL
	 * (libtimerfd(7)).
	 */
	if (timer_is_emulated(fd) && !proc_is_mounted()) {
		errno = 0;
		ck_assert_int_eq(timerfd_gettime(fd, &cur), -1);
		ck_assert_int_eq(errno, EINVAL);
		ck_assert(read_ticks(fd, &ticks) == 0 && ticks >= 1);
		close(fd);
		close(first);
		close(sv[0]);
		close(sv[1]);
		return;
	}
	ck_assert_int_eq(timerfd_gettime(fd, &cur), 0);
	ck_assert_int_eq(ts_ns(&cur.it_interval), 10 * NS_PER_MS);
	ck_assert_int_le(ts_ns(&cur.it_value), 10 * NS_PER_MS);
	ck_assert_int_eq(timerfd_settime(fd, 0, &shot, &old), 0);
	ck_assert_int_eq(ts_ns(&old.it_interval), 10 * NS_PER_MS);
	ck_assert_int_eq(read_ticks(fd, &ticks), 0);
	ck_assert_uint_eq(ticks, 1);
	ck_assert_int_eq(timerfd_gettime(fd, &cur), 0);
	ck_assert_int_eq(ts_ns(&cur.it_value), 0);
	close(fd);
	close(first);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/* --- a PID namespace ------------------------------------------------------------------------ */

/* Removes @path and what is in it, two levels deep at most: 0, or -1. */
static int
remove_tree(int at, const char *path, int depth)
{
	int fd = openat(at, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	const struct dirent *e;
	DIR *d;

	if (fd < 0)
		return unlinkat(at, path, 0);
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && depth > 0)
			remove_tree(dirfd(d), e->d_name, depth - 1);
	closedir(d);
	return unlinkat(at, path, AT_REMOVEDIR);
}

/* In pid 1 of a new PID namespace (/proc still the old one's): timers as anywhere. */
static void
as_pid_one(int before)
{
	struct itimerspec shot = its_ns(2 * NS_PER_MS, 0), periodic = its_ns(5 * NS_PER_MS, 5 * NS_PER_MS);
	struct itimerspec cur;
	uint64_t ticks = 0;
	int fd, status;
	pid_t pid;

	child_assert(getpid() == 1);
	if (before >= 0) {
		/* The timer made before the unshare goes on: read, queried, rearmed. */
		child_assert(becomes_readable(before, 2000));
		child_assert(read_ticks(before, &ticks) == 0 && ticks >= 1);
		child_assert(timerfd_gettime(before, &cur) == 0);
		child_assert(ts_ns(&cur.it_interval) == 10 * NS_PER_MS);
		child_assert(timerfd_settime(before, 0, &shot, NULL) == 0);
		child_assert(read_ticks(before, &ticks) == 0 && ticks == 1);
	}
	fd = timerfd_create(CLOCK_MONOTONIC, 0);
	child_assert(fd >= 0);
	child_assert(timerfd_settime(fd, 0, &shot, NULL) == 0);
	child_assert(read_ticks(fd, &ticks) == 0 && ticks == 1);
	child_assert(timerfd_gettime(fd, &cur) == 0);
	child_assert(ts_ns(&cur.it_value) == 0 && ts_ns(&cur.it_interval) == 0);
	child_assert(timerfd_settime(fd, 0, &periodic, NULL) == 0);
	child_assert(read_ticks(fd, &ticks) == 0 && ticks >= 1);
	child_assert(timerfd_gettime(fd, &cur) == 0);
	child_assert(ts_ns(&cur.it_interval) == 5 * NS_PER_MS);
	/* Another process of the namespace shares it with pid 1. */
	pid = fork();
	child_assert(pid >= 0);
	if (pid == 0) {
		child_assert(getpid() > 1);
		child_assert(timerfd_gettime(fd, &cur) == 0 && ts_ns(&cur.it_interval) == 5 * NS_PER_MS);
		child_assert(timerfd_settime(fd, 0, &shot, NULL) == 0);
		child_assert(read_ticks(fd, &ticks) == 0 && ticks == 1);
		_exit(0);
	}
	child_assert(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	child_assert(timerfd_gettime(fd, &cur) == 0 && ts_ns(&cur.it_value) == 0);
	close(fd);
}

/* A new directory of the case's own, under $TMPDIR or /tmp, as @dir (a server's place). */
static void
own_tmpdir(char *dir, size_t size)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, size, "%s/tfd-families-XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp");
	/* 0711: a place the library takes only if others may pass through it (spawn.c). */
	if (!mkdtemp(dir) || chmod(dir, 0711) != 0) {
		fprintf(stderr, "mkdtemp %s: %s\n", dir, strerror(errno));
		_exit(1);
	}
}

START_TEST(timers_work_in_a_pid_namespace_without_its_own_proc)
{
	struct itimerspec its = its_ns(10 * NS_PER_MS, 10 * NS_PER_MS);
	char dir[4096];
	int link[2], err = 0, before;
	pid_t h, pid;

	if (under_qemu()) {
		case_skipped("timers_work_in_a_pid_namespace...: not under qemu-user (no namespaces for its threads)");
		return;
	}
	/* LeakSanitizer reads /proc/self/task, which the host's /proc resolves in another namespace. */
	if (sanitizer() && strcmp(sanitizer(), "address") == 0) {
		case_skipped("timers_work_in_a_pid_namespace...: LeakSanitizer needs a /proc of the namespace");
		return;
	}
	/*
	 * First from a process that has made no timer (a child of this one, before any timer
	 * exists here): the unshare, then pid 1 of the namespace makes the family's first timer.
	 */
	ck_assert_int_eq(pipe(link), 0);
	h = fork();
	ck_assert_int_ge(h, 0);
	if (h == 0) {
		int status, e = 0;

		child_alarm(20);
		close(link[0]);
		/*
		 * The emulation's server is then a process of the namespace, killed with it: its
		 * directory of FIFOs stays behind (libtimerfd(7)).  In a directory of this case's
		 * own, removed.
		 */
		own_tmpdir(dir, sizeof(dir));
		child_assert(setenv("TMPDIR", dir, 1) == 0);
		if (unshare(CLONE_NEWPID) != 0)
			e = errno;
		child_assert(write(link[1], &e, sizeof(e)) == sizeof(e));
		pid = e ? -1 : fork();
		child_assert(e || pid >= 0);
		if (pid == 0) {
			child_alarm(20); /* kills a pid 1 too: the kernel sends it */
			as_pid_one(-1);
			_exit(0);
		}
		status = 0;
		child_assert(pid < 0 || waitpid(pid, &status, 0) == pid);
		/* Every process of the namespace is gone once its pid 1 is reaped. */
		child_assert(remove_tree(AT_FDCWD, dir, 3) == 0);
		_exit(WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1);
	}
	close(link[1]);
	ck_assert_int_eq(read(link[0], &err, sizeof(err)), sizeof(err));
	close(link[0]);
	reap(h);
	if (err == ENOSYS) {
		case_skipped("timers_work_in_a_pid_namespace...: unshare(2) refused here (ENOSYS, as in the basic ABI)");
		return;
	}
	if (err == EPERM) {
		case_skipped("timers_work_in_a_pid_namespace...: needs CAP_SYS_ADMIN (unshare: EPERM)");
		return;
	}
	/* A kernel built without PID namespaces answers EINVAL (copy_pid_ns()). */
	if (err == EINVAL) {
		case_skipped("timers_work_in_a_pid_namespace...: this kernel has no PID namespaces "
			     "(unshare(CLONE_NEWPID): EINVAL)");
		return;
	}
	ck_assert_msg(err == 0, "unshare(CLONE_NEWPID): %s", strerror(err));
	/*
	 * Then as unshare -p -f does it, with a timer made before: this process unshares, its
	 * child is pid 1, whose first create starts a server of the namespace (in a directory of
	 * this case's own again).
	 */
	own_tmpdir(dir, sizeof(dir));
	before = timerfd_create(CLOCK_MONOTONIC, 0);
	ck_assert_int_ge(before, 0);
	ck_assert_int_eq(timerfd_settime(before, 0, &its, NULL), 0);
	ck_assert_int_eq(unshare(CLONE_NEWPID), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		child_alarm(20);
		child_assert(setenv("TMPDIR", dir, 1) == 0);
		as_pid_one(before);
		_exit(0);
	}
	reap(pid);
	close(before);
	ck_assert_int_eq(remove_tree(AT_FDCWD, dir, 3), 0);
}
END_TEST

/*
 * unshare(CLONE_NEWPID) and the family's first timer before any fork: the kernel makes no
 * process; the emulation must not clone its server into the namespace (it would be its init
 * and end it): it refuses (ENOSYS, libtimerfd(7)), and the program's first child is pid 1.
 */
static void
first_timer_before_the_namespaces_init(void)
{
	int fd, status;
	pid_t pid;

	child_assert(unshare(CLONE_NEWPID) == 0);
	errno = 0;
	fd = timerfd_create(CLOCK_MONOTONIC, 0);
	child_assert(fd >= 0 || errno == ENOSYS);
	pid = fork();
	child_assert(pid >= 0);
	if (pid == 0)
		_exit(getpid() == 1 ? 0 : 1);
	child_assert(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (fd >= 0)
		close(fd);
}

START_TEST(a_pid_namespace_waiting_for_its_init_keeps_it_for_the_program)
{
	if (!skipped_without_pid_namespaces("a_pid_namespace_waiting..."))
		in_child(first_timer_before_the_namespaces_init);
}
END_TEST

TCase *
tcase_families(void)
{
	TCase *tc = tcase_create("families");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, a_child_that_dropped_root_makes_arms_reads_and_rearms_timers);
	tcase_add_test(tc, a_daemon_that_dropped_root_reads_its_parents_timer_after_the_parent_exits);
	tcase_add_test(tc, a_thread_that_changes_only_its_fsuid_makes_arms_reads_and_rearms_timers);
	tcase_add_test(tc, recycled_workers_never_run_out_of_timers);
	tcase_add_test(tc, four_workers_hold_18000_live_timers_each_at_once);
	tcase_add_test(tc, a_family_holds_more_timers_than_one_process_may_hold_descriptors);
	tcase_add_test(tc, a_stopped_process_never_stops_another_processs_timers);
	tcase_add_test(tc, a_child_that_holds_no_timer_costs_nothing);
	tcase_add_test(tc, a_timer_passed_to_an_unrelated_process_fires_on_after_the_sender_exits);
	tcase_add_test(tc, a_timer_passed_within_its_family_works_for_the_receiver_after_the_sender_exits);
	tcase_add_test(tc, timers_work_in_a_pid_namespace_without_its_own_proc);
	tcase_add_test(tc, a_pid_namespace_waiting_for_its_init_keeps_it_for_the_program);
	return tc;
}
