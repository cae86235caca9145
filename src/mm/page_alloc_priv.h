/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Private: the page allocator's internal structures, shared by the buddy
 * and per-thread caches (page_alloc.c) and the backing memory (mem_source.c).
 *
 * Shape. A memory source owns one zone per NUMA node (one in all for a user
 * region). A zone owns regions: runs of pages mapped from the source, 4 MiB
 * each when we map them, any page multiple when the caller supplies them.
 * Each region has its own descriptor array, so page i of a region is at
 * base + i * PAGE_SIZE and its descriptor at pages[i]. A two-level table
 * indexed by address (2 MiB granules, as a page table would) finds the
 * region of any address, which is what makes virt_to_page() O(1); a second
 * one indexed by the address of the descriptors validates a struct page
 * pointer before anything reads it.
 *
 * Buddies are found by page frame number (address >> PAGE_SHIFT), so a block
 * of order k is always aligned to 2^k pages in the address space, even in a
 * user region that is not: such a region is cut into the largest aligned
 * blocks that fit, and blocks never merge across a region's bounds.
 */
#ifndef PAGEPOOL_PAGE_ALLOC_PRIV_H
#define PAGEPOOL_PAGE_ALLOC_PRIV_H

#include <pthread.h>
#include <stdint.h>

#include <pagepool/page.h>
#include <pagepool/spinlock_pvt.h>

/* Regions we map: one block of the largest order. */
#define PP_REGION_SHIFT		(PAGE_SHIFT + MAX_PAGE_ORDER)
#define PP_REGION_SIZE		(1UL << PP_REGION_SHIFT)

/* Region table: 2 MiB granules over a 48-bit address space, two levels. */
#define PP_MAP_SHIFT		21
#define PP_MAP_ADDR_BITS	48
#define PP_MAP_LEAF_BITS	13
#define PP_MAP_TOP_BITS \
	(PP_MAP_ADDR_BITS - PP_MAP_SHIFT - PP_MAP_LEAF_BITS)

/*
 * Descriptor table: granules of one region's descriptors (64 KiB for the
 * 4 MiB we map), 2^16 per leaf (512 KiB, covering 4 GiB of descriptors).
 */
#define PP_DESC_SHIFT		16
#define PP_DESC_LEAF_BITS	16
#define PP_DESC_TOP_BITS \
	(PP_MAP_ADDR_BITS - PP_DESC_SHIFT - PP_DESC_LEAF_BITS)

/* page->flags bits (low 16); the node is in the top 16 (PP_NODES_PGSHIFT). */
#define PP_PG_BUDDY		(1UL << 0)	/* head of a free buddy block */

/* Most NUMA nodes we size tables for; libnuma may report fewer. */
#define PP_MAX_NUMNODES		64

struct pp_zone;

/*
 * struct pp_region - one run of pages and their descriptors. Immutable once
 * published in the region table, except @next and @built_pfn (under the
 * zone's grow_lock).
 *
 * Descriptors are built (flags, virtual) per chunk, the pages of one
 * MAX_PAGE_ORDER-aligned window of frame numbers, when the zone first
 * needs the chunk: a region we map is one chunk, built at once; a user
 * region of any size registers without touching its descriptors, which
 * are zero until built (mapped MAP_NORESERVE when larger than a chunk's). Pages below
 * @built_pfn are in the buddy system; the rest are counted free but in no
 * list. Buddies of order < MAX_PAGE_ORDER lie in one window, so merging
 * never reads a descriptor of an unbuilt chunk.
 */
struct pp_region {
	unsigned long base_pfn;
	unsigned long end_pfn;		/* exclusive */
	unsigned long built_pfn;	/* chunks below are built */
	struct page *pages;
	size_t desc_len;		/* bytes mapped; 0: from the heap */
	struct pp_zone *zone;
	struct pp_region *next;
	void *map_addr;			/* what we munmap(); NULL: not ours */
	size_t map_len;
	uint64_t obj_off;		/* offset in the memfd / user region */
	/* When the region last became one free block by merging (a page
	 * freed), CLOCK_MONOTONIC_COARSE ns; 0 while in use, and for a
	 * region never used since it was mapped. Under the zone lock. */
	uint64_t free_since_ns;
};

/*
 * struct pp_zone - the buddy allocator of one source on one node.
 *
 * @lock guards the free lists, the counters, and the flags/private fields
 * of every page while it is free in the lists (and the flags of all pages
 * of the zone: only lock holders write them after a region is published).
 * Growth maps memory, which can take milliseconds, so it serialises on a
 * separate mutex and takes @lock only to insert the new blocks.
 */
struct pp_zone {
	struct pp_spinlock lock PP_CACHELINE_ALIGNED;
	unsigned long free_pages;
	unsigned long managed_pages;
	unsigned long nr_free[NR_PAGE_ORDERS];
	struct pp_list_head free_area[NR_PAGE_ORDERS];
	/* Regions with free_since_ns set ("dirty": freed, still mapped),
	 * and the earliest time one of them is due to be returned. Written
	 * under @lock; read without it as a hint (see zone_maybe_purge()). */
	unsigned long nr_dirty;
	uint64_t purge_next_ns;

	/* Slow, read-mostly part. */
	pthread_mutex_t grow_lock PP_CACHELINE_ALIGNED;
	struct pp_region *regions;	/* under grow_lock */
	struct pp_mem_source *src;
	int nid;
};

/*
 * struct pp_mem_source - backing memory and its zones.
 */
struct pp_mem_source {
	int kind;			/* in use (after any fallback) */
	int requested_kind;
	unsigned int flags;
	int fd;				/* MEMFD, else -1 */
	size_t max_bytes;		/* 0: no cap */
	void *user_addr;		/* USER */
	size_t user_len;
	int user_nid;			/* USER: resolved node */
	pthread_mutex_t lock;		/* mapped_bytes, memfd_size */
	size_t mapped_bytes;
	uint64_t memfd_size;
	int nr_zones;
	struct pp_zone **zones;		/* [nr_zones], index = node */
	/* Free regions are returned to the system after being free this
	 * long; 0 at once, -1 never. Any thread may set it (relaxed). */
	long dirty_decay_ms;
	/* Registry (mem_source.c): the id page_pool_params names the source
	 * by, and the pools created on it, under the registry lock. */
	int id;
	int pool_users;
	struct pp_mem_source *reg_next;
};

/* ---- mem_source.c ---- */

/* Region containing @addr, or NULL. Context: any thread, lock-free. */
struct pp_region *_pp_region_of(const void *addr);

/* Region whose descriptor @page is, or NULL: validates @page by its
 * address alone, without reading it, so a pointer into the descriptors of
 * a destroyed source is refused. Context: any thread, lock-free. */
struct pp_region *_pp_page_region(const struct page *page);

/* The descriptor table's top array (mem_source.c), for the inline copy of
 * _pp_page_region() on the freeing fast path. */
extern struct pp_region **_pp_desc_top[1UL << PP_DESC_TOP_BITS];

/* How many regions were unpublished so far (mem_source.c, map_remove()):
 * a region looked up while it read N is still published while it reads N.
 * Atomic. */
extern unsigned long _pp_region_gen;

/* Whether @a is the address of one of @r's descriptors (the start of
 * one, not inside one): what both lookups check of the region found. */
static inline __attribute__((always_inline)) int
_pp_region_holds_desc(const struct pp_region *r, uintptr_t a)
{
	uintptr_t off = a - (uintptr_t)r->pages;

	return off < (r->end_pfn - r->base_pfn) * sizeof(struct page) &&
	       off % sizeof(struct page) == 0;
}

static inline __attribute__((always_inline)) struct pp_region *
_pp_page_region_inline(const struct page *page)
{
	uintptr_t a = (uintptr_t)page, g;
	struct pp_region **leaf, *r;

#ifdef PP_MODEL_CHECK
	/* The GenMC harnesses have no tables: their environment's answer. */
	(void)a, (void)g, (void)leaf, (void)r;
	return _pp_page_region(page);
#else
	if (a >> PP_MAP_ADDR_BITS)
		return NULL;
	g = a >> PP_DESC_SHIFT;
	/* A3: pairs with release R3 in map_prepare() (mem_source.c). */
	leaf = __atomic_load_n(&_pp_desc_top[g >> PP_DESC_LEAF_BITS],
			       __ATOMIC_ACQUIRE);
	if (leaf == NULL)
		return NULL;
	/* A4: pairs with release R4 in map_set() (mem_source.c). */
	r = __atomic_load_n(&leaf[g & ((1UL << PP_DESC_LEAF_BITS) - 1)],
			    __ATOMIC_ACQUIRE);
	if (r == NULL || !_pp_region_holds_desc(r, a))
		return NULL;
	return r;
#endif
}

/*
 * Map a new region for @z, build its descriptors and publish it in the
 * region table. Caller holds z->grow_lock. NULL with errno on failure.
 */
struct pp_region *_pp_region_grow(struct pp_zone *z, gfp_t gfp);

/* Zone of @src serving node @nid (NUMA_NO_NODE: the caller's node); NULL
 * with errno EINVAL for a bad node. Context: any thread. */
struct pp_zone *_pp_source_zone(struct pp_mem_source *src, int nid);

int _pp_numa_nr_nodes(void);

/*
 * The live source with id @id, with a pool user taken (the source then
 * refuses pp_mem_source_destroy() with EBUSY until _pp_mem_source_put());
 * NULL with errno EINVAL if there is none. Context: any thread.
 */
struct pp_mem_source *_pp_mem_source_get(int id);
void _pp_mem_source_put(struct pp_mem_source *src);

/* The node every page of @src is on (a user region), or NUMA_NO_NODE. */
int _pp_mem_source_fixed_nid(const struct pp_mem_source *src);

/* The calling thread's NUMA node (0 without libnuma). */
int _pp_numa_node_local(void);

/*
 * Build the descriptors of @r's next chunk: [*@from, *@to). Caller holds
 * r->zone->grow_lock. 0, or -ENOMEM when every chunk is built.
 */
int _pp_region_build_chunk(struct pp_region *r, unsigned long *from,
			   unsigned long *to);

/*
 * Give region @r (one free block of MAX_PAGE_ORDER, already out of the
 * zone's lists and counters) back to the system: unpublish it, unmap its
 * memory and descriptors, and uncount it from the source. Caller holds
 * r->zone->grow_lock. 0, or -ENOMEM (injected failure) with nothing
 * changed.
 */
int _pp_region_release(struct pp_region *r);

/* ---- page_alloc.c ---- */

/*
 * Return @z's free regions to the system: with @all every free region we
 * mapped, else those free for at least @age_ns at @now. Caller holds
 * z->grow_lock. Return: the bytes returned.
 */
size_t _pp_zone_purge_locked(struct pp_zone *z, uint64_t now, uint64_t age_ns,
			     int all);

/* CLOCK_MONOTONIC_COARSE in ns: the clock of the decay. */
uint64_t _pp_decay_clock(void);

/* Count a freshly published region's pages in @z and put its built chunks
 * into the free lists. Caller holds z->grow_lock. */
void _pp_zone_add_region(struct pp_zone *z, struct pp_region *r);

/* Take the blocks waiting in every thread's inbox (freed for it by other
 * threads) into the calling thread's cache or the zones. Context: any
 * thread, no allocator lock held. */
unsigned long _pp_inboxes_steal(void);

/* Drain the calling thread's cached pages of @src's zones. */
void _pp_thread_cache_drain_source(struct pp_mem_source *src);

/* Allocated or cached pages of @z (0 when all are in the free lists). */
unsigned long _pp_zone_pages_in_use(struct pp_zone *z);

/*
 * struct _pp_zone_stats - introspection for tests: free blocks per order in
 * the shared lists (not the thread caches), and page totals.
 */
struct _pp_zone_stats {
	unsigned long nr_free[NR_PAGE_ORDERS];
	unsigned long free_pages;
	unsigned long managed_pages;
	unsigned long nr_regions;
};

/* Context: any thread; takes the zone lock. -EINVAL for a bad source or
 * node. */
int _pp_zone_stats(struct pp_mem_source *src, int nid,
		   struct _pp_zone_stats *st);

/* Blocks leaked on purpose because their last reference was dropped while
 * a page_pool still owned them ("page_pool leak"). Context: any thread. */
unsigned long _pp_bad_page_count(void);

/* Pages in the calling thread's cache for @src's zone on @nid. */
unsigned long _pp_thread_cache_count(struct pp_mem_source *src, int nid);

#endif /* PAGEPOOL_PAGE_ALLOC_PRIV_H */
