/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * ptr_ring slow paths: set-up, resize, unconsume and cleanup. The produce
 * and consume paths are inline in pagepool/ptr_ring.h; everything here runs
 * rarely, takes locks, and may allocate, so it stays out of line.
 *
 * Lock order, as in the kernel: consumer_lock, then producer_lock.
 */
#include <errno.h>
#include <stdint.h>

#include <pagepool/ptr_ring.h>

#include "mem_priv.h"

void **
__ptr_ring_init_queue_alloc(int size, gfp_t gfp)
{
	(void)gfp;
	if (size < 0) {
		errno = EINVAL;
		return NULL;
	}
	if (size > PTR_RING_SIZE_MAX) {
		errno = ENOMEM;
		return NULL;
	}
	/*
	 * At least one slot even for size 0, so no path can read past the
	 * allocation; the fast paths test size anyway. Cache-line aligned so
	 * a zeroing batch covers whole lines.
	 */
	return _pp_zalloc_aligned((size_t)(size ? size : 1) * sizeof(void *),
				  SMP_CACHE_BYTES);
}

void
__ptr_ring_free_queue(void **queue)
{
	_pp_free(queue);
}

int
ptr_ring_init(struct ptr_ring *r, int size, gfp_t gfp)
{
	void **queue;

	if (r == NULL || size < 0)
		return -EINVAL;
	queue = __ptr_ring_init_queue_alloc(size, gfp);
	if (queue == NULL)
		return -ENOMEM;
	r->queue = queue;
	__ptr_ring_set_size(r, size);
	r->producer = 0;
	r->consumer_head = 0;
	r->consumer_tail = 0;
	pp_spin_lock_init(&r->producer_lock);
	pp_spin_lock_init(&r->consumer_lock);
	return 0;
}

/*
 * Move every entry of @r into @queue (oldest first, destroying what does not
 * fit), install @queue and return the old one for the caller to free once the
 * locks are dropped. Caller holds both locks.
 */
static void **
swap_queue(struct ptr_ring *r, void **queue, int size, void (*destroy)(void *))
{
	void **old = r->queue;
	int producer = 0;
	void *ptr;

	while ((ptr = __ptr_ring_consume(r)) != NULL) {
		if (producer < size)
			queue[producer++] = ptr;
		else if (destroy != NULL)
			destroy(ptr);
	}
	if (producer >= size)
		producer = 0;
	__ptr_ring_set_size(r, size);
	r->producer = producer;
	r->consumer_head = 0;
	r->consumer_tail = 0;
	r->queue = queue;
	return old;
}

static void
lock_both(struct ptr_ring *r)
{
	pp_spin_lock(&r->consumer_lock);
	pp_spin_lock(&r->producer_lock);
}

static void
unlock_both(struct ptr_ring *r)
{
	pp_spin_unlock(&r->producer_lock);
	pp_spin_unlock(&r->consumer_lock);
}

int
ptr_ring_resize(struct ptr_ring *r, int size, gfp_t gfp,
		void (*destroy)(void *))
{
	void **queue, **old;

	if (r == NULL || size < 0)
		return -EINVAL;
	queue = __ptr_ring_init_queue_alloc(size, gfp);
	if (queue == NULL)
		return -ENOMEM;

	lock_both(r);
	old = swap_queue(r, queue, size, destroy);
	unlock_both(r);

	__ptr_ring_free_queue(old);
	return 0;
}

int
ptr_ring_resize_multiple(struct ptr_ring **rings, unsigned int nrings,
			 int size, gfp_t gfp, void (*destroy)(void *))
{
	void ***queues;
	unsigned int i;

	if (rings == NULL || size < 0)
		return -EINVAL;
	for (i = 0; i < nrings; i++) {
		if (rings[i] == NULL)
			return -EINVAL;
	}
	if (nrings == 0)
		return 0;

	queues = _pp_zalloc_aligned(sizeof(*queues) * nrings, sizeof(void *));
	if (queues == NULL)
		return -ENOMEM;
	for (i = 0; i < nrings; i++) {
		queues[i] = __ptr_ring_init_queue_alloc(size, gfp);
		if (queues[i] == NULL)
			goto nomem;
	}

	for (i = 0; i < nrings; i++) {
		lock_both(rings[i]);
		queues[i] = swap_queue(rings[i], queues[i], size, destroy);
		unlock_both(rings[i]);
	}
	/* queues[] now holds the old queues. */
	for (i = 0; i < nrings; i++)
		__ptr_ring_free_queue(queues[i]);
	_pp_free(queues);
	return 0;

nomem:
	while (i-- > 0)
		__ptr_ring_free_queue(queues[i]);
	_pp_free(queues);
	return -ENOMEM;
}

int
ptr_ring_resize_multiple_bh(struct ptr_ring **rings, unsigned int nrings,
			    int size, gfp_t gfp, void (*destroy)(void *))
{
	return ptr_ring_resize_multiple(rings, nrings, size, gfp, destroy);
}

void
ptr_ring_unconsume(struct ptr_ring *r, void **batch, int n,
		   void (*destroy)(void *))
{
	int head;

	if (r == NULL || n <= 0 || batch == NULL)
		return;

	lock_both(r);
	if (r->size == 0)
		goto destroy_rest;

	/*
	 * Free the consumed-but-not-yet-zeroed slots first, so that below a
	 * non-NULL slot always means a live entry (the ring is full there).
	 */
	for (head = r->consumer_head - 1; head >= r->consumer_tail; head--)
		pp_store_relaxed(&r->queue[head], NULL);
	r->consumer_tail = r->consumer_head;

	/* Newest of the batch first, walking the head backwards. */
	while (n > 0) {
		if (batch[n - 1] == NULL) {	/* NULL marks a free slot */
			n--;
			continue;
		}
		head = r->consumer_head - 1;
		if (head < 0)
			head = r->size - 1;
		if (pp_load_relaxed(&r->queue[head]) != NULL)
			break;
		pp_store_relaxed(&r->queue[head], batch[--n]);
		r->consumer_tail = head;
		/* Pairs with the relaxed head load in __ptr_ring_empty(). */
		pp_store_relaxed(&r->consumer_head, head);
	}

destroy_rest:
	while (n > 0) {
		void *ptr = batch[--n];

		if (destroy != NULL && ptr != NULL)
			destroy(ptr);
	}
	unlock_both(r);
}

void
ptr_ring_cleanup(struct ptr_ring *r, void (*destroy)(void *))
{
	void *ptr;

	if (r == NULL)
		return;
	if (destroy != NULL) {
		while ((ptr = ptr_ring_consume(r)) != NULL)
			destroy(ptr);
	}
	__ptr_ring_free_queue(r->queue);
	r->queue = NULL;
	r->size = 0;
	r->batch = 1;
	r->producer = 0;
	r->consumer_head = 0;
	r->consumer_tail = 0;
}
