/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * libFuzzer harness for the page allocator: each input is a sequence of
 * calls on four sources - the default one, a capped anonymous source, a
 * memfd source and a user region - allocating single blocks of every order and bulk arrays
 * of pages, taking and dropping extra references, freeing through every
 * entry point (__free_pages(), put_page() on any page of the block, the
 * frozen path), draining the thread cache, offering refused frees (a wrong
 * order, a tail page, memory that is not the allocator's), and destroying
 * and recreating sources while pages may be out. After every call: blocks
 * held are naturally aligned, disjoint, keep the bytes written into them,
 * and every page of a block leads back to its head, its source and its
 * reference count; a source cannot be destroyed while a page of it is out
 * and can be once all are back. At the end of each input everything is
 * freed and each created source must be whole again (all its regions one
 * free block of the largest order: nothing leaked, everything merged);
 * the sources then serve the next input.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include <pagepool/page.h>

#include "../../src/mm/page_alloc_priv.h"

#define MAX_HELD	128
#define NSRC		4	/* default, capped anonymous, memfd, user */
#define MAX_ORDER_FUZZ	6	/* larger orders: rarely, see pick_order() */

struct held {
	struct page *page;
	unsigned int order;
	int src;
	int refs;		/* references this harness holds */
	unsigned char tag;
};

static struct held held[MAX_HELD];
static int nheld;
static struct pp_mem_source *srcs[NSRC];

static void
fail(const char *why)
{
	fprintf(stderr, "page_alloc_fuzz: %s\n", why);
	__builtin_trap();
}

static struct pp_mem_source *
make_source(int i)
{
	PP_OPTS(pp_mem_source_opts, capped, .kind = PP_MEM_ANON,
		.flags = PP_MEM_F_NOWARN, .max_bytes = 2 * PP_REGION_SIZE);
	PP_OPTS(pp_mem_source_opts, memfd, .kind = PP_MEM_MEMFD,
		.flags = PP_MEM_F_NOWARN, .max_bytes = 2 * PP_REGION_SIZE,
		.name = "page_alloc_fuzz");
	static void *region;
	struct pp_mem_source *s;

	if (i == 0)
		return pp_mem_source_default();
	if (i == 3) {
		/* One region of the largest block, aligned to it, mapped
		 * once and registered again after each destroy. */
		size_t sz = PAGE_SIZE << MAX_PAGE_ORDER;

		if (region == NULL) {
			char *m = mmap(NULL, 2 * sz, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (m == MAP_FAILED)
				fail("mmap");
			region = (void *)(((uintptr_t)m + sz - 1) & ~(sz - 1));
		}
		{
			PP_OPTS(pp_mem_source_opts, user, .kind = PP_MEM_USER,
				.flags = PP_MEM_F_NOWARN, .addr = region,
				.len = sz, .nid = NUMA_NO_NODE);

			s = pp_mem_source_create(&user);
		}
	} else {
		s = pp_mem_source_create(i == 1 ? &capped : &memfd);
	}
	if (s == NULL)
		fail("source create");
	return s;
}

static size_t
block_bytes(unsigned int order)
{
	return PAGE_SIZE << order;
}

/* Bytes of a block the harness writes and checks: all of a small block,
 * the first and last pages of a big one. */
static void
touch(struct held *h, bool check)
{
	static unsigned char pattern[PAGE_SIZE];
	unsigned char *va = page_address(h->page);
	size_t sz = block_bytes(h->order), span = sz;

	if (sz > 4 * PAGE_SIZE)
		span = PAGE_SIZE;
	/* memset/memcmp, not a byte loop: the fuzzer instruments every
	 * comparison in the harness, and a loop here cost most of the run. */
	if (check) {
		memset(pattern, h->tag, span > PAGE_SIZE ? PAGE_SIZE : span);
		for (size_t o = 0; o < span; o += PAGE_SIZE) {
			size_t n = span - o < PAGE_SIZE ? span - o : PAGE_SIZE;

			if (memcmp(va + o, pattern, n) != 0 ||
			    memcmp(va + sz - o - n, pattern, n) != 0)
				fail("a held block's bytes changed");
		}
	} else {
		memset(va, h->tag, span);
		memset(va + sz - span, h->tag, span);
	}
}

static void
check_block(const struct held *h)
{
	unsigned char *va = page_address(h->page);
	size_t n = (size_t)1 << h->order, i;

	if (va == NULL || ((uintptr_t)va & (block_bytes(h->order) - 1)))
		fail("block not naturally aligned");
	if (compound_head(h->page) != h->page || compound_order(h->page) !=
	    h->order)
		fail("head page lost its order");
	if (page_ref_count(h->page) != h->refs)
		fail("reference count is not the references held");
	if (pp_page_source(h->page) != srcs[h->src])
		fail("page does not lead back to its source");
	/* Every page of the block, by any address inside it. */
	for (i = 0; i < n; i += (n > 8 ? n / 8 : 1)) {
		struct page *p = virt_to_page(va + i * PAGE_SIZE + i % PAGE_SIZE);

		if (p != h->page + i || compound_head(p) != h->page ||
		    (i > 0) != PageTail(p))
			fail("virt_to_page/compound_head broken inside a block");
	}
}

static void
check_all(void)
{
	int i, j;

	for (i = 0; i < nheld; i++) {
		char *a = page_address(held[i].page);

		check_block(&held[i]);
		for (j = 0; j < i; j++) {
			char *b = page_address(held[j].page);

			if (a < b + block_bytes(held[j].order) &&
			    b < a + block_bytes(held[i].order))
				fail("two held blocks overlap");
		}
	}
}

static void
add(struct page *page, unsigned int order, int src, unsigned char tag,
    bool zeroed)
{
	struct held *h;

	if (nheld == MAX_HELD)
		fail("harness: too many blocks");
	h = &held[nheld++];
	*h = (struct held){ page, order, src, 1, tag };
	if (zeroed) {
		size_t i, sz = block_bytes(order);
		const unsigned char *va = page_address(page);

		for (i = 0; i < sz; i += 61) {
			if (va[i] != 0)
				fail("__GFP_ZERO block not zero");
		}
		if (va[sz - 1] != 0)
			fail("__GFP_ZERO block not zero at its end");
	}
	touch(h, false);
}

static void
drop(int k, unsigned int how)
{
	struct held *h = &held[k];

	touch(h, true);
	if (h->refs > 1) {
		/* An extra reference: dropped by any page of the block. */
		put_page(h->page + (how % (1u << h->order)));
		h->refs--;
		return;
	}
	switch (how % 3) {
	case 0:
		__free_pages(h->page, h->order);
		break;
	case 1:
		put_page(h->page + (how % (1u << h->order)));
		break;
	default:
		if (!page_ref_sub_and_test(h->page, 1))
			fail("last reference did not test zero");
		free_frozen_pages(h->page, h->order);
		break;
	}
	held[k] = held[--nheld];
}

static unsigned int
pick_order(uint8_t arg)
{
	if (arg == 0xff)
		return MAX_PAGE_ORDER;
	return (arg >> 4) % (MAX_ORDER_FUZZ + 1);
}

static bool
src_has_pages(int s)
{
	int i;

	for (i = 0; i < nheld; i++) {
		if (held[i].src == s)
			return true;
	}
	return false;
}

static void
check_whole(int s)
{
	struct _pp_zone_stats st;
	int o;

	if (_pp_zone_stats(srcs[s], NUMA_NO_NODE, &st) != 0)
		fail("zone stats");
	/* A user region enters the free lists as its descriptors are
	 * built, on first use: until then it is free but on no list. */
	if (st.free_pages != st.managed_pages ||
	    st.nr_free[MAX_PAGE_ORDER] > st.nr_regions ||
	    (s != 3 && st.nr_free[MAX_PAGE_ORDER] != st.nr_regions))
		fail("source not whole after every page came back");
	for (o = 0; o < MAX_PAGE_ORDER; o++) {
		if (st.nr_free[o] != 0)
			fail("free blocks left unmerged");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned long bad0 = _pp_bad_page_count();
	unsigned char tag = 0;
	size_t i;
	int s;

	/* Sources live across inputs (each one whole at the end of every
	 * input); creating two per input would cost more than the input. */
	for (s = 0; s < NSRC; s++) {
		if (srcs[s] == NULL)
			srcs[s] = make_source(s);
	}
	nheld = 0;
	for (i = 0; i + 1 < size; i += 2) {
		uint8_t op = data[i], arg = data[i + 1];
		int k, src = op >> 6 < NSRC ? op >> 6 : arg % NSRC;
		unsigned int order = pick_order(arg);
		struct page *page;

		tag++;
		switch (op % 8) {
		case 0: {	/* one block */
			gfp_t gfp = (arg & 1) ? GFP_KERNEL | __GFP_ZERO
					      : GFP_KERNEL;

			if (nheld == MAX_HELD)
				break;

			page = arg & 2 ? alloc_pages_src(srcs[src],
							 NUMA_NO_NODE, gfp,
							 order)
				       : alloc_pages_node(NUMA_NO_NODE, gfp,
							  order);
			if (!(arg & 2))
				src = 0;
			if (page == NULL) {
				/* Only a capped source runs out. */
				if (src == 0 || errno != ENOMEM)
					fail("allocation failed");
				break;
			}
			add(page, order, src, tag, arg & 1);
			break;
		}
		case 1: {	/* a bulk array, some slots already filled */
			struct page *arr[16] = { 0 };
			unsigned long n = arg % 16 + 1, got, j;
			bool pre[16] = { 0 };

			if (n > (unsigned long)(MAX_HELD - nheld))
				n = (unsigned long)(MAX_HELD - nheld);

			for (j = 0; j < n; j += 3) {
				arr[j] = (struct page *)(uintptr_t)(0x1000 * (j + 1));
				pre[j] = true;
			}
			got = alloc_pages_bulk_src(srcs[src], NUMA_NO_NODE,
						   GFP_KERNEL, n, arr);
			if (got > n || (src == 0 && got != n))
				fail("bulk count out of range");
			for (j = 0; j < n; j++) {
				if (pre[j]) {
					if (arr[j] != (struct page *)(uintptr_t)(0x1000 * (j + 1)))
						fail("bulk touched a filled slot");
					continue;
				}
				if ((j < got) != (arr[j] != NULL))
					fail("bulk count disagrees with the slots");
				if (arr[j] != NULL)
					add(arr[j], 0, src, tag, false);
			}
			break;
		}
		case 2:
		case 3:
			if (nheld == 0)
				break;
			drop(arg % nheld, op);
			break;
		case 4:	/* another reference, by any page of the block */
			if (nheld == 0)
				break;
			k = arg % nheld;
			get_page(held[k].page + (op % (1u << held[k].order)));
			held[k].refs++;
			break;
		case 5:	/* refused frees change nothing */
			if (nheld == 0) {
				static char not_ours[64];

				errno = 0;
				put_page(virt_to_page(not_ours));
				if (virt_to_page(not_ours) != NULL)
					fail("virt_to_page of static memory");
				break;
			}
			k = arg % nheld;
			errno = 0;
			if (held[k].order > 0 && (arg & 1))
				__free_pages(held[k].page + 1, held[k].order);
			else
				__free_pages(held[k].page,
					     (held[k].order + 1) %
						     NR_PAGE_ORDERS);
			if (errno != EINVAL)
				fail("a bad free was not refused");
			break;
		case 6:
			pp_thread_cache_drain();
			break;
		case 7:	/* destroy a created source: refused while in use */
			if (src == 0)
				break;
			if (pp_mem_source_destroy(srcs[src]) == 0) {
				if (src_has_pages(src))
					fail("source destroyed with pages out");
				srcs[src] = make_source(src);
			} else if (!src_has_pages(src)) {
				fail("idle source refused to be destroyed");
			}
			break;
		}
		check_all();
	}
	while (nheld > 0)
		drop(nheld - 1, 0);
	pp_thread_cache_drain();
	for (s = 1; s < NSRC; s++)
		check_whole(s);
	if (_pp_bad_page_count() != bad0)
		fail("a block was leaked as a bad page");
	return 0;
}
