/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_frag_cache on one thread: the 32 KiB block and its reference
 * accounting, alignment, the boundaries (1 byte, PAGE_SIZE, exactly filling
 * a block, the last bytes), reuse in place when every fragment came back, a
 * new block when one is still out, the order-0 fall-back (injected), a
 * request above a page refused without dropping the block, drain with
 * fragments outstanding, the pfmemalloc rule; the prepare / probe / commit
 * / abort extension and the nocache copy; the per-thread cache. Nothing
 * leaks: the default source's pages in use are back to where they started.
 */
#include <errno.h>
#include <string.h>

#include <pagepool/fault.h>
#include <pagepool/page_frag_cache.h>

#include "page_helpers.h"

#define MAX_SIZE ((unsigned int)PAGE_FRAG_CACHE_MAX_SIZE)

static struct page *
head_of(const void *va)
{
	struct page *p = virt_to_page(va);

	CHECK(p != NULL);
	return compound_head(p);
}

static unsigned int
block_order(const struct page_frag_cache *nc)
{
	return (unsigned int)(nc->encoded_page & PAGE_FRAG_CACHE_ORDER_MASK);
}

static void
test_block_and_bias(void)
{
	struct page_frag_cache nc;
	char *a, *b;

	page_frag_cache_init(&nc);
	CHECK_EQ(nc.encoded_page, 0);
	a = page_frag_alloc(&nc, 100, GFP_KERNEL);
	CHECK(a != NULL);
	/* A 32 KiB block, fragments from offset 0 upwards. */
	CHECK_EQ(block_order(&nc), PAGE_FRAG_CACHE_MAX_ORDER);
	CHECK_EQ(compound_order(head_of(a)), PAGE_FRAG_CACHE_MAX_ORDER);
	CHECK_EQ((uintptr_t)a & (MAX_SIZE - 1), 0);
	CHECK_EQ(nc.offset, 100);
	CHECK_EQ(nc.pagecnt_bias, MAX_SIZE);
	/* alloc_pages' reference plus MAX_SIZE, one of them handed out. */
	CHECK_EQ(page_ref_count(head_of(a)), MAX_SIZE + 1);
	b = page_frag_alloc(&nc, 1, GFP_KERNEL);
	CHECK(b == a + 100);
	CHECK_EQ(nc.pagecnt_bias, MAX_SIZE - 1);
	CHECK(!page_frag_cache_is_pfmemalloc(&nc));
	memset(a, 0xa5, 100);
	*b = 1;
	page_frag_free(a + 50);	/* any interior address */
	page_frag_free(b);
	CHECK_EQ(page_ref_count(head_of(a)), MAX_SIZE - 1);
	page_frag_cache_drain(&nc);
	CHECK_EQ(nc.encoded_page, 0);
}

static void
test_alignment(void)
{
	struct page_frag_cache nc = { 0 };
	unsigned int align;
	char *va, *first;

	first = page_frag_alloc(&nc, 3, GFP_KERNEL);
	CHECK(first != NULL);
	for (align = 1; align <= PAGE_SIZE; align <<= 1) {
		va = page_frag_alloc_align(&nc, 5, GFP_KERNEL, align);
		CHECK(va != NULL);
		CHECK_EQ((uintptr_t)va & (align - 1), 0);
		page_frag_free(va);
		/* Mask form, as the kernel's callers pass -align. */
		va = __page_frag_alloc_align(&nc, 7, GFP_KERNEL, -align);
		CHECK(va != NULL);
		CHECK_EQ((uintptr_t)va & (align - 1), 0);
		page_frag_free(va);
	}
	/* SMP_CACHE_BYTES as the kernel test does, across many blocks. */
	for (align = 0; align < 5000; align++) {
		va = page_frag_alloc_align(&nc, 75, GFP_KERNEL,
					   SMP_CACHE_BYTES);
		CHECK(va != NULL);
		CHECK_EQ((uintptr_t)va % SMP_CACHE_BYTES, 0);
		page_frag_free(va);
	}
	page_frag_free(first);
	page_frag_cache_drain(&nc);
}

static void
test_boundaries(void)
{
	struct page_frag_cache nc = { 0 };
	char *first, *va, *last, *next;
	unsigned int i;

	/* PAGE_SIZE fragments fill the block exactly. */
	first = page_frag_alloc(&nc, PAGE_SIZE, GFP_KERNEL);
	CHECK(first != NULL);
	for (i = 1; i < MAX_SIZE / PAGE_SIZE; i++) {
		va = page_frag_alloc(&nc, PAGE_SIZE, GFP_KERNEL);
		CHECK(va == first + i * PAGE_SIZE);
	}
	CHECK_EQ(nc.offset, MAX_SIZE);
	/* The next does not fit: fragments are out, so a new block. */
	next = page_frag_alloc(&nc, 1, GFP_KERNEL);
	CHECK(next != NULL);
	CHECK(head_of(next) != head_of(first));
	CHECK_EQ(nc.offset, 1);
	/* The old block lives on for its fragments, freed by the last. */
	CHECK_EQ(page_ref_count(head_of(first)), MAX_SIZE / PAGE_SIZE);
	for (i = 0; i < MAX_SIZE / PAGE_SIZE; i++)
		page_frag_free(first + i * PAGE_SIZE + PAGE_SIZE - 1);
	page_frag_free(next);

	/* The last bytes of a block: 1-byte request at MAX_SIZE - 1. */
	page_frag_cache_drain(&nc);
	first = page_frag_alloc(&nc, MAX_SIZE - 1, GFP_KERNEL);
	CHECK(first != NULL);
	last = page_frag_alloc(&nc, 1, GFP_KERNEL);
	CHECK(last == first + MAX_SIZE - 1);
	*last = 7;
	page_frag_free(first);
	/* A whole block in one fragment: refused on the full block while a
	 * fragment is out (above a page, it does not fit)... */
	CHECK(page_frag_alloc(&nc, MAX_SIZE, GFP_KERNEL) == NULL);
	CHECK_EQ(errno, ENOMEM);
	CHECK(nc.encoded_page != 0);
	/* ...served by the same block, rewound, once every one is back. */
	page_frag_free(last);
	va = page_frag_alloc(&nc, MAX_SIZE, GFP_KERNEL);
	CHECK(va == first);
	CHECK_EQ(nc.offset, MAX_SIZE);
	page_frag_free(va);
	page_frag_cache_drain(&nc);
	va = page_frag_alloc(&nc, MAX_SIZE, GFP_KERNEL);
	CHECK(va != NULL);
	CHECK_EQ(nc.offset, MAX_SIZE);
	page_frag_free(va);
	page_frag_cache_drain(&nc);
}

static void
test_reuse_in_place(void)
{
	struct page_frag_cache nc = { 0 };
	char *va[8], *again;
	int i;

	for (i = 0; i < 8; i++) {
		va[i] = page_frag_alloc(&nc, MAX_SIZE / 8, GFP_KERNEL);
		CHECK(va[i] != NULL);
	}
	for (i = 0; i < 8; i++)
		page_frag_free(va[i] + 3);
	/* All came back: the same block, from offset 0, bias reset. */
	again = page_frag_alloc(&nc, 10, GFP_KERNEL);
	CHECK(again == va[0]);
	CHECK_EQ(nc.pagecnt_bias, MAX_SIZE);
	CHECK_EQ(page_ref_count(head_of(again)), MAX_SIZE + 1);
	page_frag_free(again);
	page_frag_cache_drain(&nc);
}

static void
test_fallback(void)
{
	struct page_frag_cache nc = { 0 };
	unsigned long enc;
	char *va;

	/* The 32 KiB attempt fails, the page attempt succeeds. */
	pp_fault_inject_alloc(0, 1);
	va = page_frag_alloc(&nc, 100, GFP_KERNEL);
	CHECK_EQ(pp_fault_injected(), 1);
	pp_fault_inject_alloc(-1, 0);
	CHECK(va != NULL);
	CHECK_EQ(block_order(&nc), 0);
	CHECK_EQ(compound_order(head_of(va)), 0);
	enc = nc.encoded_page;
	/* Above a page, not fitting: refused, the block kept. */
	errno = 0;
	CHECK(page_frag_alloc(&nc, PAGE_SIZE + 1, GFP_KERNEL) == NULL);
	CHECK_EQ(errno, ENOMEM);
	CHECK_EQ(nc.encoded_page, enc);
	CHECK_EQ(nc.offset, 100);
	/* Up to a page: the order-0 block wraps as any other. */
	CHECK(page_frag_alloc(&nc, PAGE_SIZE - 100, GFP_KERNEL) == va + 100);
	page_frag_free(va);
	page_frag_free(va + 100);
	CHECK(page_frag_alloc(&nc, PAGE_SIZE, GFP_KERNEL) == va);
	page_frag_free(va);
	page_frag_cache_drain(&nc);

	/* Both attempts fail: NULL, ENOMEM, the cache stays empty. */
	pp_fault_inject_alloc(0, 2);
	errno = 0;
	CHECK(page_frag_alloc(&nc, 100, GFP_KERNEL) == NULL);
	CHECK_EQ(errno, ENOMEM);
	CHECK_EQ(pp_fault_injected(), 2);
	pp_fault_inject_alloc(-1, 0);
	CHECK_EQ(nc.encoded_page, 0);

	/* A wrap whose refill fails leaves the cache empty, not broken. */
	va = page_frag_alloc(&nc, MAX_SIZE, GFP_KERNEL);
	CHECK(va != NULL);
	pp_fault_inject_alloc(0, 2);
	CHECK(page_frag_alloc(&nc, 1, GFP_KERNEL) == NULL);
	pp_fault_inject_alloc(-1, 0);
	CHECK_EQ(nc.encoded_page, 0);
	page_frag_free(va);	/* the last reference frees the block */
	CHECK(page_frag_alloc(&nc, 1, GFP_KERNEL) != NULL);
	page_frag_free((void *)(nc.encoded_page & PAGE_MASK));
	page_frag_cache_drain(&nc);
}

static void
test_drain_outstanding(void)
{
	struct page_frag_cache nc = { 0 };
	char *a, *b;

	a = page_frag_alloc(&nc, 1000, GFP_KERNEL);
	b = page_frag_alloc(&nc, 1000, GFP_KERNEL);
	CHECK(a != NULL && b != NULL);
	page_frag_cache_drain(&nc);
	CHECK_EQ(nc.encoded_page, 0);
	/* The two fragments hold the block. */
	CHECK_EQ(page_ref_count(head_of(a)), 2);
	memset(a, 1, 1000);
	memset(b, 2, 1000);
	page_frag_free(b + 999);
	page_frag_free(a);
	/* Draining an empty cache is a no-op. */
	page_frag_cache_drain(&nc);
	/* __page_frag_cache_drain() on a page's own reference frees it. */
	a = page_frag_alloc(&nc, 10, GFP_KERNEL);
	CHECK(a != NULL);
	__page_frag_cache_drain(virt_to_page(a + PAGE_SIZE * 2), 1);
	CHECK_EQ(page_ref_count(head_of(a)), MAX_SIZE);
	page_frag_cache_drain(&nc);
}

static void
test_pfmemalloc(void)
{
	struct page_frag_cache nc = { 0 };
	char *a;

	a = page_frag_alloc(&nc, MAX_SIZE, GFP_KERNEL);
	CHECK(a != NULL);
	CHECK(!page_frag_cache_is_pfmemalloc(&nc));
	/* White box: pretend the block came from reserves. */
	nc.encoded_page |= PAGE_FRAG_CACHE_PFMEMALLOC_BIT;
	CHECK(page_frag_cache_is_pfmemalloc(&nc));
	page_frag_free(a);
	/* Every fragment is back, but a reserve block is never reused in
	 * place: freed, and the new block (not pfmemalloc) is encoded anew. */
	a = page_frag_alloc(&nc, 1, GFP_KERNEL);
	CHECK(a != NULL);
	CHECK(!page_frag_cache_is_pfmemalloc(&nc));
	page_frag_free(a);
	page_frag_cache_drain(&nc);
}

static void
test_prepare_commit(void)
{
	struct page_frag_cache nc = { 0 };
	struct page_frag pf, pr;
	char *va, *p, *frag1;
	char data[300];
	struct iovec iov[3];
	ssize_t n;
	int ret, i;

	for (i = 0; i < (int)sizeof(data); i++)
		data[i] = (char)i;
	/* Reserve 64, get the whole rest of the block described. */
	va = page_frag_alloc_refill_prepare(&nc, 64, &pf, GFP_KERNEL);
	CHECK(va != NULL);
	CHECK_EQ(pf.offset, 0);
	CHECK_EQ(pf.size, MAX_SIZE);
	CHECK(page_address(pf.page) == va);
	/* Nothing is taken until commit. */
	CHECK_EQ(nc.pagecnt_bias, MAX_SIZE + 1);
	iov[0].iov_base = data;
	iov[0].iov_len = 100;
	iov[1].iov_base = NULL;
	iov[1].iov_len = 0;
	iov[2].iov_base = data + 100;
	iov[2].iov_len = 200;
	n = page_frag_copy_to_va_nocache(&pf, iov, 3, 10);
	CHECK_EQ(n, 290);
	CHECK(memcmp(va, data + 10, 290) == 0);
	ret = page_frag_commit(&nc, &pf, (unsigned int)n);
	CHECK_EQ(ret, 290);
	CHECK_EQ(nc.pagecnt_bias, MAX_SIZE);
	frag1 = va;

	/* Probe right after it: room, at its end, so coalesce. */
	p = page_frag_alloc_refill_probe(&nc, 50, &pr);
	CHECK(p == frag1 + 290);
	memcpy(p, data, 50);
	ret = page_frag_commit_noref(&nc, &pr, 50);
	CHECK_EQ(ret, 50);
	CHECK_EQ(nc.pagecnt_bias, MAX_SIZE);	/* no new reference */
	CHECK_EQ(nc.offset, 340);

	/* Aligned prepare: the padding counts in the commit's truesize. */
	va = page_frag_alloc_refill_prepare_align(&nc, 10, &pf, GFP_KERNEL,
						  64);
	CHECK(va == frag1 + 384);
	CHECK_EQ(pf.offset, 384);
	ret = page_frag_commit(&nc, &pf, 10);
	CHECK_EQ(ret, 384 + 10 - 340);

	/* A commit of space that is not the current one is refused. */
	CHECK_EQ(page_frag_commit(&nc, &pf, 10), -EINVAL);

	/* Abort the latest allocation: space and reference come back. */
	va = page_frag_alloc(&nc, 20, GFP_KERNEL);
	CHECK(va == frag1 + 394);
	CHECK_EQ(page_frag_alloc_abort(&nc, va, 20), 0);
	CHECK_EQ(nc.offset, 394);
	CHECK_EQ(nc.pagecnt_bias, MAX_SIZE - 1);
	CHECK(page_frag_alloc(&nc, 20, GFP_KERNEL) == va);
	/* Not the latest any more. */
	CHECK_EQ(page_frag_alloc_abort(&nc, frag1, 290), -EINVAL);

	/* Probe fails when the block has no room, and opens none. */
	CHECK(page_frag_alloc_refill_probe(&nc, MAX_SIZE, &pr) == NULL);
	CHECK_EQ(errno, ENOSPC);
	/* Prepare above a page that does not fit: refused, block kept. */
	errno = 0;
	CHECK(page_frag_alloc_refill_prepare(&nc, MAX_SIZE - 100, &pf,
					     GFP_KERNEL) == NULL);
	CHECK_EQ(errno, ENOMEM);
	CHECK(head_of((void *)(nc.encoded_page & PAGE_MASK)) == head_of(frag1));
	page_frag_free(frag1);
	page_frag_free(frag1 + 390);
	page_frag_free(frag1 + 394);
	page_frag_cache_drain(&nc);
	/* On an empty cache it opens a block. */
	va = page_frag_alloc_refill_prepare(&nc, MAX_SIZE - 100, &pf,
					    GFP_KERNEL);
	CHECK(va != NULL);
	CHECK_EQ(pf.offset, 0);
	/* No fragment of the block is out yet: noref is refused. */
	CHECK_EQ(page_frag_commit_noref(&nc, &pf, 10), -EINVAL);
	page_frag_cache_drain(&nc);
	CHECK(page_frag_alloc_refill_probe(&nc, 1, &pr) == NULL);
	CHECK_EQ(errno, ENOSPC);

	/* The copy stops at the space's end. */
	va = page_frag_alloc_refill_prepare(&nc, 1, &pf, GFP_KERNEL);
	CHECK(va != NULL);
	pf.size = 7;
	iov[0].iov_base = data;
	iov[0].iov_len = sizeof(data);
	CHECK_EQ(page_frag_copy_to_va_nocache(&pf, iov, 1, 0), 7);
	CHECK(memcmp(va, data, 7) == 0);
	page_frag_cache_drain(&nc);
}

static void
test_thread_cache(void)
{
	struct page_frag_cache *nc = pp_frag_cache_thread();
	char *a, *b;

	CHECK(nc != NULL);
	CHECK(pp_frag_cache_thread() == nc);
	a = netdev_alloc_frag(100);
	b = netdev_alloc_frag_align(10, 256);
	CHECK(a != NULL && b != NULL);
	CHECK(b == a + 256);
	CHECK(nc->encoded_page != 0);
	page_frag_free(a);
	page_frag_free(b);
	pp_frag_cache_thread_drain();
	CHECK_EQ(nc->encoded_page, 0);
	CHECK(netdev_alloc_frag(PAGE_FRAG_CACHE_MAX_SIZE + 1) == NULL);
	CHECK_EQ(errno, EINVAL);
}

int
main(void)
{
	struct pp_mem_source *src = pp_mem_source_default();
	unsigned long base;

	CHECK(src != NULL);
	pp_thread_cache_drain();
	base = t_in_use(src);
	test_block_and_bias();
	test_alignment();
	test_boundaries();
	test_reuse_in_place();
	test_fallback();
	test_drain_outstanding();
	test_pfmemalloc();
	test_prepare_commit();
	test_thread_cache();
	pp_thread_cache_drain();
	CHECK_EQ(t_in_use(src), base);
	return T_EXIT_PASS;
}
