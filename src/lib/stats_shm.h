/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The live view's shared-memory layout: what a process with
 * PAGEPOOL_STATS=1 publishes in /dev/shm/pagepool.<pid> and pp-stat reads
 * from another process. One header, then a fixed table of pool slots. A
 * single thread of the publishing process (the publisher) writes every
 * slot; each slot has a sequence count, odd while it is being written, so
 * a reader can retry for a consistent copy. A reader that gives up on
 * retrying still sees each counter whole (64-bit relaxed stores) and never
 * smaller than before, since the pool's counters only grow.
 *
 * The layout is versioned (PP_SHM_VERSION); pp-stat refuses others. It is
 * not an API: only the library and pp-stat use it.
 */
#ifndef PAGEPOOL_STATS_SHM_H
#define PAGEPOOL_STATS_SHM_H

#include <stdint.h>

#define PP_SHM_MAGIC 0x70707374u	/* "ppst" */
#define PP_SHM_VERSION 1u
#define PP_SHM_SLOTS 256u
#define PP_SHM_NODES 8u		/* allocator nodes shown */
#define PP_SHM_ORDERS 11u	/* NR_PAGE_ORDERS */
#define PP_SHM_NAME_FMT "/pagepool.%ld"	/* shm_open() name; the file is
					 * /dev/shm/pagepool.<pid> */

/* The kernel's page-pool-stats-get counters, in its order. */
enum pp_shm_stat {
	PP_SHM_ALLOC_FAST,
	PP_SHM_ALLOC_SLOW,
	PP_SHM_ALLOC_SLOW_HIGH_ORDER,
	PP_SHM_ALLOC_EMPTY,
	PP_SHM_ALLOC_REFILL,
	PP_SHM_ALLOC_WAIVE,
	PP_SHM_RECYCLE_CACHED,
	PP_SHM_RECYCLE_CACHE_FULL,
	PP_SHM_RECYCLE_RING,
	PP_SHM_RECYCLE_RING_FULL,
	PP_SHM_RECYCLE_RELEASED_REFCNT,
	PP_SHM_NR_STATS
};

enum pp_shm_state {
	PP_SHM_FREE = 0,	/* no pool */
	PP_SHM_LIVE = 1,	/* created, not destroyed */
	PP_SHM_DETACHED = 2,	/* destroyed with pages in flight: the
				 * release thread retries until they return */
};

struct pp_shm_pool {
	uint32_t seq;		/* odd while the publisher writes */
	uint32_t state;		/* enum pp_shm_state */
	uint32_t id;		/* page_pool_id() */
	int32_t nid;		/* params.nid (-1: NUMA_NO_NODE) */
	uint32_t order;
	uint32_t ring_size;
	int64_t inflight;	/* pages */
	uint64_t inflight_mem;	/* bytes */
	uint64_t detach_time;	/* CLOCK_BOOTTIME seconds, 0: attached */
	uint64_t detach_ms;	/* CLOCK_BOOTTIME ms of the destroy */
	uint64_t defer_warn_ms;	/* stalled once detached this long */
	uint64_t stats[PP_SHM_NR_STATS];
};

/* The default page allocator's zone on one node (the shared free lists;
 * pages in threads' caches count as in use). */
struct pp_shm_zone {
	int32_t nid;			/* -1: slot unused */
	uint32_t regions;
	uint64_t managed_pages;
	uint64_t free_pages;
	uint64_t nr_free[PP_SHM_ORDERS];	/* free blocks per order */
};

struct pp_shm_header {
	uint32_t magic;
	uint32_t version;
	uint32_t slot_size;	/* sizeof(struct pp_shm_pool) */
	uint32_t nslots;
	int64_t pid;
	uint64_t start_time;	/* /proc/<pid>/stat field 22: tells the
				 * publisher from a later process that got
				 * the same pid */
	uint64_t period_ms;	/* publishing period */
	uint64_t publishes;	/* passes completed (a heartbeat) */
	uint64_t updated_ms;	/* CLOCK_BOOTTIME ms of the last pass */
	uint32_t pools;		/* slots in use at the last pass */
	uint32_t dropped;	/* pools beyond PP_SHM_SLOTS, not shown */
	/* Allocator figures, rewritten each pass (relaxed; no sequence
	 * count: each is a whole value, the set may be torn). */
	uint64_t bad_pages;	/* leaked by a free behind a pool */
	struct pp_shm_zone zone[PP_SHM_NODES];
	struct pp_shm_pool pool[PP_SHM_SLOTS];
};

#endif /* PAGEPOOL_STATS_SHM_H */
