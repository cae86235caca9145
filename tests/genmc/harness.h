/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Shared set-up of the GenMC harnesses: a ring over a static queue, built
 * with the header's own __ptr_ring_set_size() and lock initialisers (the
 * out-of-line allocator of ptr_ring_init() is the only part replaced), and
 * small objects whose payload is written before the pointer is produced
 * and checked after it is consumed. A payload read that is not ordered
 * after its write is reported by GenMC as a race on a non-atomic access;
 * a wrong value or order fails an assert.
 *
 * The zeroing batch is set after __ptr_ring_set_size(): the header picks 1
 * for rings this small, and a batch of 2 is what exercises deferred tail
 * zeroing in a state space GenMC explores in seconds.
 */
#ifndef PAGEPOOL_GENMC_HARNESS_H
#define PAGEPOOL_GENMC_HARNESS_H

#include <assert.h>
#include <pthread.h>
#include <stddef.h>

#include <genmc.h>

#include <pagepool/ptr_ring.h>

/*
 * Waiting for a slot or an item: a failed produce or consume writes
 * nothing, so a loop retrying it is modelled by assuming it succeeds
 * (GenMC then explores only the executions in which it did), which keeps
 * the state space finite without bounding the loop by hand.
 */
#define AWAIT(cond) __VERIFIER_assume(cond)

#ifndef RING_SIZE
#define RING_SIZE 4
#endif
#ifndef RING_BATCH
#define RING_BATCH 2
#endif

struct item {
	int val;	/* plain: written by the producer, read by the consumer */
};

static struct ptr_ring ring;
static void *ring_slots[RING_SIZE];

static inline void
harness_ring_init(void)
{
	ring.queue = ring_slots;
	__ptr_ring_set_size(&ring, RING_SIZE);
	ring.batch = RING_BATCH;
	ring.producer = 0;
	ring.consumer_head = 0;
	ring.consumer_tail = 0;
	pp_spin_lock_init(&ring.producer_lock);
	pp_spin_lock_init(&ring.consumer_lock);
}

#endif /* PAGEPOOL_GENMC_HARNESS_H */
