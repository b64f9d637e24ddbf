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
	int dirs_opened_up;   /* directories of its own user it chmod-ed to list them (put back) */
	int fifos_read;       /* FIFOs it opened for reading (attack_own_files()) */
	long bytes_read;      /* bytes it read from those */
	long stolen;          /* counts among them that it had not forged: a timer's, taken */
	int held;             /* descriptors it kept open from round to round, at most */
};

/* The next pseudo-random number from @seed (xorshift64*): a run is replayed from its seed. */
uint64_t attack_random(uint64_t *seed);

/*
 * One round of everything, garbage from @seed; adds what it did to @a.  With @by_name it
 * also lists the directories and writes into every FIFO it can open: for an attacker of
 * another user (one of the same user may open its own files: libtimerfd(7), SECURITY).
 */
void attack_round(uint64_t *seed, bool by_name, struct attack *a);

/* Descriptors attack_own_files() keeps open from round to round, at most. */
#define HELD_MAX 256
/* The program's directories that it attacks. */
#define HELD_TARGETS_MAX 8

/*
 * What an attacker of the program's own user keeps between rounds: the ends of FIFOs it
 * opened, so that a spare FIFO (made ahead by a server) it holds forges into and reads from
 * the timer later made of it; and which directories are the program's.  Large: static.
 */
struct held {
	int n;                                 /* descriptors held */
	int fd[HELD_MAX];                      /* FIFOs' ends it opened */
	bool writer[HELD_MAX];                 /* ... for writing, else for reading */
	uint64_t dev[HELD_MAX], ino[HELD_MAX]; /* ... of which FIFO: each opened once */
	int ntargets;
	char targets[HELD_TARGETS_MAX][256];   /* the program's directories (held_aim()) */
};

/*
 * An attacker of the program's own user: holds nothing yet, and ignores SIGPIPE (a write
 * end it holds outlives the FIFO's readers).
 */
void held_init(struct held *h);

/*
 * The program's directory @dir (as the program found it: tests/dirs.h, library_dir_of()),
 * if it is one of its own user's, is what attack_own_files() attacks; nothing else (the
 * user's other programs, the suite's other processes running beside it, are left alone).
 */
void held_aim(struct held *h, const char *dir);

/*
 * One round of a process of the program's own user, which owns the library's directories:
 * chmods each of the program's (held_aim()) and its subdirectories so that it can list them
 * (their modes put back at the end of the round), opens every FIFO there (two levels) for
 * writing and writes a forged count (0x4141414141414141), and for reading and reads what
 * waits (counts stolen), keeping up to HELD_MAX of those descriptors open in @h; then writes
 * a forged count into every write end it holds and reads from every read end it holds
 * (waiting up to 1 ms for one).  What it did is added to @a.
 */
void attack_own_files(struct attack *a, struct held *h);

/* Lets go of every descriptor held. */
void held_release(struct held *h);

#endif /* TFD_TEST_ATTACKER_H */
