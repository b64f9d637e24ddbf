/* SPDX-License-Identifier: MIT */
/* The emulated timers' shared state, and the pieces of the emulation that use it (DESIGN.md). */
#ifndef TFD_EMU_TIMER_H
#define TFD_EMU_TIMER_H

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "emu/timer-state.h"

/* The clock a timer's deadlines are kept on: one queue each in the server. */
enum tfd_base { TFD_BASE_MONOTONIC, TFD_BASE_BOOTTIME, TFD_BASE_REALTIME, TFD_NBASES };

/*
 * Timers a family of processes (a process and what it forks) may hold at once: the
 * shared memory is reserved, not committed (MAP_NORESERVE), so an unused slot costs
 * address space only; 32-bit processes reserve less of theirs (about 22 MiB: still room
 * for four prefork workers of 18,000 timers each).
 */
#define TFD_NSLOTS (sizeof(void *) >= 8 ? (1u << 18) : (1u << 17))
#define TFD_NSLOTS_MAX (1u << 18)
#define TFD_NINDEX (2 * TFD_NSLOTS_MAX) /* the inode index: half full at most */

/* A slot's life: the server makes it READY (a FIFO it holds both ends of), a create takes it. */
enum tfd_slot_state {
	TFD_SLOT_FREE,  /* unused */
	TFD_SLOT_READY, /* a spare: the server holds its FIFO's read and write ends */
	TFD_SLOT_TAKEN, /* a create is opening its read end (one process owns it meanwhile) */
	TFD_SLOT_LIVE,  /* a timer: the program holds read ends, the server the write end */
	TFD_SLOT_GIVEN_BACK, /* a create that could not open it: the server frees it */
};

/* FIFOs made ahead, so that a create rarely waits for the server. */
#define TFD_SPARES 8

/* In tfd_slot.busy: a process waits for the server to finish a delivery (futex). */
#define TFD_BUSY_WAITER 0x80000000u

/*
 * One timer as every process of the family and the server see it: in memory
 * mapped MAP_SHARED before the server was cloned, so that after fork() parent,
 * child and server share one timer, as processes share one kernel timer.
 */
struct tfd_slot {
	uint32_t state; /* enum tfd_slot_state, moved by compare-and-swap */
	uint32_t gen;   /* bumped each time the server makes the slot ready: its FIFO's name */
	/*
	 * The arming, as a sequence lock: even while stable, odd while a process, or the
	 * server for its door, changes it (always with @lock held).  The server reads it only with @busy set, and a process that
	 * changes it waits for @busy to clear: so a delivery never crosses a rearm.
	 */
	uint32_t seq;
	uint32_t busy; /* the server is delivering: the even seq it read + 1, TFD_BUSY_WAITER */
	uint32_t drain_req;  /* a rearm asks the server to empty the FIFO (it could not): 1 */
	uint32_t lock_ready; /* @lock was made (by the first create of this slot; robust since) */
	bool maybe_counted;  /* the server wrote a count the program may not have read */
	bool cancel_on_set;  /* armed with TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET */
	bool canceled;       /* the realtime clock was set since (the server found it) */
	bool unnamed;        /* its FIFO has no name (DESIGN.md, "Names"): reopened through /proc */
	int32_t clockid;
	int32_t base; /* enum tfd_base */
	uint64_t dev, ino; /* the FIFO that is the timer's descriptor */
	struct tfd_timer_state st;  /* the arming, as the last settime left it */
	/*
	 * The arming forwarded past the expirations already delivered (written in the FIFO):
	 * by the server with @busy set, by a process with @seq odd (settime resets it, a
	 * gettime that finds the server behind delivers what is due itself).
	 */
	struct tfd_timer_state fwd;
	int64_t armed_offset;      /* CLOCK_REALTIME - CLOCK_MONOTONIC when armed */
	int32_t rt_prio;           /* SCHED_FIFO/SCHED_RR priority of the thread that armed it, or 0 */
	pthread_mutex_t lock;      /* robust, process-shared: one change of the arming at a time */
};

/* The server's lifecycle in tfd_shared.server. */
enum tfd_server_state { TFD_SERVER_NONE, TFD_SERVER_STARTING, TFD_SERVER_RUNNING, TFD_SERVER_CLOSING };

/* The futex word the kernel sets when the server dies (robust list): FUTEX_OWNER_DIED. */
#define TFD_OWNER_DIED 0x40000000u
/* Its other bits (futex(2)): the thread id, and whether a waiter must be woken at the death. */
#define TFD_TID_MASK 0x3fffffffu
#define TFD_FUTEX_WAITERS 0x80000000u

/*
 * A timer server and what it shares with the processes it serves.  A family has up to
 * TFD_SHARDS of them, each serving its own range of slots: one server holds a descriptor
 * per timer, so when its table is full (its RLIMIT_NOFILE, which only a privileged
 * process may raise) the next creates go to the next server (DESIGN.md, "Shards").
 */
#define TFD_SHARDS 16
#define TFD_SHARD_SLOTS (TFD_NSLOTS / TFD_SHARDS) /* shard k serves [k * this, (k + 1) * this) */
#define TFD_SHARD_SLOTS_MAX (TFD_NSLOTS_MAX / TFD_SHARDS)

/* Whether a server's errno @err (a spare it could not make) means its shard holds no more timers. */
static inline bool
tfd_shard_full(int err)
{
	return err == EMFILE || err == ENFILE || err == EXFULL;
}

/*
 * A 64-bit time shared between processes, written by one server: two 32-bit halves under
 * a sequence count.  Not an 8-byte atomic: where the processor has none (ARMv5, 32-bit
 * MIPS and PowerPC, m68k) the compiler's are locks of each process's own, no protection
 * between processes.  All sequentially consistent, as a single atomic was.
 */
struct tfd_shared_ns {
	uint32_t seq, lo, hi;
};

static inline void
tfd_shared_ns_set(struct tfd_shared_ns *t, int64_t ns)
{
	uint32_t seq = __atomic_load_n(&t->seq, __ATOMIC_RELAXED);

	__atomic_store_n(&t->seq, seq + 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&t->lo, (uint32_t)(uint64_t)ns, __ATOMIC_SEQ_CST);
	__atomic_store_n(&t->hi, (uint32_t)((uint64_t)ns >> 32), __ATOMIC_SEQ_CST);
	__atomic_store_n(&t->seq, seq + 2, __ATOMIC_SEQ_CST);
}

/* The time, or @busy if the writer was caught (and stopped, maybe) in the middle, a few times. */
static inline int64_t
tfd_shared_ns_get(const struct tfd_shared_ns *t, int64_t busy)
{
	for (int n = 0; n < 4; n++) {
		uint32_t seq = __atomic_load_n(&t->seq, __ATOMIC_SEQ_CST), lo, hi;

		if (seq & 1)
			continue;
		lo = __atomic_load_n(&t->lo, __ATOMIC_SEQ_CST);
		hi = __atomic_load_n(&t->hi, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&t->seq, __ATOMIC_SEQ_CST) == seq)
			return (int64_t)(((uint64_t)hi << 32) | lo);
	}
	return busy;
}

struct tfd_shard {
	pthread_mutex_t spawn_lock; /* robust, process-shared: one process starts the server */
	uint32_t server;            /* enum tfd_server_state */
	uint32_t server_tid;        /* the server's thread id, TFD_OWNER_DIED once it died */
	int32_t server_err;         /* why the server could not start or make a spare, or 0 */
	uint32_t wake_seq;          /* bumped and woken: the server looks at the dirty slots */
	uint32_t spare_seq;         /* bumped and woken by the server: spares made, or an error */
	struct tfd_shared_ns sleeps_until; /* CLOCK_MONOTONIC ns the server sleeps until */
	uint32_t dir_choice;        /* which of the starter's candidate directories the server made */
	/* The filesystem of the FIFOs (low, high 32 bits), set before the first spare is put out. */
	uint32_t fifo_dev[2];
	/* The filesystem of its unnamed timers' pipes (low, high), set by the process that got one. */
	uint32_t pipe_dev[2];
	/* The server's answers at the door carry it: only the server and its process know it. */
	uint32_t door_key[4];
	/*
	 * 1: timers go without names here (the server reopens through /proc, and answers MAKE):
	 * a create unlinks a spare's name, a non-dumpable process asks for an unnamed timer.
	 */
	uint32_t names_go;
	/* 1: its process makes unnamed timers (MAKE), so spares would only take descriptors. */
	uint32_t want_unnamed;
	uint32_t high_water;        /* the range's first high_water slots were ever used */
	/* READY slots for creates to take (index + 1, 0: taken), refilled by the server. */
	uint32_t spares[TFD_SPARES];
	/* Slots of the range a process changed since the server looked (bit: slot - first). */
	uint32_t dirty[TFD_SHARD_SLOTS_MAX / 32];
	uint32_t dirty_top[TFD_SHARD_SLOTS_MAX / 32 / 32]; /* which words of dirty[] have a bit set */
};

struct tfd_shared {
	uint32_t nslots; /* TFD_NSLOTS of the process that mapped it */
	struct tfd_shard shards[TFD_SHARDS];
	uint32_t index[TFD_NINDEX]; /* FIFO inode -> slot + 1 (written by the servers) */
	struct tfd_slot slots[];
};

/* Lock-free: whether the shard's server runs (a dead one is found through the robust futex). */
static inline bool
__tfd_server_alive(const struct tfd_shard *srv)
{
	uint32_t state = __atomic_load_n(&srv->server, __ATOMIC_SEQ_CST);

	/* A server killed (SIGKILL, the OOM killer) is marked by the kernel: robust list. */
	return state != TFD_SERVER_NONE &&
	       !(__atomic_load_n(&srv->server_tid, __ATOMIC_SEQ_CST) & TFD_OWNER_DIED);
}

/* The shard that serves slot @i. */
static inline struct tfd_shard *
tfd_shard_of(struct tfd_shared *sh, uint32_t i)
{
	return &sh->shards[i / TFD_SHARD_SLOTS];
}

/* --- shared.c: the shared memory, the inode index, the per-slot locks --------------- */
/* State saved by tfd_slot_lock() and put back by tfd_slot_unlock(). */
struct tfd_guard {
	sigset_t mask;
	int cancel;
};
/* Maps this process's family's shared state once: the mapping, or NULL (ENOMEM). */
struct tfd_shared *__tfd_shared_init(void);
/* The size of the mapping (a header's inline: family.c needs it, and nothing else of shared.c). */
static inline size_t
__tfd_shared_size(void)
{
	return offsetof(struct tfd_shared, slots) + (size_t)TFD_NSLOTS * sizeof(struct tfd_slot);
}
/* The mapping's range given to (or kept from) what this process forks. */
void __tfd_shared_fork_policy(struct tfd_shared *sh, bool hand_on);
/* The live slot of the FIFO @dev/@ino, or NULL. */
struct tfd_slot *__tfd_index_find(struct tfd_shared *sh, uint64_t dev, uint64_t ino);
/* Server: records a slot's inode (false: no place left, the index being full) and forgets it. */
bool __tfd_index_add(struct tfd_shared *sh, uint32_t slot, uint64_t ino);
void __tfd_index_remove(struct tfd_shared *sh, uint32_t slot, uint64_t ino);
/*
 * A slot's lock, taken with every signal blocked and cancellation disabled: a signal
 * handler or a cancellation in this thread cannot then find it held by the code it
 * interrupted (the kernel's calls are safe there).
 */
void __tfd_slot_lock_init(struct tfd_slot *s);
/* Every signal blocked and cancellation disabled (what a lock of ours is taken under); and back. */
void __tfd_guard_enter(struct tfd_guard *g);
void __tfd_guard_leave(const struct tfd_guard *g);
void __tfd_slot_lock(struct tfd_slot *s, struct tfd_guard *g);
/* The lock alone, for a caller that blocked signals and cancellation already. */
void __tfd_slot_hold(struct tfd_slot *s);
void __tfd_slot_release(struct tfd_slot *s);
/* The lock if no live holder has it (never waits): whether it is held now. */
bool __tfd_slot_try_hold(struct tfd_slot *s);
void __tfd_slot_unlock(struct tfd_slot *s, const struct tfd_guard *g);
/* Lock held: opens the arming for change (waits out a delivery in progress); and closes it. */
void __tfd_arming_begin(struct tfd_slot *s);
void __tfd_arming_end(struct tfd_slot *s);
/* What gettime needs of a slot, read consistently without its lock. */
struct tfd_arming {
	uint32_t state;
	int32_t base;
	uint64_t ino;
	struct tfd_timer_state st, fwd;
};
void __tfd_arming_read(struct tfd_slot *s, struct tfd_arming *a);
/*
 * --- emu.c: settime's work on a slot, for a process of the family and for a server ----
 * With the arming odd: sets slot @i as timerfd_settime() does, the old setting in @old,
 * when the server must wake in @due; @drain empties its FIFO (0 or -errno: nothing changed).
 */
long __tfd_slot_arm(struct tfd_slot *s, uint32_t i, int flags, const struct tfd_spec *new_value,
		    struct tfd_spec *old, int64_t *due, int (*drain)(uint32_t i, void *ctx), void *ctx);
/* capable(CAP_WAKE_ALARM) for process @pid (0: the calling thread), as the kernel checks it. */
bool __tfd_may_wake_alarm(pid_t pid);

/* Tells the server that slot @i changed; wakes it if it sleeps past @due (monotonic ns). */
void __tfd_server_poke(struct tfd_shared *sh, uint32_t i, int64_t due);

/* --- spawn.c: how the server is made, found and ended ------------------------------ */

/*
 * A READY slot taken for a create (TAKEN), from the first shard whose server has one,
 * starting or waking servers as needed: index or -errno.
 */
long __tfd_server_take_spare(struct tfd_shared *sh);
/*
 * A timer with no name for a create of a non-dumpable process (DESIGN.md, "Names"): TAKEN
 * slot's index with its read end in @fd, -ENOSYS where the server makes none, or -errno.
 */
long __tfd_server_take_unnamed(struct tfd_shared *sh, int flags, int *fd);
/* Settime, slot locked and its arming odd: the server empties the FIFO: 0, or -ENOMEM. */
int __tfd_server_drain(struct tfd_shared *sh, uint32_t i);

/* --- clock.c ------------------------------------------------------------------------ */
pid_t __tfd_emu_pid(void);
int64_t __tfd_base_now(enum tfd_base base);
/* CLOCK_REALTIME - CLOCK_MONOTONIC now: changes only when the realtime clock is set. */
int64_t __tfd_realtime_offset(void);
/*
 * How often the server looks at the clocks while a timer waits on a clock that can jump
 * (CLOCK_REALTIME set, CLOCK_BOOTTIME after suspend): it sleeps on CLOCK_MONOTONIC, so
 * such a jump is noticed this late (libtimerfd(7)).
 */
#define TFD_CLOCK_CHECK_NS 100000000LL
/*
 * When the server must next wake for a timer due at @at on @base's clock (as
 * CLOCK_MONOTONIC ns, saturating): at its expiry, and within TFD_CLOCK_CHECK_NS on a clock
 * that can jump, so that the server starts looking at the clocks at once.
 */
int64_t __tfd_server_due(enum tfd_base base, int64_t at);

#endif /* TFD_EMU_TIMER_H */
