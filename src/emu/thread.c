/* SPDX-License-Identifier: MIT */
/* The one timer thread of the emulation: deadline queues per clock, delivery, fork handling. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "emu/timer.h"

pthread_mutex_t __tfd_emu_lock = PTHREAD_MUTEX_INITIALIZER;

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
/* How often an armed timer's descriptors are checked for having been closed. */
#define ALIVE_CHECK_NS 1000000000LL
/* The last instant a struct timespec holds, in ns: 2^31 - 1 s where time_t has 32 bits. */
static const int64_t timespec_max_ns =
	sizeof(time_t) < 8 ? (int64_t)INT32_MAX * TFD_NS_PER_S : INT64_MAX;

static const clockid_t base_clock[TFD_NBASES] = { CLOCK_MONOTONIC, CLOCK_BOOTTIME,
						  CLOCK_REALTIME };
static struct tfd_heap queues[TFD_NBASES];
static pthread_cond_t wake;
static pid_t thread_pid; /* the process whose timer thread is running, 0 if none */
static pid_t own_pid;    /* getpid(), kept: the kernel would be asked on every call */
static int ncancel_on_set;
static int64_t last_offset;
/* CLOCK_MONOTONIC ns the thread sleeps until (INT64_MAX: until woken); valid under the lock. */
static int64_t thread_wakes_at = INT64_MAX;
static pthread_once_t once = PTHREAD_ONCE_INIT;

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

void
__tfd_deliver(struct tfd_emu_timer *t, uint64_t n)
{
	/* An eventfd adds what is written to its count, as timerfd ticks accumulate. */
	while (n && write(t->shadow, &n, sizeof(n)) < 0 && errno == EINTR)
		;
}

void
__tfd_discard(struct tfd_emu_timer *t)
{
	uint64_t n;
	struct iovec iov = { &n, sizeof(n) };
	int fl;

	/* Without blocking, whatever O_NONBLOCK the program's descriptor has. */
	if (preadv2(t->shadow, &iov, 1, -1, RWF_NOWAIT) >= 0 || errno == EAGAIN)
		return;
	/* No RWF_NOWAIT on eventfd (before Linux 5.?): make the read non-blocking a moment. */
	fl = fcntl(t->shadow, F_GETFL);
	if (fl < 0)
		return;
	if (!(fl & O_NONBLOCK))
		fcntl(t->shadow, F_SETFL, fl | O_NONBLOCK);
	while (read(t->shadow, &n, sizeof(n)) < 0 && errno == EINTR)
		;
	if (!(fl & O_NONBLOCK))
		fcntl(t->shadow, F_SETFL, fl);
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
			struct tfd_emu_timer *t = (struct tfd_emu_timer *)q->v[i];

			if (t->cancel_on_set && t->armed_offset != offset)
				t->canceled = true;
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

		tfd_heap_remove(q, top);
		if (t->cancel_on_set)
			ncancel_on_set--;
		/*
		 * A timer whose descriptors the program closed becomes an orphan, reclaimed
		 * by the next batch unless a dup of it is found (registry.c).  Checked at most
		 * once a second per timer: the check is a syscall, and delivering to a
		 * closed timer harms nobody meanwhile.
		 */
		if (now >= t->next_alive_check) {
			__tfd_registry_drop_closed(t);
			t->next_alive_check = now + ALIVE_CHECK_NS;
		}
		__tfd_deliver(t, tfd_state_expire(&t->st, now));
		if (t->st.armed) {
			t->node.key = t->st.expiry > now + MIN_REARM_NS ? t->st.expiry
								 : now + MIN_REARM_NS;
			if (tfd_heap_push(q, &t->node) == 0 && t->cancel_on_set)
				ncancel_on_set++;
		}
	}
	return top ? top->key - now : INT64_MAX;
}

static void *
thread_main(void *arg)
{
	sigset_t all;

	(void)arg;
	/* The program's signals are not ours to take. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	/* Wake on time: the default 50 us slack would make every expiry that late. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	pthread_mutex_lock(&__tfd_emu_lock);
	for (;;) {
		int64_t wait = INT64_MAX;
		struct timespec until;

		check_clock_set();
		/* Here, with no timer in hand: resolving orphans may destroy timers. */
		__tfd_registry_resolve_orphans();
		for (int b = 0; b < TFD_NBASES; b++) {
			int64_t next = run_queue((enum tfd_base)b);

			if (next < wait)
				wait = next;
			if (b != TFD_BASE_MONOTONIC && next != INT64_MAX && wait > CLOCK_CHECK_NS)
				wait = CLOCK_CHECK_NS;
		}
		if (ncancel_on_set && wait > CLOCK_CHECK_NS)
			wait = CLOCK_CHECK_NS;
		if (wait == INT64_MAX) {
			thread_wakes_at = INT64_MAX;
			pthread_cond_wait(&wake, &__tfd_emu_lock);
			continue;
		}
		/*
		 * Saturating: a timer armed beyond KTIME_MAX waits until then (as the kernel's
		 * hrtimer does), and this clock has moved on since run_queue() read it.
		 */
		wait = tfd_add_saturating(wait, __tfd_base_now(TFD_BASE_MONOTONIC));
		/*
		 * A 32-bit time_t holds 68 years of uptime, not 292: cut the sleep there and
		 * look again, since a wrapped tv_sec would lie in the past and the wait spin.
		 */
		if (wait > timespec_max_ns)
			wait = timespec_max_ns;
		thread_wakes_at = wait;
		until.tv_sec = (time_t)(wait / TFD_NS_PER_S);
		until.tv_nsec = (long)(wait % TFD_NS_PER_S);
		pthread_cond_timedwait(&wake, &__tfd_emu_lock, &until);
	}
	return NULL;
}

static void init_wake(void);

static void
before_fork(void)
{
	pthread_mutex_lock(&__tfd_emu_lock);
}

static void
after_fork_parent(void)
{
	pthread_mutex_unlock(&__tfd_emu_lock);
}

/*
 * The child has no timer thread and a copy of every timer.  The timers its
 * parent armed stay the parent's to drive (they share the descriptors, and
 * the parent's thread keeps writing to them); the child drives a timer
 * from the moment it arms it itself.
 */
static void
after_fork_child(void)
{
	for (int b = 0; b < TFD_NBASES; b++) {
		while (queues[b].n)
			tfd_heap_remove(&queues[b], queues[b].v[0]);
	}
	ncancel_on_set = 0;
	thread_pid = 0;
	own_pid = getpid();
	thread_wakes_at = INT64_MAX;
	/*
	 * The parent's thread may have been waiting on the condition variable:
	 * in the child that waiter never leaves, and glibc's condvar would wait
	 * for it forever on the next signal.  Nobody uses it here yet: renew it.
	 */
	init_wake();
	pthread_mutex_unlock(&__tfd_emu_lock);
}

static void
init_wake(void)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&wake, &attr);
	pthread_condattr_destroy(&attr);
}

static void
init_once(void)
{
	own_pid = getpid();
	init_wake();
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

static int
start_thread(void)
{
	pthread_attr_t attr;
	pthread_t tid;
	int err;

	if (thread_pid == own_pid)
		return 0;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	err = pthread_create(&tid, &attr, thread_main, NULL);
	pthread_attr_destroy(&attr);
	if (err)
		return -err;
	thread_pid = own_pid;
	return 0;
}

pid_t
__tfd_emu_pid(void)
{
	pthread_once(&once, init_once);
	return own_pid;
}

void
__tfd_queue_remove(struct tfd_emu_timer *t)
{
	if (t->node.pos != TFD_HEAP_NONE && t->cancel_on_set)
		ncancel_on_set--;
	tfd_heap_remove(&queues[t->base], &t->node);
}

int
__tfd_queue_update(struct tfd_emu_timer *t)
{
	int err;

	__tfd_emu_pid(); /* initialises the thread's state once */
	__tfd_queue_remove(t);
	if (!t->st.armed)
		return 0;
	err = start_thread();
	if (err)
		return err;
	t->node.key = t->st.expiry;
	err = tfd_heap_push(&queues[t->base], &t->node);
	if (err)
		return err;
	if (t->cancel_on_set) {
		if (!ncancel_on_set++)
			last_offset = t->armed_offset;
	}
	/*
	 * Wake the thread only if this deadline comes before the time it sleeps
	 * until: a later one changes nothing.  (A wake-up per arming made the
	 * thread and the caller fight over the lock: ten times the cost of an arm.)
	 */
	if (t->node.pos == 0) {
		int64_t due = t->node.key;

		/* Saturating, as in thread_main(): the deadline may be KTIME_MAX. */
		if (t->base != TFD_BASE_MONOTONIC)
			due = tfd_add_saturating(due - __tfd_base_now(t->base),
						 __tfd_base_now(TFD_BASE_MONOTONIC));
		if (due < thread_wakes_at)
			pthread_cond_signal(&wake);
	}
	return 0;
}
