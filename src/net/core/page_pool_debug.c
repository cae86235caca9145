/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_pool debug checks (PP_DEBUG builds): misuse that cannot be reported
 * through a return value is caught here and reported with the page and the
 * pool named. A page is marked free while it sits in the pool (pp_ref_count
 * 0, which a live page never has) and its contents are poisoned, so a
 * second put of it, or a write through a stale pointer, shows when the page
 * is put again or handed out again. The functions exist in every build, so
 * a library built either way exports the same symbols; the fast paths call
 * them only when PP_DEBUG is set.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "page_pool_priv.h"

/*
 * Errors with no pool to count them on (a put to a NULL pool, a foreign
 * page in a bulk put): page_pool_debug_errors(NULL) reads them.
 */
static uint64_t poolless_errors;

static void
report_poolless(struct page *page, const char *what)
{
	pp_fetch_add_relaxed(&poolless_errors, 1);
	fprintf(stderr, "page_pool: %s: page %p (va %p)\n", what,
		(void *)page, page ? page_address(page) : NULL);
}

static void
report(struct page_pool *pool, struct page *page, const char *what)
{
	pp_fetch_add_relaxed(&pool->debug_errors, 1);
	fprintf(stderr, "page_pool: id %u: %s: page %p (va %p)\n", pool->id,
		what, (void *)page, page ? page_address(page) : NULL);
}

static bool
not_owner(const struct page_pool *pool)
{
	unsigned long owner = pp_load_relaxed(&pool->owner);

	return owner != 0 && owner != pp_thread_self();
}

bool
__page_pool_debug_put(struct page_pool *pool, struct page *page,
		      bool allow_direct)
{
	if (pool == NULL) {
		report_poolless(page, "put to a NULL pool");
		return false;
	}
	if (page == NULL) {
		report(pool, page, "put of a NULL page");
		return false;
	}
	if ((page->pp_magic & PP_MAGIC_MASK) != PP_SIGNATURE) {
		report(pool, page, "put of a page that is not a page_pool page");
		return false;
	}
	if (page->pp != pool) {
		pp_fetch_add_relaxed(&pool->debug_errors, 1);
		fprintf(stderr,
			"page_pool: id %u: put of a page of pool %u: page %p "
			"(va %p)\n",
			pool->id, page->pp ? page->pp->id : 0, (void *)page,
			page_address(page));
		return false;
	}
	if (pp_load_relaxed(&page->pp_ref_count) <= 0) {
		report(pool, page, "double put (the page is already back)");
		return false;
	}
	if (allow_direct && not_owner(pool))
		report(pool, page,
		       "direct recycle from a thread that is not the owner");
	/* Its cache is never emptied again: the page, and so the pool,
	 * would be stranded. Such a put is dropped (the page leaks). */
	if (allow_direct && pp_load_relaxed(&pool->user_cnt) == 0) {
		report(pool, page, "direct recycle into a destroyed pool");
		return false;
	}
	return true;
}

void
__page_pool_debug_destroy(struct page_pool *pool)
{
	if (pool == NULL)
		return;
	if (not_owner(pool)) {
		pp_fetch_add_relaxed(&pool->debug_errors, 1);
		fprintf(stderr,
			"page_pool: id %u: destroyed from a thread that is not "
			"its owner while direct recycling is on: call "
			"page_pool_disable_direct_recycling() in the owner "
			"first\n",
			pool->id);
	}
}

void
__page_pool_debug_recycle(struct page_pool *pool, struct page *page)
{
	if (pool == NULL || page == NULL)
		return;
	memset(page_address(page), PP_POISON_FREE, PAGE_SIZE << pool->p.order);
	pp_store_relaxed(&page->pp_ref_count, 0L);
}

void
__page_pool_debug_alloc(struct page_pool *pool, struct page *page)
{
	long ref;

	if (pool == NULL || page == NULL)
		return;
	ref = pp_load_relaxed(&page->pp_ref_count);
	if (not_owner(pool))
		report(pool, page, "allocation outside the owner thread");
	if (ref == 0) {
		const unsigned char *p = page_address(page);
		size_t i, len = PAGE_SIZE << pool->p.order;
		size_t dev_lo = 0, dev_hi = 0;

		/*
		 * The pool poisons a returned page before it syncs it for the
		 * device; on a bounce device with PP_DMA_F_POISON that sync
		 * fills the CPU's copy of the synced range (at most max_len
		 * at offset) with PP_DMA_POISON, the device's doing, not a
		 * stale write.
		 */
		if (pp_load_relaxed(&pool->dma_sync)) {
			dev_lo = pool->p.offset;
			dev_hi = dev_lo + pool->p.max_len;
		}
		for (i = 0; i < len; i++) {
			if (p[i] != PP_POISON_FREE &&
			    !(p[i] == PP_DMA_POISON && i >= dev_lo &&
			      i < dev_hi)) {
				char what[96];

				snprintf(what, sizeof(what),
					 "written after it was returned "
					 "(first change at offset %zu)",
					 i);
				report(pool, page, what);
				break;
			}
		}
	} else if (ref != 1) {
		report(pool, page, "handed out while still referenced");
	}
	pp_store_relaxed(&page->pp_ref_count, 1L);
}

void
_pp_debug_bulk_foreign(struct page *page)
{
	errno = EINVAL;
	if (PP_DEBUG)
		report_poolless(page, "bulk put of a page that is not a "
				      "page_pool page");
}

uint64_t
page_pool_debug_errors(const struct page_pool *pool)
{
	if (pool == NULL)
		return pp_load_relaxed(&poolless_errors);
	return pp_load_relaxed(&pool->debug_errors);
}
