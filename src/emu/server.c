/* SPDX-License-Identifier: MIT */
/* The timer server: a process of its own that holds every timer's write end and delivers expirations. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu/checked.h"
#include "emu/door.h"
#include "emu/family.h"
#include "emu/fifo.h"
#include "emu/heap.h"
#include "emu/process.h"
#include "emu/server.h"
#include "emu/sys.h"
#include "emu/timer.h"

/*
 * Everything here runs in the server (spawn.c clones it): it calls the kernel
 * through syscall(2) and the clock through clock_gettime(), and takes no lock
 * of the C library's nor of the program's processes: a process stopped or
 * killed by the program never stops it.
 */

/*
 * A periodic timer is requeued no sooner than this after it fired: the count it
 * delivers still covers every period (it is computed from the clock), but a tiny
 * interval cannot turn the server into a busy loop.
 */
#define MIN_REARM_NS 1000000LL
/*
 * Under overload, how late a count that waits unread may be brought up to date: four times
 * what the server's last pass over the queues took, from MIN_REARM_NS up to this.
 */
#define PILE_MAX_NS 100000000LL
/* How soon a delivery that could not be written is tried again. */
#define RETRY_NS 10000000LL
/*
 * How long a read end is kept while a timer's counts pile up unread (fifo.c): while it is
 * open a close by the program is not seen, so a closed timer is served this long at most.
 */
#define KEEP_NS 200000000LL
/* While timers live, the server looks for closed ones at least this often (EPOLLERR). */
#define HARVEST_NS 1000000000LL
/* With no timer live, the server exits after this long (a new create starts another). */
#define LINGER_NS 2000000000LL
#ifndef __WALL
#define __WALL 0x40000000
#endif

/* What the server knows of one slot, in its own memory. */
struct srv_timer {
	struct tfd_heap_node node; /* first: a queue's node is its timer */
	struct tfd_fifo_ends e;
	bool live, queued_cancel;
	/* The queue it is on: a rearm may change the slot's base before the server sees it. */
	uint8_t queued_base;
	bool pending;       /* taken from the spares by a create, not yet live */
	uint32_t next_free; /* the server's free list of slots (index + 1) */
	uint32_t gen;       /* its FIFO's generation: the server's own count, not the slot's */
};

static struct tfd_shared *sh;
static struct tfd_shard *srv; /* this server's shard of the family's */
static uint32_t first;        /* the shard's first slot: tm[j] is slot first + j's */
static struct srv_timer *tm;
static struct tfd_heap queues[TFD_NBASES];
static uint32_t free_head; /* index + 1 */
static int dir = -1, epfd = -1, door = -1;
/*
 * The server's own copies of what it must not take from shared memory, which the
 * program's processes write (DESIGN.md, "The trust boundary"): its directories and
 * secret, how far into its range it has made slots.
 */
static struct tfd_names names;
static char outer[TFD_DIR_MAX];
static uint32_t nlive, npending, ncancel_on_set;
/*
 * What the server and its twin share, in a mapping of theirs alone (made before the twin,
 * after the server left the program): how far the shard's slots are used, and what the
 * server put in each entry of srv->spares.  tm[] is in such a mapping too.
 */
struct srv_ledger {
	uint32_t high_water;
	uint32_t spare_slot[TFD_SPARES];
	struct tfd_flight flight; /* the delivery in progress (fifo.h) */
};
static struct srv_ledger *led;
static int64_t last_offset, let_go_at = INT64_MAX, idle_since;
static int64_t pile_ns = MIN_REARM_NS; /* see PILE_MAX_NS */
static bool table_full;    /* the last spare could not be made: no descriptor, slot or index place */
static int64_t dir_check_at; /* the next look at the directory (dir_keep()) */
static bool dir_suspect;     /* a look at once: a create gave a spare back */
static int64_t full_since; /* since when */
/*
 * Whether live timers may lose their names and a non-dumpable process may get timers with
 * none (DESIGN.md, "Names"): only where the server reopens what it holds through
 * /proc/self/fd, and no twin has a copy of the table (it would reopen write ends by name).
 */
static bool proc_fd_ok, table_copied, key_ok;
static pid_t creator; /* the process that started it ("The creator", below) */

/* What the server knows of slot @i (of its shard), and which slot a queued timer is. */
static struct srv_timer *
timer_of(uint32_t i)
{
	return &tm[i - first];
}

static uint32_t
slot_of(const struct tfd_heap_node *node)
{
	return (uint32_t)((const struct srv_timer *)node - tm) + first;
}

/* --- the queues ---------------------------------------------------------------------- */

static void
unqueue(uint32_t i)
{
	struct srv_timer *t = timer_of(i);

	if (t->node.pos != TFD_HEAP_NONE && t->queued_cancel)
		ncancel_on_set--;
	t->queued_cancel = false;
	if (t->queued_base < TFD_NBASES)
		tfd_heap_remove(&queues[t->queued_base], &t->node);
}

static void rt_raise(uint32_t i);

/* Queues @i by its arming, no sooner than @not_before on its clock. */
static void
requeue(uint32_t i, int64_t not_before)
{
	struct srv_timer *t = timer_of(i);
	struct tfd_slot *s = &sh->slots[i];

	enum tfd_base base;

	unqueue(i);
	/* A base out of range (the program wrote it) is no queue: the timer is not served. */
	if (!t->live || !s->fwd.armed || !tfd_checked_base(s, &base))
		return;
	t->node.key = s->fwd.expiry < not_before ? not_before : s->fwd.expiry;
	t->queued_base = (uint8_t)base;
	tfd_heap_push(&queues[t->queued_base], &t->node); /* room for every slot: cannot fail */
	rt_raise(i);
	if (s->cancel_on_set) {
		t->queued_cancel = true;
		if (!ncancel_on_set++)
			last_offset = s->armed_offset;
	}
}

/* --- a delivery and a rearm never cross (shared.c, __tfd_arming_begin()) ------------- */

/* Marks slot @i busy if its arming is stable: its sequence, or 0 (leave it to the process). */
static uint32_t
busy_begin(struct tfd_slot *s)
{
	uint32_t seq = __atomic_load_n(&s->seq, __ATOMIC_SEQ_CST);

	if (seq & 1)
		return 0; /* a process changes it: it pokes the server when done */
	__atomic_store_n(&s->busy, seq + 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&s->seq, __ATOMIC_SEQ_CST) != seq) {
		if (__atomic_exchange_n(&s->busy, 0, __ATOMIC_SEQ_CST) & TFD_BUSY_WAITER)
			tfd_sys_futex_wake(&s->busy, INT32_MAX);
		return 0;
	}
	return seq + 1;
}

static void
busy_end(struct tfd_slot *s)
{
	if (__atomic_exchange_n(&s->busy, 0, __ATOMIC_SEQ_CST) & TFD_BUSY_WAITER)
		tfd_sys_futex_wake(&s->busy, INT32_MAX);
}

/* --- slots: made ready, adopted, freed ---------------------------------------------- */

/*
 * A slot freed or made a spare is no create's: one left marked pending would keep the
 * server from ever ending (a killed server's record, a create given back meanwhile).
 */
static void
not_pending(struct srv_timer *t)
{
	if (t->pending) {
		t->pending = false;
		npending--;
	}
}

static void
free_slot(uint32_t i)
{
	struct srv_timer *t = timer_of(i);
	struct tfd_slot *s = &sh->slots[i];

	unqueue(i);
	table_full = false;
	if (t->live)
		nlive--;
	not_pending(t);
	__tfd_index_remove(sh, i, t->e.ino);
	__tfd_fifo_unmake(&names, dir, i, &t->e);
	t->live = false;
	__atomic_store_n(&s->state, TFD_SLOT_FREE, __ATOMIC_RELEASE);
	t->next_free = free_head;
	free_head = i + 1;
}

/*
 * Slot @i's write end held by this process, reopened by name if it is not (a twin that
 * took over without the server's table), and watched for the last reader's close: 0 or
 * -errno.
 */
static int
hold_writer(uint32_t i)
{
	struct srv_timer *t = timer_of(i);
	struct epoll_event ev = { .events = 0 };
	int r = __tfd_fifo_check_ends(&names, dir, i, &t->e);

	if (r == 1) {
		ev.data.u32 = i;
		tfd_sys_epoll_ctl(epfd, EPOLL_CTL_ADD, t->e.w, &ev);
	}
	return r < 0 ? r : 0;
}

/* A free slot of the range, its record reset and its generation bumped: index, or -EXFULL. */
static long
alloc_slot(void)
{
	struct srv_timer *t;
	uint32_t i;

	if (free_head) {
		i = free_head - 1;
		free_head = timer_of(i)->next_free;
	} else if (led->high_water < TFD_SHARD_SLOTS) {
		i = first + led->high_water++;
		__atomic_store_n(&srv->high_water, led->high_water, __ATOMIC_RELEASE);
	} else {
		return -EXFULL; /* the shard's range of slots is used up: the next shard (spawn.c) */
	}
	t = timer_of(i);
	not_pending(t);
	t->e.r = t->e.w = t->e.h = -1;
	t->e.unnamed = false;
	t->node.pos = TFD_HEAP_NONE;
	t->e.gen = ++t->gen;
	__atomic_store_n(&sh->slots[i].gen, t->gen, __ATOMIC_RELAXED);
	return i;
}

/* Slot @i's write end watched for the last reader's close, its inode indexed: 0 or -errno. */
static int
watch_and_index(uint32_t i)
{
	struct epoll_event ev = { .events = 0 };
	struct srv_timer *t = timer_of(i);

	ev.data.u32 = i;
	/* Events 0: EPOLLERR alone, once the program has closed every read end. */
	if (tfd_sys_epoll_ctl(epfd, EPOLL_CTL_ADD, t->e.w, &ev) < 0) {
		int err = -errno;

		__tfd_fifo_unmake(&names, dir, i, &t->e);
		return err;
	}
	/* A full index (only a hostile writer fills it: DESIGN.md) makes no timer: ENOMEM. */
	if (!__tfd_index_add(sh, i, t->e.ino)) {
		__tfd_fifo_unmake(&names, dir, i, &t->e);
		return -ENOMEM;
	}
	return 0;
}

/* A new spare: a FIFO the server holds both ends of, in a free slot: its index, or -errno. */
static long
make_spare(void)
{
	struct tfd_slot *s;
	struct srv_timer *t;
	long i = alloc_slot();
	int err;

	if (i < 0)
		return i;
	s = &sh->slots[i];
	t = timer_of((uint32_t)i);
	err = __tfd_fifo_make(&names, dir, (uint32_t)i, &t->e);
	/* The directory gone, and not made again (dir_keep()): no directory, as at the start. */
	if (err == -ENOENT)
		err = -ENOSYS;
	if (err == 0)
		err = watch_and_index((uint32_t)i);
	if (err) {
		t->next_free = free_head;
		free_head = (uint32_t)i + 1;
		return err;
	}
	__atomic_store_n(&srv->fifo_dev[0], (uint32_t)t->e.dev, __ATOMIC_RELAXED);
	__atomic_store_n(&srv->fifo_dev[1], (uint32_t)(t->e.dev >> 32), __ATOMIC_RELAXED);
	s->dev = t->e.dev;
	s->ino = t->e.ino;
	s->unnamed = false;
	__atomic_store_n(&s->state, TFD_SLOT_READY, __ATOMIC_RELEASE);
	return i;
}

/*
 * A timer with no name, for a create of the server's own process that is not dumpable
 * (DESIGN.md, "Names"): an anonymous pipe, whose read end goes to the process through the
 * door.  The slot is TAKEN and pending, as a spare a create took: its index, with the read
 * end in @r; -ENOSYS where timers cannot go without names here, or -errno.
 */
static long
make_unnamed(int *r)
{
	struct stat st;
	struct srv_timer *t;
	struct tfd_slot *s;
	int p[2], err;
	long i;

	if (!proc_fd_ok || table_copied || !key_ok)
		return -ENOSYS;
	i = alloc_slot();
	if (i < 0)
		return i;
	s = &sh->slots[i];
	t = timer_of((uint32_t)i);
	t->e.unnamed = true; /* nothing to unlink, on any path below */
	if (syscall(SYS_pipe2, p, O_CLOEXEC | O_NONBLOCK) < 0) {
		err = -errno;
	} else {
		/*
		 * A number left free after it, for the next request's reply socket: a table so
		 * full that a request cannot be received would leave its create unanswered.
		 */
		int spare_number = tfd_sys_fcntl(p[1], F_DUPFD_CLOEXEC, 0);

		t->e.r = p[0];
		t->e.w = p[1];
		err = spare_number < 0 ? -EMFILE : fstat(p[0], &st) < 0 ? -ENOMEM : 0;
		if (spare_number >= 0)
			tfd_sys_close(spare_number);
	}
	if (!err) {
		t->e.dev = (uint64_t)st.st_dev;
		t->e.ino = (uint64_t)st.st_ino;
#ifdef F_SETPIPE_SZ
		tfd_sys_fcntl(t->e.w, F_SETPIPE_SZ, 4096); /* as a FIFO's (fifo.c) */
#endif
		err = watch_and_index((uint32_t)i);
	}
	if (err) {
		__tfd_fifo_unmake(&names, dir, (uint32_t)i, &t->e);
		t->next_free = free_head;
		free_head = (uint32_t)i + 1;
		return err == -EMFILE || err == -ENFILE ? -EXFULL : err;
	}
	s->dev = t->e.dev;
	s->ino = t->e.ino;
	s->unnamed = true;
	t->pending = true;
	npending++;
	__atomic_store_n(&s->state, TFD_SLOT_TAKEN, __ATOMIC_RELEASE);
	/* The read end goes with the answer; the server keeps none, so that a close is seen. */
	*r = t->e.r;
	t->e.r = -1;
	return i;
}

static void refresh(uint32_t i);
static void let_go_all(void);
static void harvest(void);

/*
 * The spares given up while the process makes unnamed timers (it is not dumpable): they
 * would hold two descriptors each that its timers need (a program under RLIMIT_NOFILE 12).
 * Each taken back by compare-and-swap: one a create took meanwhile is the create's.
 */
static void
drop_spares(void)
{
	for (int k = 0; k < TFD_SPARES; k++) {
		uint32_t e = __atomic_load_n(&srv->spares[k], __ATOMIC_ACQUIRE);

		if (e && led->spare_slot[k] == e &&
		    __atomic_compare_exchange_n(&srv->spares[k], &e, 0, false, __ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST)) {
			led->spare_slot[k] = 0;
			free_slot(e - 1);
		}
	}
}

static void dir_keep(int64_t now);

/* Every empty entry of the spares gets a new one; an error is told to the waiting creates. */
static void
keep_spares(void)
{
	bool made = false, woken = false, dir_looked = false;

again:
	if (__atomic_load_n(&srv->want_unnamed, __ATOMIC_ACQUIRE))
		drop_spares();
	for (int k = 0; k < TFD_SPARES; k++) {
		long i;

		if (__atomic_load_n(&srv->spares[k], __ATOMIC_ACQUIRE))
			continue;
		/* A create took the last one: it is the create's until it makes it live or gives it back. */
		if (led->spare_slot[k]) {
			uint32_t taken = led->spare_slot[k] - 1;

			led->spare_slot[k] = 0;
			/* Not yet seen live (refresh() may have adopted it already). */
			if (!timer_of(taken)->live) {
				timer_of(taken)->pending = true;
				npending++;
				refresh(taken);
			}
		}
		/* A full table is tried again once a timer was freed, or a harvest later. */
		if (table_full && __tfd_base_now(TFD_BASE_MONOTONIC) - full_since < HARVEST_NS)
			continue;
		if (__atomic_load_n(&srv->want_unnamed, __ATOMIC_ACQUIRE))
			continue;
		i = make_spare();
		/*
		 * No directory: a cleaner removed it before a give-back told this server.  Made
		 * again now, and every spare with it, before any create sees ENOSYS (a create
		 * that finds no spare and this error fails at once).  Once: where the name is
		 * another user's now, ENOSYS is the answer.
		 */
		if (i == -ENOSYS && !dir_looked) {
			dir_looked = true;
			dir_suspect = true;
			dir_keep(__tfd_base_now(TFD_BASE_MONOTONIC));
			goto again;
		}
		if (i < 0 && tfd_shard_full((int)-i)) {
			/*
			 * Out of descriptors: the read ends kept for unread counts go now, and
			 * with them the timers they hid from EPOLLERR (closed by exited or killed
			 * workers), then once more.
			 */
			let_go_all();
			harvest();
			i = make_spare();
		}
		made = true;
		/* ENOMEM (a full index, no memory) is tried again a harvest later too: no busy loop. */
		table_full = i < 0 && (tfd_shard_full((int)-i) || i == -ENOMEM);
		if (table_full)
			full_since = __tfd_base_now(TFD_BASE_MONOTONIC);
		if (i < 0) {
			/* A full table sends the next creates to the next shard (spawn.c). */
			__atomic_store_n(&srv->server_err, (int32_t)-i, __ATOMIC_RELEASE);
			break;
		}
		led->spare_slot[k] = (uint32_t)i + 1;
		__atomic_store_n(&srv->server_err, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&srv->spares[k], (uint32_t)i + 1, __ATOMIC_RELEASE);
		/* The first one at once: a create may be waiting for it (the first of a family is). */
		if (!woken) {
			woken = true;
			__atomic_fetch_add(&srv->spare_seq, 1, __ATOMIC_SEQ_CST);
			tfd_sys_futex_wake(&srv->spare_seq, INT32_MAX);
		}
	}
	if (made) {
		__atomic_fetch_add(&srv->spare_seq, 1, __ATOMIC_SEQ_CST);
		tfd_sys_futex_wake(&srv->spare_seq, INT32_MAX);
	}
}

/*
 * --- realtime ----------------------------------------------------------------------------
 * A timer armed by a realtime thread (SCHED_FIFO, SCHED_RR) is served at its priority: the
 * server raises its own at once when such a timer is queued, and lowers it, at a harvest,
 * to the highest of the timers still armed (the normal policy for none).  Where the kernel
 * refuses (no RLIMIT_RTPRIO, no CAP_SYS_NICE: the program could not have raised its own
 * either, but for a process that dropped them) it serves at the priority it has.
 */
static int rt_prio;          /* the server's own now: 0, or its SCHED_FIFO priority */
static int64_t rt_check_at;  /* the next look for a priority to lower */

static int
rt_of(uint32_t i)
{
	int p = __atomic_load_n(&sh->slots[i].rt_prio, __ATOMIC_RELAXED);

	return p > 0 && p <= TFD_RT_PRIO_MAX ? p : 0; /* another process wrote it: bounded */
}

static void
rt_raise(uint32_t i)
{
	int p = rt_of(i);

	if (p > rt_prio && __tfd_rt_become(p))
		rt_prio = p;
}

static void
rt_lower(int64_t now)
{
	int want = 0;

	if (!rt_prio || now < rt_check_at)
		return;
	rt_check_at = now + HARVEST_NS;
	for (uint32_t j = 0; j < led->high_water; j++)
		if (tm[j].live && tm[j].node.pos != TFD_HEAP_NONE && rt_of(first + j) > want)
			want = rt_of(first + j);
	if (want < rt_prio && __tfd_rt_become(want))
		rt_prio = want;
}

/* A slot a process changed: adopted once a create made it live, requeued by its arming. */
static void
refresh(uint32_t i)
{
	struct tfd_slot *s = &sh->slots[i];
	struct srv_timer *t = timer_of(i);
	uint32_t busy, state;

	if (i - first >= led->high_water)
		return;
	state = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
	/*
	 * Taken from the spares: still READY until the create marks it TAKEN (after its
	 * compare-and-swap on the entry), then LIVE, or given back by a create that failed.
	 */
	if (t->pending && (state == TFD_SLOT_LIVE || state == TFD_SLOT_GIVEN_BACK)) {
		t->pending = false;
		npending--;
		if (state == TFD_SLOT_GIVEN_BACK) {
			free_slot(i);
			/* A create could not open it: its name may have gone with the directory. */
			dir_suspect = true;
			return;
		}
	}
	if (state != TFD_SLOT_LIVE)
		return;
	/* A rearm that could not empty the FIFO itself waits for this (its arming is odd). */
	if (__atomic_load_n(&s->drain_req, __ATOMIC_SEQ_CST)) {
		if (__tfd_fifo_empty(&names, dir, i, &t->e) == 0)
			s->maybe_counted = false;
		__atomic_store_n(&s->drain_req, 0, __ATOMIC_SEQ_CST);
		tfd_sys_futex_wake(&s->drain_req, INT32_MAX);
		if (t->e.h >= 0 && let_go_at == INT64_MAX)
			let_go_at = __tfd_base_now(TFD_BASE_MONOTONIC) + KEEP_NS;
	}
	if (!t->live) {
		/* A spare of a server that died before a create made it live: its write end. */
		if (t->e.w < 0 && hold_writer(i) < 0) {
			free_slot(i);
			return;
		}
		/* The program has its read end: the spare's goes, so that its close is seen. */
		t->live = true;
		nlive++;
		if (t->e.r >= 0)
			tfd_sys_close(t->e.r);
		t->e.r = -1;
		/*
		 * And its name: nobody opens a live timer by name where what holds it reopens it
		 * through /proc/self/fd (DESIGN.md, "Names").  The process learns it from the slot.
		 */
		if (!t->e.unnamed && proc_fd_ok && !table_copied) {
			/*
			 * Unless the create unlinked it (the slot says so: a false word there, written
			 * by a child where madvise() is ignored, keeps a name, as without /proc).
			 */
			if (!__atomic_load_n(&s->unnamed, __ATOMIC_RELAXED))
				__tfd_fifo_unname(&names, dir, i, &t->e);
			t->e.unnamed = true;
			s->unnamed = true;
		}
	}
	/* Requeued by its progress, read while no process changes it. */
	busy = busy_begin(s);
	if (!busy)
		return;
	requeue(i, INT64_MIN);
	busy_end(s);
}

/* Takes the slots processes marked (a two-level bitmap: shared.c, __tfd_server_poke()). */
static bool
take_dirty(bool only_look)
{
	for (uint32_t w = 0; w < TFD_SHARD_SLOTS_MAX / 32 / 32; w++) {
		uint32_t top;

		if (!__atomic_load_n(&srv->dirty_top[w], __ATOMIC_SEQ_CST))
			continue;
		if (only_look)
			return true;
		top = __atomic_exchange_n(&srv->dirty_top[w], 0, __ATOMIC_SEQ_CST);
		while (top) {
			uint32_t d = w * 32 + (uint32_t)__builtin_ctz(top);
			uint32_t bits = __atomic_exchange_n(&srv->dirty[d], 0, __ATOMIC_SEQ_CST);

			top &= top - 1;
			while (bits) {
				refresh(first + d * 32 + (uint32_t)__builtin_ctz(bits));
				bits &= bits - 1;
			}
		}
	}
	return false;
}

/* The write ends whose FIFOs lost their last reader (EPOLLERR): those timers are closed. */
static void
harvest(void)
{
	struct epoll_event ev[64];
	int n;

	do {
		n = tfd_sys_epoll_wait(epfd, ev, 64, 0);
		for (int k = 0; k < n; k++) {
			uint32_t i = ev[k].data.u32;

			/*
			 * A spare has the server's own reader: only a live timer can lose them all,
			 * or an unnamed one whose create never took its read end (it stopped waiting).
			 */
			if ((timer_of(i)->live || (timer_of(i)->pending && timer_of(i)->e.unnamed)) &&
			    __tfd_fifo_closed(&timer_of(i)->e))
				free_slot(i);
		}
	} while (n == 64);
}

/* --- expirations -------------------------------------------------------------------- */

/* A clock step for cancel-on-set timers: the next settime reports ECANCELED. */
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

		for (size_t k = 0; k < q->n; k++) {
			uint32_t i = slot_of(q->v[k]);
			struct tfd_slot *s = &sh->slots[i];
			uint32_t busy = busy_begin(s);

			if (!busy)
				continue;
			if (s->cancel_on_set && s->armed_offset != offset)
				s->canceled = true;
			busy_end(s);
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
		uint32_t i = slot_of(top);
		struct tfd_slot *s = &sh->slots[i];
		uint32_t busy = busy_begin(s);
		struct tfd_timer_state fwd;
		uint64_t n;
		int err = 0;

		unqueue(i);
		if (!busy)
			continue; /* being rearmed: the process pokes the server when done */
		/*
		 * Counts from the clock: every period that passed, however late the server is;
		 * taken as delivered only once written (else tried again at the next requeue).
		 */
		fwd = s->fwd;
		n = tfd_state_expire(&fwd, now);
		if (n) {
			/* Its progress is stored as the count is written, in the twin's sight. */
			led->flight.fwd = &s->fwd;
			led->flight.next = fwd;
			led->flight.seq = busy - 1;
			err = __tfd_fifo_add(sh, &names, dir, i, &timer_of(i)->e, n, &led->flight);
		}
		if (err == -EPIPE) {
			busy_end(s);
			free_slot(i);
			continue;
		}
		/*
		 * Not written (no read end could be had to take the waiting count out): later.
		 * A count that waits unread is readable already: under load it is brought up to
		 * date less often (coalescing, at most PILE_MAX_NS late; gettime is exact).
		 */
		requeue(i, now + (err < 0 ? RETRY_NS : err == 1 ? pile_ns : MIN_REARM_NS));
		busy_end(s);
		if (timer_of(i)->e.h >= 0 && let_go_at == INT64_MAX)
			let_go_at = __tfd_base_now(TFD_BASE_MONOTONIC) + KEEP_NS;
	}
	return top ? top->key - now : INT64_MAX;
}

/* --- the door: calls of processes that hold a timer's descriptor only (door.c) --------- */

/* Whether a request of this pass requeued a timer (serve_door()). */
static bool door_requeued;

/* The live timer of this server that @fd (received at the door) is a read end of, or -1. */
static long
door_timer(int fd)
{
	struct stat st;
	struct tfd_slot *s;
	uint32_t i;
	int fl = tfd_sys_fcntl(fd, F_GETFL, 0);

	/* A read end of one of our FIFOs: nobody but the server opens their write ends. */
	if (fl < 0 || (fl & O_ACCMODE) != O_RDONLY || fstat(fd, &st) < 0 || !S_ISFIFO(st.st_mode))
		return -1;
	s = __tfd_index_find(sh, (uint64_t)st.st_dev, (uint64_t)st.st_ino);
	/* Checked against the server's own record: the index is in shared memory. */
	if (!s || !tfd_checked_slot((uint32_t)(s - sh->slots) + 1, first, led->high_water, &i) ||
	    !timer_of(i)->live ||
	    timer_of(i)->e.ino != (uint64_t)st.st_ino || timer_of(i)->e.dev != (uint64_t)st.st_dev)
		return -1;
	return i;
}

static int
drain_at_server(uint32_t i, void *ctx)
{
	(void)ctx;
	if (__tfd_fifo_empty(&names, dir, i, &timer_of(i)->e) < 0)
		return -ENOMEM;
	if (let_go_at == INT64_MAX)
		let_go_at = __tfd_base_now(TFD_BASE_MONOTONIC) + KEEP_NS;
	return 0;
}

/*
 * One request: the kernel's checks in its order, then the work, under the slot's lock
 * with the arming odd (never waited for: -EAGAIN, and the caller asks again, while the
 * timer's own process changes it).
 */
static long
door_request(const struct tfd_door_req *req, int fd, pid_t pid, struct tfd_spec *value)
{
	long i = door_timer(fd), err;
	struct tfd_slot *s;
	uint32_t seq;
	int64_t due;

	/*
	 * A create marks its slot before it returns the descriptor, so the mark came before
	 * this request; but this pass may have taken the marks before it came (a child forked
	 * right after the create asks at once): take them now, then look again.
	 */
	if (i < 0 && take_dirty(true)) {
		take_dirty(false);
		door_requeued = true;
		i = door_timer(fd);
	}
	if (i < 0)
		return TFD_EMU_NOT_OURS;
	s = &sh->slots[i];
	seq = __atomic_load_n(&s->seq, __ATOMIC_SEQ_CST);
	if (seq & 1)
		return -EAGAIN;
	if (req->op == TFD_DOOR_GETTIME) {
		struct tfd_timer_state st = s->st;
		enum tfd_base b;
		int64_t now;

		if (__atomic_load_n(&s->seq, __ATOMIC_SEQ_CST) != seq || !tfd_checked_base(s, &b))
			return -EAGAIN;
		now = __tfd_base_now(b);
		tfd_state_expire(&st, now);
		tfd_state_get(&st, now, value);
		return 0;
	}
	if (req->op != TFD_DOOR_SETTIME)
		return -EINVAL;
	if ((req->flags & ~(TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET)) || !tfd_spec_valid(&req->spec))
		return -EINVAL;
	if ((s->clockid == CLOCK_REALTIME_ALARM || s->clockid == CLOCK_BOOTTIME_ALARM) &&
	    !__tfd_may_wake_alarm(pid))
		return -EPERM;
	/*
	 * Under the slot's robust lock, as a process's settime: a server killed in the middle
	 * leaves the lock's next holder to make the arming even again (__tfd_slot_hold()),
	 * which an odd sequence alone would leave to nobody.  Never waited for.
	 */
	if (!__tfd_slot_try_hold(s))
		return -EAGAIN;
	seq = __atomic_load_n(&s->seq, __ATOMIC_SEQ_CST);
	if ((seq & 1) || !__atomic_compare_exchange_n(&s->seq, &seq, seq + 1, false, __ATOMIC_SEQ_CST,
						      __ATOMIC_SEQ_CST)) {
		__tfd_slot_release(s);
		return -EAGAIN;
	}
	err = __tfd_slot_arm(s, (uint32_t)i, req->flags, &req->spec, value, &due, drain_at_server,
			     NULL);
	if (err == 0)
		s->rt_prio = __tfd_rt_priority_arming(&req->spec, pid);
	__atomic_fetch_add(&s->seq, 1, __ATOMIC_SEQ_CST);
	__tfd_slot_release(s);
	tfd_sys_futex_wake(&s->seq, INT32_MAX);
	requeue((uint32_t)i, INT64_MIN);
	door_requeued = true;
	if (!req->want_old)
		memset(value, 0, sizeof(*value));
	return err;
}

/*
 * Every request waiting at the door, 64 at most a pass: whether one requeued a timer (the
 * pass's sleep was reckoned before: the loop then reckons it again).
 */
static bool
serve_door(void)
{
	struct tfd_door_req req;
	int fd, reply;
	pid_t pid = 0;

	door_requeued = false;
	/* Room for a MAKE's reply socket and pipe, where the spares could have taken it all. */
	if (__atomic_load_n(&srv->want_unnamed, __ATOMIC_ACQUIRE))
		drop_spares();
	for (int n = 0; n < 64 && door >= 0 && __tfd_door_receive(door, &req, &fd, &reply, &pid) == 1;
	     n++) {
		struct tfd_spec value = { { 0, 0 }, { 0, 0 } };
		long r;

		if (req.op == TFD_DOOR_MAKE) {
			int rd = -1;

			/* For the server's own process alone (its pid from the kernel). */
			r = pid == creator ? make_unnamed(&rd) : -EPERM;
			__tfd_door_answer_make(reply, r, srv->door_key, rd);
			if (rd >= 0)
				tfd_sys_close(rd);
			continue;
		}
		r = door_request(&req, fd, pid, &value);
		tfd_sys_close(fd);
		__tfd_door_answer(reply, r, &value);
	}
	return door_requeued;
}

/* A request at the door raised SIGIO: the loop looks (its futex word moves, so no sleep). */
static void
door_knocked(int sig)
{
	int saved = errno; /* the loop may be between a call and its errno */

	(void)sig;
	__atomic_fetch_add(&srv->wake_seq, 1, __ATOMIC_SEQ_CST);
	tfd_sys_futex_wake(&srv->wake_seq, 1);
	errno = saved;
}

static void
let_go_all(void)
{
	for (uint32_t j = 0; j < led->high_water; j++)
		if (tm[j].live)
			__tfd_fifo_let_go(&tm[j].e);
	let_go_at = INT64_MAX;
}

/* --- the twin: holds the same write ends, takes over if the server is killed ---------- */

/*
 * A kernel timer cannot be killed; a server can (SIGKILL, the OOM killer).  So every
 * server has a twin: a process that shares its descriptor table (CLONE_FILES), so that the
 * write ends outlive the server and no read end sees end-of-file, and its record (tm[],
 * the ledger).  It sleeps on the server's robust mark; at the server's death it claims the
 * shard by compare-and-swap on that mark (a create's new server may claim it first: then
 * the twin ends), rebuilds the queues from the record and the slots, and serves on, with a
 * twin of its own.  Where the kernel refuses CLONE_FILES (qemu-user), the twin has a copy
 * of the table: it closes it and reopens each live timer's write end by name.
 */
static pid_t twin_pid = -1; /* the server's twin, or -1 */
static int64_t twin_check_at;

static void take_over(void);

/* A twin without the server's table: only what it needs of its copy (0-2, the directory, the door, epoll). */
static void
close_copied_table(void)
{
	const int keep[3] = { dir, door, epfd };
	long top = 64 + 3L * (long)led->high_water;

	for (long fd = 3; fd < top; fd++)
		if (fd != keep[0] && fd != keep[1] && fd != keep[2])
			tfd_sys_close((int)fd);
}

/* The server's death as a signal (PR_SET_PDEATHSIG): it only interrupts the twin's wait. */
static void
server_died(int sig)
{
	(void)sig;
}

/* In the twin: returns once it has claimed the shard of the dead server @tid; exits if it ended. */
static void
twin_wait(pid_t server_pid, uint32_t tid)
{
	uint32_t me = (uint32_t)syscall(SYS_gettid);
	struct sigaction sa;

	syscall(SYS_prctl, PR_SET_NAME, "libtimerfd-twin", 0, 0, 0);
	/*
	 * Where the kernel (or an emulator: qemu-user) has no robust futexes, the parent's death
	 * signal wakes the twin at once; else it would see it at its next look, a second later.
	 */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = server_died; /* no SA_RESTART: the futex wait returns EINTR */
	sigaction(SIGUSR2, &sa, NULL);
	syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGUSR2, 0, 0, 0);
	/*
	 * Watched before it is claimed: a twin killed right after its claim below is marked dead
	 * too (else the word would name it, unmarked, for ever, and creates would take spares
	 * nobody serves).
	 */
	__tfd_robust_watch(&srv->server_tid);
	for (;;) {
		uint32_t v = __atomic_load_n(&srv->server_tid, __ATOMIC_SEQ_CST);

		/* Dead: marked by the kernel, or (no robust list) this twin was orphaned. */
		if ((v & TFD_OWNER_DIED) ||
		    ((v & TFD_TID_MASK) == tid && (pid_t)syscall(SYS_getppid) != server_pid)) {
			if (__atomic_compare_exchange_n(&srv->server_tid, &v, me, false, __ATOMIC_SEQ_CST,
							__ATOMIC_SEQ_CST))
				return;
			continue;
		}
		/* Ended by itself, or replaced by a create's new server: nothing to hold. */
		if ((v & TFD_TID_MASK) != tid)
			syscall(SYS_exit_group, 0);
		/* The kernel wakes a waiter at the owner's death only if the word says one waits. */
		if (!(v & TFD_FUTEX_WAITERS) &&
		    !__atomic_compare_exchange_n(&srv->server_tid, &v, v | TFD_FUTEX_WAITERS, false,
						 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			continue;
		tfd_sys_futex_wait(&srv->server_tid, v | TFD_FUTEX_WAITERS, HARVEST_NS);
	}
}

/*
 * In the server: clones its twin (tried again a harvest later if it cannot).  Returns false
 * in the server; true in the twin, once it has claimed the shard of the dead server.
 */
static bool
twin_start(void)
{
	pid_t server_pid = (pid_t)syscall(SYS_getpid), pid;
	uint32_t tid = __atomic_load_n(&srv->server_tid, __ATOMIC_SEQ_CST) & TFD_TID_MASK;
	bool shared;

	/* valgrind has no clone that can share the table: no twin there. */
	if (__tfd_under_valgrind())
		return false;
	/* The family's mapping is handed on to the twin (the server never forks otherwise). */
	__tfd_shared_fork_policy(sh, true);
	pid = __tfd_clone_twin(&shared);
	__tfd_shared_fork_policy(sh, false);
	if (pid == 0) {
		if (!shared) {
			table_copied = true;
			close_copied_table();
		}
		twin_wait(server_pid, tid);
		return true;
	}
	twin_pid = pid;
	if (pid > 0 && !shared) {
		table_copied = true;
		__atomic_store_n(&srv->names_go, 0, __ATOMIC_RELEASE);
	}
	return false;
}

/*
 * The process that started the server ended: no create can come any more (a family is its
 * process's own), so a slot taken from the spares and never made live was taken by a create
 * that was killed in the middle: it is freed (it would keep the server from ending).  Found
 * with kill(pid, 0) once a harvest: a pid reused meanwhile only delays this.
 */
static bool creator_gone;

static void
creator_check(void)
{
	if (creator_gone || creator <= 0 || syscall(SYS_kill, creator, 0) == 0 || errno != ESRCH)
		return;
	creator_gone = true;
	/* What it took from the spares since the last look becomes pending first (nothing is taken now). */
	keep_spares();
	for (uint32_t j = 0; j < led->high_water; j++) {
		uint32_t i = first + j;

		if (!tm[j].pending)
			continue;
		if (__atomic_load_n(&sh->slots[i].state, __ATOMIC_ACQUIRE) == TFD_SLOT_LIVE) {
			refresh(i); /* made live, not yet poked */
		} else {
			tm[j].pending = false;
			npending--;
			free_slot(i);
		}
	}
}

/* In the server, once a harvest: a twin that died (reaped here) is replaced; the creator looked at. */
static void
twin_keep(int64_t now)
{
	if (now < twin_check_at)
		return;
	twin_check_at = now + HARVEST_NS;
	creator_check();
	if (twin_pid > 0 && syscall(SYS_wait4, twin_pid, NULL, WNOHANG | __WALL, NULL) == 0)
		return;
	twin_pid = -1;
	if (twin_start())
		take_over(); /* in the twin: on into the main loop, as the server */
}

static bool
same_state(const struct tfd_timer_state *a, const struct tfd_timer_state *b)
{
	return a->armed == b->armed && a->expiry == b->expiry && a->interval == b->interval &&
	       a->alarm == b->alarm;
}

/*
 * A delivery the dead server left in flight (fifo.h): written if its progress was stored
 * (nothing to do: counting it again would double it); else the counts it took out of the
 * FIFO go back, unless the program rearmed the timer since (its sequence moved: the rearm
 * emptied the FIFO).  Before the busy marks are cleared: a rearm that began after the
 * claim waits for this.
 */
static void
land_flight(void)
{
	struct tfd_flight *f = &led->flight;
	uint32_t slot = __atomic_load_n(&f->slot, __ATOMIC_ACQUIRE), i;
	struct tfd_flight back = { .fwd = NULL };
	uint64_t taken = 0;

	__atomic_store_n(&f->slot, 0, __ATOMIC_RELEASE);
	if (!slot || slot - 1 < first || slot - 1 - first >= led->high_water)
		return;
	i = slot - 1;
	if (!f->fwd || same_state(f->fwd, &f->next) ||
	    __atomic_load_n(&sh->slots[i].seq, __ATOMIC_SEQ_CST) != f->seq)
		return;
	for (int k = 0; k < 8; k++)
		taken = taken + f->taken[k] < taken ? UINT64_MAX : taken + f->taken[k];
	if (taken && timer_of(i)->live && hold_writer(i) == 0)
		__tfd_fifo_add(sh, &names, dir, i, &timer_of(i)->e, taken, &back);
}

/* In a twin that claimed the shard: its death is marked, the door's requests signal it. */
static void
become_server(void)
{
	struct sigaction sa;

	/* Its parent is now whoever adopted it: no death signal from it, none caught. */
	syscall(SYS_prctl, PR_SET_PDEATHSIG, 0, 0, 0, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGUSR2, &sa, NULL);
	__tfd_robust_mark(&srv->server_tid);
	__tfd_door_own(door);
}

/*
 * In the twin that claimed the shard: first a twin of its own (the write ends have one
 * holder until then: the shorter that is, the fewer kills can take both), then the dead
 * server's record becomes its own.  A twin cloned here that takes over in turn returns
 * from twin_start() here too, and goes on the same way.
 */
static void
take_over(void)
{
	uint32_t hw;

	become_server();
	while (twin_start())
		become_server();
	/* Its name once it has a twin: what ps(1) calls libtimerfd is a whole server. */
	syscall(SYS_prctl, PR_SET_NAME, "libtimerfd", 0, 0, 0);
	land_flight();
	hw = led->high_water < TFD_SHARD_SLOTS ? led->high_water : TFD_SHARD_SLOTS;
	for (int b = 0; b < TFD_NBASES; b++)
		queues[b].n = 0;
	free_head = 0;
	nlive = npending = ncancel_on_set = 0;
	let_go_at = INT64_MAX;
	table_full = false;
	twin_check_at = 0;
	/* Killed while closing: the spares it took back go back (no create could take one). */
	if (__atomic_load_n(&srv->server, __ATOMIC_SEQ_CST) == TFD_SERVER_CLOSING) {
		for (int k = 0; k < TFD_SPARES; k++)
			if (led->spare_slot[k] && !__atomic_load_n(&srv->spares[k], __ATOMIC_SEQ_CST))
				__atomic_store_n(&srv->spares[k], led->spare_slot[k], __ATOMIC_SEQ_CST);
		__atomic_store_n(&srv->server, TFD_SERVER_RUNNING, __ATOMIC_SEQ_CST);
	}
	for (uint32_t j = hw; j-- > 0;) {
		uint32_t i = first + j;
		struct srv_timer *t = &tm[j];
		struct tfd_slot *s = &sh->slots[i];
		bool spare = false;

		t->node.pos = TFD_HEAP_NONE;
		t->queued_base = TFD_NBASES;
		t->queued_cancel = false;
		/* No delivery is in progress: whoever marked one is dead. */
		if (__atomic_exchange_n(&s->busy, 0, __ATOMIC_SEQ_CST) & TFD_BUSY_WAITER)
			tfd_sys_futex_wake(&s->busy, INT32_MAX);
		for (int k = 0; k < TFD_SPARES; k++)
			spare |= led->spare_slot[k] == i + 1;
		if (!t->live && !t->pending && !spare) {
			/* Free (or being freed when the server died: its files go). */
			if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != TFD_SLOT_FREE)
				__atomic_store_n(&s->state, TFD_SLOT_FREE, __ATOMIC_RELEASE);
			t->e.r = t->e.w = t->e.h = -1;
			t->next_free = free_head;
			free_head = i + 1;
			continue;
		}
		if (spare)
			t->pending = false; /* the dead server's stale mark (not_pending()) */
		nlive += t->live;
		npending += t->pending;
		if (hold_writer(i) < 0 && t->live) {
			free_slot(i); /* closed meanwhile (no reader left), or its FIFO gone */
			continue;
		}
		if (t->live) {
			uint32_t busy = busy_begin(s);

			/* A process changing it pokes the server when done (its dirty bit). */
			if (busy) {
				requeue(i, INT64_MIN);
				busy_end(s);
			}
		}
	}
	/* Every slot is looked at once more, as if each had been poked. */
	idle_since = __tfd_base_now(TFD_BASE_MONOTONIC);
}

/* --- start and end -------------------------------------------------------------------- */

/*
 * Nothing live or being made, and every spare still where the server put it: take the
 * spares back (an exchange, against a create's compare-and-swap), remove the directory,
 * and exit.  Returns if a create came first.
 */
static void
try_close(void)
{
	uint32_t taken[TFD_SPARES];

	__atomic_store_n(&srv->server, TFD_SERVER_CLOSING, __ATOMIC_SEQ_CST);
	for (int k = 0; k < TFD_SPARES; k++) {
		taken[k] = __atomic_exchange_n(&srv->spares[k], 0, __ATOMIC_SEQ_CST);
		/* An entry the server could not fill (no descriptor, no directory) is nobody's. */
		if (!taken[k] && led->spare_slot[k]) {
			/* A create took one: put back what was taken, and go on serving. */
			for (int j = 0; j < k; j++)
				__atomic_store_n(&srv->spares[j], taken[j], __ATOMIC_SEQ_CST);
			__atomic_store_n(&srv->server, TFD_SERVER_RUNNING, __ATOMIC_SEQ_CST);
			return;
		}
	}
	/* The server's own record of what it put out, not what shared memory now says. */
	for (int k = 0; k < TFD_SPARES; k++)
		if (led->spare_slot[k])
			free_slot(led->spare_slot[k] - 1);
	__tfd_door_close(door, names.dir);
	tfd_sys_unlinkat(AT_FDCWD, names.dir, AT_REMOVEDIR);
	tfd_sys_unlinkat(AT_FDCWD, outer, AT_REMOVEDIR);
	/* Not dead: a voluntary end leaves no owner-died mark (the tid no longer matches). */
	__atomic_store_n(&srv->server_tid, 0, __ATOMIC_SEQ_CST);
	tfd_sys_futex_wake(&srv->server_tid, INT32_MAX); /* the twin ends too */
	__atomic_store_n(&srv->server, TFD_SERVER_NONE, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&srv->spare_seq, 1, __ATOMIC_SEQ_CST);
	tfd_sys_futex_wake(&srv->spare_seq, INT32_MAX);
	syscall(SYS_exit_group, 0);
	for (;;)
		;
}

/* The server's memory for every slot and its queues: it allocates nothing afterwards. */
static int
map_own(void)
{
	size_t n = TFD_SHARD_SLOTS;
	/* Shared with the twin (cloned later), which takes over from this record. */
	void *p = mmap(NULL, n * sizeof(*tm), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return -ENOMEM;
	tm = p;
	p = mmap(NULL, sizeof(*led), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	led = p;
	for (int b = 0; b < TFD_NBASES; b++) {
		p = mmap(NULL, n * sizeof(struct tfd_heap_node *), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED)
			return -ENOMEM;
		queues[b].v = p;
		queues[b].n = 0;
		queues[b].cap = n;
	}
	return 0;
}

/* Whether @fd is a directory of mode @mode: one the server has just made, not replaced. */
static bool
dir_is(int fd, unsigned int mode)
{
	struct stat st;

	return fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == mode;
}

/*
 * Whether directory @fd has the owner of the server's own directory (still open, though
 * removed): not another user's of the same name.  The owner is the starting thread's
 * filesystem uid, which need not be the effective one (setfsuid()).
 */
static bool
dir_is_ours(int fd)
{
	struct stat st, own;

	return dir_is(fd, 0711) && fstat(fd, &st) == 0 && fstat(dir, &own) == 0 && st.st_uid == own.st_uid;
}

/* Whether a FIFO can be made in @d (not a full filesystem, nor one out of inodes). */
static bool
room_for_fifos(int d)
{
	static const char probe[] = "probe";

	if (tfd_sys_mknodat(d, probe, S_IFIFO | 0600) < 0)
		return false;
	tfd_sys_unlinkat(d, probe, 0);
	return true;
}

/*
 * The server's directory: the first candidate (each checked by the starter: spawn.c) where
 * one can be made with room for FIFOs.  A subdirectory with a secret name holds the FIFOs
 * and the door, both directories 0711: a process that knows the secret (the starter, a
 * child of it, whatever its credentials became, a holder of a FIFO's descriptor through
 * /proc) reaches them; nobody else can list them, count them (a directory's size is its
 * number of entries) or knock at the door.
 */
static int
make_dir(const struct tfd_server_start *start)
{
	for (int c = 0; c < start->ncandidates; c++) {
		int o;

		memcpy(outer, start->candidates[c], sizeof(outer));
		outer[sizeof(outer) - 1] = '\0';
		if (__tfd_names_for(outer, start->secret, &names) < 0)
			continue;
		if (tfd_sys_mkdirat(AT_FDCWD, outer, 0711) < 0)
			continue;
		o = tfd_sys_openat(AT_FDCWD, outer, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
		if (dir_is(o, 0711) && tfd_sys_mkdirat(AT_FDCWD, names.dir, 0711) == 0) {
			dir = tfd_sys_openat(AT_FDCWD, names.dir,
					     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
			if (dir_is(dir, 0711) && room_for_fifos(dir)) {
				struct stat st;

				/* Where its FIFOs will be, known before the first: the starter records it. */
				if (fstat(dir, &st) == 0) {
					__atomic_store_n(&srv->fifo_dev[0], (uint32_t)st.st_dev, __ATOMIC_RELAXED);
					__atomic_store_n(&srv->fifo_dev[1], (uint32_t)((uint64_t)st.st_dev >> 32),
							 __ATOMIC_RELAXED);
				}
				/* Without a door, only the program's own process sets its timers. */
				door = __tfd_door_open(dir);
				tfd_sys_close(o);
				__atomic_store_n(&srv->dir_choice, (uint32_t)c, __ATOMIC_RELEASE);
				return 0;
			}
			if (dir >= 0)
				tfd_sys_close(dir);
			dir = -1;
			tfd_sys_unlinkat(AT_FDCWD, names.dir, AT_REMOVEDIR);
		}
		if (o >= 0)
			tfd_sys_close(o);
		tfd_sys_unlinkat(AT_FDCWD, outer, AT_REMOVEDIR);
	}
	return -ENOSYS;
}

/*
 * --- the directory removed (systemd-tmpfiles' age rules, tmpreaper, tmpwatch) -------------
 * Noticed at a harvest, or at once when a create gave a spare back: made again at the same
 * path (the program knows it), only where the outer directory is still, or again, this
 * server's own (another user may have taken the name meanwhile: then not).  The new
 * descriptors take the old numbers (dup3), so that the twin, which shares the table but not
 * this memory, finds them where it knew them.  The spares, whose names went, are replaced;
 * the door is bound again.  Live timers go on: their FIFOs are open at both ends.
 */
/* The directory at names.dir made again: true once @dir names it (same descriptor number). */
static bool
remake_dir(void)
{
	const char *inner = strrchr(names.dir, '/') + 1; /* "<outer>/<secret>" (family.c) */
	int o, d, dd;

	if (tfd_sys_mkdirat(AT_FDCWD, outer, 0711) < 0 && errno != EEXIST)
		return false;
	o = tfd_sys_openat(AT_FDCWD, outer, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
	if (!dir_is_ours(o) || tfd_sys_mkdirat(o, inner, 0711) < 0) {
		if (o >= 0)
			tfd_sys_close(o);
		return false;
	}
	d = tfd_sys_openat(o, inner, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
	tfd_sys_close(o);
	if (!dir_is_ours(d) || syscall(SYS_dup3, d, dir, O_CLOEXEC) < 0) {
		if (d >= 0)
			tfd_sys_close(d);
		return false;
	}
	tfd_sys_close(d);
	/* The door at the new directory, in the old one's number. */
	dd = __tfd_door_open(dir);
	if (dd >= 0 && door >= 0 && dd != door) {
		if (syscall(SYS_dup3, dd, door, O_CLOEXEC) >= 0)
			__tfd_door_own(door);
		tfd_sys_close(dd);
	} else if (dd >= 0) {
		door = dd;
	}
	return true;
}

/* The spares not taken are freed (their names are gone): keep_spares() makes new ones. */
static void
replace_spares(void)
{
	for (int k = 0; k < TFD_SPARES; k++) {
		uint32_t was = __atomic_exchange_n(&srv->spares[k], 0, __ATOMIC_SEQ_CST);

		/* Taken by a create meanwhile: it gives it back, or made it live. */
		if (!was)
			continue;
		if (led->spare_slot[k] == was)
			free_slot(was - 1);
		led->spare_slot[k] = 0;
	}
}

static void
dir_keep(int64_t now)
{
	struct stat was, is;

	if (!dir_suspect && now < dir_check_at)
		return;
	dir_suspect = false;
	dir_check_at = now + HARVEST_NS;
	if (dir < 0 || fstat(dir, &was) < 0)
		return;
	if (fstatat(AT_FDCWD, names.dir, &is, AT_SYMLINK_NOFOLLOW) == 0 && is.st_dev == was.st_dev &&
	    is.st_ino == was.st_ino)
		return;
	if (remake_dir())
		replace_spares();
}

/* Removes what a dead server of the shard left: its FIFOs (every entry), door and directories. */
static void
remove_dead(const struct tfd_names *dead)
{
	char buf[4096], dead_outer[TFD_DIR_MAX];
	char *slash;
	int d;

	if (!dead->dir[0])
		return;
	d = tfd_sys_openat(AT_FDCWD, dead->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
	if (d >= 0) {
		long n;

		while ((n = syscall(SYS_getdents64, d, buf, sizeof(buf))) > 0)
			for (long off = 0; off < n;) {
				/* struct linux_dirent64: ino, off, reclen, type, name. */
				unsigned short reclen;
				const char *name = buf + off + 19;

				memcpy(&reclen, buf + off + 16, sizeof(reclen));
				if (reclen == 0)
					break;
				if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0)
					tfd_sys_unlinkat(d, name, 0);
				off += reclen;
			}
		tfd_sys_close(d);
	}
	tfd_sys_unlinkat(AT_FDCWD, dead->dir, AT_REMOVEDIR);
	memcpy(dead_outer, dead->dir, sizeof(dead_outer));
	dead_outer[sizeof(dead_outer) - 1] = '\0';
	slash = strrchr(dead_outer, '/');
	if (slash && slash != dead_outer) {
		*slash = '\0';
		tfd_sys_unlinkat(AT_FDCWD, dead_outer, AT_REMOVEDIR);
	}
}

static int
start(const struct tfd_server_start *st)
{
	struct sigaction sa;
	int err = map_own();

	/* Before the door exists: its SIGIO must find the handler, never the default (an end). */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = door_knocked;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGIO, &sa, NULL);

	if (!err)
		err = make_dir(st);
	/* What "Names" needs (DESIGN.md): /proc/self/fd, and a key for the door's answers. */
	proc_fd_ok = syscall(SYS_faccessat, AT_FDCWD, "/proc/self/fd", X_OK, 0) == 0;
	key_ok = syscall(SYS_getrandom, srv->door_key, sizeof(srv->door_key), 0) ==
		 (long)sizeof(srv->door_key);
	__atomic_store_n(&srv->names_go, proc_fd_ok && key_ok, __ATOMIC_RELEASE);
	if (!err) {
		epfd = tfd_sys_epoll_create1(EPOLL_CLOEXEC);
		if (epfd < 0)
			err = -ENOMEM;
	}
	/* A dead server's timers went with it (their reads see end-of-file); its files go now. */
	if (st->dead_before)
		remove_dead(&st->dead);
	/* Its slots, and their inode-index entries (else each dead server's would stay, unused). */
	for (uint32_t j = 0; j < st->dead_high_water && j < TFD_SHARD_SLOTS; j++) {
		struct tfd_slot *s = &sh->slots[first + j];

		if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != TFD_SLOT_FREE)
			__tfd_index_remove(sh, first + j, s->ino);
		__atomic_store_n(&s->state, TFD_SLOT_FREE, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&srv->high_water, 0, __ATOMIC_RELEASE);
	/*
	 * The inode index is not cleared (2 MiB of shared pages to fault in: most of a first
	 * create's time): a dead server's entries lead to slots no longer live with that inode,
	 * which a lookup checks anyway, and their places are taken again.
	 */
	memset(srv->spares, 0, sizeof(srv->spares));
	return err;
}

void
__tfd_server_main(struct tfd_shared *shared, int shard, const struct tfd_server_start *st)
{
	int err;

	sh = shared;
	srv = &sh->shards[shard];
	creator = st->creator;
	first = (uint32_t)shard * TFD_SHARD_SLOTS;
	err = start(st);
	if (err) {
		__atomic_store_n(&srv->server_err, -err, __ATOMIC_RELEASE);
		__atomic_store_n(&srv->server_tid, 0, __ATOMIC_SEQ_CST);
		__atomic_store_n(&srv->server, TFD_SERVER_NONE, __ATOMIC_SEQ_CST);
		__atomic_fetch_add(&srv->spare_seq, 1, __ATOMIC_SEQ_CST);
		tfd_sys_futex_wake(&srv->spare_seq, INT32_MAX);
		syscall(SYS_exit_group, 1);
	}
	__atomic_store_n(&srv->server, TFD_SERVER_RUNNING, __ATOMIC_SEQ_CST);
	idle_since = __tfd_base_now(TFD_BASE_MONOTONIC);
	if (twin_start())
		take_over(); /* in the twin: on into the main loop, as the server */
	for (;;) {
		uint32_t v = __atomic_load_n(&srv->wake_seq, __ATOMIC_SEQ_CST);
		int64_t wait = INT64_MAX, now, pass;

		tfd_shared_ns_set(&srv->sleeps_until, INT64_MIN);
		harvest();
		take_dirty(false);
		dir_keep(__tfd_base_now(TFD_BASE_MONOTONIC));
		keep_spares();
		check_clock_set();
		pass = __tfd_base_now(TFD_BASE_MONOTONIC);
		for (int b = 0; b < TFD_NBASES; b++) {
			int64_t next = run_queue((enum tfd_base)b);

			if (next < wait)
				wait = next;
			if (b != TFD_BASE_MONOTONIC && next != INT64_MAX && wait > TFD_CLOCK_CHECK_NS)
				wait = TFD_CLOCK_CHECK_NS;
		}
		if (ncancel_on_set && wait > TFD_CLOCK_CHECK_NS)
			wait = TFD_CLOCK_CHECK_NS;
		/* After the deliveries: a gettime at the door then counts every expiration due. */
		if (serve_door())
			continue;
		now = __tfd_base_now(TFD_BASE_MONOTONIC);
		pass = 4 * (now - pass);
		pile_ns = pass < MIN_REARM_NS ? MIN_REARM_NS : pass > PILE_MAX_NS ? PILE_MAX_NS : pass;
		if (let_go_at <= now)
			let_go_all();
		twin_keep(now);
		rt_lower(now);
		/* Nothing live: whether anything can still come (an ended creator ends it at once). */
		if (!nlive)
			creator_check();
		if (nlive || npending)
			idle_since = now;
		else if (now - idle_since >= LINGER_NS || creator_gone)
			try_close();
		if (nlive && wait > HARVEST_NS)
			wait = HARVEST_NS;
		if (!nlive && wait > LINGER_NS)
			wait = LINGER_NS;
		if (let_go_at != INT64_MAX && let_go_at - now < wait)
			wait = let_go_at - now;
		/* Saturating: a timer armed beyond KTIME_MAX waits until then. */
		tfd_shared_ns_set(&srv->sleeps_until, tfd_add_saturating(now, wait < 0 ? 0 : wait));
		/* A process that marked a slot before it saw sleeps_until did not wake us: look. */
		if (take_dirty(true))
			continue;
		if (wait > 0)
			tfd_sys_futex_wait(&srv->wake_seq, v, wait);
	}
}
