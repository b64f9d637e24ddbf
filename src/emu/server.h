/* SPDX-License-Identifier: MIT */
/* The timer server: what its start needs (spawn.c) and its main loop (server.c). */
#ifndef TFD_EMU_SERVER_H
#define TFD_EMU_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "emu/timer.h"

/* Where the server may make its private directory, first to last, decided by the program. */
struct tfd_server_start {
	char candidates[4][sizeof(((struct tfd_shard *)0)->dir)];
	int ncandidates;
	/* A server of the shard that died: its directory, its FIFOs' secret, how many slots it used. */
	bool dead_before;
	char dead_dir[sizeof(((struct tfd_shard *)0)->dir)];
	uint64_t dead_secret[2];
	uint32_t dead_high_water;
};

/* Runs in the cloned server process of shard @shard; never returns. */
void __tfd_server_main(struct tfd_shared *sh, int shard, const struct tfd_server_start *start)
	__attribute__((noreturn));

#endif /* TFD_EMU_SERVER_H */
