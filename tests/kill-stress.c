/* SPDX-License-Identifier: MIT */
/*
 * Description: the emulation's server killed in a loop.  For SECONDS (argument, default 3),
 * this process kills whatever serves its timers (SIGKILL, found as the subreaper's child
 * named libtimerfd) every few milliseconds, while three forked readers poll and read four
 * periodic timers they share.  Then every count is checked against the clock (the readers'
 * sums and a last read after a gettime), no read may have seen end-of-file or an error, and
 * once the timers are closed no server, twin or directory may be left.  On the kernel there
 * is nothing to kill: the same checks, the control.  Exit 0 when every check held, 77 where
 * the server cannot be found (no /proc).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "procs.h"

#ifndef __WALL
#define __WALL 0x40000000
#endif
#define NTIMERS 4
#define NREADERS 3
#define NS_PER_MS 1000000LL
#define NS_PER_S 1000000000LL
/* How late a due expiration may become readable, and how long servers may take to end. */
#define LATE_MAX_NS (2 * NS_PER_S)
#define END_MAX_NS (6 * NS_PER_S)

static volatile sig_atomic_t stop;

static int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

/* Whether process @pid holds a descriptor of a file under @dir (read through /proc). */
static bool
holds_under(int pid, const char *dir)
{
	char path[64], link[PATH_MAX];
	struct dirent *e;
	bool found = false;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	d = opendir(path);
	while (d && !found && (e = readdir(d))) {
		char entry[400];
		ssize_t n;

		snprintf(entry, sizeof(entry), "%s/%s", path, e->d_name);
		n = readlink(entry, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = '\0';
			found = strncmp(link, dir, strlen(dir)) == 0;
		}
	}
	if (d)
		closedir(d);
	return found;
}

struct wanted {
	const char *comm, *dir;
	bool by_table;
};

static bool
server_named(const struct proc_entry *p, void *ctx)
{
	const struct wanted *w = ctx;

	return strcmp(p->comm, w->comm) == 0 &&
	       (w->by_table ? holds_under(p->pid, w->dir) : p->ppid == getpid());
}

/*
 * Processes named @comm, not yet ended, that serve this process's timers: up to @max pids,
 * how many.  Those that hold a file of the timers' directory @dir, where their tables can
 * be read (root); else this subreaper's children of that name.
 */
static int
servers_named(const char *comm, const char *dir, bool by_table, pid_t *out, int max)
{
	struct wanted w = { comm, dir, by_table };

	return procs_matching(server_named, &w, out, max);
}

static void
on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

/* A reader: polls every timer, reads what is there; at SIGUSR1 writes its sums and ends. */
static void
reader(const int *fd, int out)
{
	uint64_t sum[NTIMERS] = { 0 }, report[NTIMERS + 2];
	uint64_t reads = 0, bad = 0;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGUSR1, &sa, NULL);
	while (!stop) {
		struct pollfd p[NTIMERS];

		for (int k = 0; k < NTIMERS; k++)
			p[k] = (struct pollfd){ .fd = fd[k], .events = POLLIN };
		if (poll(p, NTIMERS, 20) <= 0)
			continue;
		for (int k = 0; k < NTIMERS; k++) {
			uint64_t ticks;
			ssize_t n;

			if (!(p[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(fd[k], &ticks, sizeof(ticks));
			reads++;
			if (n == (ssize_t)sizeof(ticks))
				sum[k] += ticks;
			else if (!(n < 0 && errno == EAGAIN)) /* another reader was first: fine */
				bad++;
		}
	}
	memcpy(report, sum, sizeof(sum));
	report[NTIMERS] = reads;
	report[NTIMERS + 1] = bad;
	_exit(write(out, report, sizeof(report)) == sizeof(report) ? 0 : 1);
}

int
main(int argc, char **argv)
{
	int seconds = argc > 1 ? atoi(argv[1]) : 3, fd[NTIMERS], link[2], failures = 0;
	int64_t period[NTIMERS], armed_lo[NTIMERS], armed_hi[NTIMERS], end, run_ns;
	uint64_t total[NTIMERS] = { 0 }, reads = 0, bad = 0;
	unsigned seed = (unsigned)now_ns();
	char dir[PATH_MAX] = "";
	pid_t readers[NREADERS], left[4];
	long kills = 0;
	bool emulated, by_table;

	/* Servers are found by their tables where root may read them, else as adopted children. */
	by_table = geteuid() == 0;
	if (!by_table && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
		printf("SKIP: neither root nor a subreaper: the servers cannot be found\n");
		return 77;
	}
	for (int k = 0; k < NTIMERS; k++) {
		struct itimerspec its;

		period[k] = (5 + 3 * k) * NS_PER_MS;
		its = (struct itimerspec){ { 0, (long)period[k] }, { 0, (long)period[k] } };
		fd[k] = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
		if (fd[k] < 0) {
			perror("kill-stress: timerfd_create");
			return 1;
		}
		armed_lo[k] = now_ns();
		if (timerfd_settime(fd[k], 0, &its, NULL) != 0) {
			perror("kill-stress: timerfd_settime");
			return 1;
		}
		armed_hi[k] = now_ns();
	}
	/* An emulated timer's FIFO: its directory must be gone at the end. */
	{
		char self[64];
		ssize_t n;

		snprintf(self, sizeof(self), "/proc/self/fd/%d", fd[0]);
		n = readlink(self, dir, sizeof(dir) - 1);
		if (n <= 0) {
			printf("SKIP: the server is found through /proc, which is not mounted here\n");
			return 77;
		}
		dir[n] = '\0';
		emulated = strncmp(dir, "anon_inode:", 11) != 0;
		if (emulated && strrchr(dir, '/'))
			*strrchr(dir, '/') = '\0';
	}
	printf("kill-stress: %d s, %s, seed %u\n", seconds, emulated ? "emulation" : "kernel", seed);
	fflush(stdout);
	if (pipe(link) != 0)
		return 1;
	for (int r = 0; r < NREADERS; r++) {
		readers[r] = fork();
		if (readers[r] < 0)
			return 1;
		if (readers[r] == 0) {
			close(link[0]);
			reader(fd, link[1]);
		}
	}
	close(link[1]);
	end = now_ns() + seconds * NS_PER_S;
	while (now_ns() < end) {
		pid_t server;

		if (servers_named("libtimerfd", dir, by_table, &server, 1) == 1) {
			kill(server, SIGKILL);
			waitpid(server, NULL, __WALL);
			kills++;
		}
		/* Reaps the twins of earlier kills' servers once they are orphaned to us and end. */
		while (waitpid(-1, NULL, WNOHANG | __WALL) > 0)
			;
		usleep((useconds_t)(rand_r(&seed) % 20000));
	}
	for (int r = 0; r < NREADERS; r++)
		kill(readers[r], SIGUSR1);
	for (int r = 0; r < NREADERS; r++) {
		uint64_t report[NTIMERS + 2];

		if (read(link[0], report, sizeof(report)) != (ssize_t)sizeof(report)) {
			printf("kill-stress: a reader gave no report\n");
			failures++;
			continue;
		}
		for (int k = 0; k < NTIMERS; k++)
			total[k] += report[k];
		reads += report[NTIMERS];
		bad += report[NTIMERS + 1];
	}
	for (int r = 0; r < NREADERS; r++)
		waitpid(readers[r], NULL, 0);
	if (bad) {
		printf("kill-stress: %llu reads saw end-of-file or an error\n", (unsigned long long)bad);
		failures++;
	}
	run_ns = now_ns() - armed_lo[0];
	/* A spinning loop reads far more often than its timers expire. */
	if ((int64_t)reads > 2 * (run_ns / (5 * NS_PER_MS)) * NTIMERS + 1000) {
		printf("kill-stress: %llu reads in %lld ms: a loop that spins\n", (unsigned long long)reads,
		       (long long)(run_ns / NS_PER_MS));
		failures++;
	}
	/* Every expiration up to a gettime is readable soon after it; none beyond the clock. */
	for (int k = 0; k < NTIMERS; k++) {
		struct itimerspec cur;
		int64_t g0 = now_ns(), lo = (g0 - armed_hi[k]) / period[k], hi, r1 = g0;

		if (timerfd_gettime(fd[k], &cur) != 0) {
			printf("kill-stress: gettime: %s\n", strerror(errno));
			failures++;
			continue;
		}
		for (;;) {
			uint64_t ticks;

			if (read(fd[k], &ticks, sizeof(ticks)) == (ssize_t)sizeof(ticks))
				total[k] += ticks;
			r1 = now_ns();
			if ((int64_t)total[k] >= lo || r1 - g0 > LATE_MAX_NS)
				break;
			poll(&(struct pollfd){ .fd = fd[k], .events = POLLIN }, 1, 10);
		}
		hi = (r1 - armed_lo[k]) / period[k] + 1;
		if ((int64_t)total[k] < lo || (int64_t)total[k] > hi) {
			printf("kill-stress: timer %d (%lld ms): %llu expirations, want %lld..%lld\n", k,
			       (long long)(period[k] / NS_PER_MS), (unsigned long long)total[k],
			       (long long)lo, (long long)hi);
			failures++;
		}
	}
	/* Closed, the timers take their servers and files with them. */
	for (int k = 0; k < NTIMERS; k++)
		close(fd[k]);
	end = now_ns() + END_MAX_NS;
	while (now_ns() < end) {
		struct stat st;

		while (waitpid(-1, NULL, WNOHANG | __WALL) > 0)
			;
		if (servers_named("libtimerfd", dir, by_table, left, 4) +
			    servers_named("libtimerfd-twin", dir, by_table, left, 4) ==
			    0 &&
		    (!emulated || stat(dir, &st) != 0))
			break;
		usleep(20000);
	}
	if (servers_named("libtimerfd", dir, by_table, left, 4) +
	    servers_named("libtimerfd-twin", dir, by_table, left, 4)) {
		printf("kill-stress: a server is left (pid %d)\n", (int)left[0]);
		failures++;
	}
	if (emulated && access(dir, F_OK) == 0) {
		printf("kill-stress: %s is left\n", dir);
		failures++;
	}
	printf("kill-stress: %ld kills, %llu reads, %d failed checks\n", kills,
	       (unsigned long long)reads, failures);
	return failures ? 1 : 0;
}
