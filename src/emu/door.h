/* SPDX-License-Identifier: MIT */
/* A server's door: a process that holds a timer's descriptor, and no more, has it served (door.c). */
#ifndef TFD_EMU_DOOR_H
#define TFD_EMU_DOOR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "emu/emu.h"

/*
 * SETTIME, GETTIME: for any holder of a timer's descriptor.  MAKE: a new timer with no name,
 * for the server's own process alone (DESIGN.md, "Names"), sent with the reply's socket only.
 */
enum tfd_door_op { TFD_DOOR_SETTIME = 1, TFD_DOOR_GETTIME = 2, TFD_DOOR_MAKE = 3 };

/* A request: sent with the timer's descriptor and the reply's socket (SCM_RIGHTS). */
struct tfd_door_req {
	uint32_t magic; /* TFD_DOOR_MAGIC */
	uint32_t op;    /* enum tfd_door_op */
	int32_t flags;  /* settime's */
	uint32_t want_old;
	struct tfd_spec spec;
};

/* The reply: 0 or -errno (TFD_EMU_NOT_OURS: not this server's timer), and the value. */
struct tfd_door_rep {
	int64_t ret;
	struct tfd_spec value;
	uint32_t key[4]; /* MAKE's: the shard's door_key, which only the server and its process know */
};

#define TFD_DOOR_MAGIC 0x74666431u /* "tfd1" */
/* The door's name in its server's directory. */
#define TFD_DOOR_NAME "door"

/* --- a process of the program's ------------------------------------------------------ */
/*
 * Has the timer @fd (a FIFO on @dev) served by the server whose door it is behind, if any
 * (family.c knows the doors): its reply, or TFD_EMU_NOT_OURS.
 */
long __tfd_door_call(int fd, uint64_t dev, const struct tfd_door_req *req, struct tfd_spec *out);
/*
 * MAKE at the door @path, whose server's answers carry @key: the slot's index with the new
 * timer's read end in @fd (close-on-exec if @flags say so), or -errno (-ENOSYS: the server
 * makes none; -EMFILE: this process has no numbers for the exchange; -ENOMEM: no answer
 * of its, as a hijacked door gives).
 */
long __tfd_door_make(const char *path, int flags, const uint32_t key[4], int *fd);
/* The door's path in the directory @dir, in @path of @size bytes: false if it does not fit. */
bool __tfd_door_path(const char *dir, char *path, size_t size);
/* Whether a door may serve a FIFO on @dev: one known for it, or /proc to find one. */
bool __tfd_door_may_serve(uint64_t dev);

/* --- the server ---------------------------------------------------------------------- */
/* The door bound in the directory @dir_fd (the FIFOs'): its descriptor, or -errno. */
int __tfd_door_open(int dir_fd);
/* Makes this process the one a request at @door signals (SIGIO): the server, or its twin. */
void __tfd_door_own(int door);
/* Unbinds the door in the directory @dir, and closes @door unless it is -1. */
void __tfd_door_close(int door, const char *dir);
/*
 * The next request at the door, if any: 1 with the request, the timer's descriptor (-1 for
 * a MAKE), the reply's socket and the sender's pid; 0 if none waits.  A malformed one is
 * dropped.
 */
int __tfd_door_receive(int door, struct tfd_door_req *req, int *timer, int *reply, pid_t *pid);
/* Answers on @reply (never waits) and closes it. */
void __tfd_door_answer(int reply, long ret, const struct tfd_spec *value);
/* Answers a MAKE on @reply with @key and, if @ret >= 0, the descriptor @fd; closes @reply. */
void __tfd_door_answer_make(int reply, long ret, const uint32_t key[4], int fd);

#endif /* TFD_EMU_DOOR_H */
