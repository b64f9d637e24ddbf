/* SPDX-License-Identifier: MIT */
/*
 * Description: the access rule under fuzzing.  For SECONDS (argument, default 5), a child
 * that dropped to nobody (where run as root) and closed its descriptors writes garbage at
 * random times over every writable shared mapping it has, to every door, and into every
 * FIFO it can open (tests/attacker.c), while this process makes, arms, reads and closes
 * timers and checks every count against the clock: never a crash, a hang, a forged or a
 * lost count.  Prints its seed; exit 0 when every check held.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "attacker.h"

#define NTIMERS 8
#define NOBODY 65534
#define NS_PER_MS 1000000LL
#define NS_PER_S 1000000000LL
/* How late a due expiration may become readable: generous, as every timing bound here. */
#define LATE_MAX_NS (2 * NS_PER_S)

/* Check-free, as the rest of this program: its own small helpers. */
static int64_t
now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

static struct itimerspec
its_ns(int64_t value, int64_t interval)
{
	struct itimerspec its = { { (time_t)(interval / NS_PER_S), (long)(interval % NS_PER_S) },
				  { (time_t)(value / NS_PER_S), (long)(value % NS_PER_S) } };

	return its;
}

static int64_t
ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * NS_PER_S + ts->tv_nsec;
}

struct fuzz_timer {
	int fd;
	int64_t period, armed_lo, armed_hi; /* armed between these two instants */
	uint64_t total;                     /* expirations read since */
};

static int
arm(struct fuzz_timer *t, uint64_t *seed)
{
	struct itimerspec its;

	t->period = (int64_t)(2 + attack_random(seed) % 19) * NS_PER_MS;
	its = its_ns(t->period, t->period);
	t->total = 0;
	t->armed_lo = now_ns(CLOCK_MONOTONIC);
	if (timerfd_settime(t->fd, 0, &its, NULL) != 0)
		return -1;
	t->armed_hi = now_ns(CLOCK_MONOTONIC);
	return 0;
}

/* Reads what waits and checks the total against the clock, after a gettime: 0, or -1 said why. */
static int
check(struct fuzz_timer *t, bool final)
{
	struct itimerspec cur;
	uint64_t ticks = 0;
	int64_t g0 = now_ns(CLOCK_MONOTONIC), r1, lo, hi;

	if (timerfd_gettime(t->fd, &cur) != 0 || ts_ns(&cur.it_interval) != t->period) {
		printf("access-fuzz: gettime: %s, interval %lld\n", strerror(errno),
		       (long long)ts_ns(&cur.it_interval));
		return -1;
	}
	lo = (g0 - t->armed_hi) / t->period;
	/*
	 * Every expiration up to the gettime is readable soon after it; none beyond the read.
	 * Soon, not at once, on the kernel too: it counts an expiration when its timer
	 * interrupt runs, and a busy virtual machine runs it late (seen in CI: one short, on
	 * the kernel backend).  A lost count stays short for the whole wait.
	 */
	for (int64_t wait_end = 0;;) {
		ssize_t n = read(t->fd, &ticks, sizeof(ticks));
		r1 = now_ns(CLOCK_MONOTONIC);
		if (n == (ssize_t)sizeof(ticks))
			t->total += ticks;
		else if (!(n < 0 && errno == EAGAIN)) {
			printf("access-fuzz: read gave %zd (%s)\n", n, strerror(errno));
			return -1;
		}
		if (!final || (int64_t)t->total >= lo)
			break;
		if (wait_end == 0)
			wait_end = r1 + LATE_MAX_NS;
		if (r1 >= wait_end)
			break;
		poll(&(struct pollfd){ .fd = t->fd, .events = POLLIN }, 1, 10);
	}
	hi = (r1 - t->armed_lo) / t->period + 1;
	if ((int64_t)t->total > hi || (final && (int64_t)t->total < lo)) {
		printf("access-fuzz: %llu expirations of a %lld ms timer, want %lld..%lld\n",
		       (unsigned long long)t->total, (long long)(t->period / NS_PER_MS), (long long)lo,
		       (long long)hi);
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	int seconds = argc > 1 ? atoi(argv[1]) : 5, status, failures = 0;
	uint64_t seed = (uint64_t)now_ns(CLOCK_REALTIME) | 1, attacker_seed = seed * 3 + 1;
	struct fuzz_timer t[NTIMERS];
	int64_t end;
	long ops = 0;
	pid_t pid;

	printf("access-fuzz: %d s, seed %llu\n", seconds, (unsigned long long)seed);
	for (int k = 0; k < NTIMERS; k++) {
		t[k].fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
		if (t[k].fd < 0 || arm(&t[k], &seed) != 0) {
			perror("access-fuzz: timerfd");
			return 1;
		}
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		struct attack a = { 0 };
		bool other = geteuid() == 0;

		if (other && (setgroups(0, NULL) != 0 || setresgid(NOBODY, NOBODY, NOBODY) != 0 ||
			      setresuid(NOBODY, NOBODY, NOBODY) != 0))
			_exit(2);
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
		while (1) {
			attack_round(&attacker_seed, other, &a);
			usleep((useconds_t)(attack_random(&attacker_seed) % 5000));
		}
	}
	end = now_ns(CLOCK_MONOTONIC) + seconds * NS_PER_S;
	while (now_ns(CLOCK_MONOTONIC) < end && failures == 0) {
		struct fuzz_timer *x = &t[attack_random(&seed) % NTIMERS];

		switch (attack_random(&seed) % 4) {
		case 0: /* a new timer in its place */
			failures += check(x, true) != 0;
			close(x->fd);
			x->fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
			failures += x->fd < 0 || arm(x, &seed) != 0;
			break;
		case 1: /* rearmed */
			failures += check(x, true) != 0 || arm(x, &seed) != 0;
			break;
		default:
			failures += check(x, false) != 0;
			break;
		}
		ops++;
		usleep((useconds_t)(attack_random(&seed) % 3000));
	}
	for (int k = 0; k < NTIMERS; k++)
		failures += check(&t[k], true) != 0;
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	printf("access-fuzz: %ld operations, %d failed checks\n", ops, failures);
	return failures ? 1 : 0;
}
