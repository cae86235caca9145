/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_pool_release_page(): a page leaves its pool for good and becomes an
 * ordinary page of the page allocator, freed by put_page(). Drivers called
 * it before handing a pool page to the stack in an skb, until kernels
 * learned to recycle pages from skbs (skb_mark_for_recycle(), v5.14; the
 * call was removed in v6.5). Seed 001 measures both ways; the released way
 * pays a DMA unmap and, for every packet, a page allocation and a DMA map.
 */
#include "page_pool_priv.h"

void
page_pool_release_page(struct page_pool *pool, struct page *page)
{
	if (pool == NULL || page == NULL)
		return;
	page = compound_head(page);
	if ((page->pp_magic & PP_MAGIC_MASK) != PP_SIGNATURE || page->pp != pool)
		return;
	/*
	 * _pp_return_page() ends with the pool's put_page(); the extra
	 * reference taken here is the one the caller keeps, so the page
	 * stays alive, unmapped and no longer counted in flight.
	 */
	get_page(page);
	_pp_return_page(pool, page);
}
