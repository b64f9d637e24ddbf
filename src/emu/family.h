/* SPDX-License-Identifier: MIT */
/* What one process knows of the emulated timers: its own family's (forgotten at fork) and its doors. */
#ifndef TFD_EMU_FAMILY_H
#define TFD_EMU_FAMILY_H

#include <stdbool.h>
#include <stdint.h>

struct tfd_shared;

/* A directory path the library makes: its server's, one shard's FIFOs. */
#define TFD_DIR_MAX 240
/* A door's path: what a sockaddr_un holds (sun_path, 108 bytes with its NUL). */
#define TFD_DOOR_MAX 108

/*
 * How a shard's FIFOs are named: the directory that holds them (its last component is
 * secret) and the secret in every name.  Never in shared memory: the process that made the
 * family and its servers alone know it (DESIGN.md, "The trust boundary").
 */
struct tfd_names {
	uint64_t secret[2];
	char dir[TFD_DIR_MAX];
};

/*
 * This process's own family: the shared mapping and the names of its shards, kept in
 * memory that fork() hands on wiped (MADV_WIPEONFORK), so that a child starts a family
 * of its own; NULL in a child, or before the first create.
 */
struct tfd_shared *__tfd_shared(void);
/* Records @sh as this process's mapping (once; the winner of a race): the mapping kept. */
struct tfd_shared *__tfd_family_adopt(struct tfd_shared *sh);
/* The names of a server whose directory is @outer and whose secret is @secret: 0 or -ENAMETOOLONG. */
int __tfd_names_for(const char *outer, const uint64_t secret[2], struct tfd_names *out);
/* Shard @k's names (this process made the shard's server), or NULL. */
const struct tfd_names *__tfd_names(uint32_t k);
void __tfd_names_set(uint32_t k, const struct tfd_names *n);

/*
 * The doors of the servers this process has started or inherited (plain memory: fork()
 * hands them on): a FIFO on @dev may be a timer served behind one (door.c).
 */
void __tfd_door_remember(const char *path, uint64_t dev);
/* The @n-th door known for FIFOs on @dev, copied to @path: true, or false past the last. */
bool __tfd_door_nth(uint64_t dev, unsigned n, char path[TFD_DOOR_MAX]);

#endif /* TFD_EMU_FAMILY_H */
