/* SPDX-License-Identifier: MIT */
/* What one process knows of the emulated timers: its own family's (forgotten at fork) and its doors. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "emu/family.h"
#include "emu/fifo.h"
#include "emu/process.h"
#include "emu/sys.h"
#include "emu/timer.h"

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18
#endif

/*
 * The own family's record: in a private page that a fork()ed child sees zeroed (Linux
 * 4.14's MADV_WIPEONFORK), so that nothing of it (the mapping, the FIFOs' names) is used
 * or readable there.  Where the kernel refuses that, the record says whose it is and a
 * process compares its pid (one more system call a call): the child then ignores it.
 */
struct own {
	struct tfd_shared *sh;
	pid_t pid;     /* the process it is valid in, where @wipes is false */
	uint32_t wipes; /* fork() wipes it */
	uint32_t ready[TFD_SHARDS]; /* names[k] is written (release; read with acquire) */
	struct tfd_names names[TFD_SHARDS];
};

static struct own *own_page;

/*
 * The family's mapping, where a fork()ed child can still learn its address (the record is
 * wiped).  The kernel does not hand it on (MADV_DONTFORK), but valgrind, which models the
 * address space, believes it does: its leak check then scans the missing tens of MB word
 * by word, for minutes.  Under valgrind the child unmaps it (valgrind placed nothing in the
 * range it believes taken).  Nowhere else: there the range is free in the child, and
 * another fork handler may have mapped something in it already.
 */
static struct tfd_shared *adopted;

/*
 * fork() through the C library also forgets the record in the child, as the kernel's wipe
 * does: where madvise() is accepted and ignored (qemu-user), a child still starts a family
 * of its own (the parent's memory it then has, it does not use: libtimerfd(7)).
 */
static void
forget_in_child(void)
{
	struct own *o = __atomic_load_n(&own_page, __ATOMIC_ACQUIRE);
	struct tfd_shared *sh = __atomic_exchange_n(&adopted, NULL, __ATOMIC_ACQ_REL);

	if (sh && __tfd_under_valgrind())
		munmap(sh, __tfd_shared_size());
	if (o) {
		__atomic_store_n(&o->sh, NULL, __ATOMIC_RELEASE);
		memset(o->ready, 0, sizeof(o->ready));
		o->pid = getpid();
	}
}

static struct own *
own_record(bool make)
{
	struct own *o = __atomic_load_n(&own_page, __ATOMIC_ACQUIRE), *none = NULL;

	if (!o && make) {
		o = mmap(NULL, sizeof(*o), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (o == MAP_FAILED)
			return NULL;
		o->wipes = madvise(o, sizeof(*o), MADV_WIPEONFORK) == 0;
		o->pid = getpid();
		if (!__atomic_compare_exchange_n(&own_page, &none, o, false, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE)) {
			munmap(o, sizeof(*o));
			o = none;
		} else {
			pthread_atfork(NULL, NULL, forget_in_child);
		}
	}
	if (!o)
		return NULL;
	/* Not wiped by fork(): the parent's record, which this process must not use. */
	if (!__atomic_load_n(&o->wipes, __ATOMIC_ACQUIRE)) {
		pid_t me = getpid(), was = __atomic_load_n(&o->pid, __ATOMIC_ACQUIRE);

		if (was != me) {
			if (!make)
				return NULL;
			/* A child's first create: the record becomes its own, empty. */
			if (__atomic_compare_exchange_n(&o->pid, &was, me, false, __ATOMIC_ACQ_REL,
							__ATOMIC_ACQUIRE)) {
				memset(o->ready, 0, sizeof(o->ready));
				__atomic_store_n(&o->sh, NULL, __ATOMIC_RELEASE);
			}
		}
	}
	return o;
}

struct tfd_shared *
__tfd_shared(void)
{
	struct own *o = own_record(false);

	return o ? __atomic_load_n(&o->sh, __ATOMIC_ACQUIRE) : NULL;
}

struct tfd_shared *
__tfd_family_adopt(struct tfd_shared *sh)
{
	struct own *o = own_record(true);
	struct tfd_shared *none = NULL;

	if (!o)
		return NULL;
	if (__atomic_compare_exchange_n(&o->sh, &none, sh, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&adopted, sh, __ATOMIC_RELEASE);
		return sh;
	}
	return none;
}

const struct tfd_names *
__tfd_names(uint32_t k)
{
	struct own *o = own_record(false);

	return o && k < TFD_SHARDS && __atomic_load_n(&o->ready[k], __ATOMIC_ACQUIRE) ? &o->names[k]
										 : NULL;
}

int
__tfd_names_for(const char *outer, const uint64_t secret[2], struct tfd_names *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = strnlen(outer, TFD_DIR_MAX);

	/* "<outer>/<32 hexadecimal digits>", and room in it for a FIFO's name. */
	if (n + 1 + 32 + 1 + TFD_FIFO_NAME_MAX + 1 > TFD_DIR_MAX)
		return -ENAMETOOLONG;
	memcpy(out->dir, outer, n);
	out->dir[n++] = '/';
	for (int w = 0; w < 2; w++)
		for (int shift = 60; shift >= 0; shift -= 4)
			out->dir[n++] = hex[(secret[w] >> shift) & 15];
	out->dir[n] = '\0';
	memcpy(out->secret, secret, sizeof(out->secret));
	return 0;
}

void
__tfd_names_set(uint32_t k, const struct tfd_names *n)
{
	struct own *o = own_record(true);

	/* Written before it is marked ready; never rewritten while ready (its server runs). */
	if (o && k < TFD_SHARDS) {
		__atomic_store_n(&o->ready[k], 0, __ATOMIC_RELEASE);
		o->names[k] = *n;
		__atomic_store_n(&o->ready[k], 1, __ATOMIC_RELEASE);
	}
}

/*
 * --- doors ----------------------------------------------------------------------------
 * A ring of the last TFD_DOORS doors, each entry under a sequence count (written by the
 * thread that started a server, with its shard's spawn lock held; read by any thread).
 */
#define TFD_DOORS 32

static struct {
	uint32_t seq;
	uint64_t dev;
	char path[TFD_DOOR_MAX];
} doors[TFD_DOORS];
static uint32_t doors_next;

void
__tfd_door_remember(const char *path, uint64_t dev)
{
	uint32_t k = __atomic_fetch_add(&doors_next, 1, __ATOMIC_ACQ_REL) % TFD_DOORS;
	size_t n = strnlen(path, TFD_DOOR_MAX);

	if (n >= TFD_DOOR_MAX)
		return;
	__atomic_fetch_add(&doors[k].seq, 1, __ATOMIC_ACQ_REL);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	doors[k].dev = dev;
	memcpy(doors[k].path, path, n + 1);
	__atomic_fetch_add(&doors[k].seq, 1, __ATOMIC_RELEASE);
}

__attribute__((no_sanitize_thread)) bool
__tfd_door_nth(uint64_t dev, unsigned n, char path[TFD_DOOR_MAX])
{
	/* The newest first: a family that lives on is one of the last started. */
	uint32_t last = __atomic_load_n(&doors_next, __ATOMIC_ACQUIRE);

	for (uint32_t j = 0; j < TFD_DOORS && j < last; j++) {
		uint32_t k = (last - 1 - j) % TFD_DOORS;
		uint32_t seq = __atomic_load_n(&doors[k].seq, __ATOMIC_ACQUIRE);
		uint64_t d;

		if (seq & 1)
			continue;
		d = doors[k].dev;
		memcpy(path, doors[k].path, TFD_DOOR_MAX);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&doors[k].seq, __ATOMIC_RELAXED) != seq || d != dev || !path[0])
			continue;
		path[TFD_DOOR_MAX - 1] = '\0';
		if (n-- == 0)
			return true;
	}
	return false;
}
