/* SPDX-License-Identifier: MIT */
/* A binary min-heap of intrusive nodes, for the timer thread's queue of deadlines. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu/heap.h"

static void
place(struct tfd_heap *h, size_t i, struct tfd_heap_node *node)
{
	h->v[i] = node;
	node->pos = i;
}

static void
sift_up(struct tfd_heap *h, size_t i)
{
	struct tfd_heap_node *node = h->v[i];

	while (i > 0 && h->v[(i - 1) / 2]->key > node->key) {
		place(h, i, h->v[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	place(h, i, node);
}

static void
sift_down(struct tfd_heap *h, size_t i)
{
	struct tfd_heap_node *node = h->v[i];

	for (;;) {
		size_t child = 2 * i + 1;

		if (child >= h->n)
			break;
		if (child + 1 < h->n && h->v[child + 1]->key < h->v[child]->key)
			child++;
		if (h->v[child]->key >= node->key)
			break;
		place(h, i, h->v[child]);
		i = child;
	}
	place(h, i, node);
}

size_t
tfd_heap_room(const struct tfd_heap *h, size_t n)
{
	size_t cap = h->cap ? h->cap : 64;

	if (n <= h->cap)
		return 0;
	while (cap < n)
		cap *= 2;
	return cap;
}

void *
tfd_heap_grow(struct tfd_heap *h, struct tfd_heap_node **v, size_t cap)
{
	struct tfd_heap_node **old = h->v;

	if (cap <= h->cap)
		return v;
	if (h->n)
		memcpy(v, old, h->n * sizeof(*v));
	h->v = v;
	h->cap = cap;
	return old;
}

int
tfd_heap_reserve(struct tfd_heap *h, size_t n)
{
	size_t cap = tfd_heap_room(h, n);
	struct tfd_heap_node **v;

	if (!cap)
		return 0;
	v = malloc(cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	free(tfd_heap_grow(h, v, cap));
	return 0;
}

int
tfd_heap_push(struct tfd_heap *h, struct tfd_heap_node *node)
{
	if (h->n == h->cap && tfd_heap_reserve(h, h->n + 1) < 0)
		return -ENOMEM;
	place(h, h->n++, node);
	sift_up(h, node->pos);
	return 0;
}

void
tfd_heap_remove(struct tfd_heap *h, struct tfd_heap_node *node)
{
	size_t i = node->pos;

	if (i == TFD_HEAP_NONE)
		return;
	node->pos = TFD_HEAP_NONE;
	if (i == --h->n)
		return;
	struct tfd_heap_node *moved = h->v[h->n];

	place(h, i, moved);
	sift_up(h, i);
	sift_down(h, moved->pos);
}

struct tfd_heap_node *
tfd_heap_top(const struct tfd_heap *h)
{
	return h->n ? h->v[0] : NULL;
}

void
tfd_heap_free(struct tfd_heap *h)
{
	free(h->v);
	h->v = NULL;
	h->n = h->cap = 0;
}
