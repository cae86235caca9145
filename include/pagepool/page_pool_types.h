/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_pool types: flags, parameters, statistics and the pool itself, with
 * the kernel's names (include/net/page_pool/types.h). The inline fast paths
 * that use them are in pagepool/page_pool.h; include that one.
 *
 * struct page_pool is visible because the fast paths are inline, as in the
 * kernel. Its layout is ABI within a release series; drivers read none of
 * its fields directly but through the functions in page_pool.h.
 */
#ifndef PAGEPOOL_PAGE_POOL_TYPES_H
#define PAGEPOOL_PAGE_POOL_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pagepool/kcompat.h>
#include <pagepool/dma.h>
#include <pagepool/page.h>
#include <pagepool/netmem.h>
#include <pagepool/ptr_ring.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The pool DMA-maps each page once, when it enters the pool, and unmaps it
 * when it leaves. Needs dma_dir DMA_FROM_DEVICE or DMA_BIDIRECTIONAL. */
#define PP_FLAG_DMA_MAP			(1u << 0)
/* Pages handed out are synced for the device: max_len bytes at map time,
 * min(dma_sync_size, max_len) from offset on every recycle. Needs
 * PP_FLAG_DMA_MAP and max_len > 0. */
#define PP_FLAG_DMA_SYNC_DEV		(1u << 1)
/* The kernel's per-CPU system pools; accepted, no different behaviour. */
#define PP_FLAG_SYSTEM_POOL		(1u << 2)
/* Memory-provider pools in the kernel; accepted, no userspace meaning. */
#define PP_FLAG_ALLOW_UNREADABLE_NETMEM	(1u << 3)
/* pagepool extension: take the pool's pages from the memory source named
 * by page_pool_params.mem_source instead of the default one. A high bit,
 * so the kernel's future flags can keep their values here. The flag makes
 * the field count: programs built against 0.1, whose padding the field
 * occupies, cannot have set it (0.1 refuses unknown flags). */
#define PP_FLAG_MEM_SOURCE		(1u << 16)
#define PP_FLAG_ALL                                                          \
	(PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV | PP_FLAG_SYSTEM_POOL |      \
	 PP_FLAG_ALLOW_UNREADABLE_NETMEM | PP_FLAG_MEM_SOURCE)

/*
 * The alloc cache: a LIFO of 128 pages refilled 64 at a time. 64 is the
 * NAPI budget, the most pages one poll consumes; the other 64 slots absorb
 * pages recycled directly (XDP_DROP) in the same poll.
 */
#define PP_ALLOC_CACHE_SIZE	128
#define PP_ALLOC_CACHE_REFILL	64

/* Ring size when pool_size is 0, and the clamp above which a larger
 * pool_size is silently reduced (Linux >= 6.18, a1b501a8c6a8). */
#define PAGE_POOL_DEFAULT_RING_SIZE	1024
#define PAGE_POOL_MAX_RING_SIZE		16384

/* Deferred release: retry period and warning period (the kernel's
 * DEFER_TIME and DEFER_WARN_INTERVAL). */
#define PAGE_POOL_DEFER_TIME_MS		1000
#define PAGE_POOL_DEFER_WARN_MS		60000

/* Reference bias of the fragment allocator (the kernel's BIAS_MAX). */
#define PP_BIAS_MAX (0x7fffffffffffffffL >> 1)

/* page->pp_magic signature of a page owned by a pool. Bits 0 and 1 belong
 * to the compound-tail marker and pfmemalloc, as in the kernel. */
#define PP_SIGNATURE	0x40UL
#define PP_DMA_INDEX_SHIFT 8
#define PP_DMA_INDEX_BITS 32
#define PP_DMA_INDEX_MASK                                                    \
	(((1UL << PP_DMA_INDEX_BITS) - 1) << PP_DMA_INDEX_SHIFT)
#define PP_MAGIC_MASK	(~(PP_DMA_INDEX_MASK | 0x3UL))

/**
 * struct napi_struct - the context allowed to recycle directly.
 * @list_owner: identity of the thread that polls (pp_thread_self()), or 0.
 * @poll, @dev, @weight, @napi_id, @state: the NAPI instance of a net_device
 *	(netif_napi_add(), see netdevice.h); unused by page_pool.
 * @dev_list, @thread, @thread_cpu: the device's list of instances and
 *	threaded NAPI (dev_set_threaded(), napi_set_thread_cpu()); unused by
 *	page_pool.
 *
 * In the kernel a pool's direct (lockless) recycling is allowed on the CPU
 * where its NAPI instance runs. In pagepool NAPI is a thread: fill this in
 * the RX thread with napi_init_current() and hand it to the pool in
 * page_pool_params.napi or page_pool_enable_direct_recycling(). The pool
 * copies the owner at that moment, so the pool never reads this struct
 * afterwards and the caller may free it at any time (the kernel's NAPI
 * use-after-free of Yunsheng Lin's bug 2 cannot happen). When a device's
 * NAPI instance moves to a thread of its own (threaded NAPI,
 * dev_set_threaded() in netdevice.h) and back, the owner of every pool
 * bound to it moves along: the pool is found by the instance's address
 * and napi_id, compared, never followed.
 */
struct net_device;
struct napi_thread;

struct napi_struct {
	unsigned long list_owner;
	/* NAPI proper (netdevice.h); the page_pool reads list_owner only. */
	int (*poll)(struct napi_struct *napi, int budget);
	struct net_device *dev;
	int weight;
	unsigned int napi_id;
	unsigned long state;
	struct napi_struct *dev_list;
	struct napi_thread *thread;
	int thread_cpu;
};

/*
 * The parameters come in the kernel's two groups (its struct_group_tagged():
 * a union of an anonymous struct, whose members are reached directly, and
 * a tagged one with the same members, reached as a whole): params.order and
 * params.fast.order are the same object, and the pool copies params.fast
 * or compares params.slow as one struct. C++ cannot define a tagged struct
 * inside an anonymous union, so both tagged structs are defined first, from
 * the same member list as the anonymous ones, which keeps the two in step.
 * The layout is that of the flat struct of pagepool 0.1.
 */
#define __PP_PARAMS_FAST_MEMBERS                                             \
	unsigned int order;                                                  \
	unsigned int pool_size;                                              \
	int nid;                                                             \
	struct device *dev;                                                  \
	struct napi_struct *napi;                                            \
	enum dma_data_direction dma_dir;                                     \
	unsigned int max_len;                                                \
	unsigned int offset;
#define __PP_PARAMS_SLOW_MEMBERS                                             \
	void *netdev;                                                        \
	unsigned int queue_idx;                                              \
	unsigned int flags;                                                  \
	void (*init_callback)(netmem_ref netmem, void *arg);                 \
	void *init_arg;

/** struct page_pool_params_fast - the hot-path group of the parameters. */
struct page_pool_params_fast {
	__PP_PARAMS_FAST_MEMBERS
};

/** struct page_pool_params_slow - the set-up group of the parameters. */
struct page_pool_params_slow {
	__PP_PARAMS_SLOW_MEMBERS
};

/**
 * struct page_pool_params - what page_pool_create() needs.
 *
 * Fast group (@fast; copied into the pool and used on the hot path):
 * @order: pages are 2^order contiguous PAGE_SIZE pages.
 * @pool_size: ptr_ring size; 0 means 1024, above 16384 is clamped.
 * @nid: NUMA node pages should come from; NUMA_NO_NODE: the allocating
 *	thread's node at refill time.
 * @dev: the DMA device (PP_FLAG_DMA_MAP), or NULL.
 * @napi: the owner allowed to recycle directly, or NULL.
 * @dma_dir: DMA direction of the mappings.
 * @max_len: bytes synced for the device (PP_FLAG_DMA_SYNC_DEV).
 * @offset: where in the page the device writes (the headroom); below the
 *	block size.
 *
 * Slow group (@slow):
 * @netdev: unused (kept for source compatibility).
 * @queue_idx: unused (kept for source compatibility).
 * @flags: PP_FLAG_*.
 * @init_callback: called once for every page entering the pool, with the
 *	page as a netmem_ref (the kernel's signature since 6.12;
 *	netmem_to_page() gives the page).
 * @init_arg: its second argument.
 *
 * pagepool's own, after the groups:
 * @defer_ms: deferred-release retry period (0: 1000 ms).
 * @defer_warn_ms: "stalled pool shutdown" warning period (0: 60 s).
 * @dma_untracked: behave as Linux before 6.16 and do not track DMA
 *	mappings, so destroy leaves in-flight pages mapped and their late
 *	unmap reaches a device that may be gone (the seed-003 crash). For
 *	tests and demonstrations only.
 * @mem_source: with PP_FLAG_MEM_SOURCE, the id (pp_mem_source_id()) of
 *	the memory source the pool's pages come from: a memfd, hugepages, or
 *	a user region such as an AF_XDP UMEM or io_uring buffers. An id and
 *	not a pointer because it sits in what was the struct's tail padding
 *	in pagepool 0.1, which has room for 32 bits. The pool holds the
 *	source until it is freed (pp_mem_source_destroy() says EBUSY).
 *	Ignored without the flag.
 */
struct page_pool_params {
	union {
		struct {
			__PP_PARAMS_FAST_MEMBERS
		};
		struct page_pool_params_fast fast;
	};
	union {
		struct {
			__PP_PARAMS_SLOW_MEMBERS
		};
		struct page_pool_params_slow slow;
	};
	unsigned int defer_ms;
	unsigned int defer_warn_ms;
	bool dma_untracked;
	/* pagepool 0.2, in the 0.1 struct's tail padding. */
	int mem_source;
};

#undef __PP_PARAMS_FAST_MEMBERS
#undef __PP_PARAMS_SLOW_MEMBERS

/* The groups change nothing in the layout of pagepool 0.1's flat struct,
 * which the inline fast paths and compiled programs read. */
PP_STATIC_ASSERT(offsetof(struct page_pool_params, fast.order) ==
			 offsetof(struct page_pool_params, order) &&
		 offsetof(struct page_pool_params, slow.flags) ==
			 offsetof(struct page_pool_params, flags),
		 "the groups alias the flat members");
#if __SIZEOF_POINTER__ == 8 && __SIZEOF_LONG__ == 8
PP_STATIC_ASSERT(offsetof(struct page_pool_params, netdev) ==
			 6 * sizeof(void *) &&
		 offsetof(struct page_pool_params, defer_ms) ==
			 10 * sizeof(void *) &&
		 sizeof(struct page_pool_params) == 12 * sizeof(void *),
		 "struct page_pool_params keeps the layout of pagepool 0.1");
PP_STATIC_ASSERT(offsetof(struct page_pool_params, mem_source) ==
			 offsetof(struct page_pool_params, dma_untracked) + 4,
		 "mem_source fills the 0.1 tail padding, nothing moves");
#endif

/**
 * struct page_pool_alloc_stats - allocation-side counters (owner only).
 * @fast: served from the alloc cache.
 * @slow: order-0 slow-path allocation, once per bulk refill.
 * @slow_high_order: order > 0 slow-path allocation, once per page.
 * @empty: the ring was empty, so the slow path was taken.
 * @refill: an allocation that refilled the cache from the ring.
 * @waive: a ring page released because it was on the wrong NUMA node.
 */
struct page_pool_alloc_stats {
	uint64_t fast;
	uint64_t slow;
	uint64_t slow_high_order;
	uint64_t empty;
	uint64_t refill;
	uint64_t waive;
};

/**
 * struct page_pool_recycle_stats - return-side counters.
 * @cached: recycled directly into the alloc cache.
 * @cache_full: a direct recycle found the cache full (went to the ring).
 * @ring: recycled into the ptr_ring.
 * @ring_full: the ring was full; the page was released.
 * @released_refcnt: released instead of recycled because someone else
 *	held a page reference, or the page was pfmemalloc.
 */
struct page_pool_recycle_stats {
	uint64_t cached;
	uint64_t cache_full;
	uint64_t ring;
	uint64_t ring_full;
	uint64_t released_refcnt;
};

/** struct page_pool_stats - what page_pool_get_stats() adds into. */
struct page_pool_stats {
	struct page_pool_alloc_stats alloc_stats;
	struct page_pool_recycle_stats recycle_stats;
};

/* The LIFO the owner allocates from and recycles into without atomics. */
struct pp_alloc_cache {
	uint32_t count;
	struct page *cache[PP_ALLOC_CACHE_SIZE];
};

struct pp_dma_track;

/**
 * struct page_pool - the pool. ABI: the inline fast paths use the first
 * groups; everything from @ring on is private to the library.
 */
struct page_pool {
	/* Read-mostly, used by every path. */
	struct page_pool_params p;
	unsigned long owner;		/* direct-recycle thread, or 0 */
	unsigned int dma_map;		/* PP_FLAG_DMA_MAP */
	unsigned int dma_sync;		/* PP_FLAG_DMA_SYNC_DEV; cleared at
					 * destroy (read atomically) */
	unsigned int has_init_callback;
	unsigned int id;

	/* Owner (allocation) side: one writer. */
	struct pp_alloc_cache alloc PP_CACHELINE_ALIGNED;
	struct page_pool_alloc_stats alloc_stats;
	struct page_pool_recycle_stats owner_recycle_stats;	/* cached,
								 * cache_full */
	uint32_t pages_state_hold_cnt;
	long frag_users;
	struct page *frag_page;
	unsigned int frag_offset;

	/* Return side: the ring, and what is counted under its producer
	 * lock (ring, ring_full). */
	struct ptr_ring ring;
	struct page_pool_recycle_stats ring_recycle_stats;

	/* Any thread. */
	uint32_t pages_state_release_cnt PP_CACHELINE_ALIGNED;
	uint64_t released_refcnt;
	int user_cnt;

	/* Lifecycle, DMA tracking, registry: private. */
	uint64_t destroy_cnt;
	uint64_t defer_start_ms;
	uint64_t defer_warn_ms;
	uint64_t detach_time_ms;
	void (*disconnect)(void *pool);
	uint64_t debug_errors;
	struct pp_dma_track *dma_track;
	struct page_pool *registry_next;
	struct page_pool *deferred_next;
	struct pp_mem_source *src;	/* where pages come from */
	int src_nid;			/* node of all its pages, or
					 * NUMA_NO_NODE */
	unsigned int napi_id;		/* p.napi's, when it was bound */
};

#ifdef __cplusplus
}
#endif

#endif /* PAGEPOOL_PAGE_POOL_TYPES_H */
