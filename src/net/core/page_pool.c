/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_pool lifecycle: parameter validation and creation, the registry of
 * live pools and their ids, the owner, in-flight accounting, and destroy
 * with its deferred release.
 *
 * In-flight accounting follows the kernel: the allocation side counts every
 * page entering the pool in a plain 32-bit hold count, every thread that
 * gives a page back to the page allocator bumps an atomic release count,
 * and their wrap-safe difference is what is in flight. A pool is freed only
 * when that difference is zero.
 *
 * The put/destroy protocol (seed 000, bug 2). A put touches the pool only
 * while it holds the page it returns, so the pool is alive for the whole
 * put. It hands the page over with its last access to the pool: either a
 * ring produce inside the producer lock, or the release-count increment in
 * _pp_return_page(). The release path, after seeing zero in flight, takes
 * and drops the producer lock, which waits out a producer still between its
 * produce and its unlock (the kernel's 271683bb2cf3); the increment is a
 * release operation read with acquire, so every access of the last put
 * happens before the free. The owner's direct path never races with destroy:
 * destroy requires the owner to have stopped (debug builds report a
 * destroy from another thread while direct recycling is still on).
 * tests/model/page_pool_destroy.pml checks the protocol.
 *
 * Deferred release runs on one background thread, started when a pool is
 * first deferred and ending when no deferred pool is left, so a program
 * that destroys its pools cleanly has no extra thread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/fork_priv.h"
#include "lib/mem_priv.h"
#include "lib/test_hooks.h"
#include "mm/page_alloc_priv.h"
#include "page_pool_priv.h"

/* ---- Registry ---------------------------------------------------------- */

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct page_pool *registry_head;
static unsigned int registry_next_id = 1;

/* Assign a cyclic id >= 1 not used by a live pool, as the kernel's
 * xa_alloc_cyclic does, and link the pool. */
static void
registry_add(struct page_pool *pool)
{
	struct page_pool *it;
	unsigned int id;

	/* With no lock held: fork() holds glibc's handler-list lock while
	 * it runs our prepare handler, which takes ours. */
	_pp_fork_register();
	pthread_mutex_lock(&registry_lock);
	for (;;) {
		id = registry_next_id++;
		if (registry_next_id == 0)
			registry_next_id = 1;
		if (id == 0)
			continue;
		for (it = registry_head; it != NULL; it = it->registry_next) {
			if (it->id == id)
				break;
		}
		if (it == NULL)
			break;
	}
	pool->id = id;
	pool->registry_next = registry_head;
	registry_head = pool;
	pthread_mutex_unlock(&registry_lock);
}

static void
registry_del(struct page_pool *pool)
{
	struct page_pool **pp;

	pthread_mutex_lock(&registry_lock);
	for (pp = &registry_head; *pp != NULL; pp = &(*pp)->registry_next) {
		if (*pp == pool) {
			*pp = pool->registry_next;
			break;
		}
	}
	pthread_mutex_unlock(&registry_lock);
}

/* ---- Nodes ------------------------------------------------------------- */

int
_pp_pool_pref_nid(const struct page_pool *pool)
{
	/* A user region is on one node whatever is preferred: wanting
	 * another would waive every recycled page. */
	if (pool->src_nid != NUMA_NO_NODE)
		return pool->src_nid;
	if (pool->p.nid != NUMA_NO_NODE)
		return pool->p.nid;
	return _pp_numa_node_local();
}

/* ---- Pages entering and leaving the pool -------------------------------- */

void
_pp_set_pp_info(struct page_pool *pool, struct page *page)
{
	page->pp = pool;
	/* Keep bits 0 and 1 (compound marker, pfmemalloc), as the kernel,
	 * and the DMA tracking id _pp_dma_map() just stored. */
	page->pp_magic = (page->pp_magic & (0x3UL | PP_DMA_INDEX_MASK)) |
			 PP_SIGNATURE;
	page->pp_ref_count = 1;
	if (pool->has_init_callback)
		pool->p.init_callback(page_to_netmem(page),
				     pool->p.init_arg);
	/* One writer (the allocation side); page_pool_inflight() may read
	 * it from any thread. */
	pp_store_relaxed(&pool->pages_state_hold_cnt,
			 pool->pages_state_hold_cnt + 1);
}

void
_pp_return_page(struct page_pool *pool, struct page *page)
{
	PP_TRACE(release, pool, pool->id, page);
	if (PP_DEBUG)
		_pp_debug_page_gone(page);
	if (pool->dma_map)
		_pp_dma_unmap(pool, page);
	/*
	 * R4: pairs with acquire A4 in page_pool_inflight(). The last access
	 * to @pool: after it a concurrent release may find nothing in flight
	 * and free the pool. Needed: relaxed,
	 * tests/genmc/page_pool_destroy.c finds a race with the free.
	 */
	__atomic_fetch_add(&pool->pages_state_release_cnt, 1,
			   __ATOMIC_RELEASE);
	PP_TEST_DELAY(PP_TP_RETURN_RELEASED);
	page->pp_magic &= 0x3UL;
	page->pp = NULL;
	page->dma_addr = 0;
	put_page(page);
}

int
page_pool_inflight(const struct page_pool *pool)
{
	uint32_t release;

	/* No pool holds nothing; 0 rather than -EINVAL, which would read
	 * as the negative count of an accounting bug. */
	if (pool == NULL)
		return 0;
	/* A4: pairs with release R4 in _pp_return_page(). Needed: relaxed,
	 * tests/genmc/page_pool_destroy.c finds a race with the free. */
	release = __atomic_load_n(&pool->pages_state_release_cnt,
				  __ATOMIC_ACQUIRE);

	/* Serial-number arithmetic: valid while fewer than 2^31 pages are
	 * in flight, as in the kernel. */
	return (int)(pp_load_relaxed(&pool->pages_state_hold_cnt) - release);
}

/* ---- Create ------------------------------------------------------------ */

static int
validate_params(const struct page_pool_params *p)
{
	if (p->flags & ~PP_FLAG_ALL)
		return -EINVAL;
	if (p->order > MAX_PAGE_ORDER)
		return -EINVAL;
	/*
	 * The device writes from offset on, and page_pool_dma_sync_for_cpu()
	 * counts from it, with or without PP_FLAG_DMA_SYNC_DEV: it must leave
	 * room in the block. (The kernel checks neither.)
	 */
	if (p->offset >= (PAGE_SIZE << p->order))
		return -EINVAL;
	if (p->flags & PP_FLAG_DMA_MAP) {
		if (p->dev == NULL)
			return -EINVAL;
		/* Pages are for the device to fill: FROM_DEVICE, or
		 * BIDIRECTIONAL for XDP_TX. */
		if (p->dma_dir != DMA_FROM_DEVICE &&
		    p->dma_dir != DMA_BIDIRECTIONAL)
			return -EINVAL;
	}
	if (p->flags & PP_FLAG_DMA_SYNC_DEV) {
		if (!(p->flags & PP_FLAG_DMA_MAP))
			return -EINVAL;
		if (p->max_len == 0)
			return -EINVAL;
		if (p->max_len > (PAGE_SIZE << p->order) - p->offset)
			return -EINVAL;
	}
	if (p->nid != NUMA_NO_NODE &&
	    (p->nid < 0 || p->nid >= _pp_numa_nr_nodes()))
		return -EINVAL;
	if (p->napi != NULL && p->napi->list_owner == 0)
		return -EINVAL;
	if ((p->flags & PP_FLAG_MEM_SOURCE) && p->mem_source <= 0)
		return -EINVAL;
	return 0;
}

struct page_pool *
page_pool_create(const struct page_pool_params *params)
{
	struct page_pool *pool;
	unsigned int ring_size;
	int err;

	if (params == NULL) {
		errno = EINVAL;
		return NULL;
	}
	err = validate_params(params);
	if (err != 0) {
		errno = -err;
		return NULL;
	}
	pool = _pp_zalloc_aligned(sizeof(*pool), PP_CACHELINE_SIZE);
	if (pool == NULL)
		return NULL;
	if (params->flags & PP_FLAG_MEM_SOURCE)
		pool->src = _pp_mem_source_get(params->mem_source);
	else
		pool->src = pp_mem_source_default();
	if (pool->src == NULL) {
		err = -errno;
		goto err_free;
	}
	pool->src_nid = _pp_mem_source_fixed_nid(pool->src);
	pool->p = *params;
	if (pool->p.defer_ms == 0)
		pool->p.defer_ms = PAGE_POOL_DEFER_TIME_MS;
	if (pool->p.defer_warn_ms == 0)
		pool->p.defer_warn_ms = PAGE_POOL_DEFER_WARN_MS;
	pool->owner = params->napi != NULL ? params->napi->list_owner : 0;
	pool->napi_id = params->napi != NULL ? params->napi->napi_id : 0;
	pool->dma_map = !!(params->flags & PP_FLAG_DMA_MAP);
	/* A coherent device needs no syncs: the kernel checks
	 * dma_dev_need_sync() per sync; deciding once keeps the direct
	 * recycle path free of calls. */
	pool->dma_sync = (params->flags & PP_FLAG_DMA_SYNC_DEV) &&
			 pp_dma_dev_need_sync(params->dev);
	pool->has_init_callback = params->init_callback != NULL;
	pool->user_cnt = 1;

	ring_size = params->pool_size ? params->pool_size
				      : PAGE_POOL_DEFAULT_RING_SIZE;
	if (ring_size > PAGE_POOL_MAX_RING_SIZE)
		ring_size = PAGE_POOL_MAX_RING_SIZE;
	err = ptr_ring_init(&pool->ring, (int)ring_size, GFP_KERNEL);
	if (err != 0)
		goto err_free;
	if (pool->dma_map) {
		err = _pp_dma_track_init(pool);
		if (err != 0)
			goto err_ring;
	}
	registry_add(pool);
	_pp_shm_pool_add(pool);
	return pool;

err_ring:
	ptr_ring_cleanup(&pool->ring, NULL);
err_free:
	if (params->flags & PP_FLAG_MEM_SOURCE)
		_pp_mem_source_put(pool->src);
	_pp_free(pool);
	errno = -err;
	return NULL;
}

/* ---- Owner ------------------------------------------------------------- */

int
page_pool_enable_direct_recycling(struct page_pool *pool,
				  struct napi_struct *napi)
{
	unsigned long cur;

	if (pool == NULL || napi == NULL || napi->list_owner == 0)
		return -EINVAL;
	cur = pp_load_relaxed(&pool->owner);
	if (cur == napi->list_owner)
		return 0;
	if (cur != 0)
		return -EBUSY;
	pp_store_relaxed(&pool->owner, napi->list_owner);
	pool->napi_id = napi->napi_id;
	/* Relaxed: _pp_napi_owner_move() compares it from another thread. */
	pp_store_relaxed(&pool->p.napi, napi);
	return 0;
}

void
page_pool_disable_direct_recycling(struct page_pool *pool)
{
	if (pool == NULL)
		return;
	/*
	 * Relaxed: the owner calls this itself, or the caller has already
	 * synchronised with the owner having stopped (joined it, say). Other
	 * threads compare the value with their own identity only, and never
	 * match either value.
	 */
	pp_store_relaxed(&pool->owner, 0UL);
	/* Relaxed: _pp_napi_owner_move() compares it from another thread. */
	pp_store_relaxed(&pool->p.napi, (struct napi_struct *)NULL);
}

/*
 * Threaded NAPI (dev.c): the owner of every live pool bound to @napi (by
 * params.napi or page_pool_enable_direct_recycling(), with the same
 * napi_id, so that an instance reusing a freed one's address does not
 * match; the pointer is compared, never followed) moves from thread
 * @from to thread @to. Returns how many pools moved.
 * Context: @from is the caller, or a thread that has stopped using those
 * pools and synchronised with the caller (a parked NAPI thread); @to uses
 * them only after synchronising with the caller (dev.c's hand-over).
 * Other threads compare the owner with themselves only and match neither
 * value, so the stores are relaxed.
 */
unsigned int
_pp_napi_owner_move(const struct napi_struct *napi, unsigned long from,
		    unsigned long to)
{
	struct page_pool *pool;
	unsigned int n = 0;

	if (napi == NULL || from == to)
		return 0;
	pthread_mutex_lock(&registry_lock);
	for (pool = registry_head; pool != NULL; pool = pool->registry_next) {
		/* Relaxed: pairs with nothing; written by its owner, which
		 * is @from (the caller) for every pool that can match. */
		if (pp_load_relaxed(&pool->p.napi) != napi ||
		    pool->napi_id != napi->napi_id ||
		    pp_load_relaxed(&pool->owner) != from)
			continue;
		pp_store_relaxed(&pool->owner, to);
		n++;
	}
	pthread_mutex_unlock(&registry_lock);
	return n;
}

void
page_pool_update_nid(struct page_pool *pool, int new_nid)
{
	if (pool == NULL)
		return;
	if (new_nid != NUMA_NO_NODE &&
	    (new_nid < 0 || new_nid >= _pp_numa_nr_nodes()))
		return;
	pool->p.nid = new_nid;
	while (pool->alloc.count > 0)
		_pp_return_page(pool, pool->alloc.cache[--pool->alloc.count]);
}

/* ---- Destroy and deferred release --------------------------------------- */

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void
free_pool(struct page_pool *pool)
{
	if (pool->disconnect != NULL)
		pool->disconnect(pool);
	_pp_shm_pool_del(pool);
	registry_del(pool);
	ptr_ring_cleanup(&pool->ring, NULL);
	_pp_dma_track_free(pool);
	if (pool->p.flags & PP_FLAG_MEM_SOURCE)
		_pp_mem_source_put(pool->src);
	_pp_free(pool);
}

static void
empty_ring(struct page_pool *pool)
{
	struct page *page;

	/* Locked consume: the releasing thread is not the allocation
	 * context, and a retry may follow a destroy on another thread. */
	while ((page = ptr_ring_consume(&pool->ring)) != NULL) {
		if (page_ref_count(page) != 1)
			fprintf(stderr,
				"page_pool: id %u: page %p in the ring with "
				"refcount %d\n",
				pool->id, (void *)page, page_ref_count(page));
		_pp_return_page(pool, page);
	}
}

/*
 * Release what the pool holds and report what is still in flight; on zero,
 * free the pool. Called by destroy, then by the retry thread.
 */
static int
page_pool_release(struct page_pool *pool)
{
	int inflight;

	if (pool->destroy_cnt == 0) {
		while (pool->alloc.count > 0)
			_pp_return_page(pool,
					pool->alloc.cache[--pool->alloc.count]);
		if (pool->dma_map)
			_pp_dma_scrub(pool);
	}
	/* Pages waiting in return stashes are in flight: take them, on
	 * every retry, so none waits for its thread's next return. */
	_pp_stash_steal(pool);
	empty_ring(pool);
	inflight = page_pool_inflight(pool);
	if (inflight < 0)
		fprintf(stderr,
			"page_pool: id %u: Negative(%d) inflight packet-pages\n",
			pool->id, inflight);
	/* Wait out a producer between its produce and its unlock (R1 in
	 * pp_spin_unlock pairs with our acquire). Without it
	 * tests/genmc/page_pool_destroy.c finds the free racing with the
	 * producer's statistic. */
	pp_spin_lock(&pool->ring.producer_lock);
	PP_TEST_DELAY(PP_TP_RELEASE_LOCKED);
	pp_spin_unlock(&pool->ring.producer_lock);
	pool->destroy_cnt++;
	if (inflight == 0)
		free_pool(pool);
	return inflight;
}

static pthread_mutex_t defer_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t defer_cond;
static pthread_once_t defer_once = PTHREAD_ONCE_INIT;
static struct page_pool *defer_head;
static bool defer_thread_running;
/* A pass is releasing pools (with defer_lock dropped); the fork prepare
 * handler waits on defer_idle for it to end. Both under defer_lock. */
static bool defer_in_pass;
static pthread_cond_t defer_idle = PTHREAD_COND_INITIALIZER;
/* Set on the release thread itself, which must not wait for its own pass
 * should a disconnect callback fork. */
#ifndef PP_MODEL_CHECK
static __thread bool defer_self;
#else
static bool defer_self;	/* GenMC: no thread-local storage, no fork */
#endif

static void
defer_init(void)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&defer_cond, &attr);
	pthread_condattr_destroy(&attr);
}

/*
 * Retry the deferred pools that are due. Called with defer_lock held; the
 * lock is dropped while pools are released, because freeing one runs its
 * disconnect callback, which may destroy (and so defer) another pool.
 * Returns the ms until the next pool is due.
 */
static uint64_t
defer_pass(void)
{
	struct page_pool **pp = &defer_head, *due = NULL, *still = NULL;
	uint64_t now = now_ms(), next = UINT64_MAX;

	while (*pp != NULL) {
		struct page_pool *pool = *pp;
		uint64_t at = pool->defer_start_ms +
			      pool->destroy_cnt * pool->p.defer_ms;

		if (now < at) {
			if (at - now < next)
				next = at - now;
			pp = &pool->deferred_next;
			continue;
		}
		*pp = pool->deferred_next;
		pool->deferred_next = due;
		due = pool;
	}
	/* Inside the pass with defer_lock held: the fork test's window. */
	PP_TEST_DELAY(PP_TP_DEFER_PASS);
	pthread_mutex_unlock(&defer_lock);

	while (due != NULL) {
		struct page_pool *pool = due;
		/* Read before the release, which may free the pool. */
		unsigned int id = pool->id;
		uint64_t start = pool->defer_start_ms;
		int inflight;

		due = pool->deferred_next;
		inflight = page_pool_release(pool);
		if (inflight <= 0)
			continue;	/* freed, or unrecoverable */
		if (now >= pool->defer_warn_ms) {
			PP_TRACE(destroy_stalled, pool, id, inflight, now - start);
			fprintf(stderr,
				"page_pool_release_retry() stalled pool "
				"shutdown: id %u, %d inflight %llu sec\n",
				id, inflight,
				(unsigned long long)(now - start) / 1000);
			if (PP_DEBUG)
				_pp_debug_leak_report(pool, "stalled");
			pool->defer_warn_ms = now + pool->p.defer_warn_ms;
		}
		if (pool->p.defer_ms < next)
			next = pool->p.defer_ms;
		pool->deferred_next = still;
		still = pool;
	}

	pthread_mutex_lock(&defer_lock);
	while (still != NULL) {
		struct page_pool *pool = still;

		still = pool->deferred_next;
		pool->deferred_next = defer_head;
		defer_head = pool;
	}
	return next;
}

static void *
defer_thread(void *arg)
{
	(void)arg;
	defer_self = true;
	pthread_mutex_lock(&defer_lock);
	while (defer_head != NULL) {
		uint64_t wait;
		struct timespec ts;

		defer_in_pass = true;
		wait = defer_pass();
		defer_in_pass = false;
		pthread_cond_broadcast(&defer_idle);

		if (defer_head == NULL)
			break;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (wait == UINT64_MAX)
			wait = 1000;
		ts.tv_sec += (time_t)(wait / 1000);
		ts.tv_nsec += (long)(wait % 1000) * 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&defer_cond, &defer_lock, &ts);
	}
	defer_thread_running = false;
	pthread_mutex_unlock(&defer_lock);
	return NULL;
}

#if defined(PP_MODEL_CHECK)
/* The GenMC harnesses (tests/genmc) know no clock and no timed wait: they
 * retry page_pool_release() themselves, after this hook. */
void _pp_model_defer_release(struct page_pool *pool);
#endif

static void
defer_release(struct page_pool *pool)
{
	uint64_t now;
	pthread_attr_t attr;
	pthread_t th;

#if defined(PP_MODEL_CHECK)
	_pp_model_defer_release(pool);
	return;
#endif
	now = now_ms();
	pthread_once(&defer_once, defer_init);
	pthread_mutex_lock(&defer_lock);
	pool->defer_start_ms = now;
	pool->detach_time_ms = now;
	pool->defer_warn_ms = now + pool->p.defer_warn_ms;
	pool->deferred_next = defer_head;
	defer_head = pool;
	if (!defer_thread_running) {
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&th, &attr, defer_thread, NULL) == 0)
			defer_thread_running = true;
		else
			fprintf(stderr,
				"page_pool: id %u: cannot start the release "
				"thread; the pool is leaked\n",
				pool->id);
		pthread_attr_destroy(&attr);
	}
	pthread_cond_signal(&defer_cond);
	pthread_mutex_unlock(&defer_lock);
}

/*
 * Fork (lib/fork.c, order 1). Prepare: take defer_lock and wait until no
 * pass is releasing pools, so the release thread holds no lock of the
 * library at the fork (it waits for defer_lock or its next pass); then
 * registry_lock. Child: the release thread does not exist there, so it is
 * marked not running, and the next deferred destroy in the child starts a
 * new one. The pools deferred at the fork are taken off the child's list:
 * their copies stay allocated in the child, never retried, because
 * another thread of the parent may have held their locks at the fork.
 */
#ifndef PP_MODEL_CHECK
void
_pp_pool_fork(enum pp_fork_phase phase)
{
	switch (phase) {
	case PP_FORK_PREPARE:
		pthread_mutex_lock(&defer_lock);
		while (defer_in_pass && !defer_self)
			pthread_cond_wait(&defer_idle, &defer_lock);
		pthread_mutex_lock(&registry_lock);
		break;
	case PP_FORK_PARENT:
		pthread_mutex_unlock(&registry_lock);
		pthread_mutex_unlock(&defer_lock);
		break;
	case PP_FORK_CHILD:
		pthread_mutex_unlock(&registry_lock);
		/* A fork from the release thread itself (a disconnect
		 * callback) leaves the child running its pass: unsupported,
		 * but then the thread does exist. */
		if (!defer_self) {
			defer_thread_running = false;
			defer_in_pass = false;
			/* The parent's deferred pools are left alone: a
			 * thread of the parent may have held one's producer
			 * lock at the fork (returning a page after destroy),
			 * and the child's release thread would spin on it
			 * for ever (fork_child's user-locked mode). */
			defer_head = NULL;
		}
		/* Whoever waited on them in the parent is gone. */
		defer_init();
		pthread_cond_init(&defer_idle, NULL);
		pthread_mutex_unlock(&defer_lock);
		break;
	}
}
#endif

void
page_pool_get(struct page_pool *pool)
{
	if (pool != NULL)
		pp_fetch_add_relaxed(&pool->user_cnt, 1);
}

void
page_pool_use_xdp_mem(struct page_pool *pool, void (*disconnect)(void *pool),
		      const struct xdp_mem_info *mem)
{
	(void)mem;
	if (pool == NULL)
		return;
	page_pool_get(pool);
	pool->disconnect = disconnect;
}

void
page_pool_destroy(struct page_pool *pool)
{
	if (pool == NULL)
		return;
	if (PP_DEBUG)
		__page_pool_debug_destroy(pool);
	/* A5/R5: the last user sees the others' work on the pool. Needed:
	 * relaxed, tests/genmc/page_pool_users.c finds a race on the
	 * alloc cache the driver filled. */
	if (__atomic_sub_fetch(&pool->user_cnt, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	page_pool_disable_direct_recycling(pool);
	_pp_free_frag(pool);
	if (page_pool_release(pool) <= 0)
		return;
	PP_TRACE(destroy_deferred, pool, pool->id, page_pool_inflight(pool));
	_pp_shm_pool_detach(pool);
	defer_release(pool);
}
