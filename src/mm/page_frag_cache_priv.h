/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Private: what page_frag_cache.c offers the rest of the library.
 */
#ifndef PAGEPOOL_PAGE_FRAG_CACHE_PRIV_H
#define PAGEPOOL_PAGE_FRAG_CACHE_PRIV_H

#include <stdbool.h>

#include <pagepool/page.h>

/*
 * A reference to the block whose head page is @head, dropped on the
 * calling thread: true if a cache bound to this thread
 * (page_frag_cache_bind()) holds that block and took the reference back
 * into its bias, so the caller must not drop it. @head is compared, never
 * read; NULL and pages of no cache give false.
 */
bool _pp_frag_put_local(const struct page *head);

#endif /* PAGEPOOL_PAGE_FRAG_CACHE_PRIV_H */
