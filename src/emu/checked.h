/* SPDX-License-Identifier: MIT */
/*
 * What is read from shared memory, checked before use: the one place for it (DESIGN.md,
 * "The trust boundary").  Another process may have written any value there; each check
 * gives a value that is safe to use, or says that there is none.
 */
#ifndef TFD_EMU_CHECKED_H
#define TFD_EMU_CHECKED_H

#include <stdbool.h>
#include <stdint.h>

#include "emu/timer.h"

/* A clock base read from a slot (@b, a copy): one of the clocks' bases, or false. */
static inline bool
tfd_checked_base_value(int32_t b, enum tfd_base *out)
{
	if (b < 0 || b >= TFD_NBASES)
		return false;
	*out = (enum tfd_base)b;
	return true;
}

/* A slot's clock base: a queue of the server's, or false. */
static inline bool
tfd_checked_base(const struct tfd_slot *s, enum tfd_base *out)
{
	return tfd_checked_base_value(__atomic_load_n(&s->base, __ATOMIC_RELAXED), out);
}

/* An entry of the inode index or of a shard's spares (slot + 1): a slot of @first's range, or false. */
static inline bool
tfd_checked_slot(uint32_t entry, uint32_t first, uint32_t count, uint32_t *slot)
{
	if (entry == 0 || entry - 1 < first || entry - 1 - first >= count)
		return false;
	*slot = entry - 1;
	return true;
}

/* Which of the starter's @n candidate directories the server made: an index, or false. */
static inline bool
tfd_checked_choice(uint32_t c, int n, int *out)
{
	if (n < 0 || c >= (uint32_t)n)
		return false;
	*out = (int)c;
	return true;
}

#endif /* TFD_EMU_CHECKED_H */
