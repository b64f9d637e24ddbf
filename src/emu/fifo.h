/* SPDX-License-Identifier: MIT */
/* An emulated timer's descriptor, a FIFO: its interface (fifo.c). */
#ifndef TFD_EMU_FIFO_H
#define TFD_EMU_FIFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tfd_shared;

/* "<slot>-<gen>-<secret>": 8 + 1 + 8 + 1 + 32 hexadecimal digits and dashes. */
#define TFD_FIFO_NAME_MAX 50
/* A FIFO's whole path: its server's directory, '/', its name, the terminating NUL. */
#define TFD_FIFO_PATH_MAX (sizeof(((struct tfd_shard *)0)->dir) + TFD_FIFO_NAME_MAX + 2)

/* What the server holds of one timer's FIFO, in its own descriptor table (-1: none). */
struct tfd_fifo_ends {
	int r; /* a read end, held while the FIFO is a spare (no create has opened it yet) */
	int w; /* the write end */
	int h; /* a read end kept while counts pile up unread */
	uint64_t dev, ino;
};

/* --- a process of the program's ---------------------------------------------------- */
/* The FIFO's path of slot @i in generation @gen: 0, or -ENAMETOOLONG. */
int __tfd_fifo_path(struct tfd_shared *sh, uint32_t i, uint32_t gen, char *buf, size_t size);
/* Whether @fd may be a timer's FIFO: 1 with its device and inode, 0 if not, -EBADF. */
long __tfd_fifo_identify(struct tfd_shared *sh, int fd, uint64_t *dev, uint64_t *ino);
/* Create: the program's read end of slot @i's FIFO with @flags, checked to be it: fd or -errno. */
long __tfd_fifo_open_reader(struct tfd_shared *sh, uint32_t i, int flags);
/* Settime: empties the FIFO behind the program's @fd: 0, or -errno if it could not. */
int __tfd_fifo_drain(struct tfd_shared *sh, uint32_t i, int fd);

/* Gettime, arming odd: adds @n expirations to the count itself (the server is late). */
int __tfd_fifo_catch_up(struct tfd_shared *sh, uint32_t i, uint64_t n);

/* --- the server ---------------------------------------------------------------------- */
/* Makes slot @i's FIFO in @dir (its current gen) and opens both ends: 0 or -errno. */
int __tfd_fifo_make(struct tfd_shared *sh, int dir, uint32_t i, struct tfd_fifo_ends *e);
/* Unlinks slot @i's FIFO and closes every end held (call before the gen changes). */
void __tfd_fifo_unmake(struct tfd_shared *sh, int dir, uint32_t i, struct tfd_fifo_ends *e);
/*
 * Adds @n expirations to the count in the FIFO: 0, 1 if a count waited unread, -EPIPE once
 * nobody reads, -EAGAIN if nothing could be written (try again).  @dir is the server's
 * directory, or AT_FDCWD for a process of the program's.
 */
int __tfd_fifo_add(struct tfd_shared *sh, int dir, uint32_t i, struct tfd_fifo_ends *e, uint64_t n);
/* Empties the FIFO through the server's own read end (a rearm could not): 0 or -errno. */
int __tfd_fifo_empty(struct tfd_shared *sh, int dir, uint32_t i, struct tfd_fifo_ends *e);
/* Unlinks what a dead server left in @dir: slots [@first, @first + @n)'s FIFOs, named with @secret. */
void __tfd_fifo_remove_dead(int dir, const uint64_t secret[2], struct tfd_shared *sh, uint32_t first,
			    uint32_t n);
/* Lets go of the read end kept by __tfd_fifo_add(). */
void __tfd_fifo_let_go(struct tfd_fifo_ends *e);
/* Whether every read end of the program's is closed. */
bool __tfd_fifo_closed(const struct tfd_fifo_ends *e);

#endif /* TFD_EMU_FIFO_H */
