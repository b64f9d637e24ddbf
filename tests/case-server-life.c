/* SPDX-License-Identifier: MIT */
/*
 * Test cases: what happens to processes happens to the emulation's timer server too.  A
 * kernel timer cannot be killed, signalled or traced; the emulation's server can.  Each
 * case does to whatever serves the timer what users' systems do to processes (SIGKILL,
 * "kill every process" signals) and checks the timer as a program uses it, against the
 * clock.  The kernel is the control: there is no server to find, and the same checks hold.
 * The server is found as what a subreaper adopts: the case's child becomes one, so the
 * server (orphaned at its start) and, after a kill, its twin become its children.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>

#include "cleaner.h"
#include "dirs.h"
#include "helpers.h"
#include "procs.h"
#include "suite.h"

#ifndef __WALL
#define __WALL 0x40000000
#endif

#define PERIOD_NS (10 * NS_PER_MS)

static bool
child_named(const struct proc_entry *p, void *comm)
{
	return p->ppid == getpid() && strcmp(p->comm, comm) == 0;
}

/* Up to @max children of this process whose name is @comm (through /proc): how many. */
static int
children_named(const char *comm, pid_t *out, int max)
{
	return procs_matching(child_named, (void *)comm, out, max);
}

/* A periodic timer and what was read of it since it was armed. */
struct watched {
	int fd;
	int64_t armed_lo, armed_hi;
	uint64_t total;
	long reads, bad; /* bad: end-of-file, an error, a short read */
};

static void
watch_start(struct watched *w)
{
	struct itimerspec its = its_ns(PERIOD_NS, PERIOD_NS);

	w->fd = timerfd_create(CLOCK_MONOTONIC, 0);
	child_assert(w->fd >= 0);
	w->armed_lo = now_ns(CLOCK_MONOTONIC);
	child_assert(timerfd_settime(w->fd, 0, &its, NULL) == 0);
	w->armed_hi = now_ns(CLOCK_MONOTONIC);
	w->total = 0;
	w->reads = w->bad = 0;
}

/* A program's ordinary loop for @ns: poll() then a blocking read(), counting what it got. */
static void
watch_for(struct watched *w, int64_t ns)
{
	int64_t end = now_ns(CLOCK_MONOTONIC) + ns;

	while (now_ns(CLOCK_MONOTONIC) < end) {
		struct pollfd p = { .fd = w->fd, .events = POLLIN };
		uint64_t ticks = 0;
		ssize_t n;

		if (poll(&p, 1, 50) <= 0)
			continue;
		n = read(w->fd, &ticks, sizeof(ticks));
		w->reads++;
		if (n == (ssize_t)sizeof(ticks))
			w->total += ticks;
		else
			w->bad++;
	}
}

/*
 * Every expiration up to a gettime is readable soon after it (the kernel counts one when its
 * interrupt runs: late on a busy machine), and none beyond the clock; no read went wrong,
 * and the loop did not spin (one read an expiration at most, and a few for the kills).
 */
static void
watch_check(struct watched *w, int64_t watched_ns)
{
	struct itimerspec cur;
	int64_t g0 = now_ns(CLOCK_MONOTONIC), lo, hi, r1, wait_end;

	child_assert(timerfd_gettime(w->fd, &cur) == 0);
	child_assert(ts_ns(&cur.it_interval) == PERIOD_NS);
	lo = (g0 - w->armed_hi) / PERIOD_NS;
	wait_end = g0 + scaled_ns(2 * NS_PER_S);
	for (;;) {
		uint64_t ticks;

		if (becomes_readable(w->fd, 0) && read_ticks(w->fd, &ticks) == 0)
			w->total += ticks;
		r1 = now_ns(CLOCK_MONOTONIC);
		if ((int64_t)w->total >= lo || r1 >= wait_end)
			break;
		readable_within(w->fd, 10);
	}
	hi = (r1 - w->armed_lo) / PERIOD_NS + 1;
	if (w->bad || (int64_t)w->total < lo || (int64_t)w->total > hi ||
	    w->reads > watched_ns / PERIOD_NS + 100) {
		fprintf(stderr, "child: %llu expirations, want %lld..%lld; %ld reads, %ld bad\n",
			(unsigned long long)w->total, (long long)lo, (long long)hi, w->reads, w->bad);
		_exit(1);
	}
}

/* The emulation's server of this child's timers, if there is one to find: its pid, or -1. */
static pid_t
the_server(int fd)
{
	pid_t found[4];

	if (!timer_is_emulated(fd))
		return -1;
	for (int tries = 0; tries < 200; tries++) {
		if (children_named("libtimerfd", found, 4) == 1)
			return found[0];
		sleep_ns(10 * NS_PER_MS);
	}
	return -1;
}

static bool
needs_proc_here(void)
{
	/* The kernel's timer needs nothing found; the emulation's server is found through /proc. */
	return !proc_is_mounted();
}

/* Whether this process may become a subreaper (qemu-user refuses the option: EINVAL). */
static bool
subreaper_allowed(void)
{
	return prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0) == 0;
}

/* Says why the running case cannot run here, if it cannot: true then. */
static bool
skipped_without_subreaper(const char *name)
{
	char why[200];

	if (subreaper_allowed())
		return false;
	snprintf(why, sizeof(why), "%s: PR_SET_CHILD_SUBREAPER is refused here (qemu-user)", name);
	case_skipped(why);
	return true;
}

#define KILL_ROUNDS 5

static void
kills_child(void)
{
	struct watched w;

	child_assert(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0);
	watch_start(&w);
	for (int round = 0; round < KILL_ROUNDS; round++) {
		pid_t server;

		watch_for(&w, 100 * NS_PER_MS);
		server = the_server(w.fd);
		child_assert(!timer_is_emulated(w.fd) || server > 0);
		if (server > 0) {
			child_assert(kill(server, SIGKILL) == 0);
			child_assert(waitpid(server, NULL, __WALL) == server);
		}
		watch_for(&w, 200 * NS_PER_MS);
	}
	watch_check(&w, KILL_ROUNDS * 300 * NS_PER_MS);
	_exit(0);
}

/* Says why the kill cases cannot run here, if they cannot: true then. */
static bool
kill_case_skipped(const char *name)
{
	int fd = periodic_timer(PERIOD_NS, 0);
	bool emulated = timer_is_emulated(fd);
	char why[200];

	close(fd);
	why[0] = '\0';
	if (emulated && needs_proc_here())
		snprintf(why, sizeof(why), "%s: the server is found through /proc, which is not "
			 "mounted here", name);
	/* libtimerfd(7): without CLONE_FILES, end-of-file until the twin takes over. */
	else if (emulated && sanitizer() && strcmp(sanitizer(), "thread") == 0)
		snprintf(why, sizeof(why), "%s: ThreadSanitizer's build clones the twin with fork(), "
			 "which cannot share the server's table", name);
	else if (emulated && under_valgrind())
		snprintf(why, sizeof(why), "%s: valgrind implements no clone that shares a table "
			 "(CLONE_FILES) without the memory", name);
	if (why[0]) {
		case_skipped(why);
		return true;
	}
	return skipped_without_subreaper(name);
}

START_TEST(a_periodic_timer_counts_exactly_across_sigkills_of_whatever_serves_it)
{
	if (!kill_case_skipped("a_periodic_timer_counts_exactly_across_sigkills..."))
		in_child(kills_child);
}
END_TEST

/* The same, made by a program that is not dumpable: a timer with no name (DESIGN.md, "Names"). */
static void
non_dumpable_kills_child(void)
{
	child_assert(prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0);
	kills_child();
}

START_TEST(a_non_dumpable_programs_timer_counts_exactly_across_sigkills_of_its_server)
{
	if (!kill_case_skipped("a_non_dumpable_programs_timer_counts_exactly_across_sigkills..."))
		in_child(non_dumpable_kills_child);
}
END_TEST

/* The twin of @server: its child named libtimerfd-twin. */
static bool
twin_of(const struct proc_entry *p, void *server)
{
	return p->ppid == *(pid_t *)server && strcmp(p->comm, "libtimerfd-twin") == 0;
}

/*
 * A server and its twin killed together (kill(1) of both, the OOM killer twice): what
 * libtimerfd(7) says a program sees, exactly.  Its timer's descriptor reads end-of-file
 * (readable, 0 bytes: a poll loop over it spins until it is closed); the process's next
 * create starts a new server, which works, and removes the dead one's directory.  The
 * kernel's timer has nothing to kill: it fires on (the control).
 */
/* Kills @server and its twin at once and reaps both (this process is a subreaper). */
static void
kill_server_and_twin(pid_t server)
{
	pid_t twin, pid;
	int left = 2;

	child_assert(procs_matching(twin_of, &server, &twin, 1) == 1);
	/*
	 * At once: both stopped first.  Killed one after the other, the twin may take over
	 * in between and clone a twin of its own, which then serves on (the takeover that
	 * DESIGN.md's "Surviving a kill" describes, not this case).
	 */
	child_assert(kill(server, SIGSTOP) == 0 && kill(twin, SIGSTOP) == 0);
	child_assert(kill(server, SIGKILL) == 0 && kill(twin, SIGKILL) == 0);
	/* Both become this subreaper's to reap (the twin once its parent is gone). */
	while (left > 0 && (pid = waitpid(-1, NULL, __WALL)) > 0)
		left -= pid == server || pid == twin;
	child_assert(left == 0);
}

static void
both_killed_child(void)
{
	char path[PATH_MAX];
	struct itimerspec shot = its_ns(NS_PER_MS, 0);
	pid_t server;
	uint64_t ticks;
	struct stat st;
	int fd, fd2;

	child_assert(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0);
	fd = periodic_timer(PERIOD_NS, 0);
	child_assert(read_ticks(fd, &ticks) == 0 && ticks >= 1);
	server = the_server(fd);
	if (server > 0) {
		ssize_t n;

		child_assert(library_dir_of(fd, path, sizeof(path)));
		kill_server_and_twin(server);
		/*
		 * End-of-file: readable, and nothing in it, read after read; first the count
		 * the server wrote before it died, if it wrote one after the last read.
		 */
		child_assert(becomes_readable(fd, 2000));
		n = read(fd, &ticks, sizeof(ticks));
		child_assert(n == 0 || (n == sizeof(ticks) && ticks >= 1));
		for (int k = 0; k < 3; k++) {
			child_assert(becomes_readable(fd, 2000));
			child_assert(read(fd, &ticks, sizeof(ticks)) == 0);
		}
	} else {
		child_assert(!timer_is_emulated(fd));
		child_assert(becomes_readable(fd, 2000) && read_ticks(fd, &ticks) == 0 && ticks >= 1);
	}
	close(fd);
	/* The next create: a new server, a timer that fires. */
	fd2 = timerfd_create(CLOCK_MONOTONIC, 0);
	child_assert(fd2 >= 0);
	child_assert(timerfd_settime(fd2, 0, &shot, NULL) == 0);
	child_assert(becomes_readable(fd2, 2000) && read_ticks(fd2, &ticks) == 0 && ticks == 1);
	/* And the dead server's directory goes (the new server removes it as it starts). */
	for (int k = 0; server > 0 && k < scaled_ms(2000) / 10 && lstat(path, &st) == 0; k++)
		sleep_ns(10 * NS_PER_MS);
	child_assert(server <= 0 || (lstat(path, &st) < 0 && errno == ENOENT));
	close(fd2);
	_exit(0);
}

START_TEST(a_server_and_its_twin_killed_together_leave_end_of_file_and_the_next_create_cleans_up)
{
	if (!kill_case_skipped("a_server_and_its_twin_killed_together..."))
		in_child(both_killed_child);
}
END_TEST

static void
signals_child(void)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2,
				    SIGALRM, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU, SIGXCPU,
				    SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO, SIGURG, SIGWINCH };
	struct watched w;
	pid_t server;

	child_assert(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0);
	watch_start(&w);
	watch_for(&w, 50 * NS_PER_MS);
	server = the_server(w.fd);
	child_assert(!timer_is_emulated(w.fd) || server > 0);
	/* What kill(-1, sig) and a process group's signal would bring it. */
	for (size_t k = 0; server > 0 && k < sizeof(sigs) / sizeof(sigs[0]); k++)
		child_assert(kill(server, sigs[k]) == 0);
	/* The highest realtime signal valgrind keeps for itself (kill() answers EINVAL). */
	if (server > 0)
		child_assert(kill(server, SIGRTMIN) == 0 &&
			     kill(server, under_valgrind() ? SIGRTMAX - 1 : SIGRTMAX) == 0);
	watch_for(&w, 300 * NS_PER_MS);
	/* Still the same server, running (not ended, not stopped by SIGTSTP). */
	if (server > 0) {
		child_assert(waitpid(server, NULL, WNOHANG | __WALL) == 0);
		child_assert(the_server(w.fd) == server);
	}
	watch_check(&w, 350 * NS_PER_MS);
	_exit(0);
}

START_TEST(signals_sent_to_every_process_leave_the_timers_firing)
{
	int fd = periodic_timer(PERIOD_NS, 0);
	bool emulated = timer_is_emulated(fd);

	close(fd);
	if (emulated && needs_proc_here()) {
		case_skipped("signals_sent_to_every_process...: the server is found through /proc, "
			     "which is not mounted here");
		return;
	}
	if (skipped_without_subreaper("signals_sent_to_every_process..."))
		return;
	in_child(signals_child);
}
END_TEST

/* Reaps what this subreaper was given that has ended: servers, twins, killed workers. */
static void
reap_ended(void)
{
	while (waitpid(-1, NULL, WNOHANG | __WALL) > 0)
		;
}

#define WORKERS 40

static void
killed_creates_child(void)
{
	pid_t left[4];
	int64_t deadline;
	int n = 0;

	child_assert(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0);
	for (int k = 0; k < WORKERS; k++) {
		int ready[2];
		char c;
		pid_t pid;

		child_assert(pipe(ready) == 0);
		pid = fork();
		child_assert(pid >= 0);
		if (pid == 0) {
			/* Its first timer starts its server; then creates and closes as fast as it can. */
			close(timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK));
			child_assert(write(ready[1], "r", 1) == 1);
			for (;;) {
				int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);

				if (fd >= 0)
					close(fd);
			}
		}
		child_assert(read(ready[0], &c, 1) == 1);
		close(ready[0]);
		close(ready[1]);
		/* 0 to 2 ms into its loop: often inside a create (about one worker in seven here). */
		sleep_ns((k % 20) * 100000LL);
		child_assert(kill(pid, SIGKILL) == 0);
		child_assert(waitpid(pid, NULL, __WALL) == pid);
	}
	/* A server ends within a few seconds of its last timer's close, whatever state it is in. */
	deadline = now_ns(CLOCK_MONOTONIC) + scaled_ns(6 * NS_PER_S);
	do {
		reap_ended();
		n = children_named("libtimerfd", left, 4) + children_named("libtimerfd-twin", left, 4);
		if (n)
			sleep_ns(50 * NS_PER_MS);
	} while (n && now_ns(CLOCK_MONOTONIC) < deadline);
	if (n) {
		fprintf(stderr, "child: %d servers left after the workers were killed (pid %d)\n", n,
			(int)left[0]);
		_exit(1);
	}
	_exit(0);
}

START_TEST(servers_of_workers_killed_inside_creates_end)
{
	if (!proc_is_mounted()) {
		case_skipped("servers_of_workers_killed_inside_creates_end: the servers are found "
			     "through /proc, which is not mounted here");
		return;
	}
	if (skipped_without_subreaper("servers_of_workers_killed_inside_creates_end"))
		return;
	in_child(killed_creates_child);
}
END_TEST

#define NOBODY 65534
#define FEW_FDS 12

/*
 * A program that limited itself to 12 descriptors, hard limit too (a sandbox's setting):
 * every free number is a timer on the kernel.  The emulation's servers get the same hard
 * limit (raising it needs CAP_SYS_RESOURCE); they must still serve that many.
 */
static void
few_fds_child(void)
{
	struct rlimit rl = { FEW_FDS, FEW_FDS };
	int fds[FEW_FDS], made = 0, want, fd;

	if (geteuid() == 0)
		become_user(NOBODY); /* as a sandboxed program runs: without CAP_SYS_RESOURCE */
	child_assert(setrlimit(RLIMIT_NOFILE, &rl) == 0);
	/* The limit is on numbers: each free number below it is a timer. */
	want = 0;
	for (int n = 0; n < FEW_FDS; n++)
		want += fcntl(n, F_GETFD) < 0;
	while ((fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK)) >= 0 && made < FEW_FDS)
		fds[made++] = fd;
	if (fd >= 0 || errno != EMFILE || made != want) {
		fprintf(stderr, "child: %d timers under RLIMIT_NOFILE %d, want %d; then %s\n", made,
			FEW_FDS, want, fd >= 0 ? "one more" : strerror(errno));
		_exit(1);
	}
	/* And they work: each fires. */
	for (int k = 0; k < made; k++) {
		struct itimerspec its = its_ns(NS_PER_MS, 0);
		uint64_t ticks;

		child_assert(timerfd_settime(fds[k], 0, &its, NULL) == 0);
		child_assert(becomes_readable(fds[k], 2000) && read_ticks(fds[k], &ticks) == 0 && ticks == 1);
	}
	_exit(0);
}

START_TEST(a_program_limited_to_12_descriptors_makes_as_many_timers_as_on_the_kernel)
{
	if (under_valgrind()) {
		case_skipped("a_program_limited_to_12_descriptors...: valgrind keeps the hard "
			     "RLIMIT_NOFILE for itself (lowering it fails)");
		return;
	}
	in_child(few_fds_child);
}
END_TEST

/* 20 one-shots made and armed: each fires (a process that may start none, on its server). */
static void
makes_20_timers_that_fire(void)
{
	int fds[20];

	for (int k = 0; k < 20; k++) {
		struct itimerspec its = its_ns(NS_PER_MS, 0);

		fds[k] = timerfd_create(CLOCK_MONOTONIC, 0);
		child_assert(fds[k] >= 0);
		child_assert(timerfd_settime(fds[k], 0, &its, NULL) == 0);
	}
	for (int k = 0; k < 20; k++)
		child_assert(becomes_readable(fds[k], 2000));
}

/* RLIMIT_NPROC 0 (OpenSSH's rlimit sandbox): set after the first timer, or before it. */
static void
no_processes_child(void)
{
	struct rlimit none = { 0, 0 };
	int first, status;
	bool emulated;
	pid_t pid;

	if (geteuid() == 0)
		become_user(NOBODY); /* root is not held to RLIMIT_NPROC */
	first = timerfd_create(CLOCK_MONOTONIC, 0);
	child_assert(first >= 0);
	emulated = timer_is_emulated(first);
	/*
	 * A process that may start none and has no server: the kernel makes its timer; the
	 * emulation answers ENOMEM, which timerfd_create(2) documents (libtimerfd(7) says why).
	 */
	pid = fork();
	child_assert(pid >= 0);
	if (pid == 0) {
		int fd;

		child_assert(setrlimit(RLIMIT_NPROC, &none) == 0);
		fd = timerfd_create(CLOCK_MONOTONIC, 0);
		child_assert(emulated ? fd < 0 && errno == ENOMEM : fd >= 0);
		_exit(0);
	}
	child_assert(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* A process whose family has a server creates through it. */
	child_assert(setrlimit(RLIMIT_NPROC, &none) == 0);
	makes_20_timers_that_fire();
	_exit(0);
}

START_TEST(a_program_that_may_start_no_process_keeps_creating_through_its_server)
{
	in_child(no_processes_child);
}
END_TEST

/*
 * A full pids cgroup (systemd's TasksMax=, a container's pids.max): the same as RLIMIT_NPROC
 * 0, for root too.  A cgroup of the case's own, made under the pids controller's hierarchy
 * (cgroup v1's pids, or v2 where pids is enabled), its limit the one process in it.
 */
static char pids_cgroup[256], pids_root[128];

static bool
write_text(const char *dir, const char *file, const char *text)
{
	char path[512];
	int fd;
	bool ok;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok;
}

/* Makes pids_cgroup, with a pids.max: true, or false where no hierarchy here has one. */
static bool
make_pids_cgroup(void)
{
	static const char *const roots[] = { "/sys/fs/cgroup/pids", "/sys/fs/cgroup/unified",
					     "/sys/fs/cgroup" };
	char max[300];

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(pids_cgroup, sizeof(pids_cgroup), "%s/libtimerfd-test-%d", roots[i],
			 (int)getpid());
		if (mkdir(pids_cgroup, 0700) != 0)
			continue;
		snprintf(max, sizeof(max), "%s/pids.max", pids_cgroup);
		/* cgroup v2 where the controller is not enabled for the root's children: not
		 * enabled here (the machine's setting, not the case's to change). */
		if (access(max, W_OK) != 0) {
			rmdir(pids_cgroup);
			continue;
		}
		snprintf(pids_root, sizeof(pids_root), "%s", roots[i]);
		return true;
	}
	return false;
}

/* Moves this process into the cgroup @dir. */
static void
move_into_cgroup(const char *dir)
{
	char pid[32];

	snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	child_assert(write_text(dir, "cgroup.procs", pid));
}

/* Moves this (single-threaded) process into pids_cgroup and fills it: no fork, no clone. */
static void
enter_full_pids_cgroup(void)
{
	move_into_cgroup(pids_cgroup);
	child_assert(write_text(pids_cgroup, "pids.max", "1\n"));
}

static void
full_pids_cgroup_child(void)
{
	int first, status;
	bool emulated;
	pid_t child;

	first = timerfd_create(CLOCK_MONOTONIC, 0);
	child_assert(first >= 0);
	emulated = timer_is_emulated(first);
	/* A process in the full cgroup that has no server: ENOMEM on the emulation, as above. */
	child = fork();
	child_assert(child >= 0);
	if (child == 0) {
		int fd;

		enter_full_pids_cgroup();
		child_assert(fork() == -1 && errno == EAGAIN); /* the cgroup is full indeed */
		fd = timerfd_create(CLOCK_MONOTONIC, 0);
		child_assert(emulated ? fd < 0 && errno == ENOMEM : fd >= 0);
		_exit(0);
	}
	child_assert(waitpid(child, &status, 0) == child && WIFEXITED(status) &&
		     WEXITSTATUS(status) == 0);
	/* A process whose family has a server (outside the cgroup) creates through it. */
	enter_full_pids_cgroup();
	makes_20_timers_that_fire();
	/* Out again, so that the case can remove its cgroup. */
	move_into_cgroup(pids_root);
	_exit(0);
}

START_TEST(a_program_in_a_full_pids_cgroup_keeps_creating_through_its_server)
{
	if (geteuid() != 0 || !make_pids_cgroup()) {
		case_skipped("a_program_in_a_full_pids_cgroup...: no pids cgroup controller this "
			     "process may use (root, cgroup v1's pids or v2 with pids enabled)");
		return;
	}
	in_child(full_pids_cgroup_child);
	ck_assert_msg(rmdir(pids_cgroup) == 0, "rmdir %s: %s", pids_cgroup, strerror(errno));
}
END_TEST

/*
 * A subreaper (a container's init, a service manager) that reaps until it has no child
 * left: the server of a timer made by its child becomes its child when orphaned; it must
 * end by itself soon after the child's timers are gone, as nothing of a kernel timer stays.
 */
static void
subreaper_child(void)
{
	pid_t pid;
	int64_t exited;

	child_assert(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0);
	pid = fork();
	child_assert(pid >= 0);
	if (pid == 0) {
		int fd = periodic_timer(PERIOD_NS, 0);
		uint64_t ticks;

		child_assert(fd >= 0 && read_ticks(fd, &ticks) == 0);
		_exit(0);
	}
	child_assert(waitpid(pid, NULL, 0) == pid);
	exited = now_ns(CLOCK_MONOTONIC);
	while (wait(NULL) > 0)
		;
	child_assert(errno == ECHILD);
	if (now_ns(CLOCK_MONOTONIC) - exited > scaled_ns(4 * NS_PER_S)) {
		fprintf(stderr, "child: the reaping loop ended %lld ms after the program\n",
			(long long)((now_ns(CLOCK_MONOTONIC) - exited) / NS_PER_MS));
		_exit(1);
	}
	_exit(0);
}

START_TEST(a_subreaper_that_reaps_every_child_ends_soon_after_the_program)
{
	if (skipped_without_subreaper("a_subreaper_that_reaps_every_child..."))
		return;
	in_child(subreaper_child);
}
END_TEST

/*
 * A container's init (pid 1 of a PID namespace): its worker makes a periodic timer; at
 * shutdown the init signals "every other process" (kill(-1, sig): SIGTERM, then SIGHUP and
 * SIGINT), as docker-init's and tini's do, and the worker, handling them, reads its timer
 * on for 200 ms before it exits: the timer fires on, no end-of-file (the kernel's timer
 * is no process; the emulation's server and twin ignore what kill(-1) brings).  Then the
 * init reaps until it has no child left, which must end soon after the worker, though the
 * orphaned server and twin were the init's children (libtimerfd(7)).
 */
static volatile sig_atomic_t shutdown_asked;

static void
ask_shutdown(int sig)
{
	(void)sig;
	shutdown_asked = 1;
}

static void
container_worker(int ready)
{
	struct sigaction sa;
	int fd = periodic_timer(PERIOD_NS, 0);
	uint64_t ticks, total = 0;
	int64_t from;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = ask_shutdown;
	child_assert(sigaction(SIGTERM, &sa, NULL) == 0 && sigaction(SIGHUP, &sa, NULL) == 0 &&
		     sigaction(SIGINT, &sa, NULL) == 0);
	child_assert(read_ticks(fd, &ticks) == 0 && ticks >= 1);
	child_assert(write(ready, "r", 1) == 1);
	while (!shutdown_asked)
		pause();
	/* Its own shutdown: the timer keeps counting while the signals come and after. */
	from = now_ns(CLOCK_MONOTONIC);
	while (now_ns(CLOCK_MONOTONIC) - from < 200 * NS_PER_MS) {
		child_assert(becomes_readable(fd, 2000));
		child_assert(read(fd, &ticks, sizeof(ticks)) == (ssize_t)sizeof(ticks) && ticks >= 1);
		total += ticks;
	}
	child_assert(total >= 200 / (PERIOD_NS / NS_PER_MS) / 2);
	_exit(0);
}

static void
container_init(void)
{
	int ready[2], status;
	int64_t exited;
	pid_t worker;
	char c;

	child_alarm(30); /* kills a pid 1 too: the kernel sends it */
	child_assert(getpid() == 1 && pipe(ready) == 0);
	worker = fork();
	child_assert(worker >= 0);
	if (worker == 0) {
		close(ready[0]);
		container_worker(ready[1]);
	}
	close(ready[1]);
	child_assert(read(ready[0], &c, 1) == 1);
	/* kill(-1) from pid 1: every process of the namespace but itself. */
	child_assert(kill(-1, SIGTERM) == 0);
	sleep_ns(20 * NS_PER_MS);
	child_assert(kill(-1, SIGHUP) == 0 && kill(-1, SIGINT) == 0);
	child_assert(waitpid(worker, &status, 0) == worker);
	child_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	exited = now_ns(CLOCK_MONOTONIC);
	while (wait(NULL) > 0)
		;
	child_assert(errno == ECHILD);
	if (now_ns(CLOCK_MONOTONIC) - exited > scaled_ns(4 * NS_PER_S)) {
		fprintf(stderr, "child: pid 1's reaping loop ended %lld ms after its worker\n",
			(long long)((now_ns(CLOCK_MONOTONIC) - exited) / NS_PER_MS));
		_exit(1);
	}
	_exit(0);
}

static void
container_child(void)
{
	int status;
	pid_t init;

	child_assert(unshare(CLONE_NEWPID) == 0);
	init = fork();
	child_assert(init >= 0);
	if (init == 0)
		container_init();
	child_assert(waitpid(init, &status, 0) == init);
	child_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	_exit(0);
}

START_TEST(a_containers_init_that_signals_every_process_and_reaps_them_all_ends_with_its_worker)
{
	/* LeakSanitizer reads /proc/self/task, which the host's /proc resolves in another namespace. */
	if (sanitizer() && strcmp(sanitizer(), "address") == 0) {
		case_skipped("a_containers_init...: LeakSanitizer needs a /proc of the namespace");
		return;
	}
	if (!skipped_without_pid_namespaces("a_containers_init..."))
		in_child(container_child);
}
END_TEST

/*
 * strace -f: a tracer that follows every fork and clone (PTRACE_O_TRACECLONE and the rest)
 * ends when the last process it traces has ended.  The server is not one of them.
 */
static void
tracer_child(void)
{
	int64_t exited = 0;
	int status, traced = 1;
	pid_t tracee = fork(), pid;

	child_assert(tracee >= 0);
	if (tracee == 0) {
		int fd;
		uint64_t ticks;

		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0)
			_exit(77);
		kill(getpid(), SIGSTOP);
		fd = periodic_timer(PERIOD_NS, 0);
		child_assert(fd >= 0 && read_ticks(fd, &ticks) == 0);
		_exit(0);
	}
	child_assert(waitpid(tracee, &status, 0) == tracee);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
		_exit(77);
	child_assert(WIFSTOPPED(status));
	child_assert(ptrace(PTRACE_SETOPTIONS, tracee, NULL,
			    (void *)(long)(PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
					   PTRACE_O_TRACECLONE)) == 0);
	child_assert(ptrace(PTRACE_CONT, tracee, NULL, NULL) == 0);
	while (traced > 0 && (pid = waitpid(-1, &status, __WALL)) > 0) {
		int sig = 0;

		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			traced--;
			if (pid == tracee)
				exited = now_ns(CLOCK_MONOTONIC);
			continue;
		}
		if (!WIFSTOPPED(status))
			continue;
		if (status >> 16 == PTRACE_EVENT_FORK || status >> 16 == PTRACE_EVENT_VFORK ||
		    status >> 16 == PTRACE_EVENT_CLONE)
			traced++; /* the new one is traced from its first instruction */
		else if (WSTOPSIG(status) != SIGSTOP && WSTOPSIG(status) != SIGTRAP)
			sig = WSTOPSIG(status);
		ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig);
	}
	child_assert(exited != 0);
	if (now_ns(CLOCK_MONOTONIC) - exited > scaled_ns(NS_PER_S / 2)) {
		fprintf(stderr, "child: the tracer ended %lld ms after the program\n",
			(long long)((now_ns(CLOCK_MONOTONIC) - exited) / NS_PER_MS));
		_exit(1);
	}
	_exit(0);
}

START_TEST(a_tracer_that_follows_every_clone_ends_with_the_program)
{
	in_child_or_skip(tracer_child, "a_tracer_that_follows_every_clone...: ptrace() is refused here");
}
END_TEST

/*
 * A temporary-file cleaner (systemd-tmpfiles' age rules, tmpreaper, tmpwatch) removes
 * everything under /dev/shm and /tmp it finds old: on the emulation, the directory of the
 * server's FIFOs (tests/cleaner.h).
 */
static void
cleaner_child(void)
{
	struct itimerspec one = its_ns(NS_PER_MS, 0), later = its_ns(10000 * NS_PER_MS, 0);
	int waiting = timerfd_create(CLOCK_MONOTONIC, 0), made;
	char outer[4096];
	bool emulated = timer_is_emulated(waiting);
	struct watched w;
	uint64_t ticks;
	struct stat st;

	watch_start(&w);
	child_assert(waiting >= 0 && timerfd_settime(waiting, 0, &one, NULL) == 0);
	watch_for(&w, 30 * NS_PER_MS); /* the one-shot's expiration waits unread */
	if (emulated) {
		child_assert(library_dir_of(waiting, outer, sizeof(outer)));
		child_assert(remove_tree(outer));
	}
	/* A rearm with an expiration waiting: done, and the expiration gone (the kernel's rule). */
	child_assert(timerfd_settime(waiting, 0, &later, NULL) == 0);
	child_assert(!readable_within(waiting, 50));
	/* Creates work at once; the timer made fires. */
	made = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	child_assert(made >= 0 && timerfd_settime(made, 0, &one, NULL) == 0);
	child_assert(becomes_readable(made, 2000) && read_ticks(made, &ticks) == 0 && ticks == 1);
	/* The periodic timer made before counted on. */
	watch_for(&w, 100 * NS_PER_MS);
	watch_check(&w, 130 * NS_PER_MS);
	/* Once every timer is closed, the server ends and leaves nothing, the new directory either. */
	close(waiting);
	close(made);
	close(w.fd);
	if (emulated) {
		int64_t end = now_ns(CLOCK_MONOTONIC) + scaled_ns(10 * NS_PER_S);

		while (lstat(outer, &st) == 0 && now_ns(CLOCK_MONOTONIC) < end)
			sleep_ns(20 * NS_PER_MS);
		if (lstat(outer, &st) == 0) {
			fprintf(stderr, "child: %s is still there after every timer closed\n", outer);
			_exit(1);
		}
	}
	_exit(0);
}

START_TEST(a_cleaner_that_removes_the_directory_changes_nothing)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	bool emulated = timer_is_emulated(fd);

	close(fd);
	if (emulated && needs_proc_here()) {
		case_skipped("a_cleaner_that_removes_the_directory...: the directory is found "
			     "through /proc, which is not mounted here");
		return;
	}
	in_child(cleaner_child);
}
END_TEST

/*
 * After a cleaner, another user takes the directory's name (in /dev/shm anyone may): the
 * server never makes its FIFOs or its door in a directory of theirs.  Its live timers go on;
 * creates fail with ENOSYS (no directory of its own), as where none can be made.
 */
static void
taken_name_child(void)
{
	struct itimerspec one = its_ns(NS_PER_MS, 0);
	int first = timerfd_create(CLOCK_MONOTONIC, 0), made, d, entries = 0;
	char outer[4096];
	struct watched w;
	DIR *dp;

	watch_start(&w);
	child_assert(first >= 0 && library_dir_of(first, outer, sizeof(outer)));
	child_assert(remove_tree(outer));
	child_assert(mkdir(outer, 0777) == 0 && chown(outer, NOBODY, NOBODY) == 0 && chmod(outer, 0777) == 0);
	errno = 0;
	made = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	if (made >= 0 || errno != ENOSYS) {
		fprintf(stderr, "child: a create gave %d (%s), want ENOSYS\n", made, strerror(errno));
		_exit(1);
	}
	/* A rearm of the live timer: done (through the server's own end of its FIFO). */
	child_assert(timerfd_settime(first, 0, &one, NULL) == 0);
	child_assert(becomes_readable(first, 2000));
	watch_for(&w, 100 * NS_PER_MS);
	watch_check(&w, 100 * NS_PER_MS);
	/* Nothing of the server's in the other user's directory. */
	d = open(outer, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	child_assert(d >= 0 && (dp = fdopendir(d)) != NULL);
	for (struct dirent *de; (de = readdir(dp)) != NULL;)
		entries += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
	closedir(dp);
	if (entries) {
		fprintf(stderr, "child: %d entries in the other user's %s\n", entries, outer);
		_exit(1);
	}
	rmdir(outer);
	_exit(0);
}

START_TEST(a_directory_name_another_user_took_after_a_cleaner_is_never_used)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	bool emulated = timer_is_emulated(fd);

	close(fd);
	if (!emulated) {
		case_skipped("a_directory_name_another_user_took...: the kernel's timers have no directory "
			     "(the case is the emulation's)");
		return;
	}
	if (geteuid() != 0 || needs_proc_here()) {
		case_skipped("a_directory_name_another_user_took...: needs root (to make a directory "
			     "of another user's) and /proc (make check-vm's guests run it)");
		return;
	}
	in_child(taken_name_child);
}
END_TEST

/*
 * A realtime program (SCHED_FIFO, as audio and control loops run): its emulated timers are
 * served at its priority while they are armed (else a busy machine delays them as it delays
 * any normal process), and the server goes back to the normal policy once none is.
 */
static void
realtime_child(void)
{
	struct sched_param rt = { .sched_priority = 10 }, got;
	struct itimerspec its = its_ns(PERIOD_NS, PERIOD_NS), off = its_ns(0, 0);
	uint64_t ticks;
	pid_t server;
	int64_t end;
	int fd;

	/* First: the server, orphaned at its start, becomes this process's child. */
	child_assert(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0);
	fd = timerfd_create(CLOCK_MONOTONIC, 0);
	child_assert(fd >= 0);
	/* The system calls: musl's wrappers answer ENOSYS (a policy is a thread's on Linux). */
	if (syscall(SYS_sched_setscheduler, 0, SCHED_FIFO, &rt) != 0)
		_exit(77);
	child_assert(timerfd_settime(fd, 0, &its, NULL) == 0);
	child_assert(becomes_readable(fd, 2000) && read_ticks(fd, &ticks) == 0 && ticks >= 1);
	server = the_server(fd);
	if (timer_is_emulated(fd)) {
		child_assert(server > 0);
		child_assert(syscall(SYS_sched_getscheduler, server) == SCHED_FIFO);
		child_assert(syscall(SYS_sched_getparam, server, &got) == 0 && got.sched_priority == 10);
	}
	/* Disarmed: the normal policy again, within a few harvests. */
	child_assert(timerfd_settime(fd, 0, &off, NULL) == 0);
	end = now_ns(CLOCK_MONOTONIC) + scaled_ns(5 * NS_PER_S);
	while (server > 0 && syscall(SYS_sched_getscheduler, server) != SCHED_OTHER &&
	       now_ns(CLOCK_MONOTONIC) < end)
		sleep_ns(50 * NS_PER_MS);
	if (server > 0)
		child_assert(syscall(SYS_sched_getscheduler, server) == SCHED_OTHER);
	_exit(0);
}

START_TEST(a_realtime_programs_timers_are_served_at_its_priority)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	bool emulated = timer_is_emulated(fd);

	close(fd);
	if (emulated && needs_proc_here()) {
		case_skipped("a_realtime_programs_timers...: the server is found through /proc, "
			     "which is not mounted here");
		return;
	}
	if (skipped_without_subreaper("a_realtime_programs_timers..."))
		return;
	in_child_or_skip(realtime_child, "a_realtime_programs_timers...: this process may not become "
					 "SCHED_FIFO (no CAP_SYS_NICE, RLIMIT_RTPRIO 0)");
}
END_TEST

TCase *
tcase_server_life(void)
{
	TCase *tc = tcase_create("server-life");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, a_periodic_timer_counts_exactly_across_sigkills_of_whatever_serves_it);
	tcase_add_test(tc, a_non_dumpable_programs_timer_counts_exactly_across_sigkills_of_its_server);
	tcase_add_test(tc, a_server_and_its_twin_killed_together_leave_end_of_file_and_the_next_create_cleans_up);
	tcase_add_test(tc, signals_sent_to_every_process_leave_the_timers_firing);
	tcase_add_test(tc, servers_of_workers_killed_inside_creates_end);
	tcase_add_test(tc, a_program_limited_to_12_descriptors_makes_as_many_timers_as_on_the_kernel);
	tcase_add_test(tc, a_program_that_may_start_no_process_keeps_creating_through_its_server);
	tcase_add_test(tc, a_program_in_a_full_pids_cgroup_keeps_creating_through_its_server);
	tcase_add_test(tc, a_subreaper_that_reaps_every_child_ends_soon_after_the_program);
	tcase_add_test(tc, a_containers_init_that_signals_every_process_and_reaps_them_all_ends_with_its_worker);
	tcase_add_test(tc, a_tracer_that_follows_every_clone_ends_with_the_program);
	tcase_add_test(tc, a_cleaner_that_removes_the_directory_changes_nothing);
	tcase_add_test(tc, a_directory_name_another_user_took_after_a_cleaner_is_never_used);
	tcase_add_test(tc, a_realtime_programs_timers_are_served_at_its_priority);
	return tc;
}
