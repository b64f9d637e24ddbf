/* SPDX-License-Identifier: MIT */
/* The timer server: what its start needs (spawn.c) and its main loop (server.c). */
#ifndef TFD_EMU_SERVER_H
#define TFD_EMU_SERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "emu/family.h"
#include "emu/timer.h"

/*
 * Where the server may make its directory, first to last, decided by the process that
 * starts it, and the secret of its FIFOs' names: on the starter's stack, copied by the
 * clone, never in shared memory.
 */
struct tfd_server_start {
	char candidates[4][TFD_DIR_MAX];
	int ncandidates;
	uint64_t secret[2];
	/* A server of the shard that died: its names (the starter's record) and how far it got. */
	bool dead_before;
	struct tfd_names dead;
	uint32_t dead_high_water;
	/* The process that starts it, the only one that creates through it (its family is its own). */
	pid_t creator;
};

/* Runs in the cloned server process of shard @shard; never returns. */
void __tfd_server_main(struct tfd_shared *sh, int shard, const struct tfd_server_start *start)
	__attribute__((noreturn));

#endif /* TFD_EMU_SERVER_H */
