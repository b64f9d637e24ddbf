/* SPDX-License-Identifier: MIT */
/* The timers' shared state: MAP_SHARED memory, the inode index, the per-slot locks and sequence. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

#include "emu/checked.h"
#include "emu/family.h"
#include "emu/sys.h"
#include "emu/timer.h"

/*
 * The mapping is this process's and its servers' alone: a fork()ed child does not get it
 * (MADV_DONTFORK), so that a child which drops its privileges or runs other code cannot
 * read, change or forge the timers (DESIGN.md, "The trust boundary").  Handed on only to
 * the server's clone, for the instant of the clone (spawn.c).
 */
void
__tfd_shared_fork_policy(struct tfd_shared *sh, bool hand_on)
{
	madvise(sh, __tfd_shared_size(), hand_on ? MADV_DOFORK : MADV_DONTFORK);
}

/* Robust: a process killed while it holds the lock does not stop the others. */
static void
init_robust_shared(pthread_mutex_t *m)
{
	pthread_mutexattr_t attr;

	pthread_mutexattr_init(&attr);
	pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
	/* Without robust futexes (qemu-user), a plain process-shared lock. */
	if (pthread_mutex_init(m, &attr) != 0) {
		pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_STALLED);
		pthread_mutex_init(m, &attr);
	}
	pthread_mutexattr_destroy(&attr);
}

/*
 * Mapped once per process, shared with the servers cloned from it.  No descriptor:
 * nothing in the program's table, nothing a close_range() can take away.
 */
struct tfd_shared *
__tfd_shared_init(void)
{
	struct tfd_shared *won, *p = __tfd_shared();

	if (p)
		return p;
	p = mmap(NULL, __tfd_shared_size(), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return NULL; /* ENOMEM this time; the next create tries again */
	/*
	 * At once: a fork() by another thread from here on hands it on no more.  Where the
	 * kernel ignores the advice (qemu-user, some emulators), libtimerfd(7) says what follows.
	 */
	__tfd_shared_fork_policy(p, false);
	for (int k = 0; k < TFD_SHARDS; k++)
		init_robust_shared(&p->shards[k].spawn_lock);
	p->nslots = TFD_NSLOTS;
	/* Threads may race to make the first timer: one mapping wins. */
	won = __tfd_family_adopt(p);
	if (won != p) {
		munmap(p, __tfd_shared_size());
		return won;
	}
	return p;
}

void
__tfd_slot_lock_init(struct tfd_slot *s)
{
	init_robust_shared(&s->lock);
}

/*
 * --- the inode index: written by the servers, read by every process -----------------
 * Open addressing: an entry goes from 0 to a slot, from a slot to a tombstone and from a
 * tombstone to a slot, never back to 0, so a lookup that stops at 0 has seen every entry
 * of its probe sequence; servers take entries by compare-and-swap.
 */

#define INDEX_TOMB UINT32_MAX

static uint32_t
index_home(uint64_t ino)
{
	return (uint32_t)((ino * 0x9e3779b97f4a7c15ULL) >> 40) & (TFD_NINDEX - 1);
}

struct tfd_slot *
__tfd_index_find(struct tfd_shared *sh, uint64_t dev, uint64_t ino)
{
	uint32_t h = index_home(ino);

	for (uint32_t n = 0; n < TFD_NINDEX; n++, h = (h + 1) & (TFD_NINDEX - 1)) {
		uint32_t e = __atomic_load_n(&sh->index[h], __ATOMIC_ACQUIRE);
		struct tfd_slot *s;
		uint32_t i;

		if (e == 0)
			return NULL;
		/* Bounded by this process's own constant, not by what shared memory says. */
		if (e == INDEX_TOMB || !tfd_checked_slot(e, 0, TFD_NSLOTS, &i))
			continue;
		s = &sh->slots[i];
		/* A slot is the timer only while live with this FIFO (a slot is reused). */
		if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == TFD_SLOT_LIVE && s->ino == ino &&
		    s->dev == dev)
			return s;
	}
	return NULL;
}

bool
__tfd_index_add(struct tfd_shared *sh, uint32_t slot, uint64_t ino)
{
	uint32_t h = index_home(ino);

	/* Bounded: the index is shared memory, which a hostile writer may have filled. */
	for (uint32_t n = 0; n < TFD_NINDEX; n++, h = (h + 1) & (TFD_NINDEX - 1)) {
		uint32_t e = __atomic_load_n(&sh->index[h], __ATOMIC_ACQUIRE);

		if ((e == 0 || e == INDEX_TOMB) &&
		    __atomic_compare_exchange_n(&sh->index[h], &e, slot + 1, false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			return true;
	}
	return false;
}

void
__tfd_index_remove(struct tfd_shared *sh, uint32_t slot, uint64_t ino)
{
	uint32_t h = index_home(ino);

	for (uint32_t n = 0; n < TFD_NINDEX; n++, h = (h + 1) & (TFD_NINDEX - 1)) {
		uint32_t e = __atomic_load_n(&sh->index[h], __ATOMIC_ACQUIRE);

		if (e == 0)
			return;
		if (e == slot + 1) {
			__atomic_store_n(&sh->index[h], INDEX_TOMB, __ATOMIC_RELEASE);
			return;
		}
	}
}

/* --- a slot's lock and its arming's sequence ------------------------------------------ */

/* The lock taken from a holder that died: it left the arming as it was, or odd; carry on from there. */
static void
recover(struct tfd_slot *s)
{
	uint32_t seq = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);

	if (seq & 1)
		__atomic_store_n(&s->seq, seq + 1, __ATOMIC_RELEASE);
	pthread_mutex_consistent(&s->lock);
}

void
__tfd_slot_hold(struct tfd_slot *s)
{
	if (pthread_mutex_lock(&s->lock) == EOWNERDEAD)
		recover(s);
}

bool
__tfd_slot_try_hold(struct tfd_slot *s)
{
	int err = pthread_mutex_trylock(&s->lock);

	if (err == EOWNERDEAD)
		recover(s);
	return err == 0 || err == EOWNERDEAD;
}

void
__tfd_slot_release(struct tfd_slot *s)
{
	pthread_mutex_unlock(&s->lock);
}

void
__tfd_guard_enter(struct tfd_guard *g)
{
	sigset_t all;

	sigfillset(&all);
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &g->cancel);
	pthread_sigmask(SIG_BLOCK, &all, &g->mask);
}

void
__tfd_guard_leave(const struct tfd_guard *g)
{
	pthread_sigmask(SIG_SETMASK, &g->mask, NULL);
	pthread_setcancelstate(g->cancel, NULL);
}

void
__tfd_slot_lock(struct tfd_slot *s, struct tfd_guard *g)
{
	__tfd_guard_enter(g);
	__tfd_slot_hold(s);
}

void
__tfd_slot_unlock(struct tfd_slot *s, const struct tfd_guard *g)
{
	__tfd_slot_release(s);
	__tfd_guard_leave(g);
}

/*
 * The two sides of a delivery and a rearm never cross (Dekker's pattern, sequentially
 * consistent): the server sets busy, then reads seq; a process makes seq odd, then reads
 * busy.  Either the server sees the odd seq and does not deliver, or the process sees
 * busy and waits for the delivery to end before it drains the FIFO.  The server is never
 * stopped by the program's processes, so the wait is as long as one write.
 */
void
__tfd_arming_begin(struct tfd_slot *s)
{
	struct tfd_shared *sh = __tfd_shared();
	uint32_t b, seq = __atomic_load_n(&s->seq, __ATOMIC_SEQ_CST);

	/*
	 * Even to odd.  Every change is made under the slot's lock (the server's door too), so
	 * an odd sequence here was left by a holder that died: still odd, and new to readers.
	 */
	__atomic_store_n(&s->seq, seq + ((seq & 1) ? 2 : 1), __ATOMIC_SEQ_CST);
	for (unsigned waits = 0; (b = __atomic_load_n(&s->busy, __ATOMIC_SEQ_CST)) != 0;) {
		if (!(b & TFD_BUSY_WAITER) &&
		    !__atomic_compare_exchange_n(&s->busy, &b, b | TFD_BUSY_WAITER, false,
						 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			continue;
		/*
		 * Bounded: a server that died while busy must not hang the program, nor a busy
		 * word that no delivery set (shared memory: a hostile writer's), which a live
		 * server never clears.  A delivery is one write: after a second (100 waits of
		 * 10 ms) the word is taken as stale.
		 */
		if (!__tfd_server_alive(tfd_shard_of(sh, (uint32_t)(s - sh->slots))) ||
		    ++waits > 100) {
			__atomic_store_n(&s->busy, 0, __ATOMIC_SEQ_CST);
			break;
		}
		tfd_sys_futex_wait(&s->busy, b | TFD_BUSY_WAITER, 10000000);
	}
}

void
__tfd_arming_end(struct tfd_slot *s)
{
	/* No wake-up: a reader that found a change in progress looks again within 1 ms. */
	__atomic_fetch_add(&s->seq, 1, __ATOMIC_RELEASE);
}

/*
 * An arming odd for a second: every change is made under the slot's lock, so if the lock
 * can be taken, the holder that left it odd died (taking it made it even: robustness).
 * A live holder is waited for: it changes the arming with signals blocked.
 */
static void
unstick(struct tfd_slot *s)
{
	struct tfd_guard g;

	__tfd_guard_enter(&g);
	if (__tfd_slot_try_hold(s)) {
		uint32_t seq = __atomic_load_n(&s->seq, __ATOMIC_SEQ_CST);

		if (seq & 1)
			__atomic_compare_exchange_n(&s->seq, &seq, seq + 1, false, __ATOMIC_SEQ_CST,
						    __ATOMIC_SEQ_CST);
		__tfd_slot_release(s);
	}
	__tfd_guard_leave(&g);
}

/*
 * A sequence-lock read: no lock, no signal mask, so gettime costs no system call of its
 * own.  The copy may race with a change (it is then taken again): ThreadSanitizer is told
 * not to look at it, as the kernel's own seqlock readers are.
 */
__attribute__((no_sanitize_thread)) void
__tfd_arming_read(struct tfd_slot *s, struct tfd_arming *a)
{
	for (unsigned waits = 0;;) {
		uint32_t seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);

		if (seq & 1) {
			/* A change in progress (with signals blocked, in another thread or process). */
			if (++waits % 1000 == 0)
				unstick(s);
			tfd_sys_futex_wait(&s->seq, seq, 1000000);
			continue;
		}
		a->state = __atomic_load_n(&s->state, __ATOMIC_RELAXED);
		a->ino = s->ino;
		a->base = s->base;
		a->st = s->st;
		a->fwd = s->fwd;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&s->seq, __ATOMIC_RELAXED) == seq)
			return;
	}
}

void
__tfd_server_poke(struct tfd_shared *sh, uint32_t i, int64_t due)
{
	struct tfd_shard *srv = tfd_shard_of(sh, i);
	uint32_t j = i % TFD_SHARD_SLOTS;

	/* The word's bit, then the word's summary bit: the server clears them in that order. */
	__atomic_fetch_or(&srv->dirty[j / 32], 1u << (j % 32), __ATOMIC_SEQ_CST);
	__atomic_fetch_or(&srv->dirty_top[j / 1024], 1u << (j / 32 % 32), __ATOMIC_SEQ_CST);
	/* Woken only if the server would sleep past the new deadline: a later one waits. */
	if (due < tfd_shared_ns_get(&srv->sleeps_until, INT64_MAX)) {
		__atomic_fetch_add(&srv->wake_seq, 1, __ATOMIC_SEQ_CST);
		tfd_sys_futex_wake(&srv->wake_seq, 1);
	}
}
