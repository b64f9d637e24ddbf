/* SPDX-License-Identifier: MIT */
/* The timer server: a process of its own that holds every timer's write end and delivers expirations. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "emu/fifo.h"
#include "emu/heap.h"
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

/* What the server knows of one slot, in its own memory. */
struct srv_timer {
	struct tfd_heap_node node; /* first: a queue's node is its timer */
	struct tfd_fifo_ends e;
	bool live, queued_cancel;
	/* The queue it is on: a rearm may change the slot's base before the server sees it. */
	uint8_t queued_base;
	bool pending;       /* taken from the spares by a create, not yet live */
	uint32_t next_free; /* the server's free list of slots (index + 1) */
};

static struct tfd_shared *sh;
static struct tfd_shard *srv; /* this server's shard of the family's */
static uint32_t first;        /* the shard's first slot: tm[j] is slot first + j's */
static struct srv_timer *tm;
static struct tfd_heap queues[TFD_NBASES];
static uint32_t free_head; /* index + 1 */
static int dir = -1, epfd = -1;
static uint32_t nlive, npending, ncancel_on_set;
static uint32_t spare_slot[TFD_SPARES]; /* what the server put in each entry of srv->spares */
static int64_t last_offset, let_go_at = INT64_MAX, idle_since;
static int64_t pile_ns = MIN_REARM_NS; /* see PILE_MAX_NS */
static bool table_full;    /* the last spare could not be made: no descriptor or slot left */
static int64_t full_since; /* since when */

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
	tfd_heap_remove(&queues[t->queued_base], &t->node);
}

/* Queues @i by its arming, no sooner than @not_before on its clock. */
static void
requeue(uint32_t i, int64_t not_before)
{
	struct srv_timer *t = timer_of(i);
	struct tfd_slot *s = &sh->slots[i];

	unqueue(i);
	if (!t->live || !s->fwd.armed)
		return;
	t->node.key = s->fwd.expiry < not_before ? not_before : s->fwd.expiry;
	t->queued_base = (uint8_t)s->base;
	tfd_heap_push(&queues[t->queued_base], &t->node); /* room for every slot: cannot fail */
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

static void
free_slot(uint32_t i)
{
	struct srv_timer *t = timer_of(i);
	struct tfd_slot *s = &sh->slots[i];

	unqueue(i);
	table_full = false;
	if (t->live)
		nlive--;
	__tfd_index_remove(sh, i, t->e.ino);
	__tfd_fifo_unmake(sh, dir, i, &t->e);
	t->live = false;
	__atomic_store_n(&s->state, TFD_SLOT_FREE, __ATOMIC_RELEASE);
	t->next_free = free_head;
	free_head = i + 1;
}

/* A new spare: a FIFO the server holds both ends of, in a free slot: its index, or -errno. */
static long
make_spare(void)
{
	struct epoll_event ev = { .events = 0 };
	struct tfd_slot *s;
	struct srv_timer *t;
	uint32_t i;
	int err;

	if (free_head) {
		i = free_head - 1;
		free_head = timer_of(i)->next_free;
	} else if (srv->high_water < TFD_SHARD_SLOTS) {
		i = first + srv->high_water;
		__atomic_store_n(&srv->high_water, srv->high_water + 1, __ATOMIC_RELEASE);
	} else {
		return -EXFULL; /* the shard's range of slots is used up: the next shard (spawn.c) */
	}
	s = &sh->slots[i];
	t = timer_of(i);
	t->e.r = t->e.w = t->e.h = -1;
	t->node.pos = TFD_HEAP_NONE;
	s->gen++;
	err = __tfd_fifo_make(sh, dir, i, &t->e);
	if (err == 0) {
		ev.data.u32 = i;
		/* Events 0: EPOLLERR alone, once the program has closed every read end. */
		if (tfd_sys_epoll_ctl(epfd, EPOLL_CTL_ADD, t->e.w, &ev) < 0) {
			err = -errno;
			__tfd_fifo_unmake(sh, dir, i, &t->e);
		}
	}
	if (err) {
		t->next_free = free_head;
		free_head = i + 1;
		return err;
	}
	__atomic_store_n(&srv->fifo_dev[0], (uint32_t)t->e.dev, __ATOMIC_RELAXED);
	__atomic_store_n(&srv->fifo_dev[1], (uint32_t)(t->e.dev >> 32), __ATOMIC_RELAXED);
	s->dev = t->e.dev;
	s->ino = t->e.ino;
	__tfd_index_add(sh, i, t->e.ino);
	__atomic_store_n(&s->state, TFD_SLOT_READY, __ATOMIC_RELEASE);
	return i;
}

static void refresh(uint32_t i);
static void let_go_all(void);
static void harvest(void);

/* Every empty entry of the spares gets a new one; an error is told to the waiting creates. */
static void
keep_spares(void)
{
	bool made = false, woken = false;

	for (int k = 0; k < TFD_SPARES; k++) {
		long i;

		if (__atomic_load_n(&srv->spares[k], __ATOMIC_ACQUIRE))
			continue;
		/* A create took the last one: it is the create's until it makes it live or gives it back. */
		if (spare_slot[k]) {
			uint32_t taken = spare_slot[k] - 1;

			spare_slot[k] = 0;
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
		i = make_spare();
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
		table_full = i < 0 && tfd_shard_full((int)-i);
		if (table_full)
			full_since = __tfd_base_now(TFD_BASE_MONOTONIC);
		if (i < 0) {
			/* A full table sends the next creates to the next shard (spawn.c). */
			__atomic_store_n(&srv->server_err, (int32_t)-i, __ATOMIC_RELEASE);
			break;
		}
		spare_slot[k] = (uint32_t)i + 1;
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

/* A slot a process changed: adopted once a create made it live, requeued by its arming. */
static void
refresh(uint32_t i)
{
	struct tfd_slot *s = &sh->slots[i];
	struct srv_timer *t = timer_of(i);
	uint32_t busy, state;

	if (i - first >= srv->high_water)
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
			return;
		}
	}
	if (state != TFD_SLOT_LIVE)
		return;
	/* A rearm that could not empty the FIFO itself waits for this (its arming is odd). */
	if (__atomic_load_n(&s->drain_req, __ATOMIC_SEQ_CST)) {
		if (__tfd_fifo_empty(sh, dir, i, &t->e) == 0)
			s->maybe_counted = false;
		__atomic_store_n(&s->drain_req, 0, __ATOMIC_SEQ_CST);
		tfd_sys_futex_wake(&s->drain_req, INT32_MAX);
		if (t->e.h >= 0 && let_go_at == INT64_MAX)
			let_go_at = __tfd_base_now(TFD_BASE_MONOTONIC) + KEEP_NS;
	}
	if (!t->live) {
		/* The program has its read end: the spare's goes, so that its close is seen. */
		t->live = true;
		nlive++;
		if (t->e.r >= 0)
			tfd_sys_close(t->e.r);
		t->e.r = -1;
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

			/* A spare has the server's own reader: only a live timer can lose them all. */
			if (timer_of(i)->live && __tfd_fifo_closed(&timer_of(i)->e))
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
		if (n)
			err = __tfd_fifo_add(sh, dir, i, &timer_of(i)->e, n);
		if (err >= 0)
			s->fwd = fwd;
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

static void
let_go_all(void)
{
	for (uint32_t j = 0; j < srv->high_water; j++)
		if (tm[j].live)
			__tfd_fifo_let_go(&tm[j].e);
	let_go_at = INT64_MAX;
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
		if (!taken[k]) {
			/* A create took one: put back what was taken, and go on serving. */
			for (int j = 0; j < k; j++)
				__atomic_store_n(&srv->spares[j], taken[j], __ATOMIC_SEQ_CST);
			__atomic_store_n(&srv->server, TFD_SERVER_RUNNING, __ATOMIC_SEQ_CST);
			return;
		}
	}
	for (int k = 0; k < TFD_SPARES; k++)
		free_slot(taken[k] - 1);
	tfd_sys_unlinkat(AT_FDCWD, srv->dir, AT_REMOVEDIR);
	/* Not dead: a voluntary end leaves no owner-died mark (the tid no longer matches). */
	__atomic_store_n(&srv->server_tid, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&srv->server, TFD_SERVER_NONE, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&srv->spare_seq, 1, __ATOMIC_SEQ_CST);
	tfd_sys_futex_wake(&srv->spare_seq, INT32_MAX);
	syscall(SYS_exit_group, 0);
	for (;;)
		;
}

/* The server's memory for every slot, mapped privately: it allocates nothing afterwards. */
static int
map_private(void)
{
	size_t n = TFD_SHARD_SLOTS;
	void *p = mmap(NULL, n * sizeof(*tm), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return -ENOMEM;
	tm = p;
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

/* The private directory of FIFOs: the first candidate where one can be made. */
static int
make_dir(const struct tfd_server_start *start)
{
	for (int c = 0; c < start->ncandidates; c++) {
		memcpy(srv->dir, start->candidates[c], sizeof(srv->dir));
		/* 0711: processes that dropped privileges reach the FIFOs, nobody lists them. */
		if (tfd_sys_mkdirat(AT_FDCWD, srv->dir, 0711) < 0)
			continue;
		dir = tfd_sys_openat(AT_FDCWD, srv->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
		if (dir >= 0)
			return 0;
		tfd_sys_unlinkat(AT_FDCWD, srv->dir, AT_REMOVEDIR);
	}
	return -ENOSYS;
}

static int
start(const struct tfd_server_start *st)
{
	int err = map_private();

	if (!err)
		err = make_dir(st);
	if (!err) {
		epfd = tfd_sys_epoll_create1(EPOLL_CLOEXEC);
		if (epfd < 0)
			err = -ENOMEM;
	}
	/* A dead server's timers went with it (their reads see end-of-file); its files go now. */
	if (st->dead_before) {
		int old = tfd_sys_openat(AT_FDCWD, st->dead_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);

		if (old >= 0) {
			__tfd_fifo_remove_dead(old, st->dead_secret, sh, first, st->dead_high_water);
			tfd_sys_close(old);
			tfd_sys_unlinkat(AT_FDCWD, st->dead_dir, AT_REMOVEDIR);
		}
	}
	for (uint32_t j = 0; j < srv->high_water; j++)
		__atomic_store_n(&sh->slots[first + j].state, TFD_SLOT_FREE, __ATOMIC_RELEASE);
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
	for (;;) {
		uint32_t v = __atomic_load_n(&srv->wake_seq, __ATOMIC_SEQ_CST);
		int64_t wait = INT64_MAX, now, pass;

		tfd_shared_ns_set(&srv->sleeps_until, INT64_MIN);
		harvest();
		take_dirty(false);
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
		now = __tfd_base_now(TFD_BASE_MONOTONIC);
		pass = 4 * (now - pass);
		pile_ns = pass < MIN_REARM_NS ? MIN_REARM_NS : pass > PILE_MAX_NS ? PILE_MAX_NS : pass;
		if (let_go_at <= now)
			let_go_all();
		if (nlive || npending)
			idle_since = now;
		else if (now - idle_since >= LINGER_NS)
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
