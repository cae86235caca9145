/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Example: page_frag_cache, the kernel's allocator for many small buffers
 * (socket buffers' heads, netdev_alloc_frag()). A cache owns one block of
 * pages at a time and carves fragments off it with a pointer bump; each
 * fragment holds a reference to the block, and page_frag_free() drops it,
 * from any thread. The block goes back to the page allocator when the cache
 * has moved on to a new one and the last fragment of the old one is freed.
 *
 * The second part shows the prepare/probe/commit form: reserve the space a
 * message might need, write only what it does need, commit that much. The
 * last, pagepool's page_frag_cache_bind(): a request/response loop whose
 * thread frees its own fragments, each free then without an atomic.
 *
 *   cc page_frag.c $(pkg-config --cflags --libs pagepool)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pagepool/page.h>
#include <pagepool/page_frag_cache.h>

#define NFRAG	1000

int
main(void)
{
	static void *frags[NFRAG];
	struct page_frag_cache nc;
	struct page_frag pfrag;
	unsigned int i, sz;
	char *va;

	/* An empty cache; its first allocation opens a block. */
	page_frag_cache_init(&nc);

	for (i = 0; i < NFRAG; i++) {
		sz = 64 + (i % 8) * 100;	/* 64 .. 764 bytes */
		/* 64-byte aligned, as a driver aligns to a cache line. */
		frags[i] = page_frag_alloc_align(&nc, sz, GFP_KERNEL, 64);
		if (frags[i] == NULL) {
			perror("page_frag_alloc_align");
			return 1;
		}
		if ((uintptr_t)frags[i] % 64 != 0)
			return 1;
		memset(frags[i], (int)i, sz);
	}
	/* Consecutive fragments share a block: one pointer bump apart, the
	 * first one's size rounded up to the alignment. */
	printf("fragments 0 and 1 are %ld bytes apart\n",
	       labs((long)((char *)frags[1] - (char *)frags[0])));

	/* Free in any order, from any thread. */
	for (i = 0; i < NFRAG; i++)
		page_frag_free(frags[i]);

	/* Prepare: room for up to 1500 bytes, nothing committed yet. */
	va = page_frag_alloc_refill_prepare(&nc, 1500, &pfrag, GFP_KERNEL);
	if (va == NULL) {
		perror("page_frag_alloc_refill_prepare");
		return 1;
	}
	/* The message turned out to be short: commit only what was used.
	 * The rest stays in the cache for the next allocation. */
	sz = (unsigned int)snprintf(va, pfrag.size, "a short message") + 1;
	if (page_frag_commit(&nc, &pfrag, sz) < 0)
		return 1;
	printf("committed %u of %u bytes prepared: \"%s\"\n", sz, pfrag.size,
	       va);
	page_frag_free(va);

	/* This thread owns the cache and frees what it cuts: bind it, and
	 * each free hands its reference back to the cache, no atomic. */
	if (page_frag_cache_bind(&nc) != 0)
		return 1;
	for (i = 0; i < NFRAG; i++) {
		va = page_frag_alloc(&nc, 300, GFP_KERNEL);
		if (va == NULL) {
			perror("page_frag_alloc");
			return 1;
		}
		memset(va, 0x5a, 300);		/* build, send, ... */
		page_frag_free(va);		/* ... and done with it */
	}
	/* Unbind before another thread may use the cache. */
	if (page_frag_cache_unbind(&nc) != 0)
		return 1;
	printf("%u request buffers cut and freed on the owner thread\n",
	       NFRAG);

	/* Give the cached block back; with no fragment out it is freed. */
	page_frag_cache_drain(&nc);
	printf("drained\n");
	return 0;
}
