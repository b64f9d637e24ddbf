/* SPDX-License-Identifier: MIT */
/* Small helpers shared by the test cases: time arithmetic, reads, fds. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>

#include "helpers.h"

int64_t
now_ns(clockid_t clock)
{
	struct timespec ts;

	ck_assert_int_eq(clock_gettime(clock, &ts), 0);
	return ts_ns(&ts);
}

int64_t
ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * NS_PER_S + ts->tv_nsec;
}

struct timespec
ns_ts(int64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / NS_PER_S), .tv_nsec = (long)(ns % NS_PER_S) };

	return ts;
}

struct itimerspec
its_ns(int64_t value, int64_t interval)
{
	struct itimerspec its = { .it_interval = ns_ts(interval), .it_value = ns_ts(value) };

	return its;
}

void
sleep_ns(int64_t ns)
{
	struct timespec ts = ns_ts(ns);

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

int
read_ticks(int fd, uint64_t *ticks)
{
	ssize_t n = read(fd, ticks, sizeof(*ticks));

	if (n < 0)
		return -errno;
	ck_assert_int_eq(n, sizeof(*ticks));
	return 0;
}

int
read_ready_ticks(int fd, uint64_t *ticks, int ms)
{
	int err = -EAGAIN;

	for (int tries = 0; tries < 3 && err == -EAGAIN; tries++) {
		if (!becomes_readable(fd, ms))
			return -ETIMEDOUT;
		err = read_ticks(fd, ticks);
		if (!timer_is_emulated(fd))
			break;
	}
	return err;
}

int
readable_within(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int n;

	while ((n = poll(&pfd, 1, ms)) < 0 && errno == EINTR)
		;
	return n;
}

int64_t
scaled_ns(int64_t ns)
{
	return ns * slowness();
}

int
scaled_ms(int ms)
{
	return ms * slowness();
}

bool
becomes_readable(int fd, int ms)
{
	return readable_within(fd, scaled_ms(ms)) == 1;
}

void
child_alarm(unsigned seconds)
{
	alarm(seconds * (unsigned)slowness());
}

/* futex(2)'s operations, the kernel's ABI (not every C library's headers reach linux/futex.h). */
#define FUTEX_WAIT 0
#define FUTEX_WAKE 1

/* The relay's word: its round, or RELAY_STOP. */
#define RELAY_STOP UINT32_MAX

/* FUTEX_WAIT on @word while it holds @val, for at most 1 s (a lost wake-up costs that). */
static void
futex_wait_1s(uint32_t *word, uint32_t val)
{
	struct timespec ts = { 1, 0 };
	long ts32[2] = { 1, 0 }; /* the old layout: two longs */

#ifdef SYS_futex_time64
	/* 32-bit time_t-64 builds: the time64 call, or the old one where the kernel lacks it. */
	if (sizeof(time_t) > sizeof(long)) {
		if (syscall(SYS_futex_time64, word, FUTEX_WAIT, val, &ts, NULL, 0) == 0 || errno != ENOSYS)
			return;
		syscall(SYS_futex, word, FUTEX_WAIT, val, ts32, NULL, 0);
		return;
	}
#endif
	(void)ts32;
	syscall(SYS_futex, word, FUTEX_WAIT, val, &ts, NULL, 0);
}

void
relay_start(struct relay *r)
{
	int from[2];

	r->word = mmap(NULL, sizeof(*r->word), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		       -1, 0);
	ck_assert_ptr_ne(r->word, MAP_FAILED);
	*r->word = 0;
	ck_assert_int_eq(pipe(from), 0);
	r->pid = fork();
	ck_assert_int_ge(r->pid, 0);
	if (r->pid == 0) {
		uint32_t seen = 0;
		char c = 'r';

		child_alarm(60);
		close(from[0]);
		for (;;) {
			uint32_t now = __atomic_load_n(r->word, __ATOMIC_ACQUIRE);

			if (now == RELAY_STOP)
				_exit(0);
			if (now == seen) {
				futex_wait_1s(r->word, seen);
				continue;
			}
			seen = now;
			sleep_ns(NS_PER_MS);
			if (write(from[1], &c, 1) != 1)
				_exit(0);
		}
	}
	close(from[1]);
	r->from = from[0];
}

int64_t
relay_lateness_ns(struct relay *r)
{
	int64_t start = now_ns(CLOCK_MONOTONIC);
	char c;

	__atomic_add_fetch(r->word, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, r->word, FUTEX_WAKE, 1, NULL, NULL, 0);
	ck_assert(becomes_readable(r->from, 10000));
	ck_assert_int_eq(read(r->from, &c, 1), 1);
	return now_ns(CLOCK_MONOTONIC) - start - NS_PER_MS;
}

void
relay_stop(struct relay *r)
{
	int status;

	__atomic_store_n(r->word, RELAY_STOP, __ATOMIC_RELEASE);
	syscall(SYS_futex, r->word, FUTEX_WAKE, 1, NULL, NULL, 0);
	close(r->from);
	ck_assert_int_eq(waitpid(r->pid, &status, 0), r->pid);
	munmap(r->word, sizeof(*r->word));
}

int64_t
wakeup_lateness_ns(int rounds)
{
	struct relay r;
	int64_t worst = 0;

	relay_start(&r);
	for (int i = 0; i < rounds; i++) {
		int64_t late = relay_lateness_ns(&r);

		worst = late > worst ? late : worst;
	}
	relay_stop(&r);
	return worst;
}

int
set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

int
closed_fd(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(close(fd), 0);
	return fd;
}

int
periodic_timer(int64_t ns, int flags)
{
	struct itimerspec its = its_ns(ns, ns);
	int fd = timerfd_create(CLOCK_MONOTONIC, flags);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(timerfd_settime(fd, 0, &its, NULL), 0);
	return fd;
}

int
expired_timer(clockid_t clock, int flags)
{
	struct itimerspec its = its_ns(1, 0);
	int fd = timerfd_create(clock, flags);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(timerfd_settime(fd, 0, &its, NULL), 0);
	/* Wait until the expiration is there to read: a loaded emulator may take a while. */
	ck_assert(becomes_readable(fd, 10000));
	return fd;
}

bool
timer_is_emulated(int fd)
{
	struct stat st;

	/* An emulated timer is a FIFO; the kernel's is an anonymous inode (no file type). */
	return fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

const char *
sanitizer(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return "address";
#elif defined(__SANITIZE_THREAD__)
	return "thread";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
	return "address";
#elif __has_feature(thread_sanitizer)
	return "thread";
#endif
#endif
	return NULL;
}

void
case_skipped(const char *what_and_why)
{
	printf("skipped case: %s\n", what_and_why);
	fflush(stdout);
}

bool
skipped_without_pid_namespaces(const char *name)
{
	char why[200];
	pid_t pid;
	int err;

	if (under_qemu()) {
		snprintf(why, sizeof(why), "%s: not under qemu-user (no namespaces for its threads)", name);
		case_skipped(why);
		return true;
	}
	/* Whether this process may unshare a PID namespace at all (a child tries). */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(unshare(CLONE_NEWPID) == 0 ? 0 : errno);
	ck_assert_int_eq(waitpid(pid, &err, 0), pid);
	err = WIFEXITED(err) ? WEXITSTATUS(err) : -1;
	/* ENOSYS: the basic ABI; EPERM: no CAP_SYS_ADMIN; EINVAL: no PID namespaces (copy_pid_ns()). */
	if (err == EINVAL)
		snprintf(why, sizeof(why), "%s: this kernel has no PID namespaces "
			 "(unshare(CLONE_NEWPID): EINVAL)", name);
	else if (err == ENOSYS || err == EPERM)
		snprintf(why, sizeof(why), "%s: unshare(CLONE_NEWPID) refused here", name);
	else
		ck_assert_int_eq(err, 0);
	if (err) {
		case_skipped(why);
		return true;
	}
	return false;
}

/* The calls of become_user(): 0, or the one that failed, with errno set. */
static const char *
drop_root(uid_t uid)
{
	if (setgroups(0, NULL) != 0)
		return "setgroups(0, NULL)";
	if (setresgid((gid_t)uid, (gid_t)uid, (gid_t)uid) != 0)
		return "setresgid";
	if (setresuid(uid, uid, uid) != 0)
		return "setresuid";
	return NULL;
}

void
become_user(uid_t uid)
{
	const char *failed = drop_root(uid);

	if (failed) {
		fprintf(stderr, "child: %s for uid %d: %s\n", failed, (int)uid, strerror(errno));
		_exit(1);
	}
}

bool
root_can_become(uid_t uid, char *why, size_t size)
{
	char said[200] = "";
	int p[2], status;
	ssize_t n;
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		const char *failed = drop_root(uid);

		if (failed) {
			dprintf(p[1], "%s refused here: %s", failed, strerror(errno));
			_exit(77);
		}
		_exit(0);
	}
	close(p[1]);
	n = read(p[0], said, sizeof(said) - 1);
	close(p[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	snprintf(why, size, "%s", n > 0 ? said : "");
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int
child_status(void (*fn)(void))
{
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		child_alarm(20);
		fn();
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return status;
}

void
in_child_or_skip(void (*fn)(void), const char *skip_reason)
{
	int status = child_status(fn);

	if (skip_reason && WIFEXITED(status) && WEXITSTATUS(status) == 77) {
		case_skipped(skip_reason);
		return;
	}
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
}

void
in_child(void (*fn)(void))
{
	in_child_or_skip(fn, NULL);
}

int
open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct rlimit rl;
	rlim_t end;
	int n = 0;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	end = rl.rlim_cur < 1u << 20 ? rl.rlim_cur : 1u << 20;
	if (d) {
		/*
		 * /proc says how far to look, and fcntl() which numbers are this process's:
		 * a user-mode Linux emulator's /proc is its host's, whose table also holds the
		 * emulator's own descriptors (one such gave a count one too high). Here a
		 * margin past the highest number listed, for an emulator whose numbers differ.
		 */
		const struct dirent *e;
		rlim_t highest = 0;

		while ((e = readdir(d)))
			if (e->d_name[0] != '.' && (rlim_t)atol(e->d_name) > highest)
				highest = (rlim_t)atol(e->d_name);
		closedir(d);
		if (highest + 65 < end)
			end = highest + 65;
	}
	/* Without /proc (the basic-ABI environment): every number the limit allows. */
	for (rlim_t fd = 0; fd < end; fd++)
		n += fcntl((int)fd, F_GETFD) >= 0;
	return n;
}

bool
proc_is_mounted(void)
{
	return access("/proc/self/fd", X_OK) == 0;
}
