/* SPDX-License-Identifier: MIT */
/*
 * A hostile process of the program's family, as an attacker writes it: it finds what the
 * library left where another process can see it (writable shared memory in its own map,
 * directories named like the library's, their FIFOs and doors) and writes garbage into all
 * of it.  Check-free: the access cases and tests/access-fuzz.c run it.
 */
#ifndef TFD_TEST_ATTACKER_H
#define TFD_TEST_ATTACKER_H

#include <stdbool.h>
#include <stdint.h>

/* What one round found and did. */
struct attack {
	int shared_maps;      /* writable shared mappings in its own map (/proc/self/maps) */
	long bytes_written;   /* bytes of garbage written into them */
	int dirs;             /* directories named like the library's, in the usual places */
	int dirs_listed;      /* ... that it could list */
	int fifos_opened;     /* FIFOs under them that it opened for writing */
	long forged;          /* garbage counts written into those */
	int doors_knocked;    /* doors it sent garbage (and descriptors of its own) to */
	int doors_served;     /* requests a server answered with success: never */
};

/* The next pseudo-random number from @seed (xorshift64*): a run is replayed from its seed. */
uint64_t attack_random(uint64_t *seed);

/*
 * One round of everything, garbage from @seed; adds what it did to @a.  With @by_name it
 * also lists the directories and writes into every FIFO it can open: for an attacker of
 * another user (one of the same user may open its own files: libtimerfd(7), SECURITY).
 */
void attack_round(uint64_t *seed, bool by_name, struct attack *a);

#endif /* TFD_TEST_ATTACKER_H */
