/* SPDX-License-Identifier: MIT */
/*
 * Hostile values planted in a family's shared mapping (issue 25, items 1 and 3), for the
 * case that DESIGN.md ("The trust boundary") leaves open: another process CAN write the
 * mapping.  Where the kernel ignores madvise(MADV_DONTFORK) (qemu-user, some emulators) a
 * forked child keeps it, and may write anything there: a clock base, a spare's slot number,
 * the inode index, a slot's lock.  Whatever it writes, the program's own calls and its
 * server must not crash or hang: each call answers as the kernel's could, in bounded time,
 * and the timers that were not touched keep counting.
 *
 * The values are planted by the process that made the timers, in its own mapping: the
 * pages are the same pages such a child would write, so the effect is the same, and the
 * test needs no emulator.  Only the lock (item 5) needs a second live process: the mapping
 * is handed on to it for the fork, as spawn.c hands it to a server's clone.
 *
 * Every planting runs in a child of its own, so that a crash is seen in its wait status and
 * a hang by the case's deadline; the child's family and its servers are its own (a child
 * starts its own family), so a planting never reaches the next one.  White-box: linked
 * against the convenience library for the internals (__tfd_shared(), the slots).
 *
 * The same way, a state the library's own processes leave for an instant is planted where
 * a race would need a slow machine to show it (the last case: a spare taken by a create that
 * has not given it back yet when a cleaner removed the directory).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#include "suite.h"

#include "cleaner.h"
#include "dirs.h"
#include "helpers.h"

#include "emu/checked.h"
#include "emu/emu.h"
#include "emu/family.h"
#include "emu/timer.h"

/* The inode index's tombstone (shared.c): an entry a lookup passes over, as it does garbage. */
#define INDEX_TOMB UINT32_MAX

/* How long a planting's child may run before the case calls it hung (scaled). */
#define CHILD_LIMIT_S 20
/*
 * What the design bounds every wait on another process by (DESIGN.md, "The trust boundary":
 * a door call 5 s in all; a create waits 5 s for a spare), with a second of margin.
 */
#define DESIGN_WAIT_MS 6000

/* --- the planting's child, and what the case learns of it -------------------------- */

/*
 * The process groups of the child's family's servers, written by the child in a page the
 * case shares.  A server calls setsid(): the group is its own, and its twin, and every twin
 * that takes over after it (cloning one of its own), stay in it.  A server whose program
 * ended exits within a harvest (a second), so a group with a process still running seconds
 * after the child is stuck (a spin, or a chain of twins that each die taking over), and is
 * killed here, not left running.
 */
#define MAX_WATCHED 128
struct watched {
	int n;
	pid_t group[MAX_WATCHED];
};
static struct watched *watched;

/* The value the running case plants: set before the fork, so the child has its copy. */
static int64_t planted;

static int64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

/* Field @n (1-based, as proc(5) counts) of /proc/@pid/stat, or -1 without /proc. */
static long long
stat_field(pid_t pid, int n)
{
	char path[64], buf[1024], *p;
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	fclose(f);
	if (!p)
		return -1;
	/* After the name (which may hold spaces and parentheses): field 3, the state, then on. */
	p += 2;
	if (n == 3)
		return (unsigned char)*p;
	for (int k = 3; k < n && p; k++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (p)
		v = strtoll(p, NULL, 10);
	return v;
}

/* Whether @pid still runs: not gone, not a zombie (init may be slow to reap an adopted one). */
static bool
runs(pid_t pid)
{
	long long state;

	if (pid <= 0 || (kill(pid, 0) < 0 && errno == ESRCH))
		return false;
	state = stat_field(pid, 3);
	return state != 'Z' && state != 'X';
}

static void
watch_group(pid_t pgid)
{
	for (int k = 0; k < watched->n; k++)
		if (watched->group[k] == pgid)
			return;
	if (pgid > 0 && watched->n < MAX_WATCHED)
		watched->group[watched->n++] = pgid;
}

/* Whether a process of group @pgid still runs (not a zombie); without /proc, whether it has any. */
static bool
group_runs(pid_t pgid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	bool found = false;

	if (!d)
		return kill(-pgid, 0) == 0;
	while (!found && (e = readdir(d)) != NULL) {
		pid_t p = (pid_t)atoi(e->d_name);

		found = p > 0 && stat_field(p, 5) == pgid && runs(p);
	}
	closedir(d);
	return found;
}

/* A running server of shard @k of @sh: its pid (the clone's thread id is its pid), or 0. */
static pid_t
server_pid(struct tfd_shared *sh, int k)
{
	if (!__tfd_server_alive(&sh->shards[k]))
		return 0;
	return (pid_t)(__atomic_load_n(&sh->shards[k].server_tid, __ATOMIC_SEQ_CST) & TFD_TID_MASK);
}

/* In the child: the groups of every server of its family, watched by the case. */
static void
watch_servers(struct tfd_shared *sh)
{
	for (int k = 0; k < TFD_SHARDS; k++) {
		pid_t pid = server_pid(sh, k);

		if (pid > 0)
			watch_group(getpgid(pid));
	}
}

/*
 * After a case's plantings: their servers' groups are given a few seconds to see that
 * their program ended and exit (all at once: a planting does not wait for the last one's);
 * a group with a process still running is killed whole (server and twins at once, so that
 * no twin takes over from a killed server), and fails the case.
 */
static void
plantings_done(void)
{
	int64_t deadline = mono_ns() + scaled_ns(5 * NS_PER_S);
	int stuck = 0;

	if (!watched)
		return;
	for (int k = 0; k < watched->n; k++)
		while (group_runs(watched->group[k]) && mono_ns() < deadline)
			sleep_ns(50 * NS_PER_MS);
	for (int k = 0; k < watched->n; k++)
		if (group_runs(watched->group[k])) {
			kill(-watched->group[k], SIGKILL);
			stuck++;
		}
	ck_assert_msg(stuck == 0,
		      "%d server process group(s) still ran %d s after their program ended (stuck): killed",
		      stuck, 5 * slowness());
}

/*
 * Runs @fn (the planting) in a child of its own process group, at most CHILD_LIMIT_S
 * (scaled), and asserts that it exited with 0.  The deadline is kept here, not by alarm()
 * in the child: the library blocks every signal while it holds a slot's lock, so a child
 * hung in there never sees its SIGALRM; SIGKILL ends it.  @what names the planting.
 */
static void
run_planting(void (*fn)(void), const char *what)
{
	int64_t deadline;
	bool hung = false;
	int status = 0;
	pid_t pid;

	if (!watched) {
		watched = mmap(NULL, sizeof(*watched), PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		ck_assert_ptr_ne(watched, MAP_FAILED);
		memset(watched, 0, sizeof(*watched));
	}
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		setpgid(0, 0);
		fn();
		_exit(0);
	}
	setpgid(pid, pid); /* both sides: whichever runs first */
	deadline = mono_ns() + scaled_ns(CHILD_LIMIT_S * NS_PER_S);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (mono_ns() > deadline) {
			hung = true;
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			break;
		}
		sleep_ns(10 * NS_PER_MS);
	}
	/* What the child left in its group (a lock holder of its own); its servers: plantings_done(). */
	kill(-pid, SIGKILL);
	if (hung || status != 0)
		plantings_done();
	ck_assert_msg(!hung, "%s: still running after %d s (hung): killed", what,
		      CHILD_LIMIT_S * slowness());
	ck_assert_msg(!WIFSIGNALED(status), "%s: the program died of signal %d (%s)", what,
		      WTERMSIG(status), strsignal(WTERMSIG(status)));
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "%s: the child failed (status %#x; its message is above)", what, status);
}

/* Runs @fn once for each of @values[@n] (the planted value in its child), named "@name <value>". */
static void
run_plantings(void (*fn)(void), const int64_t *values, size_t n, const char *name, bool hex)
{
	for (size_t v = 0; v < n; v++) {
		char what[64];

		planted = values[v];
		snprintf(what, sizeof(what), hex ? "%s %#llx" : "%s %lld", name, (long long)planted);
		run_planting(fn, what);
	}
}
#define NVALUES(a) (sizeof(a) / sizeof((a)[0]))

/* --- what the planting child uses ------------------------------------------------------ */

/* This process's family mapping: there once it made an emulated timer. */
static struct tfd_shared *
family(void)
{
	struct tfd_shared *sh = __tfd_shared();

	child_assert(sh != NULL);
	return sh;
}

/* The slot of emulated timer @fd, found as the library finds it. */
static uint32_t
slot_of(int fd)
{
	uint64_t dev, ino;
	long id = __tfd_emu_identify(fd, &dev, &ino);

	child_assert(id > 0 && id <= (long)TFD_NSLOTS);
	return (uint32_t)(id - 1);
}

/* A non-blocking timer of @clock, first due in @value_ns, then every @period_ns (0: once). */
static int
armed_timer(clockid_t clock, int64_t value_ns, int64_t period_ns)
{
	struct itimerspec its = its_ns(value_ns, period_ns);
	int fd = timerfd_create(clock, TFD_NONBLOCK | TFD_CLOEXEC);

	child_assert(fd >= 0);
	child_assert(timerfd_settime(fd, 0, &its, NULL) == 0);
	return fd;
}

/* Arms @fd to expire once, 1 ms from now: what timerfd_settime() answered. */
static int
arm_in_1ms(int fd)
{
	struct itimerspec its = its_ns(NS_PER_MS, 0);

	return timerfd_settime(fd, 0, &its, NULL);
}

/* Whether @err is one that timerfd_gettime(2) can give. */
static bool
gettime_errno(int err)
{
	return err == EINVAL || err == EBADF || err == EFAULT;
}

/* Whether @err is one that timerfd_settime(2) can give. */
static bool
settime_errno(int err)
{
	return err == EINVAL || err == EBADF || err == EFAULT || err == ECANCELED || err == EPERM;
}

/* Whether @err is one that timerfd_create(2) can give for want of resources. */
static bool
create_errno(int err)
{
	return err == ENOMEM || err == EMFILE || err == ENFILE || err == ENODEV;
}

/* A call's result as the kernel's could be: 0, or -1 with an errno @ok accepts. */
#define child_assert_answer(r, ok)                                                         \
	do {                                                                               \
		int answer_errno = errno;                                                  \
		if (!((r) == 0 || ((r) == -1 && ok(answer_errno)))) {                      \
			fprintf(stderr, "%s:%d: child: planted %lld: %s gave %d, errno %d (%s)\n", \
				__FILE__, __LINE__, (long long)planted, #r, (int)(r),        \
				answer_errno, strerror(answer_errno));                     \
			_exit(1);                                                          \
		}                                                                          \
	} while (0)

/* Asserts that a step took no more than @ms (scaled) since @t0. */
#define child_assert_within(t0, ms, step)                                                    \
	do {                                                                                 \
		int64_t took = mono_ns() - (t0);                                             \
		if (took > scaled_ns((int64_t)(ms) * NS_PER_MS)) {                           \
			fprintf(stderr, "%s:%d: child: planted %lld: %s took %lld ms (bound %d ms)\n", \
				__FILE__, __LINE__, (long long)planted, (step),              \
				(long long)(took / NS_PER_MS), scaled_ms(ms));               \
			_exit(1);                                                            \
		}                                                                            \
	} while (0)

/* A count read from @fd within @ms (scaled): the timer is served. */
static uint64_t
counted(int fd, int ms)
{
	uint64_t ticks = 0;

	child_assert(read_ready_ticks(fd, &ticks, ms) == 0);
	child_assert(ticks >= 1);
	return ticks;
}

/*
 * Empties the count waiting in @fd, if any, after a gettime: every expiration due by then
 * is in it (a server held off the CPU delivers late, and what it owed would count after).
 */
static void
drain(int fd)
{
	struct itimerspec cur;
	uint64_t ticks;

	timerfd_gettime(fd, &cur);
	while (read(fd, &ticks, sizeof(ticks)) == (ssize_t)sizeof(ticks))
		;
}

/* --- 1. a clock base out of range ---------------------------------------------------- */

/*
 * What another process may write for a slot's base: the extremes (an index that far off
 * faults at once), negative, and just past the last base (3 is TFD_NBASES: one past the
 * queues the server keeps; indexing with it reads and writes the neighbouring globals).
 */
static const int64_t bad_bases[] = { INT32_MAX, INT32_MIN, -1, TFD_NBASES, TFD_NBASES + 1 };

static void
gettime_settime_and_read_answer(void)
{
	static const clockid_t clocks[] = { CLOCK_MONOTONIC, CLOCK_REALTIME, CLOCK_BOOTTIME };
	struct itimerspec cur, again = its_ns(2 * NS_PER_MS, 2 * NS_PER_MS), old;

	for (size_t c = 0; c < sizeof(clocks) / sizeof(clocks[0]); c++) {
		/* Periodic and fast: the server is at work on the slot while its base is bad. */
		int fd = armed_timer(clocks[c], 2 * NS_PER_MS, 2 * NS_PER_MS);
		struct tfd_slot *s = &family()->slots[slot_of(fd)];
		uint64_t ticks;
		ssize_t n;
		int64_t t0;
		int r, set;

		watch_servers(family());
		sleep_ns(10 * NS_PER_MS);
		__atomic_store_n(&s->base, (int32_t)planted, __ATOMIC_SEQ_CST);
		t0 = mono_ns();
		r = timerfd_gettime(fd, &cur);
		child_assert_answer(r, gettime_errno);
		/*
		 * read() is the kernel's own call on the FIFO: no code of the library runs in it,
		 * so a planted base can only stop the counts (as a planted disarm would), never
		 * crash or hang a non-blocking read.
		 */
		n = read(fd, &ticks, sizeof(ticks));
		child_assert(n == (ssize_t)sizeof(ticks) || (n == -1 && errno == EAGAIN));
		set = timerfd_settime(fd, 0, &again, &old);
		child_assert_answer(set, settime_errno);
		r = timerfd_gettime(fd, &cur);
		child_assert_answer(r, gettime_errno);
		child_assert_within(t0, 1000, "gettime, read, settime, gettime");
		/*
		 * A settime that succeeded armed it anew, on a base of its clock: the timer is
		 * whole again, its gettime answers for it and it counts.
		 */
		if (set == 0) {
			child_assert(r == 0);
			drain(fd);
			counted(fd, 1000);
		}
		close(fd);
	}
}

START_TEST(a_planted_clock_base_out_of_range_leaves_gettime_settime_and_read_answering)
{
	run_plantings(gettime_settime_and_read_answer, bad_bases, NVALUES(bad_bases), "base", false);
	plantings_done();
}
END_TEST

/* --- 3. the server reads the bad base (its queues) -------------------------------------- */

/*
 * Timer A's base goes bad while it is queued and fires every 2 ms: the server takes it off
 * its queue, fires it, and requeues it by the base it reads now (and once more when poked).
 * Timer B beside it must go on counting, served by the same server, which must not die.
 */
static void
server_outlives_a_bad_base(void)
{
	int a = armed_timer(CLOCK_MONOTONIC, 2 * NS_PER_MS, 2 * NS_PER_MS);
	int b = armed_timer(CLOCK_MONOTONIC, 5 * NS_PER_MS, 5 * NS_PER_MS);
	struct tfd_shared *sh = family();
	uint32_t ia = slot_of(a);
	pid_t server;
	uint64_t ticks;
	int64_t t0, elapsed, periods;

	watch_servers(sh);
	server = server_pid(sh, (int)(ia / TFD_SHARD_SLOTS));
	child_assert(server > 0);
	sleep_ns(20 * NS_PER_MS);
	__atomic_store_n(&sh->slots[ia].base, (int32_t)planted, __ATOMIC_SEQ_CST);
	/* Looked at now, not only at its next expiration: as a process's settime pokes it. */
	__tfd_server_poke(sh, ia, INT64_MIN);
	sleep_ns(100 * NS_PER_MS);
	drain(b);
	t0 = mono_ns();
	sleep_ns(500 * NS_PER_MS);
	ticks = counted(b, 1000);
	elapsed = mono_ns() - t0;
	/*
	 * Counts come from the clock (server.c), however late the server is: every 5 ms period
	 * of the half second is there once it delivers at all.  Generous either way.
	 */
	periods = elapsed / (5 * NS_PER_MS);
	if ((int64_t)ticks < periods / 4 || (int64_t)ticks > periods + 2) {
		fprintf(stderr, "planted %lld: B counted %llu in %lld ms (every 5 ms)\n",
			(long long)planted, (unsigned long long)ticks, (long long)(elapsed / NS_PER_MS));
		_exit(1);
	}
	/* The same server: one that died on the value (its twin took over) crashed. */
	child_assert(runs(server));
	child_assert(server_pid(sh, (int)(ia / TFD_SHARD_SLOTS)) == server);
	close(a);
	close(b);
}

START_TEST(the_server_outlives_a_planted_base_on_a_queued_timer_and_other_timers_keep_counting)
{
	run_plantings(server_outlives_a_bad_base, bad_bases, NVALUES(bad_bases), "base", false);
	plantings_done();
}
END_TEST

/* --- 2. a shard's spares out of range -------------------------------------------------- */

/*
 * Entries a create takes (slot + 1): past every slot of the mapping, far past it, a slot
 * in the mapping but of the next shard's range (shard 0's spares are planted), the top bit.
 * Not 0: that means "taken", which is what a create writes itself.
 */
static const int64_t bad_spares[] = { (int64_t)TFD_NSLOTS + 1, UINT32_MAX - 1, UINT32_MAX,
				      (int64_t)TFD_SHARD_SLOTS + 1, 0x80000000LL };

static void
plant_spares(struct tfd_shard *srv)
{
	for (int k = 0; k < TFD_SPARES; k++)
		__atomic_store_n(&srv->spares[k], (uint32_t)planted, __ATOMIC_SEQ_CST);
}

static void
create_answers_with_bad_spares(void)
{
	int first = armed_timer(CLOCK_MONOTONIC, 10 * NS_PER_S, 0), fd[TFD_SPARES + 2];
	struct tfd_shared *sh = family();

	watch_servers(sh);
	plant_spares(&sh->shards[0]);
	/* More than the spares: the creates after the planted ones need the server's new ones. */
	for (int k = 0; k < TFD_SPARES + 2; k++) {
		int64_t t0 = mono_ns();

		fd[k] = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
		child_assert_answer(fd[k] < 0 ? -1 : 0, create_errno);
		child_assert_within(t0, DESIGN_WAIT_MS, "timerfd_create()");
		if (fd[k] < 0)
			break;
		/* A timer, not just a number: it is armed and counts. */
		child_assert(arm_in_1ms(fd[k]) == 0);
		counted(fd[k], 1000);
		/* Planted again: every create meets them, not only the first. */
		plant_spares(&sh->shards[0]);
	}
	close(first);
}

START_TEST(planted_spares_out_of_range_give_a_create_a_timer_or_an_errno)
{
	run_plantings(create_answers_with_bad_spares, bad_spares,
		      NVALUES(bad_spares), "spare entry", true);
	plantings_done();
}
END_TEST

/* --- 3. a bad spare at the server's exit ------------------------------------------------ */

/*
 * The server lingers two seconds after its last timer closed, then takes its spares back
 * and exits.  With the entries planted meanwhile, it must end by itself (not die with its
 * twin taking over, not stay CLOSING), and the next create start a new one at once: the
 * issue saw every create of the family wait 5 s and fail with ENOMEM after such a death.
 */
static void
server_ends_cleanly_with_bad_spares(void)
{
	int fd = armed_timer(CLOCK_MONOTONIC, 10 * NS_PER_S, 0);
	struct tfd_shared *sh = family();
	struct tfd_shard *srv = &sh->shards[0];
	pid_t server;
	int64_t deadline, t0;

	watch_servers(sh);
	server = server_pid(sh, 0);
	child_assert(server > 0);
	close(fd);
	plant_spares(srv);
	deadline = mono_ns() + scaled_ns(10 * NS_PER_S);
	while (__atomic_load_n(&srv->server, __ATOMIC_SEQ_CST) != TFD_SERVER_NONE) {
		uint32_t tid = __atomic_load_n(&srv->server_tid, __ATOMIC_SEQ_CST);

		/* Dead (the kernel's mark), or its twin serves now: the server died at its exit. */
		child_assert(!(tid & TFD_OWNER_DIED));
		child_assert((tid & TFD_TID_MASK) == 0 || (pid_t)(tid & TFD_TID_MASK) == server);
		child_assert(mono_ns() < deadline);
		sleep_ns(5 * NS_PER_MS);
	}
	t0 = mono_ns();
	fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	child_assert(fd >= 0);
	child_assert_within(t0, 1000, "the next create");
	watch_servers(sh);
	child_assert(arm_in_1ms(fd) == 0);
	counted(fd, 1000);
	close(fd);
}

START_TEST(a_server_that_ends_with_planted_spares_ends_by_itself_and_the_next_create_works)
{
	run_plantings(server_ends_cleanly_with_bad_spares, bad_spares,
		      NVALUES(bad_spares), "spare entry", true);
	plantings_done();
}
END_TEST

/* --- 2. inode-index entries out of range --------------------------------------------- */

/* Index entries that name no slot (slot + 1; INDEX_TOMB is the index's own, passed over anyway). */
static const int64_t bad_entries[] = { (int64_t)TFD_NSLOTS + 1, (int64_t)TFD_NINDEX, UINT32_MAX - 1,
				       0x80000000LL };

/* Place @h of the index, wrapping round as a lookup does. */
static uint32_t *
index_at(struct tfd_shared *sh, uint32_t h)
{
	return &sh->index[h & (TFD_NINDEX - 1)];
}

/* The place of slot @i's entry in the index (a fresh family's: one each). */
static uint32_t
index_place(struct tfd_shared *sh, uint32_t i)
{
	for (uint32_t h = 0; h < TFD_NINDEX; h++)
		if (__atomic_load_n(&sh->index[h], __ATOMIC_SEQ_CST) == i + 1)
			return h;
	child_assert(!"the timer's slot is in the inode index");
	return 0;
}

/*
 * A lookup starts at the inode's home and stops at its entry: the entry is moved 32 places
 * on, and the places it passed hold the planted value, so every lookup of the timer (its
 * settime and gettime, the server's at its door) reads the value first.
 */
static void
lookups_pass_over_bad_entries(void)
{
	enum { AHEAD = 32 };
	int fd = armed_timer(CLOCK_MONOTONIC, 10 * NS_PER_S, 0), other;
	struct tfd_shared *sh = family();
	uint32_t i = slot_of(fd), h = index_place(sh, i);
	struct itimerspec cur;

	watch_servers(sh);
	for (uint32_t k = 1; k <= AHEAD; k++)
		child_assert(__atomic_load_n(index_at(sh, h + k), __ATOMIC_SEQ_CST) == 0);
	__atomic_store_n(index_at(sh, h + AHEAD), i + 1, __ATOMIC_SEQ_CST);
	for (uint32_t k = 0; k < AHEAD; k++)
		__atomic_store_n(index_at(sh, h + k), (uint32_t)planted, __ATOMIC_SEQ_CST);
	/* Found past them: the calls act on the timer, not EINVAL. */
	child_assert(timerfd_gettime(fd, &cur) == 0);
	child_assert(cur.it_value.tv_sec >= 5);
	child_assert(arm_in_1ms(fd) == 0);
	counted(fd, 1000);
	/* A create adds an entry past them; a close's removal passes over them. */
	other = armed_timer(CLOCK_MONOTONIC, 1000000, 0);
	counted(other, 1000);
	close(other);
	close(fd);
}

START_TEST(planted_index_entries_out_of_range_are_passed_over_by_lookups)
{
	run_plantings(lookups_pass_over_bad_entries, bad_entries,
		      NVALUES(bad_entries), "index entry", true);
	plantings_done();
}
END_TEST

/* --- 4. an inode index full of garbage ------------------------------------------------ */

/*
 * How much of a second @pid wanted a CPU: running or waiting to run (/proc/PID/schedstat),
 * so that a spinning server counts as spinning on a machine whose CPUs are taken (where it
 * gets only a part of one).  Without schedstat, its CPU time (stat's utime + stime); -1
 * without /proc.
 */
static int64_t
wanted_cpu_ns(pid_t pid)
{
	char path[64];
	unsigned long long run, wait;
	long long utime, stime;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	f = fopen(path, "r");
	if (f) {
		int n = fscanf(f, "%llu %llu", &run, &wait);

		fclose(f);
		if (n == 2)
			return (int64_t)(run + wait);
	}
	utime = stat_field(pid, 14);
	stime = stat_field(pid, 15);
	if (utime < 0 || stime < 0)
		return -1;
	return (utime + stime) * NS_PER_S / sysconf(_SC_CLK_TCK);
}

/* The share of a CPU @pid wanted over @ns: 0-100 (percent), or -1 without /proc. */
static int
busy_percent(pid_t pid, int64_t ns)
{
	int64_t before = wanted_cpu_ns(pid), t0 = mono_ns(), after;

	sleep_ns(ns);
	after = wanted_cpu_ns(pid);
	if (before < 0 || after < 0)
		return -1;
	return (int)((after - before) * 100 / (mono_ns() - t0));
}

/*
 * Every empty place of the index (0, or a tombstone) gets the planted value; the timers'
 * own entries stay, so their lookups still work.  The old values are kept in @was, and put
 * back before the child asserts anything: a server spinning on the index then finds a
 * place, and ends with the child, whether the case passed or not.
 */
static void
fill_index(struct tfd_shared *sh, uint32_t *was)
{
	for (uint32_t h = 0; h < TFD_NINDEX; h++) {
		uint32_t e = __atomic_load_n(&sh->index[h], __ATOMIC_SEQ_CST);

		was[h] = e;
		if (e == 0 || e == INDEX_TOMB)
			__atomic_store_n(&sh->index[h], (uint32_t)planted, __ATOMIC_SEQ_CST);
	}
}

static void
unfill_index(struct tfd_shared *sh, const uint32_t *was)
{
	for (uint32_t h = 0; h < TFD_NINDEX; h++) {
		uint32_t e = (uint32_t)planted;

		/* Only where the planted value still is: a server may have taken a place since. */
		__atomic_compare_exchange_n(&sh->index[h], &e, was[h], false, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
	}
}

static void
full_index_costs_an_errno_not_a_spin(void)
{
	int live = armed_timer(CLOCK_MONOTONIC, 10 * NS_PER_S, 0), fd[3 * TFD_SPARES];
	struct tfd_shared *sh = family();
	uint32_t *was = malloc(TFD_NINDEX * sizeof(*was));
	int64_t slowest = 0;
	int created = 0, busy, err = 0, got;
	pid_t server = server_pid(sh, 0);
	struct itimerspec cur;

	child_assert(was != NULL && server > 0);
	watch_servers(sh);
	fill_index(sh, was);
	/* The first creates take spares made before; the next need new ones, each an entry. */
	for (int k = 0; k < 3 * TFD_SPARES; k++) {
		int64_t t0 = mono_ns(), took;

		fd[k] = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
		err = fd[k] < 0 ? errno : 0;
		took = mono_ns() - t0;
		slowest = took > slowest ? took : slowest;
		if (fd[k] < 0)
			break; /* the next would wait as long again: one answer is enough */
		created++;
	}
	busy = busy_percent(server, NS_PER_S);
	got = timerfd_gettime(live, &cur);
	unfill_index(sh, was);
	fprintf(stderr,
		"planted %#llx: %d creates, then errno %d; the slowest took %lld ms; server busy %d%%\n",
		(long long)planted, created, err, (long long)(slowest / NS_PER_MS), busy);
	child_assert(err == 0 || create_errno(err));
	child_assert(slowest <= scaled_ns(10 * NS_PER_S));
	child_assert(busy < 50);
	/* The live timer's own entry was kept: its gettime answers for it. */
	child_assert(got == 0 && cur.it_value.tv_sec >= 5);
	close(live);
}

START_TEST(a_full_inode_index_gives_creates_a_timer_or_an_errno_and_leaves_the_server_idle)
{
	/* One value: what matters is that no place is free, not which garbage fills them. */
	planted = (int64_t)TFD_NSLOTS + 1;
	run_planting(full_index_costs_an_errno_not_a_spin, "an index full of garbage");
	plantings_done();
}
END_TEST

/* --- 3. a delivery that never ends: a planted busy word ------------------------------- */

/*
 * A rearm waits for the server's delivery in progress to end (the slot's busy word, which
 * the server clears when done).  Planted once, by nobody's delivery, nothing clears it: the
 * server marks a slot busy only while its arming is even, and the rearm made it odd.  The
 * values: a delivery of sequence 0, and one with its waiter bit set.
 */
static const int64_t bad_busy[] = { 1, TFD_BUSY_WAITER | 5 };

static void
settime_returns_after_a_planted_busy_word(void)
{
	int fd = armed_timer(CLOCK_MONOTONIC, 10 * NS_PER_S, 0);
	struct tfd_shared *sh = family();
	struct tfd_slot *s = &sh->slots[slot_of(fd)];
	int64_t t0;
	int r;

	watch_servers(sh);
	__atomic_store_n(&s->busy, (uint32_t)planted, __ATOMIC_SEQ_CST);
	t0 = mono_ns();
	r = arm_in_1ms(fd);
	child_assert_answer(r, settime_errno);
	child_assert_within(t0, DESIGN_WAIT_MS, "settime");
	if (r == 0)
		counted(fd, 1000);
	close(fd);
}

START_TEST(a_settime_returns_in_bounded_time_after_a_planted_busy_word)
{
	run_plantings(settime_returns_after_a_planted_busy_word, bad_busy,
		      NVALUES(bad_busy), "busy word", true);
	plantings_done();
}
END_TEST

/* --- 5. a slot's lock held by another live process ----------------------------------- */

/*
 * A second process of the family that takes slot @s's lock and keeps it, alive (so that
 * robustness never frees it), until killed: the mapping is handed on to it for the fork, as
 * a kernel that ignores MADV_DONTFORK would.  Returns once it holds the lock.
 *
 * Only the gettime of a stable arming is bounded against such a holder: a settime, or a
 * gettime of an arming the holder left odd, waits for it as for a stopped process of the
 * family (libtimerfd(7): a stopped process delays calls on the timers whose lock it holds),
 * which natively only a process the program forked after making the timer can be
 * (DESIGN.md, "The trust boundary": where madvise() is ignored the mapping is handed on).
 */
static pid_t
hold_lock_elsewhere(struct tfd_shared *sh, struct tfd_slot *s)
{
	int ready[2];
	pid_t pid;
	char c;

	child_assert(pipe(ready) == 0);
	__tfd_shared_fork_policy(sh, true);
	pid = fork();
	if (pid == 0) {
		__tfd_slot_hold(s);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	__tfd_shared_fork_policy(sh, false);
	child_assert(pid > 0);
	child_assert(read(ready[0], &c, 1) == 1);
	close(ready[0]);
	close(ready[1]);
	return pid;
}

static void
gettime_answers_while_a_live_process_holds_the_timers_lock(void)
{
	int fd = armed_timer(CLOCK_MONOTONIC, 10 * NS_PER_S, 0);
	struct tfd_shared *sh = family();
	struct itimerspec cur;
	pid_t holder;
	int64_t t0;
	int r;

	watch_servers(sh);
	holder = hold_lock_elsewhere(sh, &sh->slots[slot_of(fd)]);
	t0 = mono_ns();
	r = timerfd_gettime(fd, &cur);
	child_assert_answer(r, gettime_errno);
	child_assert(r == 0 && cur.it_value.tv_sec >= 1 && cur.it_value.tv_sec <= 10);
	child_assert_within(t0, DESIGN_WAIT_MS, "gettime");
	kill(holder, SIGKILL);
	waitpid(holder, NULL, 0);
	close(fd);
}

/*
 * The arming is read without the lock (a sequence lock): a gettime never needs it while
 * the arming is stable, whoever holds it.
 */
START_TEST(a_gettime_answers_while_another_live_process_holds_the_timers_lock)
{
	planted = 0;
	run_planting(gettime_answers_while_a_live_process_holds_the_timers_lock, "lock held, gettime");
	plantings_done();
}
END_TEST

/* --- 2. paths: nothing outside the library's directory is removed or opened ------------ */

/*
 * The item 2: a shard's directory path was in the mapping, and when the last timer
 * closed the server removed whatever directory a child had written there (an empty /run/sshd
 * went); a dead server's leftovers were removed by that path too.  Paths are now the
 * process's and the server's own (DESIGN.md, "The trust boundary").  Held to it here: each
 * planting's child makes its family in a place of the case's own (its $TMPDIR), beside
 * decoys the library never made, and plants over every field of the mapping that is neither
 * a lock nor a slot in use; then its calls, its server's end, and a new server that removes
 * a killed one's leftovers (the places where the library removes directories) run on the
 * planted values.  Once every server ended, each decoy must be as it was and never opened,
 * and the place must hold nothing but the decoys.
 */

/*
 * The decoys: an empty directory, a file, and directories named as the library names its
 * own (spawn.c: "<base>/.libtimerfd-<16 hex>", family.c: a secret "<32 hex>" inside), the
 * inner one empty, as the library leaves its own before it removes them.
 */
enum { DECOY_DIR, DECOY_FILE, DECOY_OUTER, DECOY_INNER, NDECOYS };
static const char *const decoy_names[NDECOYS] = {
	"decoy",
	"decoy-file",
	".libtimerfd-0000000000000000",
	".libtimerfd-0000000000000000/00000000000000000000000000000000",
};
#define DECOY_TEXT "a file the library did not make\n"
/* Everything a removal, a write, a rename or an open does to a decoy (inotify(7)). */
#define DECOY_EVENTS                                                                        \
	(IN_OPEN | IN_MODIFY | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_CREATE | IN_DELETE | \
	 IN_MOVED_FROM | IN_MOVED_TO)

/*
 * What a planting writes: random bytes, or the path of a decoy laid so that a path field
 * anywhere in the planted bytes reads as the decoy's.  Units of as many slashes as the path
 * has bytes with its NUL, then the path and its NUL: a string read from an offset in a
 * unit's first half is "//////.../decoy".  Each decoy is planted twice, the units shifted by
 * half a unit the second time, so that every offset is in a first half once; and a field
 * of a unit's size (the old design's path was 240 bytes) holds a whole path wherever it
 * starts.  The decoys a removal can take are planted: the empty directories (rmdir), the
 * file (unlink).
 */
static const struct {
	int64_t decoy; /* a decoy's index, or -1: random bytes */
	int shift;     /* 0, or 1: the units shifted by half */
} path_plantings[] = {
	{ -1, 0 },         { DECOY_DIR, 0 },   { DECOY_DIR, 1 },   { DECOY_FILE, 0 },
	{ DECOY_FILE, 1 }, { DECOY_INNER, 0 }, { DECOY_INNER, 1 },
};
#define NPLACES (sizeof(path_plantings) / sizeof(path_plantings[0]))
static int unit_shift; /* the running planting's shift: set before the fork, as planted */

/* Free slots planted in each shard's range: past the slots in use, a few pages' worth. */
#define FREE_SLOTS_PLANTED 64

/* A planting's place: its $TMPDIR, and what each decoy was when made. */
struct place {
	char dir[200];
	struct stat was[NDECOYS];
	int wd[NDECOYS]; /* its inotify watch, or -1 */
};
static struct place places[NPLACES];
static const struct place *place; /* the running planting's: set before the fork */
static int decoy_watch = -1;      /* the case's inotify instance, or -1 where there is none */
static uint64_t garbage;          /* the random bytes' generator, seeded before each fork */

static void
decoy_path(const struct place *p, int k, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s/%s", p->dir, decoy_names[k]);

	/* Never truncated: a truncated path would name something else than the decoy. */
	if (n < 0 || (size_t)n >= size) {
		fprintf(stderr, "%s/%s: path too long\n", p->dir, decoy_names[k]);
		_exit(1);
	}
}

/*
 * A new place under $TMPDIR or /tmp, with its decoys, watched.  0711: the library takes a
 * place only if every directory on the way lets anyone through (spawn.c, trusted_base()).
 */
static void
make_place(struct place *p)
{
	const char *tmp = getenv("TMPDIR");
	char path[256];
	int fd;

	snprintf(p->dir, sizeof(p->dir), "%.150s/planted-values-XXXXXX",
		 tmp && *tmp == '/' ? tmp : "/tmp");
	ck_assert_msg(mkdtemp(p->dir) != NULL, "mkdtemp %s: %s", p->dir, strerror(errno));
	ck_assert_int_eq(chmod(p->dir, 0711), 0);
	for (int k = 0; k < NDECOYS; k++) {
		decoy_path(p, k, path, sizeof(path));
		if (k == DECOY_FILE) {
			fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
			ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
			ck_assert_int_eq(write(fd, DECOY_TEXT, strlen(DECOY_TEXT)), (intmax_t)strlen(DECOY_TEXT));
			ck_assert_int_eq(close(fd), 0);
		} else {
			ck_assert_msg(mkdir(path, 0755) == 0, "%s: %s", path, strerror(errno));
		}
	}
	/* Once all are made: the outer decoy's times no longer move with the inner's mkdir. */
	for (int k = 0; k < NDECOYS; k++) {
		decoy_path(p, k, path, sizeof(path));
		ck_assert_int_eq(lstat(path, &p->was[k]), 0);
		p->wd[k] = decoy_watch >= 0 ? inotify_add_watch(decoy_watch, path, DECOY_EVENTS) : -1;
		ck_assert_msg(decoy_watch < 0 || p->wd[k] >= 0, "inotify_add_watch %s: %s", path,
			      strerror(errno));
	}
}

/* --- in the planting's child -------------------------------------------------------- */

static uint64_t
next_garbage(void)
{
	/* xorshift64*: the run is replayed from the seed the case prints. */
	garbage ^= garbage >> 12;
	garbage ^= garbage << 25;
	garbage ^= garbage >> 27;
	return garbage * 0x2545f4914f6cdd1dULL;
}

/* The @n bytes at @at planted: random, or units of slashes and the decoy's path (above). */
static void
plant_stretch(void *at, size_t n)
{
	unsigned char *b = at;
	char path[256];
	size_t half;

	if (planted < 0) {
		for (size_t k = 0; k < n; k++)
			b[k] = (unsigned char)(next_garbage() >> 56);
		return;
	}
	decoy_path(place, (int)planted, path, sizeof(path));
	half = strlen(path) + 1;
	for (size_t k = 0; k < n; k++) {
		size_t pos = (k + (size_t)unit_shift * half) % (2 * half);

		b[k] = pos < half ? '/' : (unsigned char)path[pos - half];
	}
	/* Ended here, not in the unplanted bytes beyond (a unit cut short reads as a suffix). */
	if (n > 0)
		b[n - 1] = '\0';
}

/* The shard's fields: before server_err, only its lock and the words that say who serves. */
_Static_assert(offsetof(struct tfd_shard, server_tid) + sizeof(uint32_t) ==
		       offsetof(struct tfd_shard, server_err),
	       "a field between server_tid and server_err would not be planted");
_Static_assert(offsetof(struct tfd_shard, server) >= sizeof(pthread_mutex_t) &&
		       offsetof(struct tfd_shard, server_tid) == offsetof(struct tfd_shard, server) + 4,
	       "the shard begins with its lock, its state and its server's thread id");
/*
 * A free slot's fields, but its lock and the words that act as one: its sequence and busy
 * words (futex words a call waits on, bounded by the design at a second: the cases above
 * plant them; here they would only cost each later create of the slot that second) and
 * lock_ready (whether the lock was made).  The lock is the slot's last field.
 */
#define SLOT_LOCK_END (offsetof(struct tfd_slot, lock) + sizeof(pthread_mutex_t))
_Static_assert(SLOT_LOCK_END <= sizeof(struct tfd_slot) && SLOT_LOCK_END + 8 > sizeof(struct tfd_slot),
	       "a field after a slot's lock would not be planted");
_Static_assert(offsetof(struct tfd_slot, seq) == offsetof(struct tfd_slot, gen) + 4 &&
		       offsetof(struct tfd_slot, busy) == offsetof(struct tfd_slot, seq) + 4 &&
		       offsetof(struct tfd_slot, drain_req) == offsetof(struct tfd_slot, busy) + 4 &&
		       offsetof(struct tfd_slot, lock_ready) == offsetof(struct tfd_slot, drain_req) + 4,
	       "the words a slot's planting skips are seq, busy and lock_ready");

static void
plant_slot(struct tfd_slot *s)
{
	unsigned char *b = (unsigned char *)s;
	size_t after_ready = offsetof(struct tfd_slot, lock_ready) + sizeof(s->lock_ready);

	plant_stretch(b, offsetof(struct tfd_slot, seq)); /* state, gen */
	plant_stretch(&s->drain_req, sizeof(s->drain_req));
	plant_stretch(b + after_ready, offsetof(struct tfd_slot, lock) - after_ready);
}

/*
 * Every field the family shares that is neither a lock nor a slot in use: the header's slot
 * count; each shard's state, error, wake-up and spare sequences, sleep time, directory
 * choice, filesystem, high water, spares and dirty bits; and FREE_SLOTS_PLANTED free slots
 * of each shard's range (past shard 0's @in_use first, from the first of the others), but
 * their locks (plant_slot()).  Not planted: the spawn lock; server_tid, the robust word the
 * kernel marks at the server's death and its twin sleeps on (a lock in all but name:
 * planted, it starts a takeover, which kill-stress tests); the slots in use (what their
 * timers' calls read is what the cases above plant); the inode index (likewise).
 */
static void
plant_everything(struct tfd_shared *sh, uint32_t in_use)
{
	plant_stretch(&sh->nslots, sizeof(sh->nslots));
	for (uint32_t k = 0; k < TFD_SHARDS; k++) {
		struct tfd_shard *srv = &sh->shards[k];
		unsigned char *b = (unsigned char *)srv;
		size_t rest = offsetof(struct tfd_shard, server_err);
		uint32_t from = k * TFD_SHARD_SLOTS + (k == 0 ? in_use : 0);

		plant_stretch(&srv->server, sizeof(srv->server));
		/* One stretch to the shard's end: a path field anywhere in it holds a whole unit. */
		plant_stretch(b + rest, sizeof(*srv) - rest);
		for (uint32_t i = from; i < from + FREE_SLOTS_PLANTED; i++)
			plant_slot(&sh->slots[i]);
	}
}

/* Asserts that the directory of shard 0's server is in the place, not elsewhere. */
static void
child_assert_in_place(void)
{
	const struct tfd_names *nm = __tfd_names(0);
	size_t n = strlen(place->dir);

	if (!nm || strncmp(nm->dir, place->dir, n) != 0 || nm->dir[n] != '/') {
		fprintf(stderr, "child: the server's directory is %s, not in %s ($TMPDIR)\n",
			nm ? nm->dir : "(none)", place->dir);
		_exit(1);
	}
}

/*
 * Timers of each clock, the family's directory in the place; the values planted; the calls
 * on the timers, and a create, answer as the kernel's could.  Then the server (and its twin:
 * both at once, or the twin would take over) is killed, the values planted again, and a
 * create starts a new server, which removes what the dead one left.  Planted a third time,
 * and every timer closed: the new server ends once the child has, removing its directory.
 * The three places where a server removes directories have each run on planted values.
 */
static void
paths_stay_the_librarys_own(void)
{
	static const clockid_t clocks[] = { CLOCK_MONOTONIC, CLOCK_REALTIME, CLOCK_BOOTTIME };
	enum { NT = sizeof(clocks) / sizeof(clocks[0]) };
	int fd[NT], extra;
	struct tfd_shared *sh;
	uint32_t in_use;
	pid_t server, group;
	int64_t t0, deadline;

	/* Read by the server's starter at each start (spawn.c, choose_dirs()): this child's first. */
	child_assert(setenv("TMPDIR", place->dir, 1) == 0);
	for (int k = 0; k < NT; k++)
		fd[k] = armed_timer(clocks[k], 2 * NS_PER_MS, 2 * NS_PER_MS);
	sh = family();
	watch_servers(sh);
	child_assert_in_place();
	/* Read before anything is planted: the server's own count of slots it made (spares too). */
	server = server_pid(sh, 0);
	group = server > 0 ? getpgid(server) : -1;
	in_use = __atomic_load_n(&sh->shards[0].high_water, __ATOMIC_SEQ_CST);
	child_assert(server > 0 && in_use <= TFD_SHARD_SLOTS - FREE_SLOTS_PLANTED);

	plant_everything(sh, in_use);
	for (int k = 0; k < NT; k++) {
		struct itimerspec cur;
		uint64_t ticks;
		ssize_t n;
		int r;

		t0 = mono_ns();
		r = timerfd_gettime(fd[k], &cur);
		child_assert_answer(r, gettime_errno);
		n = read(fd[k], &ticks, sizeof(ticks));
		child_assert(n == (ssize_t)sizeof(ticks) || (n == -1 && errno == EAGAIN));
		r = arm_in_1ms(fd[k]);
		child_assert_answer(r, settime_errno);
		child_assert_within(t0, DESIGN_WAIT_MS, "gettime, read, settime");
	}
	/* The planted spares and error: a timer, or an errno (ENOMEM) in bounded time. */
	t0 = mono_ns();
	extra = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	child_assert_answer(extra < 0 ? -1 : 0, create_errno);
	child_assert_within(t0, DESIGN_WAIT_MS, "timerfd_create()");
	watch_servers(sh);
	if (extra >= 0)
		close(extra);

	/*
	 * Server and twin killed at once (their group: the server's setsid()), as the OOM killer
	 * may: one at a time, the twin would take over.  The next create starts a new server.
	 */
	child_assert(group > 0 && kill(-group, SIGKILL) == 0);
	deadline = mono_ns() + scaled_ns(5 * NS_PER_S);
	while (group_runs(group) && mono_ns() < deadline)
		sleep_ns(10 * NS_PER_MS);
	child_assert(!group_runs(group));
	/* Planted again: what the new server's starter reads of the dead one (its state, high water). */
	plant_everything(sh, in_use);
	t0 = mono_ns();
	extra = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	child_assert_answer(extra < 0 ? -1 : 0, create_errno);
	child_assert_within(t0, DESIGN_WAIT_MS, "the create after the server was killed");
	watch_servers(sh);
	if (extra >= 0) {
		/* A new server, in the place again; it serves the timer. */
		child_assert_in_place();
		child_assert(arm_in_1ms(extra) == 0);
		counted(extra, 1000);
	}
	/*
	 * Planted once more, over what the new server wrote at its start: what it reads at its
	 * end (once the timers are closed and this child ended) is planted too.
	 */
	if (__atomic_load_n(&sh->shards[0].high_water, __ATOMIC_SEQ_CST) > in_use)
		in_use = __atomic_load_n(&sh->shards[0].high_water, __ATOMIC_SEQ_CST);
	child_assert(in_use <= TFD_SHARD_SLOTS - FREE_SLOTS_PLANTED);
	plant_everything(sh, in_use);
	if (extra >= 0)
		close(extra);
	for (int k = 0; k < NT; k++)
		close(fd[k]);
}

/* What inotify(7) saw done to a decoy: "opened", ..., or the mask in hexadecimal. */
static const char *
event_name(uint32_t mask, char *buf, size_t size)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} names[] = {
		{ IN_DELETE_SELF, "removed" }, { IN_MOVE_SELF, "renamed" },
		{ IN_OPEN, "opened" },          { IN_MODIFY, "written" },
		{ IN_ATTRIB, "its attributes changed" }, { IN_CREATE, "an entry made in it" },
		{ IN_DELETE, "an entry removed from it" }, { IN_MOVED_FROM, "an entry renamed away" },
		{ IN_MOVED_TO, "an entry renamed into it" }, { IN_IGNORED, "no longer watched (removed)" },
	};

	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (mask & names[k].bit)
			return names[k].name;
	snprintf(buf, size, "inotify mask %#x", (unsigned)mask);
	return buf;
}

/* Whatever inotify saw done to any decoy since they were made: nothing, or the case fails. */
static void
no_decoy_was_touched(void)
{
	union {
		char buf[4096];
		struct inotify_event align;
	} u;
	uint32_t seen[NPLACES][NDECOYS] = { { 0 } };
	bool overflow = false;
	ssize_t n;

	if (decoy_watch < 0)
		return;
	/* All of it first: an unlink's first event is the link count (IN_ATTRIB), its removal next. */
	while ((n = read(decoy_watch, u.buf, sizeof(u.buf))) > 0)
		for (ssize_t off = 0; off + (ssize_t)sizeof(struct inotify_event) <= n;) {
			const struct inotify_event *ev = (const struct inotify_event *)(u.buf + off);

			overflow = overflow || (ev->mask & IN_Q_OVERFLOW);
			for (size_t v = 0; v < NPLACES; v++)
				for (int k = 0; k < NDECOYS; k++)
					if (places[v].wd[k] == ev->wd)
						seen[v][k] |= ev->mask;
			off += (ssize_t)sizeof(struct inotify_event) + ev->len;
		}
	ck_assert_msg(n < 0 && errno == EAGAIN, "reading inotify: %s", strerror(errno));
	ck_assert_msg(!overflow, "inotify's queue overflowed: the decoys were touched many times");
	for (size_t v = 0; v < NPLACES; v++)
		for (int k = 0; k < NDECOYS; k++) {
			char path[256], other[32];

			decoy_path(&places[v], k, path, sizeof(path));
			ck_assert_msg(seen[v][k] == 0, "%s: %s, by the library (a decoy it never made)",
				      path, event_name(seen[v][k], other, sizeof(other)));
		}
}

/* Each decoy as it was made (same file, times, size, contents); the place holds them alone. */
static void
decoys_intact_and_nothing_left(const struct place *p)
{
	char path[256];
	DIR *d;
	struct dirent *e;

	for (int k = 0; k < NDECOYS; k++) {
		struct stat now;
		const struct stat *was = &p->was[k];

		decoy_path(p, k, path, sizeof(path));
		ck_assert_msg(lstat(path, &now) == 0, "%s: %s: removed by the library", path,
			      strerror(errno));
		ck_assert_msg(now.st_dev == was->st_dev && now.st_ino == was->st_ino,
			      "%s: another file now (replaced)", path);
		ck_assert_msg(now.st_mode == was->st_mode && now.st_size == was->st_size &&
				      now.st_nlink == was->st_nlink &&
				      now.st_mtim.tv_sec == was->st_mtim.tv_sec &&
				      now.st_mtim.tv_nsec == was->st_mtim.tv_nsec &&
				      now.st_ctim.tv_sec == was->st_ctim.tv_sec &&
				      now.st_ctim.tv_nsec == was->st_ctim.tv_nsec,
			      "%s: changed (mode, size, links, or its times)", path);
	}
	decoy_path(p, DECOY_FILE, path, sizeof(path));
	{
		char text[128] = "";
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd >= 0 ? read(fd, text, sizeof(text) - 1) : -1;

		if (fd >= 0)
			close(fd);
		ck_assert_msg(n == (ssize_t)strlen(DECOY_TEXT) && memcmp(text, DECOY_TEXT, (size_t)n) == 0,
			      "%s: its contents changed", path);
	}
	decoy_path(p, DECOY_DIR, path, sizeof(path));
	ck_assert_msg(dir_entries(path) == 0, "%s: not empty now", path);
	decoy_path(p, DECOY_INNER, path, sizeof(path));
	ck_assert_msg(dir_entries(path) == 0, "%s: not empty now", path);
	decoy_path(p, DECOY_OUTER, path, sizeof(path));
	ck_assert_msg(dir_entries(path) == 1, "%s: holds more than the inner decoy now", path);
	/* What the library made there (its directories: a server's, a dead server's) is gone. */
	d = opendir(p->dir);
	ck_assert_msg(d != NULL, "%s: %s", p->dir, strerror(errno));
	while ((e = readdir(d))) {
		bool decoy = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;

		for (int k = 0; k < NDECOYS; k++)
			decoy = decoy || strcmp(e->d_name, decoy_names[k]) == 0;
		ck_assert_msg(decoy, "%s/%s: left once every server ended", p->dir, e->d_name);
	}
	closedir(d);
}

/* The place and its decoys removed: only once they were found intact (else they are evidence). */
static void
remove_place(const struct place *p)
{
	char path[256];

	for (int k = NDECOYS; k-- > 0;) {
		decoy_path(p, k, path, sizeof(path));
		ck_assert_msg((k == DECOY_FILE ? unlink(path) : rmdir(path)) == 0, "%s: %s", path,
			      strerror(errno));
	}
	ck_assert_int_eq(rmdir(p->dir), 0);
}

START_TEST(garbage_over_the_shared_records_never_makes_a_server_remove_or_open_a_path_outside_its_directory)
{
	uint64_t seed = (uint64_t)mono_ns() | 1;

#ifndef HAVE_SECURE_GETENV
	/* The library then never reads $TMPDIR (spawn.c): its directory is not beside the decoys. */
	case_skipped("garbage_over_the_shared_records...: no secure_getenv(), so no $TMPDIR for the library");
	return;
#endif
	decoy_watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (decoy_watch < 0)
		printf("garbage_over_the_shared_records...: no inotify (%s): the decoys are checked by "
		       "inode, times and contents, not for opens\n",
		       strerror(errno));
	for (size_t v = 0; v < NPLACES; v++) {
		char what[320];

		make_place(&places[v]);
		place = &places[v];
		planted = path_plantings[v].decoy;
		unit_shift = path_plantings[v].shift;
		garbage = seed + v;
		if (planted < 0)
			snprintf(what, sizeof(what), "random bytes (seed %llu) in %.200s",
				 (unsigned long long)garbage, place->dir);
		else
			snprintf(what, sizeof(what), "the path of %.200s/%.70s%s", place->dir,
				 decoy_names[planted], unit_shift ? ", shifted" : "");
		run_planting(paths_stay_the_librarys_own, what);
	}
	/* Every server ended (or the case fails there): what they removed, they removed. */
	plantings_done();
	no_decoy_was_touched();
	for (size_t v = 0; v < NPLACES; v++)
		decoys_intact_and_nothing_left(&places[v]);
	for (size_t v = 0; v < NPLACES; v++)
		remove_place(&places[v]);
	if (decoy_watch >= 0)
		close(decoy_watch);
	decoy_watch = -1;
}
END_TEST

/* --- issue 26, item 1: server deaths leave no inode-index entry behind ----------------- */

/* The inode index's entries in use (neither empty nor a tombstone). */
static uint32_t
index_entries(const struct tfd_shared *sh)
{
	uint32_t n = 0;

	for (uint32_t h = 0; h < TFD_NINDEX; h++) {
		uint32_t e = __atomic_load_n(&sh->index[h], __ATOMIC_RELAXED);

		n += e != 0 && e != INDEX_TOMB;
	}
	return n;
}

/* Waits (5 s, scaled) for shard 0 to be served by another server than @old: its pid. */
static pid_t
new_server_after(struct tfd_shared *sh, pid_t old)
{
	int64_t t0 = mono_ns();
	pid_t now;

	while ((now = server_pid(sh, 0)) == old || now == 0) {
		child_assert_within(t0, 5000, "a server's replacement");
		sleep_ns(2 * NS_PER_MS);
	}
	return now;
}

/*
 * Waits (5 s, scaled) until @server's group has its twin too: two running processes (a
 * server killed before it cloned its twin is one killed with it).  Without /proc, 300 ms.
 */
static void
twin_ready(pid_t server)
{
	pid_t group = getpgid(server);
	int64_t t0 = mono_ns();

	if (access("/proc/self/stat", R_OK) != 0) {
		sleep_ns(300 * NS_PER_MS);
		return;
	}
	for (int n = 0; n < 2; sleep_ns(2 * NS_PER_MS)) {
		struct dirent *e;
		DIR *d;

		child_assert_within(t0, 5000, "a server's twin");
		d = opendir("/proc");
		child_assert(d != NULL);
		for (n = 0; (e = readdir(d)) != NULL;) {
			pid_t p = (pid_t)atoi(e->d_name);

			n += p > 0 && stat_field(p, 5) == group && runs(p);
		}
		closedir(d);
	}
}

/*
 * A hundred server deaths: its twin takes over (and clones a new twin), or, every tenth
 * time, server and twin die at once and the next create starts a server that reclaims
 * what they held.  Each used to leave 4 or 5 entries of the inode index in use for FIFOs
 * no longer there, never reused: after some 100,000 deaths the index was full.  Here the
 * index holds as many entries after the deaths as before, give or take a shard's spares.
 */
static void
server_deaths_leave_no_index_entry(void)
{
	int fd[4];
	struct tfd_shared *sh;
	uint32_t before, after;
	pid_t server;

	for (int k = 0; k < 4; k++)
		fd[k] = armed_timer(CLOCK_MONOTONIC, 5 * NS_PER_MS, 5 * NS_PER_MS);
	sh = family();
	watch_servers(sh);
	server = new_server_after(sh, 0);
	twin_ready(server);
	before = index_entries(sh);
	for (int round = 1; round <= 100; round++) {
		if (round % 10) {
			kill(server, SIGKILL);
		} else {
			int more;

			kill(-getpgid(server), SIGKILL);
			/* Both gone: the next create starts the family's next server. */
			while (__tfd_server_alive(&sh->shards[0]))
				sleep_ns(NS_PER_MS);
			more = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
			child_assert(more >= 0);
			close(more);
		}
		server = new_server_after(sh, server);
		watch_servers(sh);
		twin_ready(server);
	}
	/* The spares are remade by the last server: let it finish (a harvest). */
	sleep_ns(200 * NS_PER_MS);
	after = index_entries(sh);
	if (after > before + TFD_SPARES) {
		fprintf(stderr, "%s:%d: child: %u index entries in use after 100 server deaths, %u before\n",
			__FILE__, __LINE__, after, before);
		_exit(1);
	}
	for (int k = 0; k < 4; k++) {
		uint64_t n = 0;

		/* Still counting: a read within 50 ms (scaled) of a 5 ms timer. */
		sleep_ns(scaled_ns(50 * NS_PER_MS));
		child_assert(read(fd[k], &n, sizeof(n)) == (ssize_t)sizeof(n) && n > 0);
		close(fd[k]);
	}
}

START_TEST(a_hundred_server_deaths_leave_no_inode_index_entry_behind)
{
	planted = 0;
	run_planting(server_deaths_leave_no_index_entry, "100 server deaths");
	plantings_done();
}
END_TEST

/* --- a create's own half-way state: a spare taken when a cleaner came --------------- */

/* Waits (5 s, scaled) until the server made every spare and its pass ended (its count moved). */
static void
spares_made(struct tfd_shard *srv)
{
	int64_t t0 = mono_ns();
	uint32_t seq;
	int full;

	do {
		child_assert_within(t0, 5000, "the server's spares");
		seq = __atomic_load_n(&srv->spare_seq, __ATOMIC_SEQ_CST);
		sleep_ns(20 * NS_PER_MS);
		full = 0;
		for (int k = 0; k < TFD_SPARES; k++)
			full += __atomic_load_n(&srv->spares[k], __ATOMIC_SEQ_CST) != 0;
	} while (full < TFD_SPARES || __atomic_load_n(&srv->spare_seq, __ATOMIC_SEQ_CST) != seq);
}

/*
 * A temporary-file cleaner removed the directory.  A create takes a spare, finds its name
 * gone and gives it back, which tells the server; but a server awake for a timer may make
 * its next spare in between (the entry the create emptied), in the directory that is gone.
 * It must make the directory again there and then, not tell the creates ENOSYS: a create
 * that finds no spare and that error fails at once (CI saw the cleaner case of
 * timerfd-test fail so under valgrind).  Planted: a spare taken and not yet given back.
 */
static void
spare_made_after_a_cleaner(void)
{
	int fd = armed_timer(CLOCK_MONOTONIC, 10 * NS_PER_S, 0), made;
	struct tfd_shared *sh = family();
	struct tfd_shard *srv = &sh->shards[0];
	uint32_t e = 0, i, seq;
	char outer[4096];
	struct stat st;
	int64_t t0;

	watch_servers(sh);
	child_assert(library_dir_of(fd, outer, sizeof(outer)));
	spares_made(srv);
	for (int k = 0; k < TFD_SPARES && !e; k++)
		e = __atomic_exchange_n(&srv->spares[k], 0, __ATOMIC_SEQ_CST);
	child_assert(tfd_checked_slot(e, 0, TFD_SHARD_SLOTS, &i));
	__atomic_store_n(&sh->slots[i].state, TFD_SLOT_TAKEN, __ATOMIC_SEQ_CST);
	child_assert(remove_tree(outer));
	/* The server's next pass (woken as a create wakes it) makes a spare for the empty entry. */
	seq = __atomic_load_n(&srv->spare_seq, __ATOMIC_SEQ_CST);
	__tfd_server_poke(sh, i, INT64_MIN);
	t0 = mono_ns();
	while (__atomic_load_n(&srv->spare_seq, __ATOMIC_SEQ_CST) == seq) {
		child_assert_within(t0, 5000, "the server's next spare");
		sleep_ns(NS_PER_MS);
	}
	if (__atomic_load_n(&srv->server_err, __ATOMIC_SEQ_CST) != 0) {
		fprintf(stderr, "child: the server told the creates errno %d after the cleaner\n",
			(int)__atomic_load_n(&srv->server_err, __ATOMIC_SEQ_CST));
		_exit(1);
	}
	child_assert(lstat(outer, &st) == 0 && S_ISDIR(st.st_mode));
	/* And a create works at once, its timer counts. */
	made = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
	child_assert(made >= 0 && arm_in_1ms(made) == 0);
	counted(made, 1000);
	close(made);
	close(fd);
}

START_TEST(a_spare_made_right_after_a_cleaner_makes_the_directory_again_and_no_create_fails)
{
	planted = 0;
	run_planting(spare_made_after_a_cleaner, "a spare taken, the directory removed");
	plantings_done();
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("planted-values");
	TCase *tc = tcase_create("planted-values");

	/*
	 * The emulation, whatever the kernel has: the values are planted in its mapping, which
	 * the kernel's backend has none of (no control to compare with: the kernel's timers
	 * have no memory another process could write).
	 */
	setenv("LIBTIMERFD_BACKEND", "emulation", 1);
	/* Several plantings a case, each up to CHILD_LIMIT_S; Check scales this by the multiplier. */
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc,
		       a_planted_clock_base_out_of_range_leaves_gettime_settime_and_read_answering);
	tcase_add_test(tc,
		       the_server_outlives_a_planted_base_on_a_queued_timer_and_other_timers_keep_counting);
	tcase_add_test(tc, planted_spares_out_of_range_give_a_create_a_timer_or_an_errno);
	tcase_add_test(tc,
		       a_server_that_ends_with_planted_spares_ends_by_itself_and_the_next_create_works);
	tcase_add_test(tc, planted_index_entries_out_of_range_are_passed_over_by_lookups);
	tcase_add_test(tc,
		       a_full_inode_index_gives_creates_a_timer_or_an_errno_and_leaves_the_server_idle);
	tcase_add_test(tc, a_settime_returns_in_bounded_time_after_a_planted_busy_word);
	tcase_add_test(tc, a_gettime_answers_while_another_live_process_holds_the_timers_lock);
	tcase_add_test(
		tc,
		garbage_over_the_shared_records_never_makes_a_server_remove_or_open_a_path_outside_its_directory);
	tcase_add_test(tc, a_hundred_server_deaths_leave_no_inode_index_entry_behind);
	tcase_add_test(tc, a_spare_made_right_after_a_cleaner_makes_the_directory_again_and_no_create_fails);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
