/* SPDX-License-Identifier: MIT */
/*
 * Description: the access rule under fuzzing.  For SECONDS (argument, default 5), a child
 * that dropped to nobody (where run as root) and closed its descriptors writes garbage at
 * random times over every writable shared mapping it has, to every door, and into every
 * FIFO it can open (tests/attacker.c), while this process makes, arms, reads and closes
 * timers and checks every count against the clock: never a crash, a hang, a forged or a
 * lost count.  And no path touched outside the library's directory: the timers are made
 * with $TMPDIR at a place of this program's own, beside decoys the library never made
 * (named as its directories are, too), which must be as they were once the timers are
 * closed and their servers ended; and by then the place must hold nothing but the decoys
 * (on the kernel's backend, the control, nothing is made there at all).  Prints its seed;
 * exit 0 when every check held.
 */
#include "config.h"

#include <dirent.h>
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
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "attacker.h"
#include "dirs.h"
#include "slowness.h"

#define NTIMERS 8
#define NOBODY 65534
#define NS_PER_MS 1000000LL
#define NS_PER_S 1000000000LL
/* How late a due expiration may become readable: generous, as every timing bound here. */
#define LATE_MAX_NS (2 * NS_PER_S)
/*
 * How long the servers may take to end once their program did (scaled): a server looks
 * for closed timers and for its program once a second (src/emu/server.c, HARVEST_NS).
 */
#define END_MAX_NS (6 * NS_PER_S)
#ifndef __WALL
#define __WALL 0x40000000
#endif

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

/* --- the place: where the library makes its directory, beside decoys ---------------- */

/*
 * The decoys: an empty directory, a file, and directories named as the library names its
 * own (src/emu/spawn.c: "<base>/.libtimerfd-<16 hex>"; src/emu/family.c: a secret "<32 hex>"
 * inside), the inner one empty, as the library's are when it removes them.
 */
enum { DECOY_DIR, DECOY_FILE, DECOY_OUTER, DECOY_INNER, NDECOYS };
static const char *const decoy_names[NDECOYS] = {
	"decoy",
	"decoy-file",
	".libtimerfd-0000000000000000",
	".libtimerfd-0000000000000000/00000000000000000000000000000000",
};
#define DECOY_TEXT "a file the library did not make\n"

static char place[256];
static struct stat decoy_was[NDECOYS];

static void
decoy_path(int k, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s", place, decoy_names[k]);
}

/*
 * The entries of the place that are not decoys (what the library made: its directories),
 * the first one's name in @first: how many, or -1.
 */
static int
not_decoys(char *first, size_t size)
{
	DIR *d = opendir(place);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		bool decoy = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;

		for (int k = 0; k < NDECOYS; k++)
			decoy = decoy || strcmp(e->d_name, decoy_names[k]) == 0;
		if (!decoy && n++ == 0)
			snprintf(first, size, "%s", e->d_name);
	}
	closedir(d);
	return n;
}

/*
 * A new place under $TMPDIR or /tmp, with its decoys: 0 or -1 (said why).  0755: the
 * library takes a place only if anyone may pass through it (spawn.c, trusted_base()), and
 * the attacker lists it as it lists /dev/shm, where the library would go otherwise.
 */
static int
make_place(void)
{
	const char *tmp = getenv("TMPDIR");
	char path[512];

	snprintf(place, sizeof(place), "%.200s/access-fuzz-XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp");
	if (!mkdtemp(place) || chmod(place, 0755) != 0) {
		printf("access-fuzz: %s: %s\n", place, strerror(errno));
		return -1;
	}
	for (int k = 0; k < NDECOYS; k++) {
		int fd;

		decoy_path(k, path, sizeof(path));
		if (k != DECOY_FILE) {
			if (mkdir(path, 0755) == 0)
				continue;
		} else if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) >= 0) {
			bool whole = write(fd, DECOY_TEXT, strlen(DECOY_TEXT)) == (ssize_t)strlen(DECOY_TEXT);

			if (close(fd) == 0 && whole)
				continue;
		}
		printf("access-fuzz: %s: %s\n", path, strerror(errno));
		return -1;
	}
	/* Once all are made: the outer decoy's times no longer move with the inner's mkdir. */
	for (int k = 0; k < NDECOYS; k++) {
		decoy_path(k, path, sizeof(path));
		if (lstat(path, &decoy_was[k]) != 0) {
			printf("access-fuzz: %s: %s\n", path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* Each decoy as it was made (same file, times, size, contents): how many are not. */
static int
decoys_intact(void)
{
	char path[512], text[128] = "";
	int failures = 0, fd;
	ssize_t n;

	for (int k = 0; k < NDECOYS; k++) {
		const struct stat *was = &decoy_was[k];
		struct stat now;

		decoy_path(k, path, sizeof(path));
		if (lstat(path, &now) != 0) {
			printf("access-fuzz: %s: %s: removed\n", path, strerror(errno));
			failures++;
		} else if (now.st_dev != was->st_dev || now.st_ino != was->st_ino) {
			printf("access-fuzz: %s: another file now (replaced)\n", path);
			failures++;
		} else if (now.st_mode != was->st_mode || now.st_size != was->st_size ||
			   now.st_nlink != was->st_nlink || now.st_mtim.tv_sec != was->st_mtim.tv_sec ||
			   now.st_mtim.tv_nsec != was->st_mtim.tv_nsec ||
			   now.st_ctim.tv_sec != was->st_ctim.tv_sec ||
			   now.st_ctim.tv_nsec != was->st_ctim.tv_nsec) {
			printf("access-fuzz: %s: changed (mode, size, links or times)\n", path);
			failures++;
		}
	}
	decoy_path(DECOY_FILE, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, text, sizeof(text) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n != (ssize_t)strlen(DECOY_TEXT) || memcmp(text, DECOY_TEXT, (size_t)n) != 0) {
		printf("access-fuzz: %s: its contents changed\n", path);
		failures++;
	}
	for (int k = 0; k < NDECOYS; k++) {
		int want = k == DECOY_OUTER ? 1 : 0; /* the outer holds the inner decoy */

		decoy_path(k, path, sizeof(path));
		/* A decoy removed was said above. */
		n = k != DECOY_FILE ? dir_entries(path) : want;
		if (n >= 0 && n != want) {
			printf("access-fuzz: %s: %zd entries now, not %d\n", path, n, want);
			failures++;
		}
	}
	return failures;
}

static void
remove_place(void)
{
	char path[512];

	for (int k = NDECOYS; k-- > 0;) {
		decoy_path(k, path, sizeof(path));
		if (k == DECOY_FILE)
			unlink(path);
		else
			rmdir(path);
	}
	rmdir(place);
}

/* Adopted processes that ended, reaped: whether any is left (false: no child at all). */
static bool
children_left(void)
{
	pid_t w;

	while ((w = waitpid(-1, NULL, WNOHANG | __WALL)) > 0)
		;
	return !(w < 0 && errno == ECHILD);
}

/*
 * Once the fuzzing process (the timers' creator) ended: its servers end (a subreaper adopts
 * them, so every one is a child here until then), removing their directories from the
 * place; then the place holds the decoys alone, each as it was.  How many checks failed.
 */
static int
place_checked(bool subreaper)
{
	int64_t end = now_ns(CLOCK_MONOTONIC) + END_MAX_NS * slowness(), t0 = now_ns(CLOCK_MONOTONIC);
	char left[256] = "";
	int failures = 0, n;
	bool running;

	do {
		running = subreaper && children_left();
		n = not_decoys(left, sizeof(left));
		if (!running && n == 0)
			break;
		usleep(20000);
	} while (now_ns(CLOCK_MONOTONIC) < end);
	if (running) {
		printf("access-fuzz: a server still ran %d s after its program ended\n",
		       (int)(END_MAX_NS * slowness() / NS_PER_S));
		failures++;
	}
	if (n != 0) {
		printf("access-fuzz: %s/%s%s: left once the servers ended\n", place, left,
		       n > 1 ? " (and more)" : "");
		failures++;
	}
	failures += decoys_intact();
	printf("access-fuzz: %s: decoys and leftovers, %d failed checks (%lld ms after the fuzz)\n",
	       place, failures, (long long)((now_ns(CLOCK_MONOTONIC) - t0) / NS_PER_MS));
	return failures;
}

/* The fuzzing itself, in a process of its own (the timers' creator): 0, or 1. */
static int
fuzz(int seconds)
{
	int status, failures = 0;
	uint64_t seed = (uint64_t)now_ns(CLOCK_REALTIME) | 1, attacker_seed = seed * 3 + 1;
	struct fuzz_timer t[NTIMERS];
	int64_t end;
	long ops = 0;
	pid_t pid, parent;

	printf("access-fuzz: %d s, seed %llu\n", seconds, (unsigned long long)seed);
	for (int k = 0; k < NTIMERS; k++) {
		t[k].fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
		if (t[k].fd < 0 || arm(&t[k], &seed) != 0) {
			perror("access-fuzz: timerfd");
			return 1;
		}
	}
	/* What was made in the place: the library's directory (the emulation's), or nothing. */
	{
		struct stat st;
		char made[256] = "";
		bool emulated = fstat(t[0].fd, &st) == 0 && S_ISFIFO(st.st_mode);
		int n = not_decoys(made, sizeof(made));

		if (emulated ? n > 1 || (n == 1 && strncmp(made, ".libtimerfd-", 12) != 0) : n != 0) {
			printf("access-fuzz: %s/%s made by the %s's backend\n", place, made,
			       emulated ? "emulation" : "kernel");
			return 1;
		}
		/* $TMPDIR not taken (a directory on the way others may write?): said, not failed. */
		if (emulated && n == 0)
			printf("access-fuzz: the library made its directory elsewhere than %s\n", place);
	}
	fflush(stdout);
	parent = getpid();
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		struct attack a = { 0 };
		bool other = geteuid() == 0;

		if (other && (setgroups(0, NULL) != 0 || setresgid(NOBODY, NOBODY, NOBODY) != 0 ||
			      setresuid(NOBODY, NOBODY, NOBODY) != 0))
			_exit(2);
		/*
		 * Killed if this process dies (a crash is what the fuzz looks for): else it would
		 * run on for ever.  Set after the drop, which clears it; too late if it died meanwhile.
		 */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != parent)
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
	/* Closed: their servers may end (main() looks at what they leave). */
	for (int k = 0; k < NTIMERS; k++)
		close(t[k].fd);
	printf("access-fuzz: %ld operations, %d failed checks\n", ops, failures);
	return failures ? 1 : 0;
}

int
main(int argc, char **argv)
{
	int seconds = argc > 1 ? atoi(argv[1]) : 5, status, failures;
	bool subreaper;
	pid_t pid;

	if (make_place() != 0 || setenv("TMPDIR", place, 1) != 0)
		return 1;
	/*
	 * The servers' parent (a server is cloned twice, its first parent exits): so that
	 * their end is seen as their exit, whoever they run as.  Without it (Linux < 3.4),
	 * as their directories' removal alone.
	 */
	subreaper = prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
	/*
	 * The timers are made by a process that ends once they are closed: a server ends at
	 * once when its program did (a server whose program lives lingers two seconds).
	 */
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		int r = fuzz(seconds);

		fflush(stdout);
		_exit(r);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	failures = !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	if (WIFSIGNALED(status))
		printf("access-fuzz: the fuzzing process died of signal %d (%s)\n", WTERMSIG(status),
		       strsignal(WTERMSIG(status)));
	failures += place_checked(subreaper);
	/* Kept where a check failed: what is there says what happened. */
	if (!failures)
		remove_place();
	return failures ? 1 : 0;
}
