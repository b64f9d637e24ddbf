/* SPDX-License-Identifier: MIT */
/* A binary min-heap of intrusive nodes: O(log n) insert, remove and re-key, O(1) minimum. */
#ifndef TFD_EMU_HEAP_H
#define TFD_EMU_HEAP_H

#include <stddef.h>
#include <stdint.h>

#define TFD_HEAP_NONE ((size_t)-1)

struct tfd_heap_node {
	int64_t key;
	size_t pos; /* index in the heap, or TFD_HEAP_NONE when not queued */
};

struct tfd_heap {
	struct tfd_heap_node **v;
	size_t n, cap;
};

/* Room for @n nodes: the capacity to allocate for it, or 0 when there is room already. */
size_t tfd_heap_room(const struct tfd_heap *h, size_t n);
/* Takes @v (room for @cap nodes) if that is more room; returns what to free: the old array, or @v. */
void *tfd_heap_grow(struct tfd_heap *h, struct tfd_heap_node **v, size_t cap);
/* Both in one (it allocates): room for @n nodes, so that pushes up to there cannot fail: 0, or -ENOMEM. */
int tfd_heap_reserve(struct tfd_heap *h, size_t n);
/* Queues @node (pos must be TFD_HEAP_NONE): 0, or -ENOMEM. */
int tfd_heap_push(struct tfd_heap *h, struct tfd_heap_node *node);
/* Unqueues @node if queued. */
void tfd_heap_remove(struct tfd_heap *h, struct tfd_heap_node *node);
/* The node with the smallest key, or NULL. */
struct tfd_heap_node *tfd_heap_top(const struct tfd_heap *h);
/* Frees the heap's array (the nodes belong to their owners). */
void tfd_heap_free(struct tfd_heap *h);

#endif /* TFD_EMU_HEAP_H */
