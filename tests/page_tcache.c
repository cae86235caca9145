/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Per-thread caches: a page freed by another thread goes home, to the
 * cache of the thread that allocated it (through that thread's inbox, in
 * batches, without passing through the buddy lists), and the owner reuses
 * it at its next refill; a thread's cache is drained when it exits (so its source
 * can be destroyed) or on pp_thread_cache_drain(); a live thread's cache
 * keeps a source busy; a thread using more sources than it has cache slots
 * still works (uncached for the extra ones).
 */
#include <pthread.h>

#include "page_helpers.h"

static struct pp_mem_source *src;
static pthread_barrier_t bar;
static struct page *handed;

static void *
cache_and_exit(void *arg)
{
	struct page *v[100];
	int i;

	(void)arg;
	for (i = 0; i < 100; i++) {
		v[i] = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, i % 4);
		CHECK(v[i] != NULL);
	}
	for (i = 0; i < 100; i++)
		__free_pages(v[i], i % 4);
	CHECK(_pp_thread_cache_count(src, NUMA_NO_NODE) > 0);
	return NULL;		/* the exit destructor drains */
}

static void *
cache_and_wait(void *arg)
{
	struct page *p;

	(void)arg;
	p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 0);
	CHECK(p != NULL);
	/* A refill batch of 64, one handed out and back. */
	CHECK_EQ(_pp_thread_cache_count(src, NUMA_NO_NODE), 63);
	put_page(p);
	CHECK_EQ(_pp_thread_cache_count(src, NUMA_NO_NODE), 64);
	/* Free a page the main thread allocated: it goes home (this
	 * thread's batch for main's inbox), not into this cache. */
	put_page(handed);
	CHECK_EQ(_pp_thread_cache_count(src, NUMA_NO_NODE), 64);
	pthread_barrier_wait(&bar);	/* main: destroy fails */
	pthread_barrier_wait(&bar);
	pp_thread_cache_drain();
	CHECK_EQ(_pp_thread_cache_count(src, NUMA_NO_NODE), 0);
	pthread_barrier_wait(&bar);	/* main: destroy works */
	return NULL;
}

#define GIVEN 32

static struct page *given[GIVEN];

/* Allocate GIVEN pages for main to free; then, after main freed them,
 * allocate past this cache: the refill takes them from the inbox. */
static void *
owner_gets_back(void *arg)
{
	unsigned long free_before;
	struct page *p, *v[GIVEN];
	int i, j, back = 0;

	(void)arg;
	for (i = 0; i < GIVEN; i++)
		CHECK((given[i] = alloc_pages_src(src, NUMA_NO_NODE,
						  GFP_KERNEL, 0)) != NULL);
	/* The refill took 64: 32 handed out, 32 cached. */
	CHECK_EQ(_pp_thread_cache_count(src, NUMA_NO_NODE), 64 - GIVEN);
	free_before = t_stats(src).free_pages;
	pthread_barrier_wait(&bar);	/* main frees them */
	pthread_barrier_wait(&bar);
	/* Not through the buddy lists. */
	CHECK_EQ(t_stats(src).free_pages, free_before);
	for (i = 0; i < GIVEN; i++)
		CHECK((v[i] = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL,
					      0)) != NULL);
	CHECK_EQ(_pp_thread_cache_count(src, NUMA_NO_NODE), 0);
	/* The cache is empty: this refill empties the inbox instead of the
	 * zone, and hands out one of the pages main freed. */
	p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 0);
	CHECK(p != NULL);
	for (j = 0; j < GIVEN; j++)
		back += p == given[j];
	CHECK_EQ(back, 1);
	CHECK_EQ(_pp_thread_cache_count(src, NUMA_NO_NODE), GIVEN - 1);
	CHECK_EQ(t_stats(src).free_pages, free_before);
	put_page(p);
	for (i = 0; i < GIVEN; i++)
		put_page(v[i]);
	return NULL;		/* the exit destructor drains */
}

#define ALL (1 << MAX_PAGE_ORDER)

static struct page *all[ALL];

/* Allocate every page of the one-region source for main, then stay alive
 * without allocating while main frees them (into this thread's inbox). */
static void *
give_all_and_idle(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < ALL; i++)
		CHECK((all[i] = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL,
						0)) != NULL);
	CHECK_EQ(_pp_thread_cache_count(src, NUMA_NO_NODE), 0);
	pthread_barrier_wait(&bar);	/* main frees them */
	pthread_barrier_wait(&bar);	/* main takes them back */
	return NULL;
}

int
main(void)
{
	struct pp_mem_source *many[12];
	struct page *p[12];
	pthread_t t;
	int i;

	/* Exit drains. */
	src = t_capped_source(PP_MEM_ANON, 1);
	CHECK_EQ(pthread_create(&t, NULL, cache_and_exit, NULL), 0);
	CHECK_EQ(pthread_join(t, NULL), 0);
	t_check_whole(src);
	CHECK_EQ(pp_mem_source_destroy(src), 0);

	/* Cross-thread free; a live cache keeps the source busy. */
	src = t_capped_source(PP_MEM_ANON, 1);
	CHECK_EQ(pthread_barrier_init(&bar, NULL, 2), 0);
	handed = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 0);
	CHECK(handed != NULL);
	CHECK_EQ(_pp_thread_cache_count(src, NUMA_NO_NODE), 63);
	pp_thread_cache_drain();
	CHECK_EQ(_pp_thread_cache_count(src, NUMA_NO_NODE), 0);
	CHECK_EQ(pthread_create(&t, NULL, cache_and_wait, NULL), 0);
	pthread_barrier_wait(&bar);
	CHECK_EQ(_pp_thread_cache_count(src, NUMA_NO_NODE), 0);
	CHECK_EQ(pp_mem_source_destroy(src), -EBUSY);
	pthread_barrier_wait(&bar);
	pthread_barrier_wait(&bar);
	CHECK_EQ(pp_mem_source_destroy(src), 0);
	CHECK_EQ(pthread_join(t, NULL), 0);
	pthread_barrier_destroy(&bar);

	/* Remote frees go home. */
	src = t_capped_source(PP_MEM_ANON, 1);
	CHECK_EQ(pthread_barrier_init(&bar, NULL, 2), 0);
	CHECK_EQ(pthread_create(&t, NULL, owner_gets_back, NULL), 0);
	pthread_barrier_wait(&bar);
	for (i = 0; i < GIVEN; i++)
		put_page(given[i]);	/* the 32nd pushes the batch */
	CHECK_EQ(_pp_thread_cache_count(src, NUMA_NO_NODE), 0);
	pthread_barrier_wait(&bar);
	CHECK_EQ(pthread_join(t, NULL), 0);
	pthread_barrier_destroy(&bar);
	t_check_whole(src);
	CHECK_EQ(pp_mem_source_destroy(src), 0);

	/* Blocks freed for a thread that does not allocate again are not
	 * out of reach: a capped source that runs dry takes them from the
	 * inbox, and pp_mem_purge() returns them. */
	src = t_capped_source(PP_MEM_ANON, 1);
	CHECK_EQ(pthread_barrier_init(&bar, NULL, 2), 0);
	CHECK_EQ(pthread_create(&t, NULL, give_all_and_idle, NULL), 0);
	pthread_barrier_wait(&bar);
	for (i = 0; i < ALL; i++)
		put_page(all[i]);
	pp_thread_cache_drain();	/* pushes main's last batch */
	p[0] = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 0);
	CHECK(p[0] != NULL);
	put_page(p[0]);
	CHECK_EQ(pp_mem_purge(src), (long)PP_REGION_SIZE);
	pthread_barrier_wait(&bar);
	CHECK_EQ(pthread_join(t, NULL), 0);
	pthread_barrier_destroy(&bar);
	CHECK_EQ(pp_mem_source_destroy(src), 0);

	/* More sources than cache slots. */
	for (i = 0; i < 12; i++) {
		many[i] = t_capped_source(PP_MEM_ANON, 1);
		p[i] = alloc_pages_src(many[i], NUMA_NO_NODE, GFP_KERNEL, 0);
		CHECK(p[i] != NULL);
		CHECK(pp_page_source(p[i]) == many[i]);
	}
	for (i = 0; i < 12; i++)
		put_page(p[i]);
	for (i = 0; i < 12; i++) {
		t_check_whole(many[i]);
		CHECK_EQ(pp_mem_source_destroy(many[i]), 0);
	}
	return T_EXIT_PASS;
}
