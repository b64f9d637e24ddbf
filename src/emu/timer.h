/* SPDX-License-Identifier: MIT */
/* One emulated timer and the pieces of the emulation that share it (see DESIGN.md beside). */
#ifndef TFD_EMU_TIMER_H
#define TFD_EMU_TIMER_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "emu/heap.h"
#include "emu/timer-state.h"

/* The clock a timer's deadlines are kept on: one queue each. */
enum tfd_base { TFD_BASE_MONOTONIC, TFD_BASE_BOOTTIME, TFD_BASE_REALTIME, TFD_NBASES };

/*
 * What every process sharing the timer sees (shared.c): it lives in memory
 * mapped MAP_SHARED, so that after fork() parent and child arm, query and
 * expire one timer, as they share one kernel timer.
 */
struct tfd_slot {
	uint32_t gen;       /* bumped when the slot is freed: older references are stale */
	uint32_t next_free; /* free list link (index + 1; 0 ends it) */
	bool live;
	bool maybe_counted; /* a count may sit in the pipe: settime must look */
	bool cancel_on_set; /* armed with TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET */
	bool canceled;      /* the realtime clock was set since */
	uint64_t dev, ino;  /* the pipe that is the timer's descriptor */
	clockid_t clockid;
	enum tfd_base base;
	struct tfd_timer_state st;
	int64_t armed_offset; /* CLOCK_REALTIME - CLOCK_MONOTONIC when armed */
};

/*
 * What this process knows of a timer (private memory, rebuilt as needed
 * after fork): where its shared state is and the descriptors the timer
 * thread holds for it in its own descriptor table.
 */
struct tfd_emu_timer {
	struct tfd_heap_node node; /* in this process's queue of its base while armed */
	struct tfd_emu_timer *next; /* registry hash chain */
	struct tfd_emu_timer *todo; /* the thread's list of records to act on */
	struct tfd_slot *slot;
	uint32_t gen;               /* slot->gen when this record was made */
	uint64_t ino;
	int w;         /* thread's table: the pipe's write end, or -1 */
	int h;         /* thread's table: a read end kept while counts pile up, or -1 */
	int rfd;       /* a number of the program's for it (to reopen a write end after fork) */
	pid_t rfd_tid; /* a thread whose table holds rfd */
	bool queued_cancel; /* counted in the thread's cancel-on-set count */
	bool on_todo;       /* in the thread's list */
	bool watched;       /* w is in the thread's epoll set */
	bool dead;          /* to be reaped by the thread */
	bool piled;         /* the last delivery found the count before it unread */
};

/* --- shared.c: the shared slots and the one lock, taken with signals blocked -------- */

/* State saved by tfd_lock() and put back by tfd_unlock(). */
struct tfd_guard {
	sigset_t mask;
	int cancel;
};
/* Maps the slots and makes the lock once: 0 or -ENOMEM. */
int __tfd_shared_init(void);
/* Whether __tfd_shared_init() succeeded in this process (or a parent). */
bool __tfd_shared_ready(void);
/* The lock itself, for condition variables. */
pthread_mutex_t *__tfd_lock_mutex(void);
/*
 * Takes the lock with every signal blocked and cancellation disabled: a
 * signal handler or a cancellation in this thread cannot then find the lock
 * held by the code it interrupted (the kernel's calls are safe there).
 */
void __tfd_lock(struct tfd_guard *g);
void __tfd_unlock(const struct tfd_guard *g);
/* A free slot, zeroed but for gen, marked live; NULL when all are used. */
struct tfd_slot *__tfd_slot_alloc(void);
void __tfd_slot_free(struct tfd_slot *s);
/* Whether @t's slot is still the timer @t was made for. */
static inline bool
__tfd_slot_current(const struct tfd_emu_timer *t)
{
	return t->slot->live && t->slot->gen == t->gen;
}

/* --- registry.c: this process's records, by the pipe's inode --------------------- */
struct tfd_emu_timer *__tfd_registry_find(uint64_t ino);
/*
 * Room for one more record, in two steps so that the allocation is made with the lock let
 * go: the bucket count to allocate (0: there is room); then, lock held, the new buckets
 * (zeroed) are taken if still needed, and what to free is returned (the old ones, or @b).
 */
size_t __tfd_registry_room(void);
void *__tfd_registry_grow(struct tfd_emu_timer **b, size_t n);
void __tfd_registry_insert(struct tfd_emu_timer *t);
void __tfd_registry_remove(struct tfd_emu_timer *t);
size_t __tfd_registry_count(void);
/* Calls @fn on every record (it may remove the one it is given). */
void __tfd_registry_each(void (*fn)(struct tfd_emu_timer *));

/* --- pipe.c: how a timer's descriptor is made, recognised and fed ------------------ */
/* The inode of @fd if it is the read end of a pipe, else 0; -EBADF if not open. */
long __tfd_pipe_identify(int fd, uint64_t *dev, uint64_t *ino);
/* Thread, once its table is its own: 0, or -ENOSYS without /proc. */
int __tfd_pipe_thread_init(void);
/* Thread: a new pipe in the thread's table: its read end and write end. */
int __tfd_pipe_make(int *r, int *w);
/* Caller: the device and inode of the pipe behind the program's @fd, just opened. */
int __tfd_pipe_inode(int fd, uint64_t *dev, uint64_t *ino);
/* Caller: the program's own read end of the pipe whose read end @r sits in @tid's table. */
long __tfd_pipe_open_reader(pid_t tid, int r, int flags);
/* Thread: a write end of @t's pipe, reopened through the program's number t->rfd. */
int __tfd_pipe_open_writer(struct tfd_emu_timer *t);
/* Thread: adds @n expirations to the count in @t's pipe: 0, or -EPIPE once nobody reads. */
int __tfd_pipe_add(struct tfd_emu_timer *t, uint64_t n);
/* Thread: lets go of the read end kept by __tfd_pipe_add(). */
void __tfd_pipe_let_go(struct tfd_emu_timer *t);
/* Caller: empties the pipe behind the program's @fd (settime drops pending expirations). */
void __tfd_pipe_drain(int fd);

/* --- thread.c: the timer thread, its own descriptor table, queues, fork ------------- */
pid_t __tfd_emu_pid(void);
int64_t __tfd_base_now(enum tfd_base base);
/* CLOCK_REALTIME - CLOCK_MONOTONIC now: changes only when the realtime clock is set. */
int64_t __tfd_realtime_offset(void);
/* Starts the thread if this process has none: 0, or -ENOMEM / -ENOSYS (no own table). */
int __tfd_thread_ensure(void);
/* A fresh pipe from the thread: 0, its ends in the thread's table and the thread's tid, or -errno. */
int __tfd_thread_take_pipe(int *r, int *w, pid_t *tid);
/* The thread's tid (valid once started). */
pid_t __tfd_thread_tid(void);
/* Hands a new record to the thread (its write end goes to the thread's epoll set). */
void __tfd_thread_adopt(struct tfd_emu_timer *t);
/* (Re)queues @t by its shared state and wakes the thread if it must: never fails. */
void __tfd_queue_update(struct tfd_emu_timer *t);
void __tfd_queue_remove(struct tfd_emu_timer *t);
/*
 * Room in the queues for @n timers, so that requeueing never allocates, in the same two
 * steps: each queue's capacity to allocate (0: room enough); then, lock held, the arrays
 * allocated for them are taken where still needed, and each mem[] is left with what to free.
 */
void __tfd_queue_room(size_t n, size_t cap[TFD_NBASES]);
void __tfd_queue_grow(void *mem[TFD_NBASES], const size_t cap[TFD_NBASES]);
/*
 * A record that went stale: off the queue and the registry, its descriptors closed by the
 * thread, and the record buried: freed by whoever lets the lock go where it may call the
 * allocator (the thread, timerfd_create), never under the lock, never by settime/gettime.
 */
void __tfd_thread_reap(struct tfd_emu_timer *t);
/* Lock held: the buried records, now the caller's to free with __tfd_graveyard_free() unlocked. */
struct tfd_emu_timer *__tfd_graveyard_take(void);
void __tfd_graveyard_free(struct tfd_emu_timer *list);

#endif /* TFD_EMU_TIMER_H */
