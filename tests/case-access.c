/* SPDX-License-Identifier: MIT */
/*
 * Test cases: the kernel's access rule.  A timer is reached only through a descriptor of
 * it: a child that dropped its privileges and closed its descriptors, another user, a
 * process of the same user that may not ptrace the program, each gets nothing of the
 * program's timers, and can neither stop, forge, crash nor hang them (issue 25's
 * scenarios; libtimerfd(7), SECURITY).  Each runs on both backends, the kernel's as the
 * control: what it shows there is the rule.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>

#include "attacker.h"
#include "dirs.h"
#include "helpers.h"
#include "procs.h"
#include "suite.h"

/* Where privileges are dropped to: nobody, nogroup. */
#define NOBODY 65534

/*
 * Whether every count read from @fd, a timer of @period_ns, over @ns was plausible: 0, or
 * the first bad one.  In all, never more than the periods since the start, plus 2 (plus one
 * per unit of slowness(), and 200 ms of periods: counts due before the start can come after
 * it from a late server; a forged count is far more); each count at least 1, and a read
 * within 2 s.
 */
static uint64_t
bad_count_within(int fd, int64_t period_ns, int64_t ns, uint64_t *total)
{
	struct itimerspec cur;
	int64_t start;
	uint64_t before = 0;

	/*
	 * What piled up before is taken first, its bound not known here: after a gettime, so
	 * that every expiration due by then is in it (a late server delivers it at gettime).
	 */
	if (timerfd_gettime(fd, &cur) != 0)
		return UINT64_MAX - 4;
	if (readable_within(fd, 0) && (read(fd, &before, sizeof(before)) != (ssize_t)sizeof(before) ||
				       before == 0))
		return UINT64_MAX - 3;
	start = now_ns(CLOCK_MONOTONIC);
	*total = 0;
	while (now_ns(CLOCK_MONOTONIC) - start < ns) {
		uint64_t ticks = 0;

		if (!becomes_readable(fd, 2000))
			return UINT64_MAX - 1; /* stopped */
		if (read(fd, &ticks, sizeof(ticks)) != (ssize_t)sizeof(ticks))
			return UINT64_MAX - 2; /* end-of-file, an error, a short read */
		/*
		 * A server held off the CPU delivers late what fell due before the start too
		 * (an emulated CPU held it 120 ms once): 200 ms of periods (scaled) are allowed
		 * for that; a forged count is far more.
		 */
		if (ticks == 0 ||
		    (int64_t)(*total + ticks) > (now_ns(CLOCK_MONOTONIC) - start) / period_ns + 1 +
							  slowness() + scaled_ns(200 * NS_PER_MS) / period_ns)
			return ticks;
		*total += ticks;
	}
	return 0;
}

/* --- a child that dropped its privileges and closed its descriptors ------------------------ */

/*
 * The program (the test process) holds a periodic timer made before the fork and one made
 * after it; its child drops to nobody where the test runs as root, closes every descriptor,
 * and attacks for a while: garbage over every writable shared mapping it has, garbage to
 * every door, and, as another user, a forged count into every FIFO it can open.  The
 * program's timers count on, exactly, and settime and gettime work.
 */
START_TEST(a_child_that_dropped_its_privileges_reaches_none_of_its_parents_timers)
{
	struct itimerspec its = its_ns(5 * NS_PER_MS, 5 * NS_PER_MS), cur;
	bool other_user = geteuid() == 0;
	int before = periodic_timer(5 * NS_PER_MS, TFD_NONBLOCK), after, link[2], status;
	struct attack a = { 0 };
	uint64_t bad, total;
	pid_t pid;

	if (under_qemu()) {
		case_skipped("a_child_that_dropped_its_privileges...: qemu-user ignores madvise(), "
			     "so fork hands the child the family's memory (make check-vm runs it)");
		close(before);
		return;
	}
	ck_assert_int_ge(before, 0);
	ck_assert_int_eq(pipe(link), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		uint64_t seed = 0x9e3779b97f4a7c15ULL ^ (uint64_t)getpid();
		int64_t end;

		child_alarm(20);
		if (other_user)
			become_user(NOBODY);
		/* Everything but the report's pipe. */
		for (int fd = 3; fd < 1024; fd++)
			if (fd != link[1])
				close(fd);
		/* Until the program has made its second timer, then on for 300 ms. */
		sleep_ns(50 * NS_PER_MS);
		end = now_ns(CLOCK_MONOTONIC) + 300 * NS_PER_MS;
		while (now_ns(CLOCK_MONOTONIC) < end)
			attack_round(&seed, other_user, &a);
		_exit(write(link[1], &a, sizeof(a)) == (ssize_t)sizeof(a) ? 0 : 1);
	}
	close(link[1]);
	after = periodic_timer(5 * NS_PER_MS, TFD_NONBLOCK);
	ck_assert_int_ge(after, 0);
	bad = bad_count_within(before, 5 * NS_PER_MS, 200 * NS_PER_MS, &total);
	ck_assert_msg(bad == 0, "the timer made before the fork read %llu", (unsigned long long)bad);
	bad = bad_count_within(after, 5 * NS_PER_MS, 200 * NS_PER_MS, &total);
	ck_assert_msg(bad == 0, "the timer made after the fork read %llu", (unsigned long long)bad);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "attacker: status %#x", status);
	ck_assert_int_eq(read(link[0], &a, sizeof(a)), sizeof(a));
	close(link[0]);
	printf("attacker (%s): %d shared mappings (%ld bytes written), %d directories (%d listed), "
	       "%d FIFOs opened (%ld counts forged), %d doors knocked (%d served)\n",
	       other_user ? "nobody" : "same user", a.shared_maps, a.bytes_written, a.dirs,
	       a.dirs_listed, a.fifos_opened, a.forged, a.doors_knocked, a.doors_served);
	/* Fork hands the family's memory to nobody (MADV_DONTFORK); no door serves a non-timer. */
	ck_assert_int_eq(a.shared_maps, 0);
	ck_assert_int_eq(a.doors_served, 0);
	if (other_user) {
		ck_assert_int_eq(a.dirs_listed, 0);
		ck_assert_int_eq(a.fifos_opened, 0);
	}
	/* Still counting, exactly, and still set and read by the program. */
	for (int k = 0; k < 2; k++) {
		int fd = k ? after : before;

		bad = bad_count_within(fd, 5 * NS_PER_MS, 100 * NS_PER_MS, &total);
		ck_assert_msg(bad == 0 && total >= 1, "timer %d after the attack: read %llu, %llu in all", k,
			      (unsigned long long)bad, (unsigned long long)total);
		ck_assert_int_eq(timerfd_gettime(fd, &cur), 0);
		ck_assert_int_eq(ts_ns(&cur.it_interval), 5 * NS_PER_MS);
		ck_assert_int_eq(timerfd_settime(fd, 0, &its, NULL), 0);
		close(fd);
	}
}
END_TEST

/* --- the server is never easier to look into than the program ------------------------------- */

static bool
server_of_uid(const struct proc_entry *p, void *uid)
{
	return strcmp(p->comm, "libtimerfd") == 0 && p->uid == *(uid_t *)uid;
}

/* The pids of the processes named "libtimerfd" of user @uid, up to @max: how many. */
static int
servers_of(uid_t uid, pid_t *pids, int max)
{
	return procs_matching(server_of_uid, &uid, pids, max);
}

/* The period of the non-dumpable program's timers, and how long each is read under attack. */
#define ND_PERIOD_NS (10 * NS_PER_MS)
#define ND_CHECK_NS NS_PER_S

/* What the peer of the non-dumpable program tells it at the end. */
struct peer_report {
	struct attack a;
	int targets; /* directories of the user's that appeared with the program's first timer */
	int rounds;  /* rounds of attack_own_files() */
};

/*
 * The peer: a process of the program's user forked before any timer.  Once the program is
 * non-dumpable it may not look into it (/proc/PID/fd) nor into any timer server of the user
 * (never dumpable); then it attacks the program's files as their owner may
 * (attack_own_files()): a round, then rounds until the program says stop, holding what it
 * opened throughout.  Exits 0 once it has sent its report.
 */
static void
peer_attacks(int from, int to)
{
	static struct held h; /* large */
	struct peer_report r = { .rounds = 0 };
	struct pollfd stop = { .fd = from, .events = POLLIN };
	pid_t servers[16];
	char path[64], go, dir[256];
	int64_t end;
	int n;

	child_alarm(20);
	held_init(&h);
	child_assert(write(to, "r", 1) == 1);
	child_assert(read(from, &go, 1) == 1 && go == 'g'); /* a timer made, then non-dumpable */
	/* Which directory is the program's, as it found it (none: the kernel's timers). */
	child_assert(read(from, dir, sizeof(dir)) == (ssize_t)sizeof(dir));
	dir[sizeof(dir) - 1] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)getppid());
	errno = 0;
	child_assert(opendir(path) == NULL && errno == EACCES);
	n = servers_of(getuid(), servers, 16);
	for (int k = 0; k < n; k++) {
		snprintf(path, sizeof(path), "/proc/%d/fd", (int)servers[k]);
		errno = 0;
		child_assert(opendir(path) == NULL && errno == EACCES);
	}
	printf("non-dumpable program: %d server(s) of its user, none open to look into\n", n);
	fflush(stdout);
	held_aim(&h, dir);
	r.targets = h.ntargets;
	attack_own_files(&r.a, &h);
	r.rounds++;
	child_assert(write(to, "1", 1) == 1);
	child_assert(read(from, &go, 1) == 1 && go == 'a'); /* a timer made while non-dumpable */
	/* Until the program has read both timers (or has gone: end-of-file), a bound where it hangs. */
	end = now_ns(CLOCK_MONOTONIC) + scaled_ns(10 * NS_PER_S);
	while (poll(&stop, 1, 1) == 0 && now_ns(CLOCK_MONOTONIC) < end) {
		attack_own_files(&r.a, &h);
		r.rounds++;
	}
	held_release(&h);
	child_assert(write(to, &r, sizeof(r)) == (ssize_t)sizeof(r));
	_exit(0);
}

/*
 * ssh-agent's and gpg-agent's hardening: a program that made itself non-dumpable, with a
 * timer made before and one after.  Another process of the same user then gets nothing of
 * it, as the kernel rules: it may not look into the program or its servers, and though it
 * owns the library's files and opens what it finds there (forging counts into them,
 * reading counts away, holding spare FIFOs before they become timers), both timers count
 * on: every count plausible, none forged, and about every period's (a count read away
 * would be missing), and it reads no count of theirs.
 */
static void
non_dumpable_program(void)
{
	int to_peer[2], to_prog[2], fds[2], status;
	uint64_t bad[2] = { 0, 0 }, total[2] = { 0, 0 };
	struct peer_report r;
	char c, dir[256];
	pid_t peer;

	if (geteuid() == 0)
		become_user(NOBODY); /* root may look into anything: an ordinary user */
	/* Dumpable, as a program started by its user is (a change of user made it not). */
	child_assert(prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) == 0);
	child_assert(pipe(to_peer) == 0 && pipe(to_prog) == 0);
	peer = fork(); /* another process of the same user, forked before any timer */
	child_assert(peer >= 0);
	if (peer == 0) {
		close(to_peer[1]);
		close(to_prog[0]);
		peer_attacks(to_peer[0], to_prog[1]);
	}
	close(to_peer[0]);
	close(to_prog[1]);
	child_assert(read(to_prog[0], &c, 1) == 1); /* the peer is ready */
	fds[0] = periodic_timer(ND_PERIOD_NS, 0);
	child_assert(fds[0] >= 0);
	/*
	 * The program's own directory is what the peer attacks, told by the program: the suite's
	 * other processes of the same user (a parallel make check) are left alone.
	 */
	memset(dir, 0, sizeof(dir));
	if (!library_dir_of(fds[0], dir, sizeof(dir)))
		dir[0] = '\0';
	child_assert(prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0);
	child_assert(write(to_peer[1], "g", 1) == 1);
	child_assert(write(to_peer[1], dir, sizeof(dir)) == (ssize_t)sizeof(dir));
	child_assert(read(to_prog[0], &c, 1) == 1); /* it looked, and attacked once */
	fds[1] = periodic_timer(ND_PERIOD_NS, 0);
	child_assert(fds[1] >= 0);
	child_assert(write(to_peer[1], "a", 1) == 1);
	/* Both read for a second each while the peer attacks, holding what it opened. */
	for (int k = 0; k < 2; k++)
		bad[k] = bad_count_within(fds[k], ND_PERIOD_NS, ND_CHECK_NS, &total[k]);
	child_assert(write(to_peer[1], "s", 1) == 1);
	child_assert(read(to_prog[0], &r, sizeof(r)) == (ssize_t)sizeof(r));
	child_assert(waitpid(peer, &status, 0) == peer);
	printf("non-dumpable program: its user's other process found %d director%s of the "
	       "program's; in %d rounds it listed %d (chmod-ing %d), opened %d FIFOs for writing "
	       "(%ld counts forged) and %d for reading (%ld bytes read, %ld counts stolen), holding "
	       "up to %d descriptors\n", r.targets, r.targets == 1 ? "y" : "ies", r.rounds,
	       r.a.dirs_listed, r.a.dirs_opened_up, r.a.fifos_opened, r.a.forged, r.a.fifos_read,
	       r.a.bytes_read, r.a.stolen, r.a.held);
	for (int k = 0; k < 2; k++)
		printf("non-dumpable program: the timer made while %s: %llu counts in %lld ms, bad "
		       "count %#llx\n", k ? "non-dumpable" : "dumpable", (unsigned long long)total[k],
		       (long long)(ND_CHECK_NS / NS_PER_MS), (unsigned long long)bad[k]);
	fflush(stdout);
	child_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	for (int k = 0; k < 2; k++) {
		/* Forged (0x4141414141414141), stopped, or more than the clock gave. */
		child_assert(bad[k] == 0);
		/* A count read away is missing: at least half of the periods' are there. */
		child_assert(total[k] >= (uint64_t)(ND_CHECK_NS / ND_PERIOD_NS / 2));
		close(fds[k]);
	}
	/* And it read no count but those it forged. */
	child_assert(r.a.stolen == 0);
}

START_TEST(a_non_dumpable_programs_timers_are_not_open_to_its_users_other_processes)
{
	char link[64], target[PATH_MAX];
	ssize_t n;
	int fd;

	/* Without /proc: nothing to look into, and the emulation's timers keep their names. */
	if (!proc_is_mounted()) {
		case_skipped("a_non_dumpable_programs_timers...: no /proc, nothing to look into");
		return;
	}
	fd = periodic_timer(ND_PERIOD_NS, 0);
	ck_assert_int_ge(fd, 0);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	ck_assert_int_gt(n, 0);
	target[n] = '\0';
	close(fd);
	/*
	 * The emulation's live timers lose their names only where its server reopens them
	 * through /proc and its twin shares its table (CLONE_FILES; not under qemu-user): where
	 * they keep them, libtimerfd(7) says a process of the same user may open them.
	 */
	if (target[0] == '/' && !strstr(target, " (deleted)")) {
		case_skipped("a_non_dumpable_programs_timers...: the emulation keeps its timers' "
			     "names here (its twin cannot share the server's table)");
		return;
	}
	in_child(non_dumpable_program);
}
END_TEST

/*
 * A non-dumpable program's timer (one that never had a name under the emulation: DESIGN.md,
 * "Names") does all a timer does: counts pile up unread and are read as one; a rearm drops
 * a count that waits; a child forked after it sets, reads and gets it (through the door,
 * by the pipe's device); and after the program dropped root (where it ran as root) a rearm
 * still drops what waits, though it may no longer open its server's pipe anew (the server
 * drains it then).  Every step as on the kernel.
 */
static void
non_dumpable_timer_life(void)
{
	struct itimerspec cur, later = its_ns(10 * NS_PER_S, 0);
	int64_t armed, elapsed;
	uint64_t ticks = 0;
	pid_t child;
	int fd, status;

	child_assert(prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0);
	armed = now_ns(CLOCK_MONOTONIC);
	fd = periodic_timer(10 * NS_PER_MS, TFD_NONBLOCK);
	/* Unread for 300 ms: one count of every period, at once. */
	sleep_ns(300 * NS_PER_MS);
	child_assert(timerfd_gettime(fd, &cur) == 0);
	child_assert(read(fd, &ticks, sizeof(ticks)) == (ssize_t)sizeof(ticks));
	elapsed = now_ns(CLOCK_MONOTONIC) - armed;
	if (ticks < 20 || (int64_t)ticks > elapsed / (10 * NS_PER_MS) + 1) {
		fprintf(stderr, "child: %llu counts in %lld ms of 10 ms periods\n",
			(unsigned long long)ticks, (long long)(elapsed / NS_PER_MS));
		_exit(1);
	}
	/* A count waits; the rearm drops it. */
	sleep_ns(30 * NS_PER_MS);
	child_assert(timerfd_settime(fd, 0, &later, NULL) == 0);
	child_assert(read(fd, &ticks, sizeof(ticks)) == -1 && errno == EAGAIN);
	/* A child forked now arms it, sees it fire and reads it. */
	child = fork();
	child_assert(child >= 0);
	if (child == 0) {
		struct itimerspec soon = its_ns(5 * NS_PER_MS, 5 * NS_PER_MS);

		child_assert(timerfd_settime(fd, 0, &soon, NULL) == 0);
		child_assert(becomes_readable(fd, 2000));
		child_assert(read(fd, &ticks, sizeof(ticks)) == (ssize_t)sizeof(ticks) && ticks >= 1);
		child_assert(timerfd_gettime(fd, &cur) == 0 && cur.it_interval.tv_nsec == 5 * NS_PER_MS);
		_exit(0);
	}
	child_assert(waitpid(child, &status, 0) == child && WIFEXITED(status) &&
		     WEXITSTATUS(status) == 0);
	/* Its arming is the program's too. */
	child_assert(timerfd_gettime(fd, &cur) == 0 && cur.it_interval.tv_nsec == 5 * NS_PER_MS);
	child_assert(becomes_readable(fd, 2000));
	if (geteuid() == 0) {
		/* Root no more: a count waits, and the rearm drops it all the same. */
		become_user(NOBODY);
		sleep_ns(30 * NS_PER_MS);
		child_assert(timerfd_settime(fd, 0, &later, NULL) == 0);
		child_assert(read(fd, &ticks, sizeof(ticks)) == -1 && errno == EAGAIN);
		child_assert(timerfd_gettime(fd, &cur) == 0 && cur.it_value.tv_sec >= 9);
	}
	child_assert(close(fd) == 0);
	_exit(0);
}

START_TEST(a_non_dumpable_programs_timers_count_rearm_and_reach_its_children)
{
	in_child(non_dumpable_timer_life);
}
END_TEST

/* --- settime acts on the open file it was given, and never waits on the program's -------------- */

struct race {
	int fd;   /* the timer's number: atomic, the main thread moves it */
	int stop; /* atomic */
	long calls;
};

/* Rounds that must have tested something (the pipe took the timer's number). */
#define RACE_REUSED_MIN 10

static void *
settime_loop(void *arg)
{
	struct race *r = arg;
	struct itimerspec its = its_ns(NS_PER_MS, NS_PER_MS);

	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		timerfd_settime(__atomic_load_n(&r->fd, __ATOMIC_RELAXED), 0, &its, NULL);
		r->calls++;
		if (under_valgrind())
			sched_yield(); /* where threads take turns, the closing thread's turn */
	}
	return NULL;
}

/*
 * A settime racing a close by another thread that reuses the number for a pipe: the
 * settime acts on the timer it looked up or fails with EBADF/EINVAL, and never reads a
 * byte of the pipe (the kernel's fdget() takes the open file once).  A round where the
 * pipe got another number (a momentary descriptor of the library's took it) tests nothing
 * and is not counted.
 */
START_TEST(a_settime_racing_a_close_that_reuses_the_number_reads_nothing_of_the_new_file)
{
	struct race r = { .fd = periodic_timer(NS_PER_MS, TFD_NONBLOCK) };
	int64_t start = now_ns(CLOCK_MONOTONIC), end = start + 500 * NS_PER_MS;
	int64_t limit = start + scaled_ns(10 * NS_PER_S); /* generous: left at 10 rounds reused */
	long rounds = 0, reused = 0, lost = 0;
	pthread_t t;

	ck_assert_int_ge(r.fd, 0);
	/* ThreadSanitizer reports the race on the descriptor that this case makes on purpose. */
	if (sanitizer() && strcmp(sanitizer(), "thread") == 0) {
		case_skipped("a_settime_racing_a_close...: ThreadSanitizer reports the close racing "
			     "a call on purpose (the case runs in every other build)");
		close(r.fd);
		return;
	}
	ck_assert_int_eq(pthread_create(&t, NULL, settime_loop, &r), 0);
	/* 500 ms, and on until 10 rounds reused the number where each round is slow (valgrind). */
	while (now_ns(CLOCK_MONOTONIC) < end ||
	       (reused < RACE_REUSED_MIN && now_ns(CLOCK_MONOTONIC) < limit)) {
		static const char data[8] = "program";
		int p[2], fd = __atomic_load_n(&r.fd, __ATOMIC_RELAXED);

		/* Counts pile up (so a rearm has one to drop), then the number goes to a pipe. */
		sleep_ns(2 * NS_PER_MS);
		ck_assert_int_eq(close(fd), 0);
		ck_assert_int_eq(pipe(p), 0);
		ck_assert_int_eq(write(p[1], data, sizeof(data)), sizeof(data));
		if (p[0] == fd) {
			char back[8];

			reused++;
			sleep_ns(NS_PER_MS);
			set_nonblock(p[0]);
			if (read(p[0], back, sizeof(back)) != (ssize_t)sizeof(back) ||
			    memcmp(back, data, 8) != 0)
				lost++;
		}
		close(p[0]);
		close(p[1]);
		/* The timer again, likely on the same number. */
		fd = periodic_timer(NS_PER_MS, TFD_NONBLOCK);
		ck_assert_int_ge(fd, 0);
		__atomic_store_n(&r.fd, fd, __ATOMIC_RELAXED);
		rounds++;
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	close(r.fd);
	printf("settime racing close: %ld rounds (%ld with the number reused), %ld settime calls, "
	       "%ld pipes lost bytes\n", rounds, reused, r.calls, lost);
	ck_assert_int_eq(lost, 0);
	ck_assert_int_ge(reused, RACE_REUSED_MIN);
}
END_TEST

static void *
toggle_nonblock(void *arg)
{
	struct race *r = arg;

	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		int fl = fcntl(r->fd, F_GETFL);

		fcntl(r->fd, F_SETFL, fl ^ O_NONBLOCK);
		r->calls++;
	}
	return NULL;
}

/* Rearms while another thread clears and sets O_NONBLOCK on the timer's open file: never blocks. */
static void
rearms_beside_o_nonblock_toggles(void)
{
	struct race r = { .fd = periodic_timer(NS_PER_MS, TFD_NONBLOCK) };
	struct itimerspec its = its_ns(NS_PER_MS, NS_PER_MS);
	pthread_t t;
	int ok = 0;

	child_assert(r.fd >= 0);
	child_assert(pthread_create(&t, NULL, toggle_nonblock, &r) == 0);
	for (int k = 0; k < 300; k++) {
		sleep_ns(2 * NS_PER_MS); /* a count waits: the rearm drops it */
		ok += timerfd_settime(r.fd, 0, &its, NULL) == 0;
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	child_assert(ok == 300);
	close(r.fd);
}

START_TEST(a_settime_while_another_thread_clears_o_nonblock_never_blocks)
{
	/* In a child with its alarm: a settime blocked for good would fail the case, not hang it. */
	in_child(rearms_beside_o_nonblock_toggles);
}
END_TEST

/* --- where the directory goes ------------------------------------------------------------------ */

static char untrusted[64];

/* A first timer with $TMPDIR at @untrusted: made, and nothing put there. */
static void
first_timer_beside_untrusted_tmpdir(void)
{
	int fd;

	child_assert(setenv("TMPDIR", untrusted, 1) == 0);
	fd = periodic_timer(10 * NS_PER_MS, 0);
	child_assert(fd >= 0);
	child_assert(dir_entries(untrusted) == 0);
	close(fd);
}

/*
 * root after `su` without `-`: $TMPDIR is another user's, who could rename or replace what
 * is made there.  Also a directory others may write to without the sticky bit.  Neither is
 * used; the first timer is made elsewhere, as on the kernel.
 */
START_TEST(a_tmpdir_that_others_control_is_never_used)
{
	snprintf(untrusted, sizeof(untrusted), "/tmp/tfd-untrusted-%d", (int)getpid());
	ck_assert_int_eq(mkdir(untrusted, 0755), 0);
	ck_assert_int_eq(chmod(untrusted, 0777), 0); /* world-writable, not sticky */
	in_child(first_timer_beside_untrusted_tmpdir);
	if (geteuid() == 0) {
		ck_assert_int_eq(chmod(untrusted, 0755), 0);
		ck_assert_int_eq(chown(untrusted, NOBODY, NOBODY), 0); /* another user's */
		in_child(first_timer_beside_untrusted_tmpdir);
	} else {
		printf("a_tmpdir_that_others_control...: another user's $TMPDIR needs root (chown)\n");
	}
	ck_assert_int_eq(rmdir(untrusted), 0);
}
END_TEST

/* Another user learns nothing of how many timers a program holds: its directory looks the same. */
static void
count_is_hidden(void)
{
	char mine[4096], why[200] = "";
	struct stat one, many;
	int fds[40];

	fds[0] = periodic_timer(10 * NS_PER_MS, 0);
	child_assert(fds[0] >= 0);
	/* Its own, as the process finds it (tests/dirs.h), with /proc or without. */
	if (!library_dir_of(fds[0], mine, sizeof(mine))) {
		if (timer_is_emulated(fds[0])) {
			fprintf(stderr, "child: the emulated timer's directory was not found\n");
			_exit(1);
		}
		printf("count_is_hidden: no directory of the library's (the kernel's timers)\n");
		fflush(stdout);
		close(fds[0]);
		return;
	}
	child_assert(stat(mine, &one) == 0);
	for (int k = 1; k < 40; k++)
		child_assert((fds[k] = periodic_timer(10 * NS_PER_MS, 0)) >= 0);
	child_assert(stat(mine, &many) == 0);
	printf("count_is_hidden: %s: mode %o, size %lld with 1 timer and %lld with 40\n", mine,
	       (unsigned)(one.st_mode & 07777), (long long)one.st_size, (long long)many.st_size);
	fflush(stdout);
	child_assert((one.st_mode & 07777) == 0711 && one.st_size == many.st_size);
	/* And another user cannot list it (where root may become one: helpers.h). */
	if (getuid() == 0 && root_can_become(NOBODY, why, sizeof(why))) {
		pid_t pid = fork();
		int status;

		child_assert(pid >= 0);
		if (pid == 0) {
			become_user(NOBODY);
			errno = 0;
			child_assert(opendir(mine) == NULL && errno == EACCES);
			_exit(0);
		}
		child_assert(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	} else {
		printf("count_is_hidden: no other user to list it as (%s)\n", getuid() ? "not root" : why);
	}
	for (int k = 0; k < 40; k++)
		close(fds[k]);
}

START_TEST(another_user_cannot_count_a_programs_timers)
{
	in_child(count_is_hidden);
}
END_TEST

/* A full filesystem where $TMPDIR points: the first timer is made, its directory elsewhere. */
static void
first_timer_beside_a_full_tmpdir(void)
{
	char path[96];
	int fd, n = 0;

	/* A tmpfs of its own in a mount namespace of its own, its inodes used up. */
	if (unshare(CLONE_NEWNS) != 0 || mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("tfd-full", untrusted, "tmpfs", 0, "nr_inodes=16,size=64k,mode=1777") != 0) {
		printf("a_full_place...: no tmpfs of its own here (%s): not tried\n", strerror(errno));
		_exit(77);
	}
	for (;; n++) {
		snprintf(path, sizeof(path), "%s/f%d", untrusted, n);
		if (mknod(path, S_IFIFO | 0600, 0) != 0)
			break;
	}
	child_assert(errno == ENOSPC);
	child_assert(setenv("TMPDIR", untrusted, 1) == 0);
	fd = periodic_timer(10 * NS_PER_MS, 0);
	child_assert(fd >= 0);
	child_assert(becomes_readable(fd, 2000));
	close(fd);
	_exit(0);
}

START_TEST(a_full_place_for_the_directory_is_left_for_the_next)
{
	int status;
	pid_t pid;

	if (geteuid() != 0) {
		case_skipped("a_full_place_for_the_directory...: needs root, to mount a full tmpfs");
		return;
	}
	snprintf(untrusted, sizeof(untrusted), "/tmp/tfd-full-%d", (int)getpid());
	ck_assert_int_eq(mkdir(untrusted, 01777), 0);
	ck_assert_int_eq(chmod(untrusted, 01777), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		child_alarm(20);
		first_timer_beside_a_full_tmpdir();
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	rmdir(untrusted);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
		case_skipped("a_full_place_for_the_directory...: no tmpfs can be mounted here "
			     "(make check-vm's guests can)");
		return;
	}
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
}
END_TEST

/*
 * The name of a timer's FIFO replaced by a link to another file (only the program's user,
 * or root, can write in the directory): no call on the timer opens what the link names.
 * The kernel's timer has no name to follow; the emulation opens names with O_NOFOLLOW and
 * checks the inode.  Watched with inotify on the link's target: no open of it, while a
 * rearm drops a count that waits (a drain), a gettime and a read run, and every call either
 * works or fails with an errno (ENOMEM: the drain could not be done, libtimerfd(7)).
 */
START_TEST(a_link_planted_at_a_timers_fifo_name_is_never_followed)
{
	char target[] = "/tmp/libtimerfd-link-target-XXXXXX", proc[64], name[PATH_MAX];
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK), tmp, in;
	struct itimerspec soon = { { 0, 0 }, { 0, NS_PER_MS } }, later = { { 0, 0 }, { 10, 0 } }, cur;
	struct inotify_event ev[8];
	bool planted;
	uint64_t ticks;
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	tmp = mkstemp(target);
	ck_assert_int_ge(tmp, 0);
	ck_assert_int_eq(write(tmp, "secret\n", 7), 7);
	close(tmp);
	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (in < 0) {
		case_skipped("a_link_planted...: no inotify here, to see an open of the link's target");
		unlink(target);
		close(fd);
		return;
	}
	ck_assert_int_ge(inotify_add_watch(in, target, IN_OPEN | IN_ACCESS), 0);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, name, sizeof(name) - 1);
	/*
	 * The kernel's timer: "anon_inode:[timerfd]", no name: the link goes beside the target
	 * (the same calls on both backends: tests/timerfd-test-allowlist.sh allows the suite
	 * the calls it makes on the kernel's timerfd).
	 */
	planted = n > 0 && name[0] == '/';
	if (planted) {
		static const char gone[] = " (deleted)";

		name[n] = '\0';
		/* Where a live timer's name goes at once (DESIGN.md, "Names"): planted at the old name. */
		if ((size_t)n > sizeof(gone) && strcmp(name + n - (sizeof(gone) - 1), gone) == 0)
			name[n - (sizeof(gone) - 1)] = '\0';
	} else {
		snprintf(name, sizeof(name), "%s.link", target);
	}
	/* Nothing there on the kernel's; the emulation's name, or nothing where it went. */
	errno = 0;
	ck_assert_msg(unlink(name) == 0 || (errno == ENOENT), "unlink: errno %d", errno);
	ck_assert_int_eq(symlink(target, name), 0);
	ck_assert_int_eq(timerfd_settime(fd, 0, &soon, NULL), 0);
	sleep_ns(20 * NS_PER_MS);
	errno = 0;
	ck_assert_msg(timerfd_settime(fd, 0, &later, NULL) == 0 || errno == ENOMEM, "errno %d", errno);
	ck_assert_int_eq(timerfd_gettime(fd, &cur), 0);
	ck_assert_int_eq(timerfd_settime(fd, 0, &soon, NULL), 0);
	ck_assert(becomes_readable(fd, 2000));
	ck_assert_int_eq(read(fd, &ticks, sizeof(ticks)), (ssize_t)sizeof(ticks));
	ck_assert_int_eq(ticks, 1);
	n = read(in, ev, sizeof(ev));
	ck_assert_msg(n < 0 && errno == EAGAIN, "the link's target was opened or read (%zd bytes of events)", n);
	unlink(name);
	unlink(target);
	close(in);
	close(fd);
}
END_TEST

TCase *
tcase_access(void)
{
	TCase *tc = tcase_create("access");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, a_child_that_dropped_its_privileges_reaches_none_of_its_parents_timers);
	tcase_add_test(tc, a_non_dumpable_programs_timers_are_not_open_to_its_users_other_processes);
	tcase_add_test(tc, a_non_dumpable_programs_timers_count_rearm_and_reach_its_children);
	tcase_add_test(tc, a_settime_racing_a_close_that_reuses_the_number_reads_nothing_of_the_new_file);
	tcase_add_test(tc, a_settime_while_another_thread_clears_o_nonblock_never_blocks);
	tcase_add_test(tc, a_tmpdir_that_others_control_is_never_used);
	tcase_add_test(tc, another_user_cannot_count_a_programs_timers);
	tcase_add_test(tc, a_full_place_for_the_directory_is_left_for_the_next);
	tcase_add_test(tc, a_link_planted_at_a_timers_fifo_name_is_never_followed);
	return tc;
}
