/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Backing memory for the page allocator: memory sources, the regions they
 * map, the address-to-region table, and NUMA placement.
 *
 * A source maps memory in 4 MiB regions aligned to 4 MiB, so every block of
 * the largest order is naturally aligned and a region never shares a 2 MiB
 * granule of the region table with another. The alignment comes from
 * reserving twice the size as PROT_NONE and mapping the real memory with
 * MAP_FIXED over the aligned middle; this works the same for anonymous,
 * hugetlb and memfd memory. Regions are bound to their node with mbind()
 * before anything touches them, so first touch cannot place them elsewhere.
 *
 * Two address tables are read without locks: the region table, by the
 * address of memory (virt_to_page()), and the descriptor table, by the
 * address of a struct page (every function that takes a page validates it
 * there before reading it). Each is a top array of leaf pointers, each leaf
 * an array of region pointers, one per granule: 2 MiB of memory, or 64 KiB
 * of descriptors (those of 4 MiB of memory). Writers (region
 * insert/remove) serialise on map_lock and publish with release stores;
 * readers use acquire loads. Leaves are never freed, so a reader racing
 * with an insert sees either NULL or a complete leaf. Removing a region is
 * only done when its source is destroyed, and the destroy contract rules
 * out concurrent readers of its addresses; a page pointer kept past the
 * destroy finds NULL in the descriptor table and is refused without its
 * freed descriptor being read.
 *
 * Descriptor arrays start on a 64 KiB boundary, so no two arrays share a
 * granule of the descriptor table: those of the regions we map are one
 * granule from the heap, a user region's are mapped MAP_NORESERVE (see
 * desc_alloc()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifdef PP_HAVE_LIBNUMA
#include <numa.h>
#include <numaif.h>
#endif

#include <pagepool/atomic_pvt.h>
#include <pagepool/fault.h>
#include <pagepool/page.h>

#include "lib/fork_priv.h"
#include "lib/mem_priv.h"
#include "lib/opts_priv.h"
#include "page_alloc_priv.h"

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#define PP_MAP_HUGE_2MB (21 << MAP_HUGE_SHIFT)

_Static_assert(PP_DESC_SHIFT == 6 + MAX_PAGE_ORDER &&
		       sizeof(struct page) == 64,
	       "a descriptor granule holds one mapped region's descriptors");

/*
 * The two address tables; see the file comment. data_map is indexed by the
 * address of the memory, desc_map by the address of the descriptors. The
 * maps are constants, so the lookups compile to fixed shifts.
 */
struct pp_addr_map {
	unsigned int shift;		/* log2 of the granule size */
	unsigned int leaf_bits;		/* log2 of granules per leaf */
	struct pp_region ***top;
};

static struct pp_region **data_top[1UL << PP_MAP_TOP_BITS];
struct pp_region **_pp_desc_top[1UL << PP_DESC_TOP_BITS];
/* Regions unpublished so far (map_remove()), starting at 1: see the
 * page allocator's per-thread region cache (page_alloc.c). */
unsigned long _pp_region_gen = 1;
static const struct pp_addr_map data_map = {
	PP_MAP_SHIFT, PP_MAP_LEAF_BITS, data_top
};
static const struct pp_addr_map desc_map = {
	PP_DESC_SHIFT, PP_DESC_LEAF_BITS, _pp_desc_top
};
static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;

#define LEAF_IDX(m, g)	((g) & ((1UL << (m)->leaf_bits) - 1))

static struct pp_mem_source *default_src;
static pthread_mutex_t default_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * Live sources by id. page_pool_params names a source by a 32-bit id
 * rather than a pointer because the 0.1 layout of the params has room for
 * 32 bits only (its tail padding); the registry also counts the pools on
 * each source, so a source cannot be destroyed under a pool that has not
 * allocated yet.
 */
static pthread_mutex_t src_reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pp_mem_source *src_reg_head;
static int src_reg_next_id = 1;

/* Assign a cyclic id >= 1 not used by a live source and link @src. */
static void
src_reg_add(struct pp_mem_source *src)
{
	struct pp_mem_source *it;
	int id;

	pthread_mutex_lock(&src_reg_lock);
	for (;;) {
		id = src_reg_next_id;
		src_reg_next_id = id == INT32_MAX ? 1 : id + 1;
		for (it = src_reg_head; it != NULL; it = it->reg_next)
			if (it->id == id)
				break;
		if (it == NULL)
			break;
	}
	src->id = id;
	src->reg_next = src_reg_head;
	src_reg_head = src;
	pthread_mutex_unlock(&src_reg_lock);
}

/*
 * Fork (lib/fork.c, order 7): default_lock and src_reg_lock, then, for
 * every registered source, its zones' grow_locks (growth and purges hold
 * one while they take the source's lock, map_lock and the zone's lock)
 * and the source's lock; then map_lock. The registry lock stays held until
 * after the fork, so the list cannot change in between. Sources not yet
 * registered (being created) are reachable by their creator only.
 */
void
_pp_source_fork(enum pp_fork_phase phase)
{
	struct pp_mem_source *src;
	int i;

	if (phase == PP_FORK_PREPARE) {
		pthread_mutex_lock(&default_lock);
		pthread_mutex_lock(&src_reg_lock);
		for (src = src_reg_head; src != NULL; src = src->reg_next) {
			for (i = 0; i < src->nr_zones; i++)
				pthread_mutex_lock(&src->zones[i]->grow_lock);
			pthread_mutex_lock(&src->lock);
		}
		pthread_mutex_lock(&map_lock);
		return;
	}
	pthread_mutex_unlock(&map_lock);
	for (src = src_reg_head; src != NULL; src = src->reg_next) {
		pthread_mutex_unlock(&src->lock);
		for (i = src->nr_zones; i-- > 0;)
			pthread_mutex_unlock(&src->zones[i]->grow_lock);
	}
	pthread_mutex_unlock(&src_reg_lock);
	pthread_mutex_unlock(&default_lock);
}

/*
 * Fork (lib/fork.c, order 9, innermost): every registered source's zone
 * spinlocks, which no code holds while taking another lock. Called with
 * src_reg_lock held (order 7), so the list is stable.
 */
void
_pp_source_zones_fork(enum pp_fork_phase phase)
{
	struct pp_mem_source *src;
	int i;

	for (src = src_reg_head; src != NULL; src = src->reg_next) {
		for (i = 0; i < src->nr_zones; i++) {
			if (phase == PP_FORK_PREPARE)
				pp_spin_lock(&src->zones[i]->lock);
			else
				pp_spin_unlock(&src->zones[i]->lock);
		}
	}
}

/* Caller holds src_reg_lock. */
static void
src_reg_del_locked(struct pp_mem_source *src)
{
	struct pp_mem_source **pp;

	for (pp = &src_reg_head; *pp != NULL; pp = &(*pp)->reg_next) {
		if (*pp == src) {
			*pp = src->reg_next;
			break;
		}
	}
}

struct pp_mem_source *
_pp_mem_source_get(int id)
{
	struct pp_mem_source *it;

	pthread_mutex_lock(&src_reg_lock);
	for (it = src_reg_head; it != NULL; it = it->reg_next)
		if (it->id == id)
			break;
	if (it != NULL)
		it->pool_users++;
	pthread_mutex_unlock(&src_reg_lock);
	if (it == NULL)
		errno = EINVAL;
	return it;
}

void
_pp_mem_source_put(struct pp_mem_source *src)
{
	if (src == NULL)
		return;
	pthread_mutex_lock(&src_reg_lock);
	src->pool_users--;
	pthread_mutex_unlock(&src_reg_lock);
}

int
_pp_mem_source_fixed_nid(const struct pp_mem_source *src)
{
	return src->kind == PP_MEM_USER ? src->user_nid : NUMA_NO_NODE;
}

/*
 * ---- Address tables -----------------------------------------------------
 */

/* The region whose granule holds @a in @m, or NULL. Lock-free. */
static inline struct pp_region *
addr_map_lookup(const struct pp_addr_map *m, uintptr_t a)
{
	struct pp_region **leaf;
	uintptr_t g;

	if (a >> PP_MAP_ADDR_BITS)
		return NULL;
	g = a >> m->shift;
	/* A3: pairs with release R3 in map_prepare(). */
	leaf = pp_load_acquire(&m->top[g >> m->leaf_bits]);
	if (leaf == NULL)
		return NULL;
	/* A4: pairs with release R4 in map_set(): the region's fields
	 * are initialised before it is published. */
	return pp_load_acquire(&leaf[LEAF_IDX(m, g)]);
}

struct pp_region *
_pp_region_of(const void *addr)
{
	unsigned long pfn = (uintptr_t)addr >> PAGE_SHIFT;
	struct pp_region *r = addr_map_lookup(&data_map, (uintptr_t)addr);

	if (r == NULL || pfn < r->base_pfn || pfn >= r->end_pfn)
		return NULL;
	return r;
}

/*
 * Found by the descriptor's own address, so a pointer into the descriptors
 * of a destroyed source (unmapped, or reused for anything else) is refused
 * without being read: the table no longer names a region there.
 */
struct pp_region *
_pp_page_region(const struct page *page)
{
	uintptr_t a = (uintptr_t)page;
	struct pp_region *r = addr_map_lookup(&desc_map, a);

	if (r == NULL || !_pp_region_holds_desc(r, a))
		return NULL;
	return r;
}

/* Granules [*first, *last] of @m over [start, start + len) (len > 0). */
static void
granule_range(const struct pp_addr_map *m, uintptr_t start, size_t len,
	      uintptr_t *first, uintptr_t *last)
{
	*first = start >> m->shift;
	*last = (start + len - 1) >> m->shift;
}

static void
data_granules(const struct pp_region *r, uintptr_t *first, uintptr_t *last)
{
	granule_range(&data_map, r->base_pfn << PAGE_SHIFT,
		      (r->end_pfn - r->base_pfn) << PAGE_SHIFT, first, last);
}

static void
desc_granules(const struct pp_region *r, uintptr_t *first, uintptr_t *last)
{
	granule_range(&desc_map, (uintptr_t)r->pages,
		      (r->end_pfn - r->base_pfn) * sizeof(struct page), first,
		      last);
}

/*
 * Check granules [first, last] of @m are free, allocating missing leaves.
 * 0, -EBUSY or -ENOMEM. Caller holds map_lock.
 */
static int
map_prepare(const struct pp_addr_map *m, uintptr_t first, uintptr_t last)
{
	const size_t nr = 1UL << m->leaf_bits;
	struct pp_region **leaf;
	uintptr_t g;

	for (g = first; g <= last; g++) {
		leaf = m->top[g >> m->leaf_bits];
		if (leaf == NULL) {
			/* An array of region pointers (sizeof a pointer is
			 * meant), mapped rather than taken from the heap and
			 * cleared: a leaf spans far more memory than is ever
			 * used, and only the pages of it written become
			 * resident (the descriptor leaf is 512 KiB). */
			if (_pp_fault_should_fail())
				return -ENOMEM;
			leaf = mmap(NULL, nr * sizeof(*leaf), /* NOLINT(bugprone-sizeof-expression) */
				    PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (leaf == MAP_FAILED)
				return -ENOMEM;
			/* R3: pairs with acquire A3 in addr_map_lookup(). */
			pp_store_release(&m->top[g >> m->leaf_bits], leaf);
		}
		if (leaf[LEAF_IDX(m, g)] != NULL)
			return -EBUSY;
	}
	return 0;
}

/* Set granules [first, last] of @m to @r. Caller holds map_lock and has
 * prepared them. */
static void
map_set(const struct pp_addr_map *m, uintptr_t first, uintptr_t last,
	struct pp_region *r)
{
	struct pp_region **leaf;
	uintptr_t g;

	for (g = first; g <= last; g++) {
		leaf = m->top[g >> m->leaf_bits];
		/* R4: pairs with acquire A4 in addr_map_lookup(). */
		pp_store_release(&leaf[LEAF_IDX(m, g)], r);
	}
}

/*
 * Publish @r in both tables, by its memory and by its descriptors. 0, or
 * -EBUSY if a memory granule is taken (two user regions in one 2 MiB
 * window), -ENOMEM if a leaf cannot be allocated; nothing is published on
 * failure. Descriptor arrays start on a granule of their own (desc_alloc()),
 * so theirs are never taken.
 * Context: any thread; takes map_lock.
 */
static int
map_insert(struct pp_region *r)
{
	uintptr_t df, dl, mf, ml;
	int ret;

	data_granules(r, &mf, &ml);
	desc_granules(r, &df, &dl);
	pthread_mutex_lock(&map_lock);
	/* Check and allocate leaves first, so publishing cannot fail. */
	ret = map_prepare(&data_map, mf, ml);
	if (ret == 0)
		ret = map_prepare(&desc_map, df, dl);
	if (ret == 0) {
		map_set(&desc_map, df, dl, r);
		map_set(&data_map, mf, ml, r);
	}
	pthread_mutex_unlock(&map_lock);
	return ret;
}

/*
 * Give back the page of a leaf holding granule @g's entry if every entry
 * on it is NULL: the regions returned over a process's life are spread
 * over the address space, and the leaf pages naming them would otherwise
 * stay resident (some 200 KiB after returning 1 GiB). A reader racing
 * with this reads NULL either way: a discarded page of a private
 * anonymous mapping reads as zero. Caller holds map_lock (so no entry
 * on the page is being set).
 */
static void
leaf_page_release(const struct pp_addr_map *m, uintptr_t g)
{
	const size_t per_page = PAGE_SIZE / sizeof(struct pp_region *); /* NOLINT(bugprone-sizeof-expression) */
	struct pp_region **leaf = m->top[g >> m->leaf_bits];
	struct pp_region **pg;
	size_t i;

	if (leaf == NULL)
		return;
	pg = leaf + (LEAF_IDX(m, g) & ~(per_page - 1));
	for (i = 0; i < per_page; i++)
		/* Relaxed: entries are written only under map_lock, which
		 * we hold; atomic only because readers load them without
		 * it (A4). Pairs with nothing. */
		if (pp_load_relaxed(&pg[i]) != NULL)
			return;
	(void)madvise(pg, PAGE_SIZE, MADV_DONTNEED);	/* advice */
}

static void
map_clear(const struct pp_addr_map *m, uintptr_t first, uintptr_t last,
	  const struct pp_region *r)
{
	struct pp_region **leaf;
	uintptr_t g;

	for (g = first; g <= last; g++) {
		leaf = m->top[g >> m->leaf_bits];
		if (leaf != NULL && leaf[LEAF_IDX(m, g)] == r)
			pp_store_relaxed(&leaf[LEAF_IDX(m, g)], NULL);
	}
	for (g = first; g <= last; g++)
		leaf_page_release(m, g);
}

/* Context: any thread; takes map_lock. No reader may look @r up anymore. */
static void
map_remove(struct pp_region *r)
{
	uintptr_t first, last;

	pthread_mutex_lock(&map_lock);
	data_granules(r, &first, &last);
	map_clear(&data_map, first, last, r);
	desc_granules(r, &first, &last);
	map_clear(&desc_map, first, last, r);
	/* R7: pairs with acquire A7 in page_region_slow() (page_alloc.c):
	 * a thread that reads the new count finds the entries cleared. Its
	 * cached copy of @r, made under an older count, no longer matches. */
	__atomic_fetch_add(&_pp_region_gen, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&map_lock);
}

/*
 * ---- NUMA ---------------------------------------------------------------
 */

static int pp_nr_nodes;
static pthread_once_t pp_node_once = PTHREAD_ONCE_INIT;

static void
pp_node_init(void)
{
	int n = 1;

#ifdef PP_HAVE_LIBNUMA
	if (numa_available() >= 0) {
		n = numa_max_node() + 1;
		if (n < 1)
			n = 1;
		if (n > PP_MAX_NUMNODES)
			n = PP_MAX_NUMNODES;
	}
#endif
	pp_nr_nodes = n;
}

/* Number of node ids (highest + 1). Context: any thread. */
int
_pp_numa_nr_nodes(void)
{
	pthread_once(&pp_node_once, pp_node_init);
	return pp_nr_nodes;
}

/* The calling thread's node. Context: any thread. */
static int
pp_node_local(void)
{
#ifdef PP_HAVE_LIBNUMA
	if (_pp_numa_nr_nodes() > 1) {
		int cpu = sched_getcpu();
		int nid = cpu < 0 ? -1 : numa_node_of_cpu(cpu);

		if (nid >= 0 && nid < pp_nr_nodes)
			return nid;
	}
#endif
	return 0;
}

/* The calling thread's node, for callers outside this file (page_pool's
 * refill preference). Context: any thread. */
int
_pp_numa_node_local(void)
{
	return pp_node_local();
}

/* Bind [addr, addr + len) to @nid before first touch; 0 or -errno. */
static int
pp_node_bind(void *addr, size_t len, int nid)
{
#ifdef PP_HAVE_LIBNUMA
	unsigned long mask[PP_MAX_NUMNODES / (8 * sizeof(unsigned long))];

	if (numa_available() < 0)
		return 0;
	memset(mask, 0, sizeof(mask));
	mask[nid / (8 * sizeof(unsigned long))] |=
		1UL << (nid % (8 * sizeof(unsigned long)));
	/* maxnode counts one past the last bit the kernel reads. */
	if (mbind(addr, len, MPOL_BIND, mask, PP_MAX_NUMNODES + 1, 0) != 0)
		return -errno;
#else
	(void)addr;
	(void)len;
	(void)nid;
#endif
	return 0;
}

/* Node of the memory at @addr (a user region), 0 if unknown. */
static int
pp_node_of_addr(void *addr)
{
#ifdef PP_HAVE_LIBNUMA
	int nid = -1;

	if (_pp_numa_nr_nodes() > 1 &&
	    get_mempolicy(&nid, NULL, 0, addr, MPOL_F_NODE | MPOL_F_ADDR) ==
		    0 &&
	    nid >= 0 && nid < pp_nr_nodes)
		return nid;
#else
	(void)addr;
#endif
	return 0;
}

/*
 * ---- Regions ------------------------------------------------------------
 */

/*
 * Map PP_REGION_SIZE bytes of @src's memory, aligned to PP_REGION_SIZE, at
 * memfd offset @off, bound to @nid. NULL with errno on failure.
 */
static void *
map_backing(struct pp_mem_source *src, int nid, uint64_t off)
{
	const size_t size = PP_REGION_SIZE;
	int prot = PROT_READ | PROT_WRITE;
	uintptr_t aligned;
	void *res, *p;
	int err;

	if (_pp_fault_should_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	res = mmap(NULL, 2 * size, PROT_NONE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (res == MAP_FAILED)
		return NULL;
	aligned = ((uintptr_t)res + size - 1) & ~(uintptr_t)(size - 1);

	switch (src->kind) {
	case PP_MEM_HUGETLB:
		p = mmap((void *)aligned, size, prot,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED |
				 MAP_HUGETLB | PP_MAP_HUGE_2MB,
			 -1, 0);
		break;
	case PP_MEM_MEMFD:
		p = mmap((void *)aligned, size, prot, MAP_SHARED | MAP_FIXED,
			 src->fd, (off_t)off);
		break;
	default:
		p = mmap((void *)aligned, size, prot,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		break;
	}
	if (p == MAP_FAILED) {
		err = errno;
		munmap(res, 2 * size);
		errno = err;
		return NULL;
	}
	/* Give back the slack on both sides of the aligned window. */
	if (aligned > (uintptr_t)res)
		munmap(res, aligned - (uintptr_t)res);
	if ((uintptr_t)res + 2 * size > aligned + size)
		munmap((void *)(aligned + size),
		       (uintptr_t)res + 2 * size - (aligned + size));

	if (src->requested_kind == PP_MEM_HUGETLB &&
	    src->kind == PP_MEM_ANON)
		madvise(p, size, MADV_HUGEPAGE);	/* advice: may fail */

	err = pp_node_bind(p, size, nid);
	if (err != 0) {
		munmap(p, size);
		errno = -err;
		return NULL;
	}
	return p;
}

/*
 * Zeroed memory for @npages descriptors, starting on a granule boundary of
 * the descriptor table, so no two arrays share a granule. Up to a granule
 * (the 4 MiB regions we map) comes from the heap, as any bookkeeping,
 * unless @whole: the array of a region that may be returned to the system
 * is mapped on its own, so that unmapping it returns its memory too (a
 * freed heap block may stay resident in the heap). Larger arrays (user
 * regions) are mapped without swap accounting, so only the descriptors
 * built take memory. *@len: the bytes mapped, 0 for heap.
 * NULL with errno on failure.
 */
static struct page *
desc_alloc(size_t npages, int whole, size_t *len)
{
	const size_t align = 1UL << PP_DESC_SHIFT;
	size_t size = npages * sizeof(struct page);
	uintptr_t start, end, aligned;
	void *res;

	*len = 0;
	if (size <= align && !whole)
		return _pp_zalloc_aligned(size, align);
	if (_pp_fault_should_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	size = (size + PAGE_SIZE - 1) & PAGE_MASK;
	res = mmap(NULL, size + align, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (res == MAP_FAILED)
		return NULL;
	start = (uintptr_t)res;
	end = start + size + align;
	aligned = (start + align - 1) & ~(uintptr_t)(align - 1);
	if (aligned > start)
		munmap(res, aligned - start);
	if (end > aligned + size)
		munmap((void *)(aligned + size), end - (aligned + size));
	*len = size;
	return (struct page *)aligned;
}

static void
desc_free(struct page *pages, size_t len)
{
	if (len == 0)
		_pp_free(pages);
	else
		munmap(pages, len);
}

/* Write the descriptors of pages [@from, @to) of @r. */
static void
region_build(struct pp_region *r, unsigned long from, unsigned long to)
{
	unsigned long flags = (unsigned long)r->zone->nid << PP_NODES_PGSHIFT;
	unsigned long pfn;
	struct page *page;

	for (pfn = from; pfn < to; pfn++) {
		page = &r->pages[pfn - r->base_pfn];
		page->flags = flags;
		page->virtual = (void *)(pfn << PAGE_SHIFT);
	}
}

int
_pp_region_build_chunk(struct pp_region *r, unsigned long *from,
		       unsigned long *to)
{
	const unsigned long chunk = 1UL << MAX_PAGE_ORDER;
	unsigned long end;

	if (r->built_pfn >= r->end_pfn)
		return -ENOMEM;
	end = (r->built_pfn | (chunk - 1)) + 1;
	if (end > r->end_pfn)
		end = r->end_pfn;
	region_build(r, r->built_pfn, end);
	*from = r->built_pfn;
	*to = end;
	r->built_pfn = end;
	return 0;
}

/*
 * A region descriptor for [@addr, @addr + @len) of zone @z (whose node the
 * descriptors name), its descriptors mapped and, with @build, built. Not
 * yet published. NULL with errno ENOMEM.
 */
static struct pp_region *
region_new(struct pp_zone *z, void *addr, size_t len, int build)
{
	size_t npages = len >> PAGE_SHIFT;
	struct pp_region *r;

	r = _pp_zalloc_aligned(sizeof(*r), PP_CACHELINE_SIZE);
	if (r == NULL)
		return NULL;
	/* Regions we map (@build) may be returned to the system. */
	r->pages = desc_alloc(npages, build, &r->desc_len);
	if (r->pages == NULL) {
		_pp_free(r);
		errno = ENOMEM;
		return NULL;
	}
	r->base_pfn = (uintptr_t)addr >> PAGE_SHIFT;
	r->end_pfn = r->base_pfn + npages;
	r->built_pfn = r->base_pfn;
	r->zone = z;
	if (build) {
		region_build(r, r->base_pfn, r->end_pfn);
		r->built_pfn = r->end_pfn;
	}
	return r;
}

/* Free an unpublished region descriptor (or one already removed). */
static void
region_discard(struct pp_region *r)
{
	desc_free(r->pages, r->desc_len);
	_pp_free(r);
}

static void
region_free(struct pp_region *r)
{
	map_remove(r);
	if (r->map_addr != NULL)
		munmap(r->map_addr, r->map_len);
	region_discard(r);
}

int
_pp_region_release(struct pp_region *r)
{
	struct pp_zone *z = r->zone;
	struct pp_mem_source *src = z->src;
	struct pp_region **pp;

	/* The failure a test can inject here stands for an munmap() that
	 * cannot split a mapping (ENOMEM); ours never need a split. */
	if (_pp_fault_should_fail())
		return -ENOMEM;
	for (pp = &z->regions; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == r) {
			*pp = r->next;
			break;
		}
	}
	/* No page of @r is allocated or cached, so only a caller holding a
	 * stale pointer could still look it up; it finds nothing, as after
	 * pp_mem_source_destroy(). */
	map_remove(r);
	if (src->kind == PP_MEM_MEMFD)
		/* The file keeps its pages until punched; a failure leaves
		 * them there, harmless (the offset is never reused). */
		(void)fallocate(src->fd,
				FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				(off_t)r->obj_off, (off_t)r->map_len);
	munmap(r->map_addr, r->map_len);
	region_discard(r);
	pthread_mutex_lock(&src->lock);
	src->mapped_bytes -= PP_REGION_SIZE;
	pthread_mutex_unlock(&src->lock);
	return 0;
}

static void
warn_hugetlb(const struct pp_mem_source *src, gfp_t gfp, int err)
{
	if ((src->flags & PP_MEM_F_NOWARN) || (gfp & __GFP_NOWARN))
		return;
	fprintf(stderr,
		"pagepool: cannot map %lu MiB of 2 MiB hugepages (%s); "
		"reserve them with vm.nr_hugepages\n",
		PP_REGION_SIZE >> 20, strerror(err));
}

struct pp_region *
_pp_region_grow(struct pp_zone *z, gfp_t gfp)
{
	struct pp_mem_source *src = z->src;
	struct pp_region *r;
	uint64_t off = 0;
	void *addr;
	int err;

	if (src->kind == PP_MEM_USER) {
		errno = ENOMEM;		/* fixed size: never grows */
		return NULL;
	}
	pthread_mutex_lock(&src->lock);
	if (src->max_bytes != 0 &&
	    src->mapped_bytes + PP_REGION_SIZE > src->max_bytes) {
		pthread_mutex_unlock(&src->lock);
		errno = ENOMEM;
		return NULL;
	}
	if (src->kind == PP_MEM_MEMFD) {
		/* Offsets only ever grow, and the file grows under the lock
		 * too, so concurrent growth on two nodes cannot shrink it. A
		 * failed growth leaves a hole: sparse, costs nothing. */
		off = src->memfd_size;
		if (_pp_fault_should_fail()) {
			pthread_mutex_unlock(&src->lock);
			errno = ENOMEM;
			return NULL;
		}
		if (ftruncate(src->fd, (off_t)(off + PP_REGION_SIZE)) != 0) {
			err = errno;
			pthread_mutex_unlock(&src->lock);
			errno = err;
			return NULL;
		}
		src->memfd_size = off + PP_REGION_SIZE;
	}
	src->mapped_bytes += PP_REGION_SIZE;
	pthread_mutex_unlock(&src->lock);

	addr = map_backing(src, z->nid, off);
	if (addr == NULL) {
		err = errno;
		if (src->kind == PP_MEM_HUGETLB)
			warn_hugetlb(src, gfp, err);
		goto fail;
	}
	r = region_new(z, addr, PP_REGION_SIZE, 1);
	if (r == NULL) {
		err = errno;
		munmap(addr, PP_REGION_SIZE);
		goto fail;
	}
	r->map_addr = addr;
	r->map_len = PP_REGION_SIZE;
	r->obj_off = off;
	err = -map_insert(r);
	if (err != 0) {
		/* Our regions own whole granules, so only ENOMEM here. */
		munmap(addr, PP_REGION_SIZE);
		region_discard(r);
		goto fail;
	}
	return r;

fail:
	pthread_mutex_lock(&src->lock);
	src->mapped_bytes -= PP_REGION_SIZE;
	pthread_mutex_unlock(&src->lock);
	errno = err;
	return NULL;
}

/*
 * ---- Sources ------------------------------------------------------------
 */

struct pp_zone *
_pp_source_zone(struct pp_mem_source *src, int nid)
{
	if (src == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (nid == NUMA_NO_NODE) {
		if (src->nr_zones == 1)
			return src->zones[0];
		nid = pp_node_local();
	} else if (nid < 0 || nid >= _pp_numa_nr_nodes()) {
		errno = EINVAL;
		return NULL;
	}
	if (src->kind == PP_MEM_USER)
		return src->zones[0];
	return src->zones[nid];
}

/* Free everything of @src. Context: nobody else uses @src. */
static void
source_free(struct pp_mem_source *src)
{
	struct pp_region *r, *next;
	struct pp_zone *z;
	int i;

	for (i = 0; src->zones != NULL && i < src->nr_zones; i++) {
		z = src->zones[i];
		if (z == NULL)
			continue;
		for (r = z->regions; r != NULL; r = next) {
			next = r->next;
			region_free(r);
		}
		pthread_mutex_destroy(&z->grow_lock);
		_pp_free(z);
	}
	_pp_free(src->zones);
	if (src->fd >= 0)
		close(src->fd);
	pthread_mutex_destroy(&src->lock);
	_pp_free(src);
}

static struct pp_zone *
zone_new(struct pp_mem_source *src, int nid)
{
	struct pp_zone *z;
	int o;

	z = _pp_zalloc_aligned(sizeof(*z), PP_CACHELINE_SIZE);
	if (z == NULL)
		return NULL;
	pp_spin_lock_init(&z->lock);
	for (o = 0; o < NR_PAGE_ORDERS; o++) {
		z->free_area[o].next = &z->free_area[o];
		z->free_area[o].prev = &z->free_area[o];
	}
	pthread_mutex_init(&z->grow_lock, NULL);
	z->src = src;
	z->nid = nid;
	return z;
}

/*
 * Copy @opts into @out, accepting a caller built against an older (shorter)
 * or newer (longer) struct as long as the unknown tail is zero.
 */
static int
opts_copy(const struct pp_mem_source_opts *opts,
	  struct pp_mem_source_opts *out)
{
	size_t sz;

	memset(out, 0, sizeof(*out));
	if (opts == NULL)
		return 0;
	/* The shared check, which bounds sz before reading the tail. */
	if (!PP_OPTS_VALID(opts))
		return -EINVAL;
	sz = opts->sz;
	memcpy(out, opts, sz < sizeof(*out) ? sz : sizeof(*out));
	return 0;
}

static int
opts_validate(const struct pp_mem_source_opts *o)
{
	uintptr_t a = (uintptr_t)o->addr;

	if (o->flags & ~PP_MEM_F_ALL)
		return -EINVAL;
	switch (o->kind) {
	case PP_MEM_ANON:
	case PP_MEM_HUGETLB:
	case PP_MEM_MEMFD:
		if (o->nid != 0 && o->nid != NUMA_NO_NODE)
			return -EINVAL;
		if (o->addr != NULL || o->len != 0)
			return -EINVAL;
		if (o->max_bytes != 0 && o->max_bytes < PP_REGION_SIZE)
			return -EINVAL;
		return 0;
	case PP_MEM_USER:
		if (a == 0 || (a & (PAGE_SIZE - 1)) || o->len == 0 ||
		    (o->len & (PAGE_SIZE - 1)) || a + o->len < a ||
		    ((a + o->len - 1) >> PP_MAP_ADDR_BITS) != 0)
			return -EINVAL;
		if (o->nid != NUMA_NO_NODE &&
		    (o->nid < 0 || o->nid >= _pp_numa_nr_nodes()))
			return -EINVAL;
		return 0;
	default:
		return -EINVAL;
	}
}

/*
 * Is all of [@addr, @addr + @len) mapped? A user region must be: the
 * allocator hands out any page inside it. Mapped means a mapping exists,
 * whatever its protection, so a PROT_NONE reservation the caller opens up
 * later is accepted. msync(MS_ASYNC) walks the mappings over the range
 * and fails with ENOMEM at the first hole; it has no other effect, touches
 * no page and costs one step per mapping, not per page, so a region of any
 * size is checked at once. 0 or -EFAULT.
 */
static int
user_range_check(void *addr, size_t len)
{
	if (msync(addr, len, MS_ASYNC) != 0)
		return -EFAULT;
	return 0;
}

/* Publish the single region of a user source and account it in its zone. */
static int
source_add_user_region(struct pp_mem_source *src)
{
	struct pp_zone *z = src->zones[0];
	struct pp_region *r;
	int err;

	/* Descriptors are built chunk by chunk as the zone needs them, so a
	 * region of any size registers at once (the zone's node is the
	 * region's). */
	r = region_new(z, src->user_addr, src->user_len, 0);
	if (r == NULL)
		return -errno;
	err = map_insert(r);
	if (err != 0) {
		region_discard(r);
		return err;
	}
	pthread_mutex_lock(&z->grow_lock);
	_pp_zone_add_region(z, r);
	pthread_mutex_unlock(&z->grow_lock);
	return 0;
}

/* Map the first region of a hugetlb source now, so that missing hugepages
 * are reported at creation rather than at some later allocation. */
static int
source_probe_hugetlb(struct pp_mem_source *src)
{
	struct pp_zone *z = src->zones[pp_node_local() % src->nr_zones];
	struct pp_region *r;
	int err;

	pthread_mutex_lock(&z->grow_lock);
	r = _pp_region_grow(z, __GFP_NOWARN);
	if (r != NULL)
		_pp_zone_add_region(z, r);
	err = r == NULL ? errno : 0;
	pthread_mutex_unlock(&z->grow_lock);
	if (r != NULL)
		return 0;
	/* Injected faults and descriptor allocation failures are not a
	 * shortage of hugepages: report them as they are. */
	if (err == ENOMEM && pp_fault_injected() == 0 &&
	    (src->flags & PP_MEM_F_HUGETLB_FALLBACK)) {
		src->kind = PP_MEM_ANON;
		return 0;
	}
	warn_hugetlb(src, 0, err);
	return -err;
}

struct pp_mem_source *
pp_mem_source_create(const struct pp_mem_source_opts *opts)
{
	struct pp_mem_source_opts o;
	struct pp_mem_source *src;
	int err, i;

	/* Before any lock: fork() holds glibc's handler-list lock while it
	 * runs our prepare handler, which takes ours. */
	_pp_fork_register();
	err = opts_copy(opts, &o);
	if (err == 0)
		err = opts_validate(&o);
	if (err == 0 && o.kind == PP_MEM_USER)
		err = user_range_check(o.addr, o.len);
	if (err != 0) {
		errno = -err;
		return NULL;
	}
	src = _pp_zalloc_aligned(sizeof(*src), PP_CACHELINE_SIZE);
	if (src == NULL)
		return NULL;
	pthread_mutex_init(&src->lock, NULL);
	src->fd = -1;
	src->dirty_decay_ms = -1;	/* the default source: see below */
	src->kind = o.kind;
	src->requested_kind = o.kind;
	src->flags = o.flags;
	src->max_bytes = o.max_bytes & ~(size_t)(PP_REGION_SIZE - 1);
	src->nr_zones = o.kind == PP_MEM_USER ? 1 : _pp_numa_nr_nodes();
	src->zones = _pp_zalloc_aligned(src->nr_zones * sizeof(*src->zones), /* NOLINT(bugprone-sizeof-expression) */
					sizeof(void *));
	if (src->zones == NULL)
		goto fail_errno;
	if (o.kind == PP_MEM_USER) {
		src->user_addr = o.addr;
		src->user_len = o.len;
		src->user_nid = o.nid == NUMA_NO_NODE ?
					pp_node_of_addr(o.addr) : o.nid;
	}
	for (i = 0; i < src->nr_zones; i++) {
		src->zones[i] = zone_new(src, o.kind == PP_MEM_USER ?
						      src->user_nid : i);
		if (src->zones[i] == NULL)
			goto fail_errno;
	}

	switch (o.kind) {
	case PP_MEM_MEMFD:
		if (_pp_fault_should_fail()) {
			errno = ENOMEM;
			goto fail_errno;
		}
		src->fd = memfd_create(o.name != NULL ? o.name : "pagepool",
				       MFD_CLOEXEC);
		if (src->fd < 0)
			goto fail_errno;
		break;
	case PP_MEM_HUGETLB:
		err = source_probe_hugetlb(src);
		if (err != 0)
			goto fail;
		break;
	case PP_MEM_USER:
		err = source_add_user_region(src);
		if (err != 0)
			goto fail;
		break;
	default:
		break;
	}
	src_reg_add(src);
	return src;

fail_errno:
	err = -errno;
fail:
	source_free(src);
	errno = -err;
	return NULL;
}

int
pp_mem_source_destroy(struct pp_mem_source *src)
{
	int i;

	if (src == NULL)
		return 0;
	if (src == pp_load_acquire(&default_src))
		return -EINVAL;
	/* Blocks other threads freed for a thread that has not allocated
	 * since are no one's: take them too. */
	_pp_inboxes_steal();
	_pp_thread_cache_drain_source(src);
	/* Under the registry lock, so no pool can take the source between
	 * the checks and the unlink. */
	pthread_mutex_lock(&src_reg_lock);
	if (src->pool_users > 0) {
		pthread_mutex_unlock(&src_reg_lock);
		return -EBUSY;
	}
	for (i = 0; i < src->nr_zones; i++) {
		if (_pp_zone_pages_in_use(src->zones[i]) != 0) {
			pthread_mutex_unlock(&src_reg_lock);
			return -EBUSY;
		}
	}
	src_reg_del_locked(src);
	pthread_mutex_unlock(&src_reg_lock);
	source_free(src);
	return 0;
}

int
pp_mem_source_id(const struct pp_mem_source *src)
{
	if (src == NULL)
		return -EINVAL;
	return src->id;
}

/*
 * The default source's decay: PAGEPOOL_DIRTY_DECAY_MS if it is a whole
 * number from -1 to 3600000 (an hour), else 0 (at once).
 */
static long
default_decay_ms(void)
{
	const char *e = getenv("PAGEPOOL_DIRTY_DECAY_MS");
	char *end;
	long ms;

	if (e == NULL || *e == '\0')
		return 0;
	errno = 0;
	ms = strtol(e, &end, 10);
	if (errno != 0 || *end != '\0' || ms < -1 || ms > PP_DECAY_MS_MAX)
		return 0;
	return ms;
}

int
pp_mem_source_set_dirty_decay_ms(struct pp_mem_source *src, long ms)
{
	if (src == NULL || ms < -1 || ms > PP_DECAY_MS_MAX)
		return -EINVAL;
	if (src->kind == PP_MEM_USER)
		return ms == -1 ? 0 : -EOPNOTSUPP;
	/* Relaxed: a setting, read whole by decay_ns() in page_alloc.c,
	 * which pairs with this store; it publishes nothing else. */
	pp_store_relaxed(&src->dirty_decay_ms, ms);
	return 0;
}

long
pp_mem_source_dirty_decay_ms(const struct pp_mem_source *src)
{
	if (src == NULL)
		return -EINVAL;
	/* Relaxed: see pp_mem_source_set_dirty_decay_ms(). */
	return pp_load_relaxed(&src->dirty_decay_ms);
}

/* Purge @src: the calling thread's cache of it first, then every free
 * region of every zone. */
static size_t
source_purge(struct pp_mem_source *src)
{
	uint64_t now = _pp_decay_clock();
	size_t bytes = 0;
	int i;

	if (src->kind == PP_MEM_USER)
		return 0;
	_pp_inboxes_steal();
	_pp_thread_cache_drain_source(src);
	for (i = 0; i < src->nr_zones; i++) {
		pthread_mutex_lock(&src->zones[i]->grow_lock);
		bytes += _pp_zone_purge_locked(src->zones[i], now, 0, 1);
		pthread_mutex_unlock(&src->zones[i]->grow_lock);
	}
	return bytes;
}

long
pp_mem_purge(struct pp_mem_source *src)
{
	struct pp_mem_source *it;
	size_t bytes = 0;

	if (src != NULL)
		return (long)source_purge(src);
	/* Under the registry lock, so no source is destroyed meanwhile. */
	pthread_mutex_lock(&src_reg_lock);
	for (it = src_reg_head; it != NULL; it = it->reg_next)
		bytes += source_purge(it);
	pthread_mutex_unlock(&src_reg_lock);
	return (long)bytes;
}

struct pp_mem_source *
pp_mem_source_default(void)
{
	struct pp_mem_source *src;

	/* A5: pairs with release R5 below. */
	src = pp_load_acquire(&default_src);
	if (PP_LIKELY(src != NULL))
		return src;
	/* Before default_lock: see pp_mem_source_create(). */
	_pp_fork_register();
	pthread_mutex_lock(&default_lock);
	src = default_src;
	if (src == NULL) {
		src = pp_mem_source_create(NULL);
		/* R5: pairs with acquire A5 above. */
		if (src != NULL) {
			src->dirty_decay_ms = default_decay_ms();
			pp_store_release(&default_src, src);
		}
	}
	pthread_mutex_unlock(&default_lock);
	return src;
}

int
pp_mem_source_kind(const struct pp_mem_source *src)
{
	if (src == NULL)
		return -EINVAL;
	return src->kind;
}

int
pp_mem_source_fd(const struct pp_mem_source *src)
{
	if (src == NULL || src->kind != PP_MEM_MEMFD)
		return -EINVAL;
	return src->fd;
}

int
pp_mem_source_page_offset(const struct pp_mem_source *src,
			  const struct page *page, uint64_t *off)
{
	struct pp_region *r = _pp_page_region(page);

	if (src == NULL || off == NULL || r == NULL || r->zone->src != src)
		return -EINVAL;
	if (src->kind != PP_MEM_MEMFD && src->kind != PP_MEM_USER)
		return -EOPNOTSUPP;
	*off = r->obj_off + ((uint64_t)(page - r->pages) << PAGE_SHIFT);
	return 0;
}

struct pp_mem_source *
pp_page_source(const struct page *page)
{
	struct pp_region *r = _pp_page_region(page);

	if (r == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return r->zone->src;
}
