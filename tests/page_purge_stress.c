/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Regions returned to the system while other threads allocate and free:
 * workers take blocks of mixed orders (up to a whole region) from a capped
 * anonymous source, stamp every page with their id and a sequence number,
 * check the stamps before freeing, and drain their caches now and then so
 * regions come back whole; a purger calls pp_mem_purge() in a loop and
 * switches the source's decay between 0, 1 ms and -1. A block handed out
 * while still held, a page read after its region was unmapped (a SIGSEGV;
 * ASan names it) or a stamp changed under its holder fails the test; TSan
 * sees the unmap and remap of an address through the zone lock. At the
 * end every cache is drained (threads exited) and a last purge leaves the
 * source empty, so it destroys cleanly.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "page_helpers.h"

#define NWORKERS	3
#define HELD		16
#define REGIONS		6

static struct pp_mem_source *src;
static long iters;
static int stop;

struct held {
	struct page *page;
	unsigned int order;
	uint64_t stamp;
};

static void
stamp(struct page *p, unsigned int order, uint64_t v)
{
	unsigned long i;

	for (i = 0; i < (1UL << order); i++) {
		uint64_t *a = (uint64_t *)((char *)page_address(p) +
					   i * PAGE_SIZE);

		a[0] = v;
		a[PAGE_SIZE / sizeof(*a) - 1] = v + i;
	}
}

static void
check_stamp(struct page *p, unsigned int order, uint64_t v)
{
	unsigned long i;

	for (i = 0; i < (1UL << order); i++) {
		uint64_t *a = (uint64_t *)((char *)page_address(p) +
					   i * PAGE_SIZE);

		CHECK_EQ(a[0], v);
		CHECK_EQ(a[PAGE_SIZE / sizeof(*a) - 1], v + i);
	}
}

static void *
worker(void *arg)
{
	static const unsigned int orders[] = { 0, 0, 0, 1, 3, 5, 9, 10 };
	uint64_t id = (uint64_t)(uintptr_t)arg, seq = 0;
	unsigned int rng = (unsigned int)id * 2654435761u + 1;
	struct held h[HELD];
	unsigned int order, k;
	struct page *p;
	long i;

	memset(h, 0, sizeof(h));
	for (i = 0; i < iters; i++) {
		rng = rng * 1103515245u + 12345u;
		k = (rng >> 8) % HELD;
		if (h[k].page != NULL) {
			check_stamp(h[k].page, h[k].order, h[k].stamp);
			__free_pages(h[k].page, h[k].order);
			h[k].page = NULL;
		}
		order = orders[(rng >> 20) % (sizeof(orders) / sizeof(orders[0]))];
		p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, order);
		if (p == NULL) {
			/* The cap: other workers hold the rest. */
			CHECK_EQ(errno, ENOMEM);
			continue;
		}
		h[k].page = p;
		h[k].order = order;
		h[k].stamp = (id << 48) | (++seq << 12);
		stamp(p, order, h[k].stamp);
		if ((rng >> 4) % 64 == 0)
			pp_thread_cache_drain();
	}
	for (k = 0; k < HELD; k++) {
		if (h[k].page == NULL)
			continue;
		check_stamp(h[k].page, h[k].order, h[k].stamp);
		__free_pages(h[k].page, h[k].order);
	}
	return NULL;
}

static void *
purger(void *arg)
{
	static const long decays[] = { 0, 1, -1 };
	unsigned long n = 0, bytes = 0;

	(void)arg;
	/* Acquire: pairs with the release store of stop in main(), after
	 * the workers were joined; orders nothing else. */
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		bytes += (unsigned long)pp_mem_purge(n % 4 == 0 ? NULL : src);
		if (n % 16 == 0)
			CHECK_EQ(pp_mem_source_set_dirty_decay_ms(
					 src, decays[(n / 16) % 3]),
				 0);
		n++;
	}
	printf("# %lu purges returned %lu MiB\n", n, bytes >> 20);
	return NULL;
}

int
main(void)
{
	pthread_t w[NWORKERS], pt;
	long i;

	iters = t_scale(20000);
	src = t_capped_source(PP_MEM_ANON, REGIONS);
	CHECK_EQ(pp_mem_source_set_dirty_decay_ms(src, 0), 0);
	CHECK_EQ(pthread_create(&pt, NULL, purger, NULL), 0);
	for (i = 0; i < NWORKERS; i++)
		CHECK_EQ(pthread_create(&w[i], NULL, worker,
					(void *)(uintptr_t)(i + 1)),
			 0);
	for (i = 0; i < NWORKERS; i++)
		CHECK_EQ(pthread_join(w[i], NULL), 0);
	/* Release: pairs with the acquire load in purger(). */
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	CHECK_EQ(pthread_join(pt, NULL), 0);

	pp_mem_purge(src);
	CHECK_EQ(t_stats(src).nr_regions, 0);
	CHECK_EQ(t_stats(src).managed_pages, 0);
	CHECK_EQ(pp_mem_source_destroy(src), 0);
	return T_EXIT_PASS;
}
