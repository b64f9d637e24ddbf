/* SPDX-License-Identifier: MIT */
/* Small helpers shared by the test cases: time arithmetic, reads, fds. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <grp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
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

void
relay_start(struct relay *r)
{
	int to[2], from[2];

	ck_assert_int_eq(pipe(to), 0);
	ck_assert_int_eq(pipe(from), 0);
	r->pid = fork();
	ck_assert_int_ge(r->pid, 0);
	if (r->pid == 0) {
		char c;

		child_alarm(60);
		close(to[1]);
		close(from[0]);
		while (read(to[0], &c, 1) == 1) {
			sleep_ns(NS_PER_MS);
			if (write(from[1], &c, 1) != 1)
				break;
		}
		_exit(0);
	}
	close(to[0]);
	close(from[1]);
	r->to = to[1];
	r->from = from[0];
}

int64_t
relay_lateness_ns(struct relay *r)
{
	int64_t start = now_ns(CLOCK_MONOTONIC);
	char c = 'r';

	ck_assert_int_eq(write(r->to, &c, 1), 1);
	ck_assert(becomes_readable(r->from, 10000));
	ck_assert_int_eq(read(r->from, &c, 1), 1);
	return now_ns(CLOCK_MONOTONIC) - start - NS_PER_MS;
}

void
relay_stop(struct relay *r)
{
	int status;

	close(r->to);
	close(r->from);
	ck_assert_int_eq(waitpid(r->pid, &status, 0), r->pid);
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

void
become_user(uid_t uid)
{
	child_assert(setgroups(0, NULL) == 0);
	child_assert(setresgid((gid_t)uid, (gid_t)uid, (gid_t)uid) == 0);
	child_assert(setresuid(uid, uid, uid) == 0);
}

void
in_child(void (*fn)(void))
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
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
}

int
open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct rlimit rl;
	int n = 0;

	if (d) {
		while (readdir(d))
			n++;
		closedir(d);
		return n - 3; /* ".", ".." and the directory's own descriptor */
	}
	/* Without /proc (the basic-ABI environment): every number the limit allows. */
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	for (rlim_t fd = 0; fd < rl.rlim_cur && fd < 1u << 20; fd++)
		n += fcntl((int)fd, F_GETFD) >= 0;
	return n;
}
