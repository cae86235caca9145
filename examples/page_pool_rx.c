/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Example: a page_pool receive loop, the shape of a NIC driver's RX queue.
 *
 * The main thread is the pool's owner (its "NAPI" context): it takes a page
 * for every received packet and fills it. Packets it drops go straight back
 * into the pool's cache (page_pool_recycle_direct(): no lock, no atomic).
 * Packets it passes on go to a worker thread through a ptr_ring; the worker
 * reads them and returns each page with page_pool_put_full_page(..., false),
 * which puts it into the pool's own ring, from which the owner's next
 * refill takes it again. Nothing is allocated from the system once the
 * pool is warm.
 *
 * At the end every page is back, so page_pool_destroy() frees the pool at
 * once: the disconnect callback registered with page_pool_use_xdp_mem()
 * runs inside the destroy. Had a page still been out, the pool would have
 * stayed alive until its return, warning periodically.
 *
 *   cc page_pool_rx.c $(pkg-config --cflags --libs pagepool)
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include <pagepool/page_pool.h>
#include <pagepool/ptr_ring.h>

#define PACKETS		200000
#define PKT_LEN		64

static struct page_pool *pool;
static struct ptr_ring to_worker;	/* owner -> worker, one each side */
static int rx_done;			/* the owner has received everything */
static int pool_freed;

static void *
worker(void *arg)
{
	unsigned long sum = 0, n = 0;
	struct page *page;

	(void)arg;
	for (;;) {
		/* The worker is the ring's only consumer: lockless form. */
		page = __ptr_ring_consume(&to_worker);
		if (page == NULL) {
			/* A1: pairs with the release store R1 in main(). */
			if (__atomic_load_n(&rx_done, __ATOMIC_ACQUIRE) &&
			    __ptr_ring_empty(&to_worker))
				break;
			sched_yield();
			continue;
		}
		sum += ((unsigned char *)page_address(page))[0];
		n++;
		/* Not the owner: allow_direct false, the page goes into the
		 * pool's ring (a lock), never into the owner's cache. */
		page_pool_put_full_page(pool, page, false);
	}
	printf("worker: %lu packets processed (checksum %lu)\n", n, sum);
	return NULL;
}

static void
on_pool_freed(void *p)
{
	(void)p;
	pool_freed = 1;
}

int
main(void)
{
	struct napi_struct napi;
	struct page_pool_params pp = {
		.order = 0,		/* one 4 KiB page per packet */
		.pool_size = 1024,	/* the ring the worker returns into */
		.nid = NUMA_NO_NODE,
		.napi = &napi,		/* the owner may recycle directly */
	};
	struct page_pool_stats stats;
	unsigned long dropped = 0, passed = 0;
	pthread_t th;
	int i;

	/* This thread owns the pool: only it allocates and recycles
	 * directly. */
	napi_init_current(&napi);
	pool = page_pool_create(&pp);
	if (pool == NULL) {
		perror("page_pool_create");
		return 1;
	}
	/* Tell us when the pool is really freed. This takes a user
	 * reference for the "memory model", dropped below. */
	page_pool_use_xdp_mem(pool, on_pool_freed, NULL);

	if (ptr_ring_init(&to_worker, 512, GFP_KERNEL) != 0)
		return 1;
	if (pthread_create(&th, NULL, worker, NULL) != 0)
		return 1;

	for (i = 0; i < PACKETS; i++) {
		/* Refill: lockless from the cache; a bulk of 64 from the
		 * ring or the page allocator when the cache is empty. */
		struct page *page = page_pool_dev_alloc_pages(pool);

		if (page == NULL) {
			perror("page_pool_dev_alloc_pages");
			return 1;
		}
		/* "The NIC wrote a packet." */
		memset(page_address(page), i & 0xff, PKT_LEN);

		if (i % 4 == 0) {
			/* XDP_DROP: straight back into the owner's cache. */
			page_pool_recycle_direct(pool, page);
			dropped++;
			continue;
		}
		/* XDP_PASS: the worker owns the page until it returns it. */
		while (__ptr_ring_produce(&to_worker, page) == -ENOSPC)
			sched_yield();	/* the worker is behind */
		passed++;
	}
	/* R1: pairs with the acquire load A1 in worker(). */
	__atomic_store_n(&rx_done, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	ptr_ring_cleanup(&to_worker, NULL);

	memset(&stats, 0, sizeof(stats));
	page_pool_get_stats(pool, &stats);
	printf("owner: %lu dropped (recycled directly), %lu passed\n",
	       dropped, passed);
	printf("pool: %llu fast allocations, %llu slow, %llu refills from the ring;"
	       " %llu recycled into the cache, %llu into the ring\n",
	       (unsigned long long)stats.alloc_stats.fast,
	       (unsigned long long)stats.alloc_stats.slow,
	       (unsigned long long)stats.alloc_stats.refill,
	       (unsigned long long)stats.recycle_stats.cached,
	       (unsigned long long)stats.recycle_stats.ring);

	/* The owner is done with the pool: end direct recycling, then drop
	 * both references. With every page back, the last destroy frees
	 * the pool on the spot. */
	page_pool_disable_direct_recycling(pool);
	page_pool_destroy(pool);	/* the memory model's reference */
	page_pool_destroy(pool);	/* the creator's */
	if (!pool_freed) {
		fprintf(stderr, "pool not freed: pages still in flight\n");
		return 1;
	}
	printf("pool freed: 0 pages in flight\n");
	return 0;
}
