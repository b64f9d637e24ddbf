/* SPDX-License-Identifier: MIT */
/* An emulated timer's descriptor, a FIFO: its interface (fifo.c). */
#ifndef TFD_EMU_FIFO_H
#define TFD_EMU_FIFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu/family.h"
#include "emu/timer-state.h"

struct tfd_shared;

/* "<slot>-<gen>-<secret>": 8 + 1 + 8 + 1 + 32 hexadecimal digits and dashes. */
#define TFD_FIFO_NAME_MAX 50
/* A FIFO's whole path: its server's directory, '/', its name, the terminating NUL. */
#define TFD_FIFO_PATH_MAX (TFD_DIR_MAX + TFD_FIFO_NAME_MAX + 2)

/* What the server holds of one timer's FIFO, in its own descriptor table (-1: none). */
struct tfd_fifo_ends {
	int r; /* a read end, held while the FIFO is a spare (no create has opened it yet) */
	int w; /* the write end */
	int h; /* a read end kept while counts pile up unread */
	uint32_t gen; /* the generation in its name */
	bool unnamed; /* it has no name (never had, or unlinked once live): reopened through /proc */
	uint64_t dev, ino;
};

/* --- a process of the program's ---------------------------------------------------- */
/* The FIFO's path of slot @i in generation @gen: 0, or -ENAMETOOLONG. */
int __tfd_fifo_path(const struct tfd_names *nm, uint32_t i, uint32_t gen, char *buf, size_t size);
/* Whether @fd is a FIFO (maybe a timer's): 1 with its device and inode, 0 if not, -EBADF. */
long __tfd_fifo_identify(int fd, uint64_t *dev, uint64_t *ino);
/* Whether @dev is where a server of @sh makes its FIFOs. */
bool __tfd_fifo_dev_of_a_shard(const struct tfd_shared *sh, uint64_t dev);
/* Create: the program's read end of slot @i's FIFO with @flags, checked to be it: fd or -errno. */
long __tfd_fifo_open_reader(struct tfd_shared *sh, uint32_t i, int flags);
/*
 * Create, read end open: slot @i's name goes now, before the create returns, where the
 * server says live timers go without (DESIGN.md, "Names"); else (EACCES) at the server.
 */
void __tfd_fifo_unname_taken(struct tfd_shared *sh, uint32_t i);
/*
 * Settime: empties slot @i's FIFO through a read end of its own (by name, or through
 * @held, the caller's descriptor, where it has none): 0, or -errno if it could not.
 */
int __tfd_fifo_drain(struct tfd_shared *sh, uint32_t i, int held);

/* Gettime, arming odd: adds @n expirations to the count itself (the server is late). */
int __tfd_fifo_catch_up(struct tfd_shared *sh, uint32_t i, int held, uint64_t n);

/* --- the server ---------------------------------------------------------------------- */
/* Makes slot @i's FIFO in @dir (generation @e->gen) and opens both ends: 0 or -errno. */
int __tfd_fifo_make(const struct tfd_names *nm, int dir, uint32_t i, struct tfd_fifo_ends *e);
/*
 * After a takeover: forgets the ends in @e that are not this FIFO in this table, and opens
 * its write end by name if it is not held: 0 if it was, 1 if opened now, -ENXIO once no
 * reader is left, or -errno.
 */
int __tfd_fifo_check_ends(const struct tfd_names *nm, int dir, uint32_t i, struct tfd_fifo_ends *e);
/*
 * A delivery in flight, kept by the server where its twin sees it, so that a kill in the
 * middle neither loses nor doubles a count: the counts taken out of the FIFO to be summed
 * (read straight into it: a count is never 0, so a non-zero word was taken), and the
 * timer's progress, stored just before the count is written (a SIGKILL that arrives
 * during the write takes effect as it returns: the write is then done) and put back if
 * the write fails.  @fwd NULL: no progress to store (the restore of what a dead server
 * took).  Cleared by __tfd_fifo_add() when it returns.
 */
struct tfd_flight {
	uint64_t taken[8];
	struct tfd_timer_state *fwd;
	struct tfd_timer_state next;
	uint32_t slot; /* slot + 1 while in flight */
	uint32_t seq;  /* the slot's arming sequence when it started (the server's, not used here) */
};

/* Unlinks slot @i's FIFO, whose ends stay open: a live timer is reached by no name. */
void __tfd_fifo_unname(const struct tfd_names *nm, int dir, uint32_t i, struct tfd_fifo_ends *e);
/* Unlinks slot @i's FIFO (if it has a name) and closes every end held. */
void __tfd_fifo_unmake(const struct tfd_names *nm, int dir, uint32_t i, struct tfd_fifo_ends *e);
/*
 * Adds @n expirations to the count in the FIFO: 0, 1 if a count waited unread, -EPIPE once
 * nobody reads, -EAGAIN if nothing could be written (try again).  @dir is the server's
 * directory, or AT_FDCWD for a process of the program's.
 */
int __tfd_fifo_add(struct tfd_shared *sh, const struct tfd_names *nm, int dir, uint32_t i,
		   struct tfd_fifo_ends *e, uint64_t n, struct tfd_flight *f);
/* Empties the FIFO through the server's own read end (a rearm could not): 0 or -errno. */
int __tfd_fifo_empty(const struct tfd_names *nm, int dir, uint32_t i, struct tfd_fifo_ends *e);
/* Lets go of the read end kept by __tfd_fifo_add(). */
void __tfd_fifo_let_go(struct tfd_fifo_ends *e);
/* Whether every read end of the program's is closed. */
bool __tfd_fifo_closed(const struct tfd_fifo_ends *e);

#endif /* TFD_EMU_FIFO_H */
