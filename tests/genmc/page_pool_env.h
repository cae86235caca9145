/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The test configuration the page_pool and page_frag_cache harnesses run
 * the real sources in. GenMC checks one translation unit, so this header
 * includes the real src/lib/ptr_ring.c, src/net/core/page_pool{,_alloc,
 * _put,_dma}.c, src/mm/page_frag_cache.c and, with ENV_STASH,
 * src/net/core/page_pool_stash.c unchanged, and replaces only what they
 * call outside themselves and what the checker cannot run:
 *
 *  - the page allocator (mmap-backed regions, per-thread caches): a fixed
 *    array of ENV_NPAGES order-0 pages; alloc_pages_node() and
 *    alloc_pages_bulk_node() hand out free ones (a higher order fails, so
 *    the frag cache falls back to a page), virt_to_page() finds them,
 *    put_page() and __free_pages() drop a reference
 *    (page_ref_sub_and_test(), the real header's R2/A2) and at zero the
 *    page is free and its bytes are overwritten with plain stores, as
 *    the next owner may: a holder's write to it not ordered before the
 *    last drop is reported as a race;
 *  - the library's memory (_pp_zalloc_aligned()/_pp_free()): a static
 *    home for each object, overwritten with plain stores when the pool
 *    or its ring's queue is freed (see "Memory" below), so an access to a
 *    freed pool is reported as a race;
 *  - page_pool_create(): env_pool_create(), its sequence without the
 *    struct copy GenMC cannot run;
 *  - the DMA device: pp_dma_map() and friends check, with plain reads,
 *    that the device is still bound and the mapping live. The harness
 *    unbinds the device (a plain write) as soon as page_pool_destroy()
 *    returns, as a driver may: a DMA op of the pool not ordered before
 *    that return is reported as a race, a second unmap fails an assert;
 *  - deferred release: page_pool.c's defer_release() calls
 *    _pp_model_defer_release() under PP_MODEL_CHECK (no timer thread);
 *    env_release_retry() retries page_pool_release() in its place;
 *  - the return stash's allocation, thread-specific key and exit (see
 *    "Return stashes" below), or, without ENV_STASH, the stash itself.
 *
 * page_pool.c's functions are static here as everywhere, and visible to
 * the harness: it includes the file.
 */
#ifndef PAGEPOOL_GENMC_PAGE_POOL_ENV_H
#define PAGEPOOL_GENMC_PAGE_POOL_ENV_H

#include "env_common.h"

#ifndef ENV_NPAGES
#define ENV_NPAGES 2
#endif
#ifndef ENV_RING
#define ENV_RING 4
#endif
#ifndef ENV_STASH
#define ENV_STASH 0
#endif

/*
 * GenMC's code generator knows no llvm.is.constant: say "not a constant",
 * which takes the general branch (page_pool_unref_page() then stores the 1
 * the count already holds).
 */
#define __builtin_constant_p(x) 0

/*
 * GenMC's <pthread.h> has no condition variables: page_pool.c's
 * deferred-release thread uses them, and never runs here (nor do the
 * users of the other declarations below).
 */
typedef int pthread_cond_t;
typedef int pthread_condattr_t;
#define PTHREAD_COND_INITIALIZER 0
int pthread_condattr_init(pthread_condattr_t *attr);
int pthread_condattr_setclock(pthread_condattr_t *attr, int clock);
int pthread_condattr_destroy(pthread_condattr_t *attr);
int pthread_cond_init(pthread_cond_t *cond, const pthread_condattr_t *attr);
int pthread_cond_signal(pthread_cond_t *cond);
int pthread_cond_broadcast(pthread_cond_t *cond);
int pthread_cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex,
			   const struct timespec *abstime);
int pthread_attr_setdetachstate(pthread_attr_t *attr, int state);
void *calloc(size_t n, size_t size);

/* A DMA tracking directory of 2 chunks of 4 slots, not 4096 of 1024: the
 * destroy steps through all of it. */
#define TRACK_CHUNK_SHIFT 2
#define TRACK_DIR 2u

#include "lib/ptr_ring.c"
#include "net/core/page_pool.c"
#include "net/core/page_pool_alloc.c"
#include "net/core/page_pool_put.c"
#include "net/core/page_pool_dma.c"
/* GenMC cannot initialise a thread-local struct; page_frag_cache.c's
 * per-thread cache (its only thread-local) is not used here. */
#define __thread
#include "mm/page_frag_cache.c"
#undef __thread

/* ---- Memory ------------------------------------------------------------ */

/*
 * Each object the sources allocate has a static home here, chosen by its
 * size: GenMC reports a plain read of heap memory nobody wrote, and
 * zeroing a heap block word by word would be a mixed-size access to its
 * int fields; statics start zeroed with their own types.
 *
 * Freeing the pool, or the ring's queue, overwrites it with plain stores
 * (a typed struct copy, which GenMC turns into one plain store a field):
 * the memory has gone back to an allocator that may hand it out at once.
 * Any access of a returner that is not ordered before the free then races
 * with those stores, and GenMC reports a "Non-atomic race".
 */
struct env_queue {
	void *slot[ENV_RING];
};

static struct page_pool env_pool_obj, env_pool_poison;
static struct env_queue env_queue_obj, env_queue_poison;
static struct pp_dma_track env_track_obj;
static struct pp_dma_slot env_chunk_obj[TRACK_CHUNK];
static int env_pool_taken, env_queue_taken, env_track_taken;
static int env_chunk_taken;

void *
_pp_zalloc_aligned(size_t size, size_t align)
{
	(void)align;
	/* Set-up only (pool create and the first DMA map, on one thread):
	 * no lock. */
	if (size == sizeof(env_pool_obj)) {
		assert(!env_pool_taken++);
		return &env_pool_obj;
	}
	if (size == sizeof(env_queue_obj)) {
		assert(!env_queue_taken++);
		return &env_queue_obj;
	}
	if (size == sizeof(env_track_obj)) {
		assert(!env_track_taken++);
		return &env_track_obj;
	}
	if (size == sizeof(env_chunk_obj)) {
		assert(!env_chunk_taken++);
		return env_chunk_obj;
	}
	assert(0);
	return NULL;
}

/* What the pool counted when it was freed, and how often it was. */
static int env_pool_freed;
static uint32_t env_freed_hold, env_freed_release;

void
_pp_free(void *ptr)
{
	if (ptr == &env_pool_obj) {
		env_pool_freed++;
		env_freed_hold = __atomic_load_n(
			&env_pool_obj.pages_state_hold_cnt, __ATOMIC_RELAXED);
		env_freed_release = __atomic_load_n(
			&env_pool_obj.pages_state_release_cnt,
			__ATOMIC_RELAXED);
		env_pool_obj = env_pool_poison;
	} else if (ptr == &env_queue_obj)
		env_queue_obj = env_queue_poison;
	else if (ptr == &env_track_obj) {
		env_track_obj.users = 0;
		env_track_obj.revoked = 0;
	}
}

/* ---- Page allocator ---------------------------------------------------- */

static struct page env_pages[ENV_NPAGES];
static char env_mem[ENV_NPAGES][PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));
/* 1 while allocated. Taken with acquire and given back with release, as
 * the real allocator's locks do: the allocator is not what is checked. */
static int env_page_used[ENV_NPAGES];
/* How often each page was handed out: plain, written by the thread that
 * took the page (the acquire above and the release of its free order the
 * writers). */
static int env_page_allocs[ENV_NPAGES];

static int
env_page_index(const struct page *page)
{
	int i = (int)(page - env_pages);

	assert(i >= 0 && i < ENV_NPAGES);
	return i;
}

static struct page *
env_alloc_one(void)
{
	int i;

	for (i = 0; i < ENV_NPAGES; i++) {
		int zero = 0;

		if (__atomic_compare_exchange_n(&env_page_used[i], &zero, 1,
						false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED)) {
			struct page *page = &env_pages[i];

			env_page_allocs[i]++;
			page->flags = 0;
			page->pp_magic = 0;
			page->pp = NULL;
			page->dma_addr = 0;
			page->pp_ref_count = 0;
			page->virtual = env_mem[i];
			set_page_count(page, 1);
			return page;
		}
	}
	return NULL;
}

struct page *
alloc_pages_node(int nid, gfp_t gfp, unsigned int order)
{
	(void)nid;
	(void)gfp;
	return order == 0 ? env_alloc_one() : NULL;
}

unsigned long
alloc_pages_bulk_node(gfp_t gfp, int nid, unsigned long nr,
		      struct page **array)
{
	unsigned long got = 0;
	struct page *page;

	(void)gfp;
	(void)nid;
	while (got < nr && (page = env_alloc_one()) != NULL)
		array[got++] = page;
	return got;
}

/* A pool takes its pages from a memory source (pool->src, the default
 * one unless PP_FLAG_MEM_SOURCE): here every source is the fixed array. */
struct page *
alloc_pages_src(struct pp_mem_source *src, int nid, gfp_t gfp,
		unsigned int order)
{
	(void)src;
	return alloc_pages_node(nid, gfp, order);
}

unsigned long
alloc_pages_bulk_src(struct pp_mem_source *src, int nid, gfp_t gfp,
		     unsigned long nr, struct page **array)
{
	(void)src;
	return alloc_pages_bulk_node(gfp, nid, nr, array);
}

void
free_frozen_pages(struct page *page, unsigned int order)
{
	int i = env_page_index(page);

	(void)order;
	/* The bytes the harnesses write (bytes 0 and 1 of a page, byte 0
	 * of its second 64-byte fragment), as the next owner would. */
	env_mem[i][0] = 0x5a;
	env_mem[i][1] = 0x5a;
	env_mem[i][64] = 0x5a;
	assert(__atomic_exchange_n(&env_page_used[i], 0, __ATOMIC_RELEASE));
}

struct page *
virt_to_page(const void *addr)
{
	const char *c = addr;
	int i;

	for (i = 0; i < ENV_NPAGES; i++) {
		if (c >= env_mem[i] && c < env_mem[i] + PAGE_SIZE)
			return &env_pages[i];
	}
	return NULL;
}

void
put_page(struct page *page)
{
	page = compound_head(page);
	if (page_ref_sub_and_test(page, 1))
		free_frozen_pages(page, 0);
}

void
__free_pages(struct page *page, unsigned int order)
{
	if (page_ref_sub_and_test(page, 1))
		free_frozen_pages(page, order);
}

int
_pp_numa_nr_nodes(void)
{
	return 1;
}

int
_pp_numa_node_local(void)
{
	return 0;
}

/* ---- The live view (page_pool_shm.c): off, as without PAGEPOOL_STATS -- */

void
_pp_shm_pool_add(struct page_pool *pool)
{
	(void)pool;
}

void
_pp_shm_pool_detach(struct page_pool *pool)
{
	(void)pool;
}

void
_pp_shm_pool_del(struct page_pool *pool)
{
	(void)pool;
}

/* ---- Return stashes (page_pool_stash.c) -------------------------------- */

#if ENV_STASH
/*
 * The real stash (page_pool_stash.c), for page_pool_stash.c the harness.
 * Its thread-local pointers are plain __thread variables, which GenMC
 * runs; what it calls outside itself is replaced:
 *  - posix_memalign(), which GenMC's libc lacks: its malloc(), so that
 *    GenMC itself reports an access to a stash after the exit destructor
 *    freed it;
 *  - the memset() zeroing a new stash, which GenMC cannot run on the
 *    heap: one plain store a field (the page pointers are written before
 *    they are read);
 *  - pthread_once() and the thread-specific key, as env_common.h
 *    supplies them: a harness thread calls env_thread_exit() where it
 *    would return, which runs the key's destructor.
 * PP_STASH_SIZE is 2 (with a ring of 8 the flush threshold is 2 as
 * well), so that a slot's entries are written again after two puts, and
 * PP_STASH_SLOTS is 1: the harness has one pool, and every slot is a
 * lock section the exit flush and the steal go through.
 */
int
posix_memalign(void **ptr, size_t align, size_t size)
{
	(void)align;
	*ptr = malloc(size);
	return *ptr == NULL ? ENOMEM : 0;
}

#define PP_STASH_SIZE 2u
#define PP_STASH_SLOTS 1
#define memset(p, c, n) ENV_STASH_ZERO(p)
#define ENV_STASH_ZERO(st)                                                    \
	({                                                                    \
		unsigned int z_;                                              \
		pp_spin_lock_init(&(st)->lock);                               \
		(st)->victim = 0;                                             \
		(st)->next = NULL;                                            \
		for (z_ = 0; z_ < PP_STASH_SLOTS; z_++) {                     \
			(st)->slot[z_].pool = NULL;                           \
			(st)->slot[z_].cap = 0;                               \
			(st)->slot[z_].head = 0;                              \
			(st)->slot[z_].tail = 0;                              \
		}                                                             \
		(void *)(st);                                                 \
	})
#include "net/core/page_pool_stash.c"
#undef memset
#else
/*
 * The per-thread return stash is configured out: a non-owner's put takes
 * the ring path it took before the stash existed, which is the protocol
 * these harnesses check (their pools have no owner, so the real stash
 * would not be used either; its steal would only lock an empty list).
 * page_pool_stash.c, the harness, includes the real file (ENV_STASH).
 */
bool
_pp_stash_put(struct page_pool *pool, struct page *page)
{
	(void)pool;
	(void)page;
	return false;
}

void
_pp_stash_flush_self(struct page_pool *pool)
{
	(void)pool;
}

unsigned int
_pp_stash_steal(struct page_pool *pool)
{
	(void)pool;
	return 0;
}
#endif

/* ---- DMA device -------------------------------------------------------- */

/* Plain: written by the harness once page_pool_destroy() returned, read by
 * every DMA op. */
static int env_dev_bound = 1;
static int env_mapped[ENV_NPAGES];
static int env_dev_obj;
#define ENV_DEV ((struct device *)&env_dev_obj)

static int
env_dma_index(dma_addr_t addr)
{
	int i = (int)(addr >> PAGE_SHIFT) - 1;

	assert(i >= 0 && i < ENV_NPAGES);
	return i;
}

bool
pp_dma_dev_need_sync(const struct device *dev)
{
	(void)dev;
	return true;
}

dma_addr_t
pp_dma_map(struct device *dev, void *vaddr, size_t size,
	   enum dma_data_direction dir, unsigned long attrs)
{
	int i = (int)(((char (*)[PAGE_SIZE])vaddr) - env_mem);

	(void)dev;
	(void)size;
	(void)dir;
	(void)attrs;
	assert(env_dev_bound);
	assert(i >= 0 && i < ENV_NPAGES && !env_mapped[i]);
	env_mapped[i] = 1;
	return (dma_addr_t)(i + 1) << PAGE_SHIFT;
}

int
pp_dma_unmap(struct device *dev, dma_addr_t addr, size_t size,
	     enum dma_data_direction dir, unsigned long attrs)
{
	int i = env_dma_index(addr);

	(void)dev;
	(void)size;
	(void)dir;
	(void)attrs;
	assert(env_dev_bound);
	assert(env_mapped[i]);
	env_mapped[i] = 0;
	return 0;
}

static int
env_dma_sync(dma_addr_t addr)
{
	int i = env_dma_index(addr);

	assert(env_dev_bound);
	assert(env_mapped[i]);
	return 0;
}

int
pp_dma_sync_for_device(struct device *dev, dma_addr_t addr, size_t offset,
		       size_t size, enum dma_data_direction dir)
{
	(void)dev;
	(void)offset;
	(void)size;
	(void)dir;
	return env_dma_sync(addr);
}

int
pp_dma_sync_for_cpu(struct device *dev, dma_addr_t addr, size_t offset,
		    size_t size, enum dma_data_direction dir)
{
	(void)dev;
	(void)offset;
	(void)size;
	(void)dir;
	return env_dma_sync(addr);
}

/* The driver unbinds the device: destroy returned, the pool must not touch
 * it again. */
static inline void
env_dev_unbind(void)
{
	env_dev_bound = 0;
}

/* ---- Debug hooks the sources name (PP_DEBUG is 0 here) ------------------ */

void
_pp_debug_bulk_foreign(struct page *page)
{
	(void)page;
	assert(0);
}

/* ---- Pool set-up and deferred release ---------------------------------- */

/* Set by _pp_model_defer_release(): destroy left the pool to a retry. */
static int env_deferred;

void
_pp_model_defer_release(struct page_pool *pool)
{
	(void)pool;
	env_deferred = 1;
}

/*
 * page_pool_create() for a pool of ENV_RING ring slots, with no owner, and
 * with DMA mapping and syncing if @dma. The real function copies the
 * caller's parameters with a struct assignment, which clang emits as a
 * memcpy() GenMC cannot run (it promotes only copies between named
 * objects); this is its sequence with the parameters set in place. The
 * ring and the DMA tracking are the real ptr_ring_init() and
 * _pp_dma_track_init().
 */
static struct page_pool *
env_pool_create(bool dma)
{
	struct page_pool *pool;

	pool = _pp_zalloc_aligned(sizeof(*pool), PP_CACHELINE_SIZE);
	assert(pool != NULL);
	pool->p.pool_size = ENV_RING;
	pool->p.nid = NUMA_NO_NODE;
	if (dma) {
		pool->p.flags = PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV;
		pool->p.dev = ENV_DEV;
		pool->p.dma_dir = DMA_FROM_DEVICE;
		pool->p.max_len = PAGE_SIZE;
	}
	pool->p.defer_ms = PAGE_POOL_DEFER_TIME_MS;
	pool->p.defer_warn_ms = PAGE_POOL_DEFER_WARN_MS;
	pool->dma_map = dma;
	pool->dma_sync = dma && pp_dma_dev_need_sync(ENV_DEV);
	pool->user_cnt = 1;
	assert(ptr_ring_init(&pool->ring, ENV_RING, GFP_KERNEL) == 0);
	if (dma)
		assert(_pp_dma_track_init(pool) == 0);
	registry_add(pool);
	return pool;
}

/*
 * The deferred-release retries, on the destroyer's thread: at most
 * @tries more page_pool_release() calls, and only the executions in
 * which the last of them frees the pool are explored (a release that
 * finds pages in flight frees nothing and is retried; bounding the
 * retries is what keeps the state space finite).
 */
static void
env_release_retry(struct page_pool *pool, int tries)
{
	int inflight = 1;

	if (!env_deferred)
		return;
	while (tries-- > 0 && inflight != 0)
		inflight = page_pool_release(pool);
	AWAIT(inflight == 0);
}

#endif /* PAGEPOOL_GENMC_PAGE_POOL_ENV_H */
