/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_frag_cache's rewind (pagepool's, not the kernel's): once per stride
 * of offset (4 KiB, __PAGE_FRAG_CACHE_STRIDE in pagepool/page_frag_cache.h) the
 * cache looks at its block's count, and when every fragment has come back
 * it starts the block again from offset 0. Checked: the allocation that
 * crosses the stride, through alloc, prepare and probe, comes from the
 * start of the same block with the bias full again, also after a commit
 * that ran past the stride on its own; no rewind while a
 * fragment or a page reference is out, nor for a block from the reserves;
 * commit_noref and abort stay exact after a rewind; PP_DEBUG builds refuse
 * a second free, after the rewind, of a fragment from before it; and
 * fragments written and freed on another thread, then written over by the
 * cache after the rewind, with only the block's count between the two
 * threads: the rewind's acquire orders the freer's accesses before the
 * cache's (TSan reports a race without it). Nothing leaks.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include <pagepool/page_frag_cache.h>
#include <pagepool/page_pool.h>	/* PP_DEBUG */

#include "page_helpers.h"

#define MAX_SIZE	((unsigned int)PAGE_FRAG_CACHE_MAX_SIZE)
#define STRIDE		4096u	/* __PAGE_FRAG_CACHE_STRIDE */
#define FRAG		1000u	/* four fit in a stride, the fifth crosses */

static struct page *
head_of(const void *va)
{
	struct page *p = virt_to_page(va);

	CHECK(p != NULL);
	return compound_head(p);
}

/*
 * From an empty cache: four FRAG-byte fragments, each freed at once, so
 * the offset stands at 4 * FRAG, below the stride, with nothing out.
 * Returns the block's start. With @hold, the first stays out (*@hold).
 */
static char *
walk_first_stride(struct page_frag_cache *nc, char **hold)
{
	char *first, *va;
	unsigned int i;

	first = page_frag_alloc(nc, FRAG, GFP_KERNEL);
	CHECK(first != NULL);
	CHECK_EQ((uintptr_t)first & (MAX_SIZE - 1), 0);
	memset(first, 1, FRAG);
	if (hold != NULL)
		*hold = first;
	else
		page_frag_free(first);
	for (i = 1; i < 4; i++) {
		va = page_frag_alloc(nc, FRAG, GFP_KERNEL);
		CHECK(va == first + i * FRAG);
		memset(va, 1, FRAG);
		page_frag_free(va + FRAG / 2);
	}
	CHECK_EQ(nc->offset, 4 * FRAG);
	return first;
}

static void
test_rewind_alloc(void)
{
	struct page_frag_cache nc = { 0 };
	char *first = walk_first_stride(&nc, NULL), *va;
	unsigned int i;

	/* Every fragment is back: the fifth starts the block again. */
	va = page_frag_alloc(&nc, FRAG, GFP_KERNEL);
	CHECK(va == first);
	CHECK_EQ(nc.offset, FRAG);
	CHECK_EQ(nc.pagecnt_bias, MAX_SIZE);
	CHECK_EQ(page_ref_count(head_of(va)), MAX_SIZE + 1);
	/* And again, stride after stride, with an aligned request. */
	page_frag_free(va);
	for (i = 1; i < 4; i++) {
		va = page_frag_alloc(&nc, FRAG, GFP_KERNEL);
		CHECK(va == first + i * FRAG);
		page_frag_free(va);
	}
	va = page_frag_alloc_align(&nc, 200, GFP_KERNEL, 64);
	CHECK(va == first);
	page_frag_free(va);
	page_frag_cache_drain(&nc);
}

static void
test_rewind_prepare_probe(void)
{
	struct page_frag_cache nc = { 0 };
	struct page_frag pf;
	char *first, *va;

	first = walk_first_stride(&nc, NULL);
	va = page_frag_alloc_refill_prepare(&nc, 200, &pf, GFP_KERNEL);
	CHECK(va == first);
	CHECK(pf.page == head_of(first));
	CHECK_EQ(pf.offset, 0);
	CHECK_EQ(pf.size, MAX_SIZE);
	/* Nothing taken until commit: the bias is full again. */
	CHECK_EQ(nc.pagecnt_bias, MAX_SIZE + 1);
	CHECK_EQ(page_frag_commit(&nc, &pf, 150), 150);
	page_frag_free(va);
	page_frag_cache_drain(&nc);

	/* The probe rewinds too (it opens no block, but this one is its). */
	first = walk_first_stride(&nc, NULL);
	va = page_frag_alloc_refill_probe(&nc, 200, &pf);
	CHECK(va == first);
	CHECK_EQ(pf.offset, 0);
	CHECK_EQ(pf.size, MAX_SIZE);
	/* No fragment of the block is out since: nothing to extend. */
	CHECK_EQ(page_frag_commit_noref(&nc, &pf, 10), -EINVAL);
	CHECK_EQ(page_frag_commit(&nc, &pf, 10), 10);
	CHECK_EQ(nc.pagecnt_bias, MAX_SIZE);
	/* Abort takes the first fragment after the rewind back. */
	CHECK_EQ(page_frag_alloc_abort(&nc, va, 10), 0);
	CHECK_EQ(nc.offset, 0);
	CHECK_EQ(nc.pagecnt_bias, MAX_SIZE + 1);
	CHECK_EQ(page_ref_count(head_of(first)), MAX_SIZE + 1);
	page_frag_cache_drain(&nc);
}

/*
 * A commit longer than the space asked for (a copy takes all the room the
 * probe or prepare described, as a socket's sendmsg does) carries the
 * offset past stride boundaries that no reservation crossed: the next
 * reservation still looks at the count, once, and rewinds if all is back
 * (it did not before: only a request leaving the stride of the last byte
 * did, and a 32-byte probe after a long fragment seldom does).
 */
static void
test_rewind_after_long_commit(void)
{
	struct page_frag_cache nc = { 0 };
	struct page_frag pf;
	char *first, *va, *held;

	first = page_frag_alloc_refill_prepare(&nc, 32, &pf, GFP_KERNEL);
	CHECK(first != NULL);
	CHECK_EQ(pf.size, MAX_SIZE);
	memset(first, 1, 6000);
	CHECK_EQ(page_frag_commit(&nc, &pf, 6000), 6000);
	page_frag_free(first + 100);
	/* 6000..6032 lies in one stride, but the walk left the first. */
	va = page_frag_alloc_refill_probe(&nc, 32, &pf);
	CHECK(va == first);
	CHECK_EQ(pf.offset, 0);
	CHECK_EQ(nc.pagecnt_bias, MAX_SIZE + 1);
	CHECK_EQ(page_frag_commit(&nc, &pf, 2 * STRIDE + 100), 2 * STRIDE + 100);
	page_frag_free(va);
	/* The same through prepare and alloc. */
	va = page_frag_alloc_refill_prepare(&nc, 32, &pf, GFP_KERNEL);
	CHECK(va == first);
	CHECK_EQ(page_frag_commit(&nc, &pf, 5000), 5000);
	page_frag_free(va);
	va = page_frag_alloc(&nc, 32, GFP_KERNEL);
	CHECK(va == first);
	page_frag_free(va);

	/* One fragment out: no rewind, the walk goes on after it. */
	held = page_frag_alloc_refill_prepare(&nc, 32, &pf, GFP_KERNEL);
	CHECK(held == first + 32);
	CHECK_EQ(page_frag_commit(&nc, &pf, 6000), 6000);
	va = page_frag_alloc_refill_probe(&nc, 32, &pf);
	CHECK(va == first + 6032);
	CHECK_EQ(page_frag_commit(&nc, &pf, 32), 32);
	page_frag_free(va);
	page_frag_free(held);
	page_frag_cache_drain(&nc);
}

/*
 * A request longer than the stride (a receive prepared for the largest
 * frame) always ends past the limit a look with a fragment out sets, less
 * than a stride ahead. It runs inline while it starts below the limit
 * (before, every such request went to the library and looked again), and
 * looks, once, when it starts past it.
 */
static void
test_large_request_once_per_stride(void)
{
	const unsigned int big = 9014;
	struct page_frag_cache nc = { 0 };
	struct page_frag pf;
	char *first, *a, *b, *va;

	first = page_frag_alloc_refill_prepare(&nc, 32, &pf, GFP_KERNEL);
	CHECK(first != NULL);
	CHECK_EQ(page_frag_commit(&nc, &pf, 100), 100);
	a = first;
	b = page_frag_alloc_refill_prepare(&nc, big, &pf, GFP_KERNEL);
	CHECK(b == first + 100);
	CHECK_EQ(pf.size, MAX_SIZE - 100);
	CHECK_EQ(page_frag_commit(&nc, &pf, 1000), 1000);
	page_frag_free(a);
	page_frag_free(b);
	/* All back, but the offset is still in the stride last looked at. */
	va = page_frag_alloc_refill_prepare(&nc, big, &pf, GFP_KERNEL);
	CHECK(va == first + 1100);
	CHECK_EQ(page_frag_commit(&nc, &pf, 3500), 3500);
	page_frag_free(va);
	/* The offset left the stride: this one looks, and rewinds. */
	va = page_frag_alloc_refill_prepare(&nc, big, &pf, GFP_KERNEL);
	CHECK(va == first);
	CHECK_EQ(pf.size, MAX_SIZE);
	CHECK_EQ(nc.pagecnt_bias, MAX_SIZE + 1);
	/* The probe and the kernel's alloc follow the same rule. */
	CHECK_EQ(page_frag_commit(&nc, &pf, 100), 100);
	a = va;
	va = page_frag_alloc_refill_probe(&nc, big, &pf);
	CHECK(va == first + 100);
	va = page_frag_alloc(&nc, 5000, GFP_KERNEL);
	CHECK(va == first + 100);
	page_frag_free(a);
	page_frag_free(va);
	/* Nothing was out at the last look: inline up to the end of the
	 * stride that request ended in (9014 -> 12288). */
	va = page_frag_alloc(&nc, 5000, GFP_KERNEL);
	CHECK(va == first + 5100);
	page_frag_free(va);
	page_frag_cache_drain(&nc);
}

/* One fragment out: the cache walks on, then leaves the block to it. */
static void
test_no_rewind_held(void)
{
	struct page_frag_cache nc = { 0 };
	char *held, *first, *va;
	unsigned int off;

	first = walk_first_stride(&nc, &held);
	va = page_frag_alloc(&nc, FRAG, GFP_KERNEL);
	CHECK(va == first + 4 * FRAG);
	page_frag_free(va);
	/* No stride rewinds it; the full block is left to held. */
	for (off = 5 * FRAG; off + FRAG <= MAX_SIZE; off += FRAG) {
		va = page_frag_alloc(&nc, FRAG, GFP_KERNEL);
		CHECK(va == first + off);
		page_frag_free(va);
	}
	va = page_frag_alloc(&nc, FRAG, GFP_KERNEL);
	CHECK(va != NULL);
	CHECK(head_of(va) != head_of(first));
	CHECK_EQ(page_ref_count(head_of(first)), 1);
	page_frag_free(held);		/* the last reference frees it */
	page_frag_free(va);
	page_frag_cache_drain(&nc);

	/* A page reference (an skb frag's get_page()) holds it too. */
	first = walk_first_stride(&nc, NULL);
	get_page(head_of(first));
	va = page_frag_alloc(&nc, FRAG, GFP_KERNEL);
	CHECK(va == first + 4 * FRAG);
	page_frag_free(va);
	put_page(head_of(first));
	/* That look found a reference out, so the next request past the
	 * stride it looked in looks again: all back now. */
	va = page_frag_alloc(&nc, 3 * FRAG, GFP_KERNEL);
	CHECK(va == first);
	page_frag_free(va);
	/* Nothing was out at that look: the stride's requests run inline. */
	va = page_frag_alloc(&nc, FRAG, GFP_KERNEL);
	CHECK(va == first + 3 * FRAG);
	page_frag_free(va);
	page_frag_cache_drain(&nc);
}

/* A block from the reserves is never rewound, as never reused in place. */
static void
test_no_rewind_pfmemalloc(void)
{
	struct page_frag_cache nc = { 0 };
	char *first, *va;

	first = walk_first_stride(&nc, NULL);
	nc.encoded_page |= PAGE_FRAG_CACHE_PFMEMALLOC_BIT;	/* white box */
	va = page_frag_alloc(&nc, FRAG, GFP_KERNEL);
	CHECK(va == first + 4 * FRAG);
	page_frag_free(va);
	page_frag_cache_drain(&nc);
}

/* PP_DEBUG: a fragment from before the rewind, freed again after it. */
static void
test_debug_double_free(void)
{
	struct page_frag_cache nc = { 0 };
	struct page_frag pf;
	uint64_t before;
	char *first, *va;
	char want[160];

	first = walk_first_stride(&nc, NULL);
	CHECK(page_frag_alloc_refill_probe(&nc, 200, &pf) == first);
	if (PP_DEBUG) {
		/* The rewind forgot the old fragments: no fragment there. */
		before = page_frag_debug_errors();
		t_capture_start();
		errno = 0;
		page_frag_free(first + FRAG);
		snprintf(want, sizeof(want),
			 "page_frag: free of an address in no fragment: address %p",
			 (void *)(first + FRAG));
		t_capture_expect(want);
		CHECK_EQ(errno, EINVAL);
		CHECK_EQ(page_frag_debug_errors(), before + 1);
		CHECK_EQ(page_ref_count(head_of(first)), MAX_SIZE + 1);
	}
	/* The new fragments are watched as any: each frees once. */
	va = page_frag_alloc(&nc, FRAG, GFP_KERNEL);
	CHECK(va == first);
	page_frag_free(va + 1);
	page_frag_cache_drain(&nc);
}

/*
 * Across threads: the cache's thread cuts four fragments, fills them and
 * hands them to the freer (R0/A0 below); the freer checks them, writes
 * over them and frees them. The cache's thread learns that only through
 * the block's count: it probes until the probe rewinds, then writes over
 * the whole stride. Each freer write must happen before that (A3 in
 * __page_frag_try_rewind() against R2 in page_frag_free()).
 */
static char *xt_frag[4];
static int xt_round;		/* R0/A0: the round whose fragments are out */
static long xt_bad;

static void *
xt_freer(void *arg)
{
	int seen = 0, r, i;
	unsigned int k;

	(void)arg;
	for (;;) {
		/* A0: pairs with R0 in test_cross_thread(). */
		while ((r = pp_load_acquire(&xt_round)) == seen)
			sched_yield();	/* 2 CPUs may be shared by more */
		if (r < 0)
			break;
		seen = r;
		for (i = 0; i < 4; i++) {
			for (k = 0; k < FRAG; k++)
				if (xt_frag[i][k] != (char)(r + i))
					xt_bad++;
			memset(xt_frag[i], 0x5a, FRAG);
			page_frag_free(xt_frag[i] + k / 2);
		}
	}
	pp_thread_cache_drain();
	return NULL;
}

static void
test_cross_thread(void)
{
	struct page_frag_cache nc = { 0 };
	long rounds = t_scale(2000), spins = 0;
	struct page_frag pf;
	pthread_t t;
	char *first = NULL, *va;
	int r, i;

	CHECK_EQ(pthread_create(&t, NULL, xt_freer, NULL), 0);
	for (r = 1; r <= rounds; r++) {
		for (i = 0; i < 4; i++) {
			xt_frag[i] = page_frag_alloc(&nc, FRAG, GFP_KERNEL);
			CHECK(xt_frag[i] != NULL);
			if (first == NULL)
				first = xt_frag[0];
			/* The same block each round, from its start. */
			CHECK(xt_frag[i] == first + i * FRAG);
			memset(xt_frag[i], (char)(r + i), FRAG);
		}
		/* R0: publishes the fragments and their bytes. */
		pp_store_release(&xt_round, r);
		/* Crossing the stride: a rewind once all four are back. */
		while ((va = page_frag_alloc_refill_probe(&nc, 200, &pf)) !=
		       first) {
			CHECK(va == first + 4 * FRAG);
			spins++;
			sched_yield();
		}
		CHECK_EQ(pf.offset, 0);
		memset(first, 0x33, 4 * FRAG + 200);
	}
	pp_store_release(&xt_round, -1);
	CHECK_EQ(pthread_join(t, NULL), 0);
	CHECK_EQ(xt_bad, 0);
	CHECK_EQ(page_ref_count(head_of(first)), MAX_SIZE + 1);
	page_frag_cache_drain(&nc);
	(void)spins;
}

int
main(void)
{
	struct pp_mem_source *src = pp_mem_source_default();
	unsigned long base;

	CHECK(src != NULL);
	pp_thread_cache_drain();
	base = t_in_use(src);
	test_rewind_alloc();
	test_rewind_prepare_probe();
	test_rewind_after_long_commit();
	test_large_request_once_per_stride();
	test_no_rewind_held();
	test_no_rewind_pfmemalloc();
	test_debug_double_free();
	test_cross_thread();
	pp_thread_cache_drain();
	CHECK_EQ(t_in_use(src), base);
	return T_EXIT_PASS;
}
