/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * DOC: the page allocator — struct page, alloc_pages() and their backing
 * memory, in userspace
 *
 * This is the allocator page_pool and page_frag_cache sit on, playing the
 * role the kernel's buddy allocator plays for theirs. It keeps the kernel's
 * vocabulary so code ported from a driver reads the same:
 *
 *  - memory is handed out in blocks of 2^order pages of PAGE_SIZE bytes,
 *    order 0 to MAX_PAGE_ORDER (4 MiB), naturally aligned in the address
 *    space when the memory is ours to place (see user regions below);
 *  - every page has a 64-byte descriptor, struct page, with the kernel's
 *    field names; page_address() and virt_to_page() convert between the two
 *    in O(1), for any address inside a page;
 *  - a block is a reference-counted unit: alloc_pages() returns its head
 *    page with _refcount 1, get_page()/put_page() move the count, and the
 *    block goes back to the allocator when it drops to zero. Blocks of order
 *    > 0 are always compound (the kernel's __GFP_COMP): their tail pages
 *    point at the head, and get_page()/put_page() on a tail act on the head;
 *  - alloc_pages_bulk() fills the NULL slots of an array with order-0 pages
 *    and returns how many slots are populated (the kernel's newest form);
 *  - page_to_nid() tells the NUMA node the memory was bound to.
 *
 * Backing memory. Pages come from a memory source (struct pp_mem_source):
 * anonymous memory (the default, used by alloc_pages()), 2 MiB hugepages
 * (MAP_HUGETLB), a memfd another process can map, or a region the caller
 * supplies (an AF_XDP UMEM, io_uring provided buffers). A source grows by
 * 4 MiB regions on demand, up to an optional byte limit, and gives a region
 * whose pages are all free again back to the system after its dirty decay
 * (pp_mem_source_set_dirty_decay_ms(); created sources keep everything
 * unless told, the default source returns at once). A user region is fixed: the source serves
 * exactly the pages inside it, never maps more and never unmaps it.
 *
 * Speed. Each thread keeps a small cache of free blocks of order 0 to
 * PP_PCP_MAX_ORDER per source and node (the kernel's per-CPU page lists), so
 * a thread's alloc/free pair touches no lock and no shared cache line; the
 * cache refills from and spills to the shared buddy lists in batches, under
 * the zone's spinlock. A page freed by another thread than the one that
 * allocated it goes home, to the allocating thread's cache, in batches
 * (mimalloc's thread-free lists), not through the shared lists. A thread's
 * cache is returned to the shared lists when the thread exits, or on
 * pp_thread_cache_drain().
 *
 * Errors. Allocation functions return NULL and set errno: EINVAL for bad
 * arguments (order > MAX_PAGE_ORDER, an unknown node, a NULL source), ENOMEM
 * when the source is exhausted or the system refuses memory. Functions
 * returning void (__free_pages(), put_page() on a free page) ignore bad input
 * and set errno to EINVAL; debug builds (without NDEBUG) also report misuse
 * on stderr. A block whose last reference is dropped while a page_pool
 * still owns it (put_page() instead of page_pool_put_page()) is the
 * kernel's "page_pool leak": it is reported on stderr in every build, with
 * errno EINVAL, and never freed. Nothing else is ever printed, except the
 * hugepage diagnostics documented at PP_MEM_HUGETLB, which __GFP_NOWARN /
 * PP_MEM_F_NOWARN silence.
 *
 * Concurrency. Every function here may be called from any thread at any
 * time, except pp_mem_source_destroy(), which requires that no other thread
 * uses the source concurrently. Operations on one page follow the kernel's
 * rules: whoever holds a reference may take another or drop it; only the
 * holder of the last reference may free.
 */
#ifndef PAGEPOOL_PAGE_H
#define PAGEPOOL_PAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pagepool/kcompat.h>
#include <pagepool/atomic_pvt.h>
#include <pagepool/opts.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * ---- Constants ----------------------------------------------------------
 */

#ifndef PAGE_SHIFT
#define PAGE_SHIFT	12
#endif
#ifndef PAGE_SIZE
#define PAGE_SIZE	(1UL << PAGE_SHIFT)
#endif
#ifndef PAGE_MASK
#define PAGE_MASK	(~(PAGE_SIZE - 1))
#endif

/* Largest order, inclusive (the kernel's MAX_PAGE_ORDER): 2^10 pages, 4 MiB. */
#define MAX_PAGE_ORDER	10
#define NR_PAGE_ORDERS	(MAX_PAGE_ORDER + 1)

/* Orders the per-thread caches serve (the kernel's PAGE_ALLOC_COSTLY_ORDER). */
#define PP_PCP_MAX_ORDER 3

#ifndef NUMA_NO_NODE
#define NUMA_NO_NODE	(-1)
#endif

/*
 * Kernel gfp modifiers that callers pass and this allocator accepts without
 * changing its behaviour: every block of order > 0 is compound anyway, and
 * there is no reclaim to skip or reserve to avoid. The values only need to
 * be distinct bits (see kcompat.h).
 */
#ifndef __GFP_COMP
#define __GFP_COMP	0x40000u
#endif
#ifndef __GFP_NORETRY
#define __GFP_NORETRY	0x10000u
#endif
#ifndef __GFP_NOMEMALLOC
#define __GFP_NOMEMALLOC 0x80000u
#endif
#ifndef __GFP_THISNODE
#define __GFP_THISNODE	0x200000u
#endif

/*
 * ---- struct page --------------------------------------------------------
 */

struct page_pool;

/* A doubly linked list link (the kernel's list_head, renamed so it cannot
 * clash with an application's own). */
struct pp_list_head {
	struct pp_list_head *next, *prev;
};

/**
 * struct page - descriptor of one PAGE_SIZE page. ABI: inline helpers read
 * its fields.
 * @flags: allocator state in the low bits, the NUMA node in the top 16 bits
 *	(page_to_nid()). Written only by the allocator.
 * @lru: the allocator's list link while the block is free.
 * @private: the block's order while it is free in the buddy lists.
 * @pp_magic: page_pool signature (and DMA index) while page_pool owns the
 *	page; bits 0 and 1 are not page_pool's (compound-tail marker and
 *	pfmemalloc, as in the kernel).
 * @pp: owning page_pool.
 * @dma_addr: DMA address of the page, set by page_pool.
 * @pp_ref_count: page_pool fragment references (atomic_long_t).
 * @compound_head: in a tail page of a compound block: the head page | 1.
 * @_refcount: references to the block (in the head page; atomic).
 * @_order: order of the block while allocated (head page).
 * @virtual: the address of the page (the kernel's WANT_PAGE_VIRTUAL), so
 *	page_address() is one load.
 *
 * The three layouts share the first 40 bytes as in the kernel: allocator
 * state while the page is free, page_pool's fields while it is a pool page,
 * the head pointer in tail pages. Whoever allocated a block owns those bytes
 * of its head page; the allocator rewrites them when the block comes back.
 */
struct page {
	unsigned long flags;
	union {
		struct {
			struct pp_list_head lru;
#ifndef __cplusplus
			unsigned long private;
#else
			unsigned long private_;	/* "private" in C */
#endif
		};
		struct {
			unsigned long pp_magic;
			struct page_pool *pp;
			unsigned long _pp_mapping_pad;
			unsigned long dma_addr;
			long pp_ref_count;
		};
		struct {
			unsigned long compound_head;
		};
	};
	int _refcount;
	unsigned char _order;
	unsigned char _pad;
	unsigned short _pcp_owner;	/* allocator: the allocating thread */
#ifndef __cplusplus
	void *virtual;
#else
	void *virtual_;	/* "virtual" in C: same member, C++-legal name */
#endif
};

PP_STATIC_ASSERT(sizeof(struct page) <= 64,
	       "struct page must stay within 64 bytes per 4 KiB page");
PP_STATIC_ASSERT(offsetof(struct page, pp_magic) ==
		       offsetof(struct page, lru.next),
	       "pp_magic overlays lru.next, as in the kernel");
PP_STATIC_ASSERT(offsetof(struct page, compound_head) ==
		       offsetof(struct page, lru.next),
	       "compound_head overlays lru.next, as in the kernel");

/* Where the node id lives in page->flags. */
#define PP_NODES_PGSHIFT	48

/*
 * ---- Inline helpers -----------------------------------------------------
 */

/**
 * compound_head() - the head page of the block @page belongs to.
 * Context: caller holds a reference to the block.
 */
static inline struct page *
compound_head(const struct page *page)
{
	unsigned long head = pp_load_relaxed(&page->compound_head);

	if (head & 1)
		return (struct page *)(head - 1);
	return (struct page *)page;
}

/** PageTail() - is @page a tail page of a compound block? */
static inline bool
PageTail(const struct page *page)
{
	return (pp_load_relaxed(&page->compound_head) & 1) != 0;
}

/** compound_order() - order of the block whose head is @page. */
static inline unsigned int
compound_order(const struct page *page)
{
	return page->_order;
}

/**
 * page_address() - the address of the memory @page describes.
 * Context: any thread; O(1), one load.
 */
static inline void *
page_address(const struct page *page)
{
#ifndef __cplusplus
	return page->virtual;
#else
	return page->virtual_;
#endif
}

/**
 * page_to_nid() - NUMA node of the memory behind @page.
 * Context: any thread.
 */
static inline int
page_to_nid(const struct page *page)
{
	return (int)(page->flags >> PP_NODES_PGSHIFT);
}

/**
 * page_ref_count() - current reference count of @page's block.
 *
 * For a tail page this is the tail's own (zero) count, as in the kernel;
 * use compound_head() first to read the block's.
 * Context: any thread; the value may be stale at once.
 */
static inline int
page_ref_count(const struct page *page)
{
	return pp_load_relaxed(&page->_refcount);
}

/**
 * page_ref_add() - add @nr references to @page (page_frag's bias).
 * Context: caller holds a reference.
 */
static inline void
page_ref_add(struct page *page, int nr)
{
	/* Relaxed: the caller's reference already orders the page's use;
	 * the releasing side is R2 in page_ref_sub_and_test(). */
	pp_fetch_add_relaxed(&page->_refcount, nr);
}

/** page_ref_inc() - page_ref_add(@page, 1). */
static inline void
page_ref_inc(struct page *page)
{
	page_ref_add(page, 1);
}

/**
 * page_ref_sub_and_test() - drop @nr references; true if none remain.
 *
 * The caller that sees true owns the block and frees it with
 * free_frozen_pages() (or reuses it after set_page_count()).
 * Context: caller holds at least @nr references.
 */
static inline bool
page_ref_sub_and_test(struct page *page, int nr)
{
	/*
	 * R2/A2: acq_rel pairs with itself in the other holders' drops: each
	 * release publishes that holder's writes to the page, and the acquire
	 * half lets the last one free it only after seeing all of them.
	 * Needed: relaxed, tests/genmc/page_frag.c finds a race.
	 */
	return pp_fetch_sub_acq_rel(&page->_refcount, nr) == nr;
}

/**
 * set_page_count() - set the reference count of a block nobody else sees.
 * Context: caller owns the block exclusively.
 */
static inline void
set_page_count(struct page *page, int v)
{
	pp_store_relaxed(&page->_refcount, v);
}

/**
 * get_page() - take one more reference to the block @page belongs to.
 * Context: caller holds a reference.
 */
static inline void
get_page(struct page *page)
{
	page_ref_inc(compound_head(page));
}

/** page_is_pfmemalloc() - was the page taken from emergency reserves?
 * Never, in userspace, unless set_page_pfmemalloc() says so (tests of the
 * recycle decision). Bit 1 of lru.next, as in the kernel. */
static inline bool
page_is_pfmemalloc(const struct page *page)
{
	return (page->pp_magic & 2UL) != 0;
}

/** set_page_pfmemalloc() - mark an allocated head page as pfmemalloc. */
static inline void
set_page_pfmemalloc(struct page *page)
{
	page->pp_magic |= 2UL;
}

/** clear_page_pfmemalloc() - undo set_page_pfmemalloc(). */
static inline void
clear_page_pfmemalloc(struct page *page)
{
	page->pp_magic &= ~2UL;
}

/*
 * ---- Allocation ---------------------------------------------------------
 */

struct pp_mem_source;

/**
 * alloc_pages() - allocate 2^@order contiguous pages from the default source.
 * @gfp: __GFP_ZERO zeroes the block; other bits are accepted and ignored.
 * @order: 0 to MAX_PAGE_ORDER.
 *
 * The block comes from the calling thread's NUMA node.
 * Context: any thread.
 * Return: the head page with _refcount 1; NULL with errno EINVAL (bad
 * order) or ENOMEM.
 */
PP_API struct page *alloc_pages(gfp_t gfp, unsigned int order);

/**
 * alloc_pages_node() - alloc_pages() on node @nid.
 * @nid: a node id, or NUMA_NO_NODE for the calling thread's node.
 *
 * Return: as alloc_pages(); EINVAL also for a node that does not exist.
 */
PP_API struct page *alloc_pages_node(int nid, gfp_t gfp, unsigned int order);

/**
 * alloc_pages_src() - alloc_pages_node() from memory source @src.
 *
 * For a user-region source @nid is validated but ignored: its pages are
 * where the caller's memory is.
 * Return: as alloc_pages_node(); EINVAL also for a NULL @src.
 */
PP_API struct page *alloc_pages_src(struct pp_mem_source *src, int nid,
				    gfp_t gfp, unsigned int order);

/**
 * alloc_pages_bulk() - fill the NULL slots of @page_array with order-0 pages.
 * @gfp: as alloc_pages().
 * @nr_pages: length of @page_array.
 * @page_array: slots; non-NULL ones are left alone.
 *
 * The kernel's semantics: slots are visited in order, non-NULL ones are
 * skipped and counted, NULL ones are filled until memory runs out.
 * Context: any thread.
 * Return: the number of populated slots from the start of the array up to
 * where filling stopped (@nr_pages when all are filled). On a shortfall
 * errno is ENOMEM; on bad arguments (NULL array with @nr_pages > 0) the
 * return is 0 and errno EINVAL.
 */
PP_API unsigned long alloc_pages_bulk(gfp_t gfp, unsigned long nr_pages,
				      struct page **page_array);

/** alloc_pages_bulk_node() - alloc_pages_bulk() on node @nid. */
PP_API unsigned long alloc_pages_bulk_node(gfp_t gfp, int nid,
					   unsigned long nr_pages,
					   struct page **page_array);

/** alloc_pages_bulk_src() - alloc_pages_bulk_node() from source @src. */
PP_API unsigned long alloc_pages_bulk_src(struct pp_mem_source *src, int nid,
					  gfp_t gfp, unsigned long nr_pages,
					  struct page **page_array);

/**
 * __free_pages() - drop a reference to a block; free it at zero.
 * @page: head page of the block, or NULL (ignored).
 * @order: the order it was allocated with.
 *
 * A tail page, a wrong @order, a page not from this allocator's regions
 * (a page of a destroyed source among them: recognised by its address,
 * without reading the freed descriptor) or a page whose count is already
 * zero is ignored with errno EINVAL (and reported on stderr in debug
 * builds).
 * Context: any thread holding the reference.
 */
PP_API void __free_pages(struct page *page, unsigned int order);

/**
 * free_frozen_pages() - free a block whose count the caller brought to zero
 * (page_ref_sub_and_test() returned true).
 * Context: any thread; the caller owns the block.
 */
PP_API void free_frozen_pages(struct page *page, unsigned int order);

/**
 * put_page() - drop a reference to the block @page (head or tail) belongs
 * to, freeing it at zero. NULL is ignored.
 *
 * A block a page_pool still owns (signature set) is not freed at zero but
 * reported and leaked, as the kernel's "page_pool leak" bad page; the same
 * holds for __free_pages() and free_frozen_pages().
 * Context: any thread holding the reference.
 */
PP_API void put_page(struct page *page);

/**
 * virt_to_page() - the descriptor of the page containing @addr.
 *
 * Any address inside an allocator page works (not only page-aligned ones);
 * for an address inside a compound block it returns that page, the tail,
 * as in the kernel: compound_head() gives the block.
 * A user region's descriptors are filled in on first use, 4 MiB of region
 * at a time: for a page of a part never handed out the descriptor is still
 * blank (page_address() NULL).
 * Context: any thread; O(1): two table loads and a bounds check.
 * Return: the page, or NULL if @addr is not in memory of any live source.
 */
PP_API struct page *virt_to_page(const void *addr);

/**
 * virt_to_head_page() - the head page of the block containing @addr: the
 * page whose descriptor page_pool and put_page() work with.
 * Context: any thread.
 * Return: the head page, or NULL where virt_to_page() returns NULL (the
 * kernel's would crash there).
 */
static inline struct page *
virt_to_head_page(const void *addr)
{
	struct page *page = virt_to_page(addr);

	return page != NULL ? compound_head(page) : NULL;
}

/**
 * pp_thread_cache_drain() - return the calling thread's cached free pages
 * (all sources) to the shared buddy lists.
 *
 * Also pushes the blocks this thread freed for other threads (they go home
 * in batches) and takes the blocks other threads freed for it.
 *
 * Threads do this automatically when they exit. A long-lived thread calls
 * it before another thread destroys a source it used.
 * Context: any thread; affects only the caller's cache.
 */
PP_API void pp_thread_cache_drain(void);

/*
 * ---- Memory sources -----------------------------------------------------
 */

/**
 * enum pp_mem_kind - where a source's memory comes from.
 * @PP_MEM_ANON: private anonymous mmap (the default source's kind).
 * @PP_MEM_HUGETLB: private MAP_HUGETLB mapping of 2 MiB pages; each 4 MiB
 *	region takes two reserved hugepages (vm.nr_hugepages). If none are
 *	available creation fails with ENOMEM and a one-line diagnostic on
 *	stderr (unless PP_MEM_F_NOWARN); with PP_MEM_F_HUGETLB_FALLBACK it
 *	falls back silently to anonymous memory advised MADV_HUGEPAGE
 *	(transparent hugepages), and pp_mem_source_kind() then says PP_MEM_ANON.
 *	When a later region cannot be mapped, the allocation fails with
 *	ENOMEM and the same line is printed unless __GFP_NOWARN is passed.
 * @PP_MEM_MEMFD: a shared mapping of a memfd (memfd_create()); the fd from
 *	pp_mem_source_fd() and the offsets from pp_mem_source_page_offset()
 *	let another process (fork, or one the fd is passed to) map the
 *	same pages.
 * @PP_MEM_USER: the caller's region [@addr, @addr + @len), page-aligned. The
 *	source serves pages from inside it only, never grows, never unmaps it.
 *	All of it must be mapped (EFAULT otherwise), whatever the protection:
 *	a PROT_NONE reservation is accepted, the caller opens pages up before
 *	using them or allocating with __GFP_ZERO. Descriptors are built 4 MiB
 *	of region at a time on first use, so a region of any size registers
 *	in milliseconds.
 *	Two user regions may not share a 2 MiB-aligned window of the address
 *	space (EBUSY); align large regions to 2 MiB or place them apart.
 */
enum pp_mem_kind {
	PP_MEM_ANON = 0,
	PP_MEM_HUGETLB = 1,
	PP_MEM_MEMFD = 2,
	PP_MEM_USER = 3,
};

/* HUGETLB: fall back to THP-advised anonymous memory if none reserved. */
#define PP_MEM_F_HUGETLB_FALLBACK	(1u << 0)
/* Print no diagnostics for this source. */
#define PP_MEM_F_NOWARN			(1u << 1)
#define PP_MEM_F_ALL	(PP_MEM_F_HUGETLB_FALLBACK | PP_MEM_F_NOWARN)

/**
 * struct pp_mem_source_opts - creation options; fill with PP_OPTS().
 * @sz: sizeof(struct pp_mem_source_opts), set by PP_OPTS().
 * @kind: enum pp_mem_kind.
 * @flags: PP_MEM_F_*.
 * @max_bytes: cap on the memory the source maps (rounded down to whole
 *	4 MiB regions; 0 means no cap). Not used by PP_MEM_USER.
 * @addr: PP_MEM_USER: start of the region (page-aligned).
 * @len: PP_MEM_USER: length (a non-zero multiple of PAGE_SIZE).
 * @nid: PP_MEM_USER: node the region is on, for page_to_nid(); NUMA_NO_NODE
 *	asks the kernel where its first page is (node 0 without libnuma).
 *	Must be 0 or NUMA_NO_NODE for other kinds (0 is the zero-filled
 *	default: they place memory per allocation).
 * @name: PP_MEM_MEMFD: the memfd's name (default "pagepool").
 */
struct pp_mem_source_opts {
	size_t sz;
	int kind;
	unsigned int flags;
	size_t max_bytes;
	void *addr;
	size_t len;
	int nid;
	const char *name;
};

/**
 * pp_mem_source_create() - create a memory source.
 * @opts: options; NULL means an anonymous source with no cap.
 *
 * Options from a newer caller are accepted if every byte past the fields
 * this library knows is zero.
 * Context: any thread.
 * Return: the source; NULL with errno EINVAL (bad options, unknown kind or
 * flags, misaligned user region), EFAULT (part of a user region is not
 * mapped), EBUSY (user region overlaps another source's), ENOMEM (no hugepages reserved, or no memory), or the errno
 * of a failed memfd_create().
 */
PP_API struct pp_mem_source *
pp_mem_source_create(const struct pp_mem_source_opts *opts);

/**
 * pp_mem_source_destroy() - unmap a source and free its descriptors.
 *
 * The calling thread's cache is drained first. Pages cached by other live
 * threads count as in use: those threads must call pp_thread_cache_drain()
 * (or have exited) before.
 * Context: any thread; nobody may use @src concurrently.
 * Return: 0; -EBUSY if any page is still allocated or cached (the source is
 * left working); -EINVAL for the default source. NULL is a no-op (0).
 */
PP_API int pp_mem_source_destroy(struct pp_mem_source *src);

/**
 * pp_mem_source_default() - the anonymous source alloc_pages() uses,
 * created on first use and never destroyed.
 * Return: the source, or NULL with errno ENOMEM.
 */
PP_API struct pp_mem_source *pp_mem_source_default(void);

/**
 * pp_mem_source_id() - the id that names @src in page_pool_params.mem_source.
 *
 * Ids are >= 1, unique among live sources, and reused only after the
 * source is destroyed (cyclically, like page_pool ids).
 * Return: the id; -EINVAL for NULL.
 */
PP_API int pp_mem_source_id(const struct pp_mem_source *src);

/** pp_mem_source_kind() - the kind of memory @src really uses. */
PP_API int pp_mem_source_kind(const struct pp_mem_source *src);

/**
 * pp_mem_source_fd() - the memfd behind a PP_MEM_MEMFD source.
 * Return: the fd (owned by the source: dup() it to keep it); -EINVAL for
 * other kinds.
 */
PP_API int pp_mem_source_fd(const struct pp_mem_source *src);

/**
 * pp_mem_source_page_offset() - where @page's memory is inside @src's
 * backing object: the memfd file offset (PP_MEM_MEMFD) or the offset from
 * the region start (PP_MEM_USER; for an AF_XDP UMEM, the frame address).
 * Return: 0 and *@off; -EINVAL if @page is not from @src, -EOPNOTSUPP for
 * sources without a backing object (anonymous, hugetlb).
 */
PP_API int pp_mem_source_page_offset(const struct pp_mem_source *src,
				     const struct page *page, uint64_t *off);

/**
 * pp_page_source() - the source @page (any page of a block) came from.
 * Return: the source, or NULL with errno EINVAL if it is not an allocator
 * page of a live source (a page of a destroyed source is recognised by its
 * address, without reading the freed descriptor).
 */
PP_API struct pp_mem_source *pp_page_source(const struct page *page);

/* Largest dirty decay accepted, in ms (an hour). */
#define PP_DECAY_MS_MAX 3600000L

/**
 * pp_mem_source_set_dirty_decay_ms() - how long free memory of @src stays
 * mapped before it goes back to the system.
 * @src: the source (pp_mem_source_default() for alloc_pages()'s).
 * @ms: 0 returns a region the moment its last page is freed; N > 0 once it
 *	has been free N ms, at the next allocator slow path on its zone (a
 *	thread cache refill or spill, pp_thread_cache_drain()) or at
 *	pp_mem_purge(); -1 never (memory is kept until the source is
 *	destroyed). Up to PP_DECAY_MS_MAX.
 *
 * Memory goes back in whole 4 MiB regions, unmapped with their
 * descriptors; only regions whose pages were all freed qualify, and pages
 * in any thread's cache count as in use. The default source starts with
 * the value of the environment variable PAGEPOOL_DIRTY_DECAY_MS (read when
 * it is created), or 0; created sources start at -1. No thread of the
 * library runs the decay.
 * Context: any thread.
 * Return: 0; -EINVAL for NULL or @ms out of range; -EOPNOTSUPP for a
 * PP_MEM_USER source (the caller's memory, never unmapped) unless @ms is -1.
 */
PP_API int pp_mem_source_set_dirty_decay_ms(struct pp_mem_source *src,
					    long ms);

/**
 * pp_mem_source_dirty_decay_ms() - @src's dirty decay, in ms (-1: never).
 * Return: the decay; -EINVAL for NULL.
 */
PP_API long pp_mem_source_dirty_decay_ms(const struct pp_mem_source *src);

/**
 * pp_mem_purge() - give free memory back to the system now.
 * @src: the source; NULL means every live source.
 *
 * Takes the blocks waiting for their allocating threads (freed for them by
 * other threads), drains the calling thread's cache of the source(s),
 * then unmaps every
 * region whose pages are all free, whatever its decay (a source whose
 * decay is -1 included). Other threads' caches are not touched: the pages
 * they hold keep their regions. Memory mapped again later is zeroed by the
 * system, as any new region.
 * Context: any thread; takes the allocator's locks (not for a fast path).
 * @src must not be destroyed concurrently.
 * Return: the bytes returned (0 for a PP_MEM_USER source).
 */
PP_API long pp_mem_purge(struct pp_mem_source *src);

#ifdef __cplusplus
}
#endif

#endif /* PAGEPOOL_PAGE_H */
