/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * libFuzzer harness for the page_pool API: each input is a sequence of
 * operations on one pool (allocations of pages, fragments and addresses,
 * returns in every form, extra page and fragment references, bulk returns,
 * node changes, owner changes), run by the owner thread; at the end every
 * held page is returned and the pool destroyed. Built with ASan, UBSan and
 * the library's debug checks, so any misuse the library lets through, any
 * leak and any memory error is a crash. The invariants checked here: pages
 * handed out are distinct while held, a page's memory is writable in full,
 * and nothing is in flight once everything is returned.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <pagepool/page_pool.h>

#define MAX_HELD 256

struct held {
	struct page *page;
	unsigned int len;	/* bytes of the page this holder may touch */
	unsigned int off;
	int extra_page_ref;	/* a get_page() to undo after the put */
};

static void
fail(const char *why)
{
	fprintf(stderr, "page_pool_fuzz: %s\n", why);
	__builtin_trap();
}

/*
 * Pages waiting in the pool's ring: from the consumer head to the producer
 * (consumed slots behind the head may still be non-NULL until their batch
 * is zeroed, so counting non-NULL slots would overcount).
 */
static int
ring_entries(const struct ptr_ring *r)
{
	int n;

	if (r->queue[r->consumer_head] == NULL)
		return 0;
	n = (r->producer - r->consumer_head + r->size) % r->size;
	return n == 0 ? r->size : n;
}

static void
give_back(struct page_pool *pool, struct held *h, bool direct)
{
	page_pool_put_page(pool, h->page, -1, direct);
	if (h->extra_page_ref)
		put_page(h->page);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct napi_struct napi;
	struct page_pool_params pp = {
		.pool_size = 64,
		.nid = NUMA_NO_NODE,
		.napi = &napi,
	};
	static struct held held[MAX_HELD];
	struct page_pool *pool;
	size_t i = 0;
	int n = 0, k;

	napi_init_current(&napi);
	if (size > 0)
		pp.order = data[0] % 3;
	pool = page_pool_create(&pp);
	if (pool == NULL)
		fail("create");
	for (i = 1; i + 1 < size; i += 2) {
		uint8_t op = data[i], arg = data[i + 1];
		unsigned int block = (unsigned int)(PAGE_SIZE << pp.order);
		struct held *h;

		switch (op % 9) {
		case 0:	/* a whole page */
		case 1:	/* a fragment */
		case 2: {	/* the frag-or-page rule */
			unsigned int off = 0, len;
			struct page *page;

			if (n == MAX_HELD)
				break;
			len = 1 + (unsigned int)arg * (block / 256);
			if (op % 9 == 0) {
				page = page_pool_dev_alloc_pages(pool);
				len = block;
			} else if (op % 9 == 1) {
				page = page_pool_dev_alloc_frag(pool, &off, len);
			} else {
				page = page_pool_dev_alloc(pool, &off, &len);
			}
			if (page == NULL)
				break;
			if (off + len > block)
				fail("fragment beyond its page");
			memset((char *)page_address(page) + off, op, len);
			held[n++] = (struct held){ page, len, off, 0 };
			break;
		}
		case 3:	/* return one, direct or through the ring */
			if (n == 0)
				break;
			k = arg % n;
			give_back(pool, &held[k], arg & 1);
			held[k] = held[--n];
			break;
		case 4:	/* the stack keeps a page reference */
			if (n == 0)
				break;
			h = &held[arg % n];
			if (!h->extra_page_ref) {
				get_page(h->page);
				h->extra_page_ref = 1;
			}
			break;
		case 5:	/* another holder of the same fragment */
			if (n == 0 || n == MAX_HELD)
				break;
			h = &held[arg % n];
			if (h->extra_page_ref)
				break;
			page_pool_ref_page(h->page);
			held[n++] = (struct held){ h->page, h->len, h->off, 0 };
			break;
		case 6: {	/* bulk return of up to 8 */
			struct page *bulk[8];
			int m = 0;

			while (n > 0 && m < (arg % 8) + 1) {
				h = &held[n - 1];
				if (h->extra_page_ref)
					break;
				bulk[m++] = h->page;
				n--;
			}
			page_pool_put_page_bulk(bulk, (unsigned int)m);
			break;
		}
		case 7:
			page_pool_nid_changed(pool, arg & 1 ? 0 : NUMA_NO_NODE);
			break;
		case 8:	/* owner off and on again */
			page_pool_disable_direct_recycling(pool);
			if (page_pool_enable_direct_recycling(pool, &napi) != 0)
				fail("enable_direct_recycling");
			break;
		}
	}
	/* Held pages are distinct unless they are fragments of one page. */
	for (k = 0; k < n; k++) {
		int j;

		for (j = 0; j < k; j++) {
			if (held[j].page == held[k].page &&
			    held[j].off + held[j].len > held[k].off &&
			    held[k].off + held[k].len > held[j].off &&
			    held[j].off != held[k].off)
				fail("overlapping fragments");
		}
	}
	while (n > 0)
		give_back(pool, &held[--n], true);
	/* With the cache emptied, what is still in flight must be exactly
	 * the ring's pages (and the partly used fragment page). */
	page_pool_update_nid(pool, NUMA_NO_NODE);
	if (page_pool_inflight(pool) !=
	    ring_entries(&pool->ring) + (pool->frag_page != NULL))
		fail("in-flight count does not match the pages in the pool");
	if (page_pool_debug_errors(pool) != 0)
		fail("the library's debug checks reported misuse");
	page_pool_disable_direct_recycling(pool);
	page_pool_destroy(pool);
	return 0;
}
