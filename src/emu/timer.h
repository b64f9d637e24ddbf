/* SPDX-License-Identifier: MIT */
/* One emulated timer and the pieces of the emulation that share it: registry, queues, thread. */
#ifndef TFD_EMU_TIMER_H
#define TFD_EMU_TIMER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "emu/heap.h"
#include "emu/timer-state.h"

/* The clock a timer's deadlines are kept on: one queue each. */
enum tfd_base { TFD_BASE_MONOTONIC, TFD_BASE_BOOTTIME, TFD_BASE_REALTIME, TFD_NBASES };

struct tfd_emu_timer {
	struct tfd_heap_node node; /* in the queue of its base while armed */
	int fd;                    /* one descriptor number the program holds for it */
	int shadow;                /* our own dup of the eventfd: writes and identity */
	int nfds;                  /* descriptor numbers registered for it */
	clockid_t clockid;
	enum tfd_base base;
	struct tfd_timer_state st;
	bool cancel_on_set;    /* armed with TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET */
	bool canceled;         /* the realtime clock was set since */
	int64_t armed_offset;  /* CLOCK_REALTIME - CLOCK_MONOTONIC when armed */
	int64_t next_alive_check; /* base-clock ns when the thread next checks it was closed */
};

/* Everything below is guarded by this one lock. */
extern pthread_mutex_t __tfd_emu_lock;

/* Registry (registry.c): the timer behind @fd, by file identity, or NULL. */
struct tfd_emu_timer *__tfd_registry_lookup(int fd);
/* Registers @fd for @t: 0 or -ENOMEM. */
int __tfd_registry_add(int fd, struct tfd_emu_timer *t);
/* Checks a couple of registered timers for descriptors the program closed, and reclaims them. */
void __tfd_registry_sweep(void);
/* Whether @fd still refers to @t's file. */
bool __tfd_registry_alive(int fd, const struct tfd_emu_timer *t);
/* Drops every registered number that no longer refers to @t (at the last, @t is an orphan). */
void __tfd_registry_drop_closed(struct tfd_emu_timer *t);
/* Destroys the orphans the program holds no descriptor of, when a batch is due. */
void __tfd_registry_resolve_orphans(void);

/* Queues and thread (thread.c). */
/* This process's id, without a syscall (kept up to date across fork). */
pid_t __tfd_emu_pid(void);
int64_t __tfd_base_now(enum tfd_base base);
/* (Re)queues @t by its state, starting the timer thread if needed: 0 or -errno. */
int __tfd_queue_update(struct tfd_emu_timer *t);
void __tfd_queue_remove(struct tfd_emu_timer *t);
/* Adds @n expirations to @t's descriptor. */
void __tfd_deliver(struct tfd_emu_timer *t, uint64_t n);
/* Empties @t's descriptor of pending expirations. */
void __tfd_discard(struct tfd_emu_timer *t);
/* CLOCK_REALTIME - CLOCK_MONOTONIC now: changes only when the realtime clock is set. */
int64_t __tfd_realtime_offset(void);

#endif /* TFD_EMU_TIMER_H */
