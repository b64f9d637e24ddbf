/* SPDX-License-Identifier: MIT */
/* This process's records of emulated timers, found by the inode of the timer's pipe. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "emu/timer.h"

/*
 * A pipe's inode names it through every descriptor of it, in every process:
 * a dup() the library never saw, a number the program moved with dup2(), a
 * descriptor inherited over fork().  So a record is found by what fstat()
 * says of the descriptor the program passes, never by its number.
 */
static struct tfd_emu_timer **buckets;
static size_t nbuckets, nrecords;

static size_t
bucket_of(uint64_t ino, size_t n)
{
	return (size_t)(ino * 0x9e3779b97f4a7c15ULL >> 20) & (n - 1);
}

struct tfd_emu_timer *
__tfd_registry_find(uint64_t ino)
{
	struct tfd_emu_timer *t;

	if (!nbuckets)
		return NULL;
	for (t = buckets[bucket_of(ino, nbuckets)]; t; t = t->next)
		if (t->ino == ino)
			return t;
	return NULL;
}

/*
 * Room grows at create only, and in two steps so that the lock never covers the allocator
 * (emu.c, lock_with_room()): lookups and removals, which settime may do, never allocate.
 */
size_t
__tfd_registry_room(void)
{
	if (nrecords < nbuckets)
		return 0;
	return nbuckets ? 2 * nbuckets : 64;
}

void *
__tfd_registry_grow(struct tfd_emu_timer **b, size_t n)
{
	struct tfd_emu_timer **old = buckets;

	if (n <= nbuckets)
		return b;
	for (size_t i = 0; i < nbuckets; i++) {
		while (buckets[i]) {
			struct tfd_emu_timer *t = buckets[i];

			buckets[i] = t->next;
			t->next = b[bucket_of(t->ino, n)];
			b[bucket_of(t->ino, n)] = t;
		}
	}
	buckets = b;
	nbuckets = n;
	return old;
}

void
__tfd_registry_insert(struct tfd_emu_timer *t)
{
	struct tfd_emu_timer **head = &buckets[bucket_of(t->ino, nbuckets)];

	t->next = *head;
	*head = t;
	nrecords++;
}

void
__tfd_registry_remove(struct tfd_emu_timer *t)
{
	struct tfd_emu_timer **p;

	for (p = &buckets[bucket_of(t->ino, nbuckets)]; *p; p = &(*p)->next) {
		if (*p == t) {
			*p = t->next;
			nrecords--;
			return;
		}
	}
}

size_t
__tfd_registry_count(void)
{
	return nrecords;
}

void
__tfd_registry_each(void (*fn)(struct tfd_emu_timer *))
{
	for (size_t i = 0; i < nbuckets; i++) {
		struct tfd_emu_timer *t = buckets[i], *next;

		for (; t; t = next) {
			next = t->next;
			fn(t);
		}
	}
}
