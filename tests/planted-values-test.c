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
#include <sys/mman.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#include "suite.h"

#include "helpers.h"

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

/* Empties the count waiting in @fd, if any. */
static void
drain(int fd)
{
	uint64_t ticks;

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
	for (size_t v = 0; v < sizeof(bad_bases) / sizeof(bad_bases[0]); v++) {
		char what[64];

		planted = bad_bases[v];
		snprintf(what, sizeof(what), "base %lld", (long long)planted);
		run_planting(gettime_settime_and_read_answer, what);
	}
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
	for (size_t v = 0; v < sizeof(bad_bases) / sizeof(bad_bases[0]); v++) {
		char what[64];

		planted = bad_bases[v];
		snprintf(what, sizeof(what), "base %lld", (long long)planted);
		run_planting(server_outlives_a_bad_base, what);
	}
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
	for (size_t v = 0; v < sizeof(bad_spares) / sizeof(bad_spares[0]); v++) {
		char what[64];

		planted = bad_spares[v];
		snprintf(what, sizeof(what), "spare entry %#llx", (long long)planted);
		run_planting(create_answers_with_bad_spares, what);
	}
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
	for (size_t v = 0; v < sizeof(bad_spares) / sizeof(bad_spares[0]); v++) {
		char what[64];

		planted = bad_spares[v];
		snprintf(what, sizeof(what), "spare entry %#llx", (long long)planted);
		run_planting(server_ends_cleanly_with_bad_spares, what);
	}
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
	for (size_t v = 0; v < sizeof(bad_entries) / sizeof(bad_entries[0]); v++) {
		char what[64];

		planted = bad_entries[v];
		snprintf(what, sizeof(what), "index entry %#llx", (long long)planted);
		run_planting(lookups_pass_over_bad_entries, what);
	}
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
	for (size_t v = 0; v < sizeof(bad_busy) / sizeof(bad_busy[0]); v++) {
		char what[64];

		planted = bad_busy[v];
		snprintf(what, sizeof(what), "busy word %#llx", (long long)planted);
		run_planting(settime_returns_after_a_planted_busy_word, what);
	}
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
	suite_add_tcase(s, tc);
	return run_suite(s);
}
