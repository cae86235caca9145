/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * GenMC: fragments of one page_frag_cache block freed on other threads,
 * on the real src/mm/page_frag_cache.c (test configuration:
 * page_pool_env.h, where a higher-order block fails, so the block is one
 * page). The cache's thread cuts two 64-byte fragments, hands one to each
 * of two threads that write their data and page_frag_free() it, and then,
 * concurrently, asks for a fragment too big for what is left of the
 * block: frag_cache_renew() drops the cache's pagecnt_bias in one
 * page_ref_sub_and_test() and either reuses the block in place (both
 * fragments were already freed) or opens a new one, leaving the block to
 * the last page_frag_free(). The cache then writes to its new fragment.
 *
 * With the rewind (pagepool's), the request crosses the rewind stride
 * first: if both fragments are already back, __page_frag_try_rewind() sees
 * the count at the bias (its acquire A3) and starts the block again from
 * offset 0 instead. -DREWIND_MID=1 (with -DPFC_REWIND_STRIDE=256) asks
 * instead for a fragment that crosses the stride but fits in the block:
 * rewound to offset 0 when both are back, else cut at offset 128 of the
 * same block, which is never renewed. -DREWIND_LONG=1 (with the same
 * stride) cuts the second fragment by a 16-byte prepare and a commit of
 * 200 bytes, which runs past the stride without any request crossing it:
 * the next request, for 128 bytes, lies in one stride but past the limit,
 * so it still looks at the count: rewound to offset 0 when both are back,
 * else cut at offset 264. -DREWIND_PREPARE=1 (with REWIND_LONG) makes that
 * request a prepare and a commit, so the look is the header's inline one
 * (__page_frag_look()), not the library's.
 *
 * Checks: whoever frees or reuses the block last is ordered after every
 * holder's write (the allocator overwrites a freed page's bytes, the
 * reuse writes over the first fragment: either not ordered is a race); the
 * block is freed exactly once and every page is free at the end.
 */
#include "page_pool_env.h"

#define FRAGSZ 64
#ifndef REWIND_MID
#define REWIND_MID 0
#endif
#ifndef REWIND_LONG
#define REWIND_LONG 0
#endif
#ifndef REWIND_PREPARE
#define REWIND_PREPARE 0
#endif
/* The second fragment's length: a long commit, or a plain fragment. */
#define LONGSZ 200
#define FRAG1SZ (REWIND_LONG ? LONGSZ : FRAGSZ)
/* No room for a page at offset 128: the block is rewound or renewed. */
#define BIGSZ \
	(REWIND_LONG ? 128 : REWIND_MID ? __PAGE_FRAG_CACHE_STRIDE : PAGE_SIZE)

static struct page_frag_cache nc;
static char *frag[2];

static void *
holder(void *arg)
{
	int id = (int)(long)arg;

	frag[id][0] = (char)(id + 1);
	page_frag_free(frag[id]);
	return NULL;
}

int
main(void)
{
	pthread_t h0, h1;
	struct page_frag pf;
	char *big;

	page_frag_cache_init(&nc);
	frag[0] = page_frag_alloc(&nc, FRAGSZ, GFP_KERNEL);
	if (REWIND_LONG) {
		frag[1] = page_frag_alloc_refill_prepare(&nc, 16, &pf,
							 GFP_KERNEL);
		assert(page_frag_commit(&nc, &pf, LONGSZ) == LONGSZ);
	} else {
		frag[1] = page_frag_alloc(&nc, FRAGSZ, GFP_KERNEL);
	}
	assert(frag[0] != NULL && frag[1] == frag[0] + FRAGSZ);

	pthread_create(&h0, NULL, holder, (void *)0L);
	pthread_create(&h1, NULL, holder, (void *)1L);
	if (REWIND_PREPARE) {
		big = page_frag_alloc_refill_prepare(&nc, BIGSZ, &pf,
						     GFP_KERNEL);
		assert(big != NULL);
		assert(page_frag_commit(&nc, &pf, BIGSZ) == BIGSZ);
	} else {
		big = page_frag_alloc(&nc, BIGSZ, GFP_KERNEL);
	}
	assert(big != NULL);
	if (REWIND_MID || REWIND_LONG)
		assert(big == frag[0] || big == frag[0] + FRAGSZ + FRAG1SZ);
	big[0] = 3;
	big[64] = 3;
	pthread_join(h0, NULL);
	pthread_join(h1, NULL);

	page_frag_free(big);
	page_frag_cache_drain(&nc);
	assert(!__atomic_load_n(&env_page_used[0], __ATOMIC_RELAXED));
	assert(!__atomic_load_n(&env_page_used[1], __ATOMIC_RELAXED));
	return 0;
}
