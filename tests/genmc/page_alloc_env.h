/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The configuration the page allocator harness runs the real
 * src/mm/page_alloc.c in. GenMC checks one translation unit, so this
 * header includes the file unchanged and replaces only what it calls
 * outside itself and what the checker cannot run:
 *
 *  - the memory source (mem_source.c): one source of one zone with one
 *    user region of ENV_NPAGES pages, built here (descriptors, their
 *    "memory": one int per page, which the harness writes with plain
 *    stores as a page's user would), and the lookups of that region by
 *    address and by descriptor (_pp_region_of(), _pp_page_region(), which
 *    the priv header's table walk calls under PP_MODEL_CHECK). A user
 *    region is never returned to the system, so the decay is idle;
 *  - the thread cache: page_alloc.c's thread-local struct becomes one
 *    struct per thread here (GenMC runs scalar thread-locals only), and
 *    its sizes are small: one slot, an order-0 stack of 4 refilled and
 *    spilled 2 at a time, remote batches of one block, 4 inbox ids;
 *  - pthread_once(), the thread-specific key and fault injection, as
 *    env_common.h supplies them: a harness thread calls env_thread_exit()
 *    where it would return, which runs the key's destructor.
 */
#ifndef PAGEPOOL_GENMC_PAGE_ALLOC_ENV_H
#define PAGEPOOL_GENMC_PAGE_ALLOC_ENV_H

#include "env_common.h"

#ifndef ENV_NPAGES
#define ENV_NPAGES 4
#endif
#ifndef CLOCK_MONOTONIC_COARSE
#define CLOCK_MONOTONIC_COARSE 6
#endif

/* Small sizes (see page_alloc.c). */
#define PP_PCP_SLOTS 1
#define PCP_HIGH0 4
#define PCP_BATCH0 2
#define PP_INBOXES 4
#define REMOTE_BATCH 1

/* Fault injection (src/lib/mem.c), never armed. */
int _pp_fault_armed_threads;

unsigned long _pp_region_gen = 1;

#include "mm/page_alloc.c"

/* ---- Threads ------------------------------------------------------------ */

static struct pp_thread_cache env_tcache[ENV_THREADS];

static struct pp_thread_cache *
_pp_model_tcache(void)
{
	return &env_tcache[env_tid()];
}

/* ---- The source, its zone and its region -------------------------------- */

static struct page env_pages[ENV_NPAGES];
static int env_mem[ENV_NPAGES];
static struct pp_region env_region;
static struct pp_zone env_zone;
static struct pp_zone *env_zones[1] = { &env_zone };
static struct pp_mem_source env_src;

struct pp_region *
_pp_region_of(const void *addr)
{
	const int *p = addr;

	if (p >= env_mem && p < env_mem + ENV_NPAGES)
		return &env_region;
	return NULL;
}

struct pp_region *
_pp_page_region(const struct page *page)
{
	if (page >= env_pages && page < env_pages + ENV_NPAGES)
		return &env_region;
	return NULL;
}

struct pp_zone *
_pp_source_zone(struct pp_mem_source *src, int nid)
{
	(void)nid;
	return src == &env_src ? &env_zone : NULL;
}

struct pp_mem_source *
pp_mem_source_default(void)
{
	return &env_src;
}

/* A user region has every chunk built from the start: nothing to grow. */
int
_pp_region_build_chunk(struct pp_region *r, unsigned long *from,
		       unsigned long *to)
{
	(void)r;
	(void)from;
	(void)to;
	return -ENOMEM;
}

/* Set-up, before any thread: the region's pages, all free in the zone. */
static void
env_init(void)
{
	unsigned int i;

	for (i = 0; i < ENV_NPAGES; i++)
		env_pages[i].virtual = &env_mem[i];
	env_src.kind = PP_MEM_USER;
	env_src.fd = -1;
	env_src.nr_zones = 1;
	env_src.zones = env_zones;
	env_src.dirty_decay_ms = -1;
	env_zone.src = &env_src;
	pp_spin_lock_init(&env_zone.lock);
	pthread_mutex_init(&env_zone.grow_lock, NULL);
	for (i = 0; i < NR_PAGE_ORDERS; i++) {
		env_zone.free_area[i].next = &env_zone.free_area[i];
		env_zone.free_area[i].prev = &env_zone.free_area[i];
	}
	/* An aligned run of frame numbers: one block of order 2. */
	env_region.base_pfn = 16;
	env_region.end_pfn = 16 + ENV_NPAGES;
	env_region.built_pfn = env_region.end_pfn;
	env_region.pages = env_pages;
	env_region.zone = &env_zone;
	pthread_mutex_lock(&env_zone.grow_lock);
	_pp_zone_add_region(&env_zone, &env_region);
	pthread_mutex_unlock(&env_zone.grow_lock);
}

/* A page's user writes it (plain: a race with another owner's access is
 * GenMC's to report). */
static void
env_write(struct page *page, int v)
{
	*(int *)page_address(page) = v;
}

/* After every thread has exited: all pages back in the zone, merged. */
static void
env_check_all_free(void)
{
	assert(env_zone.free_pages == ENV_NPAGES);
	assert(env_zone.nr_free[2] == 1);
}

#endif /* PAGEPOOL_GENMC_PAGE_ALLOC_ENV_H */
