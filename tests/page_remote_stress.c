/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Remote frees under load: owner threads allocate blocks (orders 0..3)
 * from a capped source, stamp them and pass them through a mailbox to
 * freer threads, which check the stamps and free them, so every free is
 * remote: batched onto the owner's inbox, taken back by the owner at its
 * refills. Owners exit while their blocks are still out (their inbox is
 * closed: later batches go to the zones) and new owners take their ids;
 * freers keep their own blocks too, and a purger returns whole regions
 * meanwhile (taking blocks from live owners' inboxes). A block reused
 * while still held breaks a stamp (and is a race TSan reports); one lost
 * leaves the source not whole at the end, when every thread has exited.
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>

#include "page_helpers.h"

#define OWNERS		2
#define FREERS		2
#define BOX		256
#define REGIONS		8

static struct pp_mem_source *src;
static long per_owner;

static pthread_mutex_t box_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t box_cond = PTHREAD_COND_INITIALIZER;
static struct page *box[BOX];
static unsigned int box_n, owners_left;

static void
stamp(struct page *p, uint64_t v)
{
	unsigned long i;

	for (i = 0; i < (1UL << p->_order); i++)
		*(uint64_t *)((char *)page_address(p) + i * PAGE_SIZE) = v + i;
}

static void
check_stamp(struct page *p, uint64_t v)
{
	unsigned long i;

	for (i = 0; i < (1UL << p->_order); i++)
		CHECK_EQ(*(uint64_t *)((char *)page_address(p) +
				       i * PAGE_SIZE),
			 v + i);
}

static void *
owner(void *arg)
{
	uint64_t id = (uint64_t)(uintptr_t)arg;
	struct page *p;
	long i;

	for (i = 0; i < per_owner; i++) {
		p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL,
				    (unsigned int)(i % 7 == 0 ? i % 4 : 0));
		if (p == NULL) {
			CHECK_EQ(errno, ENOMEM);	/* the cap */
			i--;
			sched_yield();
			continue;
		}
		/* The stamp names the block: its own address. */
		stamp(p, (uint64_t)(uintptr_t)page_address(p) ^ id);
		p->private = id;	/* ours while allocated */
		pthread_mutex_lock(&box_lock);
		while (box_n == BOX)
			pthread_cond_wait(&box_cond, &box_lock);
		box[box_n++] = p;
		pthread_cond_broadcast(&box_cond);
		pthread_mutex_unlock(&box_lock);
	}
	pthread_mutex_lock(&box_lock);
	owners_left--;
	pthread_cond_broadcast(&box_cond);
	pthread_mutex_unlock(&box_lock);
	return NULL;	/* exits with blocks still out */
}

static void *
freer(void *arg)
{
	struct page *p, *mine = NULL;
	unsigned long n = 0;

	(void)arg;
	for (;;) {
		pthread_mutex_lock(&box_lock);
		while (box_n == 0 && owners_left != 0)
			pthread_cond_wait(&box_cond, &box_lock);
		if (box_n == 0) {
			pthread_mutex_unlock(&box_lock);
			break;
		}
		p = box[--box_n];
		pthread_cond_broadcast(&box_cond);
		pthread_mutex_unlock(&box_lock);
		check_stamp(p, (uint64_t)(uintptr_t)page_address(p) ^
				       p->private);
		__free_pages(p, p->_order);
		/* Now and then a block of its own, freed locally. */
		if (++n % 16 == 0) {
			if (mine != NULL)
				__free_pages(mine, 0);
			mine = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL,
					       0);
		}
		if (n % 200 == 0)
			pp_mem_purge(src);
	}
	if (mine != NULL)
		__free_pages(mine, 0);
	return NULL;
}

int
main(void)
{
	pthread_t o[OWNERS], f[FREERS];
	int round, i;

	per_owner = t_scale(100000);
	src = t_capped_source(PP_MEM_ANON, REGIONS);
	CHECK_EQ(pp_mem_source_set_dirty_decay_ms(src, 0), 0);
	for (round = 0; round < 4; round++) {
		owners_left = OWNERS;
		for (i = 0; i < FREERS; i++)
			CHECK_EQ(pthread_create(&f[i], NULL, freer, NULL), 0);
		for (i = 0; i < OWNERS; i++)
			CHECK_EQ(pthread_create(&o[i], NULL, owner,
						(void *)(uintptr_t)(round *
								    OWNERS +
								    i + 1)),
				 0);
		for (i = 0; i < OWNERS; i++)
			CHECK_EQ(pthread_join(o[i], NULL), 0);
		for (i = 0; i < FREERS; i++)
			CHECK_EQ(pthread_join(f[i], NULL), 0);
	}
	/* Every thread exited: caches drained, inboxes closed and emptied,
	 * batches pushed. */
	t_check_whole(src);
	pp_mem_purge(src);
	CHECK_EQ(t_stats(src).nr_regions, 0);
	CHECK_EQ(pp_mem_source_destroy(src), 0);
	return T_EXIT_PASS;
}
