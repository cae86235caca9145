/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_frag_cache: bad input on every entry point. Allocation calls return
 * NULL with errno EINVAL, int calls -EINVAL, void calls set errno EINVAL and
 * change nothing; a refused call leaves the cache as it was.
 */
#include <errno.h>
#include <string.h>

#include <pagepool/page_frag_cache.h>

#include "helpers.h"

#define EXPECT_NULL_EINVAL(expr)                                             \
	do {                                                                 \
		errno = 0;                                                   \
		CHECK((expr) == NULL);                                       \
		CHECK_EQ(errno, EINVAL);                                     \
	} while (0)

#define EXPECT_VOID_EINVAL(expr)                                             \
	do {                                                                 \
		errno = 0;                                                   \
		expr;                                                        \
		CHECK_EQ(errno, EINVAL);                                     \
	} while (0)

int
main(void)
{
	struct page_frag_cache nc = { 0 }, copy;
	struct page_frag pf = { 0 }, bogus;
	struct iovec iov = { .iov_base = NULL, .iov_len = 1 };
	static char not_ours[64];
	char *va;

	/* NULL cache everywhere. */
	EXPECT_NULL_EINVAL(page_frag_alloc(NULL, 10, GFP_KERNEL));
	EXPECT_NULL_EINVAL(page_frag_alloc_align(NULL, 10, GFP_KERNEL, 64));
	EXPECT_NULL_EINVAL(__page_frag_alloc_align(NULL, 10, GFP_KERNEL, ~0u));
	EXPECT_NULL_EINVAL(page_frag_alloc_refill_prepare(NULL, 10, &pf,
							  GFP_KERNEL));
	EXPECT_NULL_EINVAL(page_frag_alloc_refill_probe(NULL, 10, &pf));
	CHECK_EQ(page_frag_commit(NULL, &pf, 1), -EINVAL);
	CHECK_EQ(page_frag_commit_noref(NULL, &pf, 1), -EINVAL);
	CHECK_EQ(page_frag_alloc_abort(NULL, not_ours, 1), -EINVAL);
	EXPECT_VOID_EINVAL(page_frag_cache_init(NULL));
	EXPECT_VOID_EINVAL(page_frag_cache_drain(NULL));
	CHECK(!page_frag_cache_is_pfmemalloc(NULL));

	/* Sizes: 0 and above the block. */
	EXPECT_NULL_EINVAL(page_frag_alloc(&nc, 0, GFP_KERNEL));
	EXPECT_NULL_EINVAL(page_frag_alloc(&nc, PAGE_FRAG_CACHE_MAX_SIZE + 1,
					   GFP_KERNEL));
	EXPECT_NULL_EINVAL(page_frag_alloc(&nc, ~0u, GFP_KERNEL));
	EXPECT_NULL_EINVAL(netdev_alloc_frag(0));
	/* Alignment: not a power of two (the kernel's WARN), above a page,
	 * a mask that is not -2^k. */
	EXPECT_NULL_EINVAL(page_frag_alloc_align(&nc, 10, GFP_KERNEL, 0));
	EXPECT_NULL_EINVAL(page_frag_alloc_align(&nc, 10, GFP_KERNEL, 48));
	EXPECT_NULL_EINVAL(page_frag_alloc_align(&nc, 10, GFP_KERNEL,
						 2 * PAGE_SIZE));
	EXPECT_NULL_EINVAL(__page_frag_alloc_align(&nc, 10, GFP_KERNEL,
						   0x0f0u));
	EXPECT_NULL_EINVAL(__page_frag_alloc_align(&nc, 10, GFP_KERNEL, 0));
	EXPECT_NULL_EINVAL(netdev_alloc_frag_align(10, 3));
	EXPECT_NULL_EINVAL(__netdev_alloc_frag_align(10, 0x10u));
	EXPECT_NULL_EINVAL(page_frag_alloc_refill_prepare(&nc, 10, NULL,
							  GFP_KERNEL));
	EXPECT_NULL_EINVAL(page_frag_alloc_refill_prepare(&nc, 0, &pf,
							  GFP_KERNEL));
	EXPECT_NULL_EINVAL(page_frag_alloc_refill_prepare_align(
		&nc, 10, &pf, GFP_KERNEL, 6));
	EXPECT_NULL_EINVAL(page_frag_alloc_refill_probe(&nc, 10, NULL));
	EXPECT_NULL_EINVAL(page_frag_alloc_refill_probe(&nc, 0, &pf));
	/* None of that opened a block. */
	CHECK_EQ(nc.encoded_page, 0);

	/* Commit and abort need the cache's current space. */
	CHECK_EQ(page_frag_commit(&nc, &pf, 1), -EINVAL);	/* no block */
	va = page_frag_alloc_refill_prepare(&nc, 10, &pf, GFP_KERNEL);
	CHECK(va != NULL);
	copy = nc;
	CHECK_EQ(page_frag_commit(&nc, NULL, 1), -EINVAL);
	CHECK_EQ(page_frag_commit(&nc, &pf, 0), -EINVAL);
	CHECK_EQ(page_frag_commit(&nc, &pf, pf.size + 1), -EINVAL);
	bogus = pf;
	bogus.page = NULL;
	CHECK_EQ(page_frag_commit(&nc, &bogus, 1), -EINVAL);
	bogus = pf;
	bogus.page = virt_to_page(va + PAGE_SIZE);	/* a tail page */
	CHECK_EQ(page_frag_commit(&nc, &bogus, 1), -EINVAL);
	bogus = pf;
	bogus.offset = PAGE_FRAG_CACHE_MAX_SIZE - 1;
	bogus.size = 100;
	/* Space running past the block (a page_frag no prepare or probe
	 * filled): the exported function refuses it in every build, the
	 * header's inline fast path only in PP_DEBUG builds, which call the
	 * exported function (the kernel's VM_BUG_ON). */
	CHECK_EQ((page_frag_commit)(&nc, &bogus, 2), -EINVAL);
	CHECK_EQ((page_frag_commit_noref)(&nc, &bogus, 2), -EINVAL);
#if defined(PP_DEBUG) && PP_DEBUG
	CHECK_EQ(page_frag_commit(&nc, &bogus, 2), -EINVAL);
#endif
	/* Every check the inline path keeps, through it and through the
	 * exported function alike. */
	CHECK_EQ((page_frag_commit)(&nc, &pf, 0), -EINVAL);
	CHECK_EQ((page_frag_commit)(&nc, &pf, pf.size + 1), -EINVAL);
	bogus = pf;
	bogus.page = virt_to_page(va + PAGE_SIZE);
	CHECK_EQ((page_frag_commit)(&nc, &bogus, 1), -EINVAL);
	CHECK_EQ((page_frag_commit_noref)(&nc, &pf, 1), -EINVAL);
	EXPECT_NULL_EINVAL((page_frag_alloc_refill_probe)(&nc, 0, &pf));
	EXPECT_NULL_EINVAL((__page_frag_alloc_refill_prepare_align)(
		&nc, 10, &pf, GFP_KERNEL, 0x0f0u));
	CHECK_EQ(page_frag_commit_noref(&nc, &pf, 1), -EINVAL);
	CHECK_EQ(page_frag_alloc_abort(&nc, va, 10), -EINVAL); /* none out */
	CHECK(memcmp(&nc, &copy, sizeof(nc)) == 0);
	CHECK_EQ(page_frag_commit(&nc, &pf, 10), 10);
	/* The same space again: behind the cache's offset, refused. */
	copy = nc;
	CHECK_EQ(page_frag_commit(&nc, &pf, 1), -EINVAL);
	CHECK_EQ(page_frag_commit_noref(&nc, &pf, 1), -EINVAL);
	CHECK(memcmp(&nc, &copy, sizeof(nc)) == 0);
	CHECK_EQ(page_frag_alloc_abort(&nc, NULL, 10), -EINVAL);
	CHECK_EQ(page_frag_alloc_abort(&nc, va, 0), -EINVAL);
	CHECK_EQ(page_frag_alloc_abort(&nc, va, 11), -EINVAL);
	CHECK_EQ(page_frag_alloc_abort(&nc, va + 1, 10), -EINVAL);
	CHECK_EQ(page_frag_alloc_abort(&nc, va, 10), 0);

	/* The nocache copy. */
	CHECK_EQ(page_frag_copy_to_va_nocache(NULL, &iov, 1, 0), -EINVAL);
	CHECK_EQ(page_frag_copy_to_va_nocache(&pf, NULL, 1, 0), -EINVAL);
	CHECK_EQ(page_frag_copy_to_va_nocache(&pf, &iov, -1, 0), -EINVAL);
	CHECK_EQ(page_frag_copy_to_va_nocache(&pf, &iov, 1, 0), -EINVAL);
	CHECK_EQ(page_frag_copy_to_va_nocache(&pf, NULL, 0, 0), 0);
	bogus = pf;
	bogus.page = NULL;
	iov.iov_base = not_ours;
	CHECK_EQ(page_frag_copy_to_va_nocache(&bogus, &iov, 1, 0), -EINVAL);

	/* A page_frag describing more than its block: nothing is copied. */
	{
		static char src[PAGE_FRAG_CACHE_MAX_SIZE + 64];
		struct iovec big = { .iov_base = src, .iov_len = sizeof(src) };
		unsigned int blk = PAGE_SIZE << compound_order(pf.page);

		bogus = pf;
		bogus.size = ~0u;
		CHECK_EQ(page_frag_copy_to_va_nocache(&bogus, &big, 1, 0),
			 -EINVAL);
		bogus = pf;
		bogus.offset = blk;
		bogus.size = 1;
		CHECK_EQ(page_frag_copy_to_va_nocache(&bogus, &big, 1, 0),
			 -EINVAL);
		bogus = pf;
		bogus.offset = blk - 10;
		bogus.size = 11;
		CHECK_EQ(page_frag_copy_to_va_nocache(&bogus, &big, 1, 0),
			 -EINVAL);
		bogus.size = 10;
		CHECK_EQ(page_frag_copy_to_va_nocache(&bogus, &big, 1, 0), 10);
	}

	/* Frees and drains of what is not ours. */
	EXPECT_VOID_EINVAL(page_frag_free(NULL));
	EXPECT_VOID_EINVAL(page_frag_free(not_ours));
	EXPECT_VOID_EINVAL(__page_frag_cache_drain(NULL, 1));
	EXPECT_VOID_EINVAL(__page_frag_cache_drain(pf.page, 0));
	/* More references than the block has: refused, nothing dropped. */
	{
		int refs = page_ref_count(pf.page);

		EXPECT_VOID_EINVAL(__page_frag_cache_drain(
			pf.page, (unsigned int)refs + 1));
		EXPECT_VOID_EINVAL(__page_frag_cache_drain(pf.page, ~0u));
		CHECK_EQ(page_ref_count(pf.page), refs);
	}
	CHECK(nc.encoded_page != 0);
	page_frag_cache_drain(&nc);
	CHECK_EQ(nc.encoded_page, 0);
	return T_EXIT_PASS;
}
