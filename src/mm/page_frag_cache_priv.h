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
#include <pagepool/page_frag_cache.h>

#include "lib/tls_priv.h"

/*
 * The caches bound to this thread (page_frag_cache_bind()), defined in
 * page_frag_cache.c. Initial-exec: read on every fragment free, in that
 * file and in skbuff.c. The GenMC harnesses build page_frag_cache.c with
 * __thread defined away and bind nothing.
 */
extern __thread struct page_frag_cache
	*_pp_bound_nc[PAGE_FRAG_CACHE_BIND_MAX] PP_TLS_IE;
extern __thread unsigned int _pp_nr_bound_nc PP_TLS_IE;

/*
 * A reference to the block whose head page is @head, dropped on the
 * calling thread: true if a cache bound to this thread holds that block
 * and took the reference back into its bias, so the caller must not drop
 * it. @head is compared, never read: callers pass what skb frags hold,
 * unchecked; NULL and pages of no cache give false. Only this thread
 * writes a bound cache (the binding's promise), so a plain increment; no
 * other thread reads the bias. Inline: on every free, bound or not.
 */
static inline bool
_pp_frag_put_local(const struct page *head)
{
	unsigned int i, n = _pp_nr_bound_nc;

	for (i = 0; i < n; i++) {
		struct page_frag_cache *nc = _pp_bound_nc[i];

		/* An empty cache's page is NULL; so may @head be. */
		if (nc->page == head && head != NULL) {
			nc->pagecnt_bias++;
			return true;
		}
	}
	return false;
}

#endif /* PAGEPOOL_PAGE_FRAG_CACHE_PRIV_H */
