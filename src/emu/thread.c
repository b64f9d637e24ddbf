/* SPDX-License-Identifier: MIT */
/* The timer thread: a descriptor table of its own, the deadline queues, delivery, fork. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "emu/sys.h"
#include "emu/timer.h"

/*
 * A periodic timer is requeued no sooner than this after it fired: the
 * count it delivers still covers every period (it is computed from the
 * clock), but a tiny interval cannot turn the thread into a busy loop.
 */
#define MIN_REARM_NS 1000000LL
/*
 * How often the thread looks at the clocks when a timer waits on a clock
 * that can jump (CLOCK_REALTIME set, CLOCK_BOOTTIME after suspend): the
 * thread sleeps on CLOCK_MONOTONIC, so such a jump is noticed this late.
 */
#define CLOCK_CHECK_NS 100000000LL
/*
 * Under load the thread lets the kernel coalesce its wake-ups (timer slack):
 * at over BUSY_WAKES wake-ups in BUSY_WINDOW_NS, each may come up to
 * BUSY_SLACK_NS late, so one wake-up serves the deadlines that close
 * together; otherwise it wakes on time (slack 1 ns).
 */
#define BUSY_WAKES 20
#define BUSY_WINDOW_NS 10000000LL
#define BUSY_SLACK_NS 50000UL
/* How long the thread keeps a read end of a pipe whose count piles up unread (pipe.c). */
#define KEEP_NS 1000000000LL
/*
 * Pipes made ahead, so that timerfd_create() rarely waits for the thread.
 * One: the thread's table has the program's RLIMIT_NOFILE too.
 */
#define SPARES 1
/* The last instant a struct timespec holds, in ns: 2^31 - 1 s where time_t has 32 bits. */
static const int64_t timespec_max_ns =
	sizeof(time_t) < 8 ? (int64_t)INT32_MAX * TFD_NS_PER_S : INT64_MAX;

static const clockid_t base_clock[TFD_NBASES] = { CLOCK_MONOTONIC, CLOCK_BOOTTIME,
						  CLOCK_REALTIME };

/* Everything below is this process's own, guarded by the shared lock (shared.c). */
static struct tfd_heap queues[TFD_NBASES];
static pthread_cond_t wake;  /* the thread sleeps on it */
static pthread_cond_t ready; /* callers wait on it for the thread to start or make a pipe */
static pid_t own_pid;        /* getpid(), kept: the kernel would be asked on every call */
static pid_t thread_pid;     /* the process whose thread runs (or starts), 0 if none */
static pid_t thread_tid;
static bool thread_ready;
static int thread_err; /* why this process cannot have the thread (-ENOSYS, ...), or 0 */
static int epfd = -1;  /* thread's table: every write end, for EPOLLERR once nobody reads */
static struct {
	int r, w;
} spares[SPARES];
static int nspares, spare_err;
static int to_close[SPARES]; /* thread's table: read ends handed over to the program */
static int nto_close;
static struct tfd_emu_timer *todo_head;
static struct tfd_emu_timer *graveyard; /* records to free once the lock is let go */
static bool harvest_due;
static int ncancel_on_set;
static int64_t last_offset;
/* CLOCK_MONOTONIC ns the thread sleeps until (INT64_MAX: until woken). */
static int64_t thread_wakes_at = INT64_MAX;
/* CLOCK_MONOTONIC ns the thread lets go of the read ends it keeps (INT64_MAX: none kept). */
static int64_t let_go_at = INT64_MAX;
/* A child's fork() returns once its thread holds write ends of the inherited timers. */
static sem_t adopted;
static bool adopt_wait;
/* The forking thread's: threads may fork at once (one waits in before_fork() for the lock). */
static _Thread_local struct tfd_guard fork_guard;
static _Thread_local bool fork_locked; /* before_fork() took the lock */

int64_t
__tfd_base_now(enum tfd_base base)
{
	struct timespec ts;

	clock_gettime(base_clock[base], &ts);
	return (int64_t)ts.tv_sec * TFD_NS_PER_S + ts.tv_nsec;
}

int64_t
__tfd_realtime_offset(void)
{
	return __tfd_base_now(TFD_BASE_REALTIME) - __tfd_base_now(TFD_BASE_MONOTONIC);
}

/* Waits on @cv (until @until, if not NULL); a lock holder that died is not our concern. */
static void
wait_on(pthread_cond_t *cv, const struct timespec *until)
{
	pthread_mutex_t *m = __tfd_lock_mutex();
	int r = until ? pthread_cond_timedwait(cv, m, until) : pthread_cond_wait(cv, m);

	if (r == EOWNERDEAD)
		pthread_mutex_consistent(m);
}

static bool
thread_running_here(void)
{
	return thread_pid == own_pid && thread_ready && !thread_err;
}

void
__tfd_queue_remove(struct tfd_emu_timer *t)
{
	if (t->node.pos != TFD_HEAP_NONE && t->queued_cancel)
		ncancel_on_set--;
	t->queued_cancel = false;
	tfd_heap_remove(&queues[t->slot->base], &t->node);
}

void
__tfd_queue_room(size_t n, size_t cap[TFD_NBASES])
{
	for (int b = 0; b < TFD_NBASES; b++)
		cap[b] = tfd_heap_room(&queues[b], n);
}

void
__tfd_queue_grow(void *mem[TFD_NBASES], const size_t cap[TFD_NBASES])
{
	for (int b = 0; b < TFD_NBASES; b++)
		if (mem[b])
			mem[b] = tfd_heap_grow(&queues[b], mem[b], cap[b]);
}

void
__tfd_queue_update(struct tfd_emu_timer *t)
{
	struct tfd_slot *s = t->slot;
	int64_t due;

	__tfd_queue_remove(t);
	/* Only a process whose thread holds a write end drives the timer. */
	if (!s->st.armed || t->w < 0 || !thread_running_here())
		return;
	t->node.key = s->st.expiry;
	if (tfd_heap_push(&queues[s->base], &t->node) < 0)
		return; /* cannot happen: room is reserved at create */
	if (s->cancel_on_set) {
		t->queued_cancel = true;
		if (!ncancel_on_set++)
			last_offset = s->armed_offset;
	}
	/*
	 * Wake the thread only if this deadline comes before the time it sleeps
	 * until: a later one changes nothing.  (A wake-up per arming made the
	 * thread and the caller fight over the lock: ten times the cost of an arm.)
	 */
	if (t->node.pos != 0)
		return;
	due = t->node.key;
	/* Saturating, as in thread_main(): the deadline may be KTIME_MAX. */
	if (s->base != TFD_BASE_MONOTONIC)
		due = tfd_add_saturating(due - __tfd_base_now(s->base),
					 __tfd_base_now(TFD_BASE_MONOTONIC));
	if (due < thread_wakes_at)
		pthread_cond_signal(&wake);
}

static void
todo_push(struct tfd_emu_timer *t)
{
	if (t->on_todo)
		return;
	t->on_todo = true;
	t->todo = todo_head;
	todo_head = t;
	if (thread_running_here())
		pthread_cond_signal(&wake);
}

/*
 * Records are freed with the lock let go, never under it: the lock never covers a call into
 * the allocator (design note, "Calls are safe where a system call is").  The link is the
 * todo one: a record is buried only once it is off the thread's list.
 */
static void
bury(struct tfd_emu_timer *t)
{
	t->todo = graveyard;
	graveyard = t;
}

struct tfd_emu_timer *
__tfd_graveyard_take(void)
{
	struct tfd_emu_timer *list = graveyard;

	graveyard = NULL;
	return list;
}

void
__tfd_graveyard_free(struct tfd_emu_timer *list)
{
	while (list) {
		struct tfd_emu_timer *t = list;

		list = t->todo;
		free(t);
	}
}

/* Thread: closes what the thread holds for @t; buries it once it is reaped and off the list. */
static void
release(struct tfd_emu_timer *t)
{
	__tfd_pipe_let_go(t);
	if (t->w >= 0)
		tfd_sys_close(t->w); /* also takes it out of the epoll set */
	t->w = -1;
	t->watched = false;
	if (t->dead && !t->on_todo)
		bury(t);
}

void
__tfd_thread_reap(struct tfd_emu_timer *t)
{
	if (t->dead)
		return;
	t->dead = true;
	__tfd_queue_remove(t);
	__tfd_registry_remove(t);
	if (t->w < 0 && t->h < 0 && !t->on_todo)
		bury(t);
	else
		todo_push(t);
}

void
__tfd_thread_adopt(struct tfd_emu_timer *t)
{
	todo_push(t);
}

/* Thread: nobody reads the pipe any more (the program closed every descriptor of it). */
static void
timer_gone(struct tfd_emu_timer *t)
{
	if (__tfd_slot_current(t))
		__tfd_slot_free(t->slot);
	__tfd_thread_reap(t);
	release(t);
}

/* Thread: the write ends whose pipes lost their last reader, reported as EPOLLERR. */
static void
harvest(void)
{
	struct epoll_event ev[64];
	int n;

	harvest_due = false;
	do {
		n = tfd_sys_epoll_wait(epfd, ev, 64, 0);
		for (int i = 0; i < n; i++)
			timer_gone(ev[i].data.ptr);
	} while (n == 64);
}

/* Thread: what callers and fork left to do, pipes gone, pipes made ahead. */
static void
tend(void)
{
	while (nto_close)
		tfd_sys_close(to_close[--nto_close]);
	while (todo_head) {
		struct tfd_emu_timer *t = todo_head;

		todo_head = t->todo;
		t->on_todo = false;
		if (t->dead) {
			release(t);
			continue;
		}
		if (t->w < 0)
			t->w = __tfd_pipe_open_writer(t);
		if (t->w >= 0 && !t->watched) {
			struct epoll_event ev = { .events = 0, .data.ptr = t };

			t->watched = tfd_sys_epoll_ctl(epfd, EPOLL_CTL_ADD, t->w, &ev) == 0;
		}
		__tfd_queue_update(t);
	}
	if (let_go_at != INT64_MAX && __tfd_base_now(TFD_BASE_MONOTONIC) >= let_go_at) {
		__tfd_registry_each(__tfd_pipe_let_go);
		let_go_at = INT64_MAX;
		harvest_due = true;
	}
	/* Before making pipes: at RLIMIT_NOFILE a closed timer's write end makes the room. */
	if (harvest_due)
		harvest();
	while (nspares < SPARES && !spare_err) {
		int err = __tfd_pipe_make(&spares[nspares].r, &spares[nspares].w);
		if (err)
			spare_err = err;
		else
			nspares++;
		pthread_cond_broadcast(&ready);
	}
}

/* Handles a clock step for cancel-on-set timers: the next settime reports ECANCELED. */
static void
check_clock_set(void)
{
	int64_t offset;

	if (!ncancel_on_set)
		return;
	offset = __tfd_realtime_offset();
	/* Both clocks tick together; only a set moves their difference (beyond read jitter). */
	if (offset - last_offset > 1000000 || last_offset - offset > 1000000) {
		struct tfd_heap *q = &queues[TFD_BASE_REALTIME];

		for (size_t i = 0; i < q->n; i++) {
			struct tfd_slot *s = ((struct tfd_emu_timer *)q->v[i])->slot;

			if (s->cancel_on_set && s->armed_offset != offset)
				s->canceled = true;
		}
	}
	last_offset = offset;
}

/* Fires what is due on @base; returns the ns until its next deadline, or INT64_MAX. */
static int64_t
run_queue(enum tfd_base base)
{
	struct tfd_heap *q = &queues[base];
	int64_t now = __tfd_base_now(base);
	struct tfd_heap_node *top;

	while ((top = tfd_heap_top(q)) && top->key <= now) {
		struct tfd_emu_timer *t = (struct tfd_emu_timer *)top;
		uint64_t n;

		__tfd_queue_remove(t);
		if (!__tfd_slot_current(t)) {
			__tfd_thread_reap(t);
			continue;
		}
		/*
		 * Expirations are taken from the shared state: where processes share
		 * the timer after fork, the first thread to come delivers them, once.
		 */
		n = tfd_state_expire(&t->slot->st, now);
		if (n && __tfd_pipe_add(t, n) == -EPIPE) {
			timer_gone(t);
			continue;
		}
		if (t->h >= 0 && let_go_at == INT64_MAX)
			let_go_at = __tfd_base_now(TFD_BASE_MONOTONIC) + KEEP_NS;
		__tfd_queue_update(t);
		/* Requeued: no sooner than MIN_REARM_NS from now. */
		if (t->node.pos != TFD_HEAP_NONE && t->node.key < now + MIN_REARM_NS) {
			tfd_heap_remove(q, &t->node);
			t->node.key = now + MIN_REARM_NS;
			tfd_heap_push(q, &t->node);
		}
	}
	return top ? top->key - now : INT64_MAX;
}

/*
 * The thread's own descriptor table: the program cannot close, reuse or
 * count what the thread holds there, and the thread never touches a number
 * of the program's.  unshare() copies the table: drop the copies at once.
 */
static int
own_table(void)
{
	DIR *d;
	struct dirent *e;

	if (unshare(CLONE_FILES) < 0)
		return -ENOSYS;
#ifdef SYS_close_range
	if (syscall(SYS_close_range, 0U, ~0U, 0U) == 0)
		goto done;
#endif
	d = opendir("/proc/thread-self/fd");
	if (!d)
		return -ENOSYS;
	while ((e = readdir(d))) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);

		if (*end == '\0' && end != e->d_name && fd != dirfd(d))
			tfd_sys_close((int)fd);
	}
	closedir(d);
#ifdef SYS_close_range
done:
#endif
	epfd = tfd_sys_epoll_create1(EPOLL_CLOEXEC);
	if (epfd < 0)
		return -ENOMEM;
	return __tfd_pipe_thread_init();
}

/* Thread: after each wake-up, the timer slack for the next sleep (see BUSY_WAKES). */
static void
pace(void)
{
	static int64_t window_start;
	static int wakes;
	int64_t now = __tfd_base_now(TFD_BASE_MONOTONIC);

	if (now - window_start >= BUSY_WINDOW_NS) {
		static bool busy;
		bool was = busy;

		busy = wakes > BUSY_WAKES;
		if (busy != was)
			prctl(PR_SET_TIMERSLACK, busy ? BUSY_SLACK_NS : 1UL, 0, 0, 0);
		window_start = now;
		wakes = 0;
	}
	wakes++;
}

static void *
thread_main(void *arg)
{
	struct tfd_guard g;
	int err;

	(void)arg;
	/* Created with every signal blocked (__tfd_thread_ensure): the program's are not ours. */
	err = own_table();
	/* Wake on time: the default 50 us slack would make every expiry that late. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	__tfd_lock(&g);
	if (err) {
		thread_err = err;
		pthread_cond_broadcast(&ready);
		if (adopt_wait) {
			adopt_wait = false;
			sem_post(&adopted);
		}
		__tfd_unlock(&g);
		return NULL;
	}
	thread_tid = (pid_t)syscall(SYS_gettid);
	thread_ready = true;
	pthread_cond_broadcast(&ready);
	for (;;) {
		int64_t wait = INT64_MAX;
		struct timespec until;

		pace();
		tend();
		if (adopt_wait) {
			adopt_wait = false;
			sem_post(&adopted);
		}
		check_clock_set();
		for (int b = 0; b < TFD_NBASES; b++) {
			int64_t next = run_queue((enum tfd_base)b);

			if (next < wait)
				wait = next;
			if (b != TFD_BASE_MONOTONIC && next != INT64_MAX && wait > CLOCK_CHECK_NS)
				wait = CLOCK_CHECK_NS;
		}
		if (ncancel_on_set && wait > CLOCK_CHECK_NS)
			wait = CLOCK_CHECK_NS;
		if (todo_head || nto_close || (nspares < SPARES && !spare_err))
			continue;
		if (graveyard) {
			struct tfd_emu_timer *dead = __tfd_graveyard_take();

			__tfd_unlock(&g);
			__tfd_graveyard_free(dead);
			__tfd_lock(&g);
			continue;
		}
		/*
		 * Saturating: a timer armed beyond KTIME_MAX waits until then (as the kernel's
		 * hrtimer does), and this clock has moved on since run_queue() read it.
		 */
		if (wait != INT64_MAX)
			wait = tfd_add_saturating(wait, __tfd_base_now(TFD_BASE_MONOTONIC));
		if (let_go_at < wait)
			wait = let_go_at;
		if (wait == INT64_MAX) {
			thread_wakes_at = INT64_MAX;
			wait_on(&wake, NULL);
			continue;
		}
		/*
		 * A 32-bit time_t holds 68 years of uptime, not 292: cut the sleep there and
		 * look again, since a wrapped tv_sec would lie in the past and the wait spin.
		 */
		if (wait > timespec_max_ns)
			wait = timespec_max_ns;
		thread_wakes_at = wait;
		until.tv_sec = (time_t)(wait / TFD_NS_PER_S);
		until.tv_nsec = (long)(wait % TFD_NS_PER_S);
		wait_on(&wake, &until);
	}
	return NULL;
}

/* Caller holds the lock with every signal blocked: the thread starts with them blocked. */
static int
start_thread(void)
{
	pthread_attr_t attr;
	pthread_t tid;
	int err;

	thread_pid = own_pid;
	thread_ready = false;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	err = pthread_create(&tid, &attr, thread_main, NULL);
	pthread_attr_destroy(&attr);
	if (err) {
		thread_pid = 0;
		return -ENOMEM; /* the kernel's answer when it cannot allocate */
	}
	return 0;
}

int
__tfd_thread_ensure(void)
{
	if (thread_pid != own_pid) {
		int err = start_thread();

		if (err)
			return err;
	}
	while (!thread_ready && !thread_err) {
		int err;

		wait_on(&ready, NULL);
		err = thread_err;
		/* Out of memory this time: the next call starts another; no own table: never. */
		if (err && err != -ENOSYS) {
			thread_pid = 0;
			thread_err = 0;
			return err;
		}
	}
	return thread_err;
}

int
__tfd_thread_take_pipe(int *r, int *w, pid_t *tid)
{
	int err = __tfd_thread_ensure();

	if (err)
		return err;
	for (int tries = 0; !nspares; ) {
		if (spare_err) {
			err = spare_err;
			spare_err = 0;
			/* Once more after the thread let go of what closed timers held. */
			if (tries++) {
				pthread_cond_signal(&wake);
				return err;
			}
			let_go_at = 0;
		}
		pthread_cond_signal(&wake);
		wait_on(&ready, NULL);
	}
	nspares--;
	*r = spares[nspares].r;
	*w = spares[nspares].w;
	*tid = thread_tid;
	/* The caller opens its own read end before it lets go of the lock; then this one goes. */
	to_close[nto_close++] = *r;
	harvest_due = true;
	pthread_cond_signal(&wake);
	return 0;
}

/* --- fork ------------------------------------------------------------------------- */

/*
 * The lock is held across fork(), so that the child's copy of this
 * process's records is whole.  The handlers are registered when the library
 * is loaded, before any the program registers: prepare handlers run in the
 * reverse order, so a program's own prepare handler that calls the API runs
 * before ours takes the lock.
 */
static void
before_fork(void)
{
	fork_locked = __tfd_shared_ready();
	if (fork_locked)
		__tfd_lock(&fork_guard);
}

static void
after_fork_parent(void)
{
	if (fork_locked)
		__tfd_unlock(&fork_guard);
}

/* Child: a record without the parent's thread and table: it needs a write end of its own. */
static void
forget_thread(struct tfd_emu_timer *t)
{
	t->node.pos = TFD_HEAP_NONE;
	t->w = t->h = -1;
	t->watched = t->on_todo = t->queued_cancel = false;
	if (t->dead || !__tfd_slot_current(t)) {
		__tfd_registry_remove(t);
		free(t);
		return;
	}
	/* The numbers are the parent's, in the child's table, held by its only thread. */
	t->rfd_tid = own_pid;
	t->on_todo = true;
	t->todo = todo_head;
	todo_head = t;
}

static void init_conds(void);

/*
 * The child shares every timer with its parent, as it would a kernel
 * timer: same slots (shared memory), same pipes.  Its own thread reopens a
 * write end of each, so that the timers go on when the parent exits (as
 * after daemon()); both threads expire them from the shared state, so each
 * expiration is counted once.  The lock stays the parent's to release.
 */
static void
after_fork_child(void)
{
	if (own_pid)
		own_pid = getpid();
	if (!fork_locked)
		return;
	thread_pid = 0;
	thread_ready = false;
	thread_err = 0;
	epfd = -1;
	nspares = spare_err = nto_close = 0;
	ncancel_on_set = 0;
	todo_head = NULL;
	harvest_due = false;
	thread_wakes_at = let_go_at = INT64_MAX;
	for (int b = 0; b < TFD_NBASES; b++)
		queues[b].n = 0;
	init_conds();
	__tfd_registry_each(forget_thread);
	/*
	 * Wait for the write ends: a parent that exits as soon as fork() returns
	 * (daemon()) takes its own with it, and until the child has some, a read
	 * of the timer would find the pipe without a writer (end-of-file).  The
	 * thread gets the lock once the parent's fork handler lets go of it.
	 */
	if (todo_head) {
		sem_init(&adopted, 0, 0);
		adopt_wait = true;
		if (start_thread() == 0) { /* signals are still blocked by before_fork() */
			/* Bounded: where a lock holder can die unnoticed (no robust futexes), go on. */
			struct timespec until;

			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_sec += 2;
			while (sem_timedwait(&adopted, &until) < 0 && errno == EINTR)
				;
		}
	}
	pthread_sigmask(SIG_SETMASK, &fork_guard.mask, NULL);
	pthread_setcancelstate(fork_guard.cancel, NULL);
}

static void
init_conds(void)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&wake, &attr);
	pthread_condattr_destroy(&attr);
	pthread_cond_init(&ready, NULL);
}

/*
 * At load, not at the first call: that may come from a signal handler (pthread_once() is
 * not safe there) or from a program's own pthread_atfork() prepare handler, inside fork(),
 * where musl holds the lock that pthread_atfork() takes.  Registered first, the fork
 * handlers also run after the program's own prepare handlers, which may call the API.
 */
__attribute__((constructor)) static void
init_at_load(void)
{
	own_pid = getpid();
	init_conds();
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

pid_t
__tfd_emu_pid(void)
{
	return own_pid;
}
