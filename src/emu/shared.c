/* SPDX-License-Identifier: MIT */
/* The timers' shared state: slots in MAP_SHARED memory and the one lock, robust and process-shared. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>

#include "emu/timer.h"

/*
 * Enough for any descriptor table (RLIMIT_NOFILE's usual ceiling); reserved,
 * not committed (MAP_NORESERVE): a slot's page is touched when first used.
 */
#define NSLOTS 65536

struct tfd_shared {
	pthread_mutex_t lock;
	uint32_t free_head; /* index + 1 of the first freed slot, 0 if none */
	uint32_t used;      /* slots ever handed out (the rest were never touched) */
	struct tfd_slot slots[NSLOTS];
};

static struct tfd_shared *shared;

/*
 * Robust: a process that dies holding the lock (killed inside a call) does
 * not stop the others.  Process-shared: after fork() the lock, like the
 * slots, is one object for parent and child, so neither a fork nor a
 * parent's exit leaves it held; no fork handler has to take it.
 */
static void
shared_map(void)
{
	pthread_mutexattr_t attr;
	struct tfd_shared *none = NULL;
	void *p = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return; /* ENOMEM this time; the next create tries again */
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
	/* Without robust futexes (qemu-user), a plain process-shared lock. */
	if (pthread_mutex_init(&((struct tfd_shared *)p)->lock, &attr) != 0) {
		pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_STALLED);
		pthread_mutex_init(&((struct tfd_shared *)p)->lock, &attr);
	}
	pthread_mutexattr_destroy(&attr);
	/* Threads may race to make the first timer: one mapping wins. */
	if (!__atomic_compare_exchange_n(&shared, &none, (struct tfd_shared *)p, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		munmap(p, sizeof(*shared));
}

int
__tfd_shared_init(void)
{
	if (!__tfd_shared_ready())
		shared_map();
	return __tfd_shared_ready() ? 0 : -ENOMEM;
}

bool
__tfd_shared_ready(void)
{
	return __atomic_load_n(&shared, __ATOMIC_ACQUIRE) != NULL;
}

pthread_mutex_t *
__tfd_lock_mutex(void)
{
	return &shared->lock;
}

void
__tfd_lock(struct tfd_guard *g)
{
	sigset_t all;

	sigfillset(&all);
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &g->cancel);
	pthread_sigmask(SIG_BLOCK, &all, &g->mask);
	/* A holder that died left the timer it was changing as it was: carry on. */
	if (pthread_mutex_lock(&shared->lock) == EOWNERDEAD)
		pthread_mutex_consistent(&shared->lock);
}

void
__tfd_unlock(const struct tfd_guard *g)
{
	pthread_mutex_unlock(&shared->lock);
	pthread_sigmask(SIG_SETMASK, &g->mask, NULL);
	pthread_setcancelstate(g->cancel, NULL);
}

struct tfd_slot *
__tfd_slot_alloc(void)
{
	struct tfd_slot *s;
	uint32_t gen;

	if (shared->free_head) {
		s = &shared->slots[shared->free_head - 1];
		shared->free_head = s->next_free;
	} else if (shared->used < NSLOTS) {
		s = &shared->slots[shared->used++];
	} else {
		return NULL;
	}
	gen = s->gen;
	memset(s, 0, sizeof(*s));
	s->gen = gen;
	s->live = true;
	return s;
}

void
__tfd_slot_free(struct tfd_slot *s)
{
	s->live = false;
	s->gen++;
	s->next_free = shared->free_head;
	shared->free_head = (uint32_t)(s - shared->slots) + 1;
}
