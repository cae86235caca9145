/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Memory back to the system: after a page_pool that allocated and touched
 * 256 MiB is destroyed and the thread cache drained, the process's RSS
 * (/proc/self/statm) is back within 10% of its baseline with a dirty
 * decay of 0, after the decay with a short one, and after pp_mem_purge()
 * with none. Memory mapped again afterwards is usable and __GFP_ZERO pages
 * are zero; a capped source can map again what it returned; an injected
 * failure while returning a region, or while mapping one again, leaves the
 * zone whole; a memfd source's file gives its pages back too.
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <pagepool/fault.h>
#include <pagepool/page_pool.h>

#include "page_helpers.h"

/* Resident bytes of the process. */
static unsigned long
rss_bytes(void)
{
	unsigned long size, res;
	FILE *f = fopen("/proc/self/statm", "r");

	CHECK(f != NULL);
	CHECK_EQ(fscanf(f, "%lu %lu", &size, &res), 2);
	fclose(f);
	return res * (unsigned long)sysconf(_SC_PAGESIZE);
}

/*
 * The RSS to judge. Debug builds keep a malloc'd record of every page out
 * (the leak report), freed as each page comes back, and glibc keeps freed
 * small blocks resident until the heap is trimmed: 5012 kB against a
 * baseline of 1964 after 256 MiB of pages, with nothing of the library's
 * still held. That is the C library's policy, so trim first there.
 */
static unsigned long
settled_rss_bytes(void)
{
#if PP_DEBUG
	malloc_trim(0);
#endif
	return rss_bytes();
}

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * Allocate @bytes through a page_pool, touching every page, and give it
 * all back: the pages past the ring go to the allocator as they come, the
 * rest when the pool is destroyed. Then drain this thread's cache, as the
 * issue's measurement did. Return the RSS seen while it was all allocated.
 */
static unsigned long
pool_cycle(size_t bytes)
{
	struct page_pool_params pp = {
		.order = 0,
		.pool_size = 1024,
		.nid = NUMA_NO_NODE,
	};
	size_t i, n = bytes >> PAGE_SHIFT;
	struct page_pool *pool = page_pool_create(&pp);
	/* Mapped, not from the heap: a freed heap block may stay resident
	 * (glibc raises its mmap threshold after the first such free), and
	 * would be counted against the library. */
	size_t len = n * sizeof(struct page *);
	struct page **pages = mmap(NULL, len, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long peak;

	CHECK(pool != NULL);
	CHECK(pages != MAP_FAILED);
	for (i = 0; i < n; i++) {
		pages[i] = page_pool_alloc_pages(pool, GFP_KERNEL);
		CHECK(pages[i] != NULL);
		memset(page_address(pages[i]), 0xa5, PAGE_SIZE);
	}
	peak = rss_bytes();
	for (i = 0; i < n; i++)
		page_pool_put_full_page(pool, pages[i], false);
	page_pool_destroy(pool);
	munmap(pages, len);
	pp_thread_cache_drain();
	return peak;
}

static void
check_near(unsigned long rss, unsigned long base, const char *when)
{
	printf("# %s: RSS %lu kB (baseline %lu kB)\n", when, rss >> 10,
	       base >> 10);
	CHECK(rss <= base + base / 10);
}

static size_t
test_size(void)
{
	/* 256 MiB; a tenth under sanitizers, whose baseline is larger. */
	return (size_t)t_scale(256) << 20;
}

/* The baseline: the library set up (tables, default source), nothing held. */
static unsigned long
baseline(void)
{
	pool_cycle(PP_REGION_SIZE);
	pp_mem_purge(NULL);
	return settled_rss_bytes();
}

static void
test_decay_zero(struct pp_mem_source *def)
{
	unsigned long base, peak;

	CHECK_EQ(pp_mem_source_set_dirty_decay_ms(def, 0), 0);
	base = baseline();
	peak = pool_cycle(test_size());
	CHECK(peak >= base + test_size() / 2);
	check_near(settled_rss_bytes(), base, "decay 0, after destroy and drain");
}

static void
test_decay_short(struct pp_mem_source *def)
{
	unsigned long base;
	struct page *p;

	CHECK_EQ(pp_mem_source_set_dirty_decay_ms(def, 50), 0);
	CHECK_EQ(pp_mem_source_dirty_decay_ms(def), 50);
	base = baseline();
	pool_cycle(test_size());
	/* Not yet: the regions are dirty until their decay expires. */
	CHECK(rss_bytes() >= base + test_size() / 2);
	sleep_ms(150);
	/* The next slow path (this refill) returns them. */
	p = alloc_pages(GFP_KERNEL, 0);
	CHECK(p != NULL);
	__free_pages(p, 0);
	check_near(settled_rss_bytes(), base, "decay 50 ms, 150 ms later");
	pp_thread_cache_drain();
	CHECK(pp_mem_purge(NULL) > 0);
}

static void
test_decay_never(struct pp_mem_source *def)
{
	unsigned long base;
	long got;

	CHECK_EQ(pp_mem_source_set_dirty_decay_ms(def, -1), 0);
	base = baseline();
	pool_cycle(test_size());
	sleep_ms(20);
	pp_thread_cache_drain();
	CHECK(rss_bytes() >= base + test_size() / 2);
	got = pp_mem_purge(def);
	CHECK(got >= (long)test_size());
	check_near(settled_rss_bytes(), base, "decay -1, after pp_mem_purge()");
}

/* Memory mapped again after a purge: usable, and zero where promised. */
static void
test_reuse_zeroed(void)
{
	const size_t n = 3 << MAX_PAGE_ORDER;	/* three regions */
	struct page **pages = calloc(n, sizeof(*pages));
	size_t i, j;
	int round;

	CHECK(pages != NULL);
	for (round = 0; round < 3; round++) {
		for (i = 0; i < n; i++) {
			pages[i] = alloc_pages(GFP_KERNEL | __GFP_ZERO, 0);
			CHECK(pages[i] != NULL);
		}
		for (i = 0; i < n; i++) {
			unsigned char *a = page_address(pages[i]);

			for (j = 0; j < PAGE_SIZE; j += 64)
				CHECK_EQ(a[j], 0);
			memset(a, 0x5a, PAGE_SIZE);
		}
		for (i = 0; i < n; i++)
			__free_pages(pages[i], 0);
		pp_mem_purge(NULL);
	}
	free(pages);
}

/* A capped source maps again what it returned. */
static void
test_capped_remap(void)
{
	const size_t n = 2 << MAX_PAGE_ORDER;
	struct pp_mem_source *src = t_capped_source(PP_MEM_ANON, 2);
	struct page **pages = calloc(n, sizeof(*pages));
	size_t i;
	int round;

	CHECK(pages != NULL);
	CHECK_EQ(pp_mem_source_dirty_decay_ms(src), -1);
	for (round = 0; round < 3; round++) {
		for (i = 0; i < n; i++) {
			pages[i] = alloc_pages_src(src, NUMA_NO_NODE,
						   GFP_KERNEL, 0);
			CHECK(pages[i] != NULL);
			*(volatile char *)page_address(pages[i]) = 1;
		}
		CHECK(alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 0) ==
		      NULL);
		for (i = 0; i < n; i++)
			__free_pages(pages[i], 0);
		CHECK_EQ(pp_mem_purge(src), (long)(2 * PP_REGION_SIZE));
		CHECK_EQ(t_stats(src).nr_regions, 0);
		CHECK_EQ(t_stats(src).managed_pages, 0);
	}
	/* Decay 0 on a created source: the free that completes a region
	 * returns it. */
	CHECK_EQ(pp_mem_source_set_dirty_decay_ms(src, 0), 0);
	for (i = 0; i < n; i++) {
		pages[i] = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 0);
		CHECK(pages[i] != NULL);
	}
	for (i = 0; i < n; i++)
		__free_pages(pages[i], 0);
	pp_thread_cache_drain();
	CHECK_EQ(t_stats(src).nr_regions, 0);
	free(pages);
	CHECK_EQ(pp_mem_source_destroy(src), 0);
}

/*
 * Injected failures: releasing a region (that one stays, whole, and is
 * used again; the others go), and each allocation of mapping one again.
 */
static void
test_fault_injection(void)
{
	const size_t n = 2 << MAX_PAGE_ORDER;
	struct pp_mem_source *src = t_capped_source(PP_MEM_ANON, 2);
	struct page **pages = calloc(n, sizeof(*pages));
	struct page *p;
	size_t i;
	long k;

	CHECK(pages != NULL);
	for (i = 0; i < n; i++)
		CHECK((pages[i] = alloc_pages_src(src, NUMA_NO_NODE,
						  GFP_KERNEL, 0)) != NULL);
	for (i = 0; i < n; i++)
		__free_pages(pages[i], 0);
	pp_thread_cache_drain();

	pp_fault_inject_alloc(0, 1);
	CHECK_EQ(pp_mem_purge(src), (long)PP_REGION_SIZE);
	CHECK_EQ(pp_fault_injected(), 1);
	pp_fault_inject_alloc(-1, 0);
	t_check_whole(src);
	CHECK_EQ(t_stats(src).nr_regions, 1);
	/* The region kept is whole and serves again, with one mapped
	 * anew; then both go. */
	for (i = 0; i < n; i++)
		CHECK((pages[i] = alloc_pages_src(src, NUMA_NO_NODE,
						  GFP_KERNEL, 0)) != NULL);
	for (i = 0; i < n; i++)
		__free_pages(pages[i], 0);
	CHECK_EQ(pp_mem_purge(src), (long)(2 * PP_REGION_SIZE));

	/* Every allocation on the way to mapping a region again fails in
	 * turn; each failure is clean and leaves the cap intact. */
	for (k = 0;; k++) {
		pp_fault_inject_alloc(k, 1);
		p = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL | __GFP_ZERO,
				    0);
		if (pp_fault_injected() == 0) {
			pp_fault_inject_alloc(-1, 0);
			CHECK(p != NULL);
			__free_pages(p, 0);
			break;
		}
		pp_fault_inject_alloc(-1, 0);
		if (p != NULL)
			__free_pages(p, 0);
		else
			CHECK_EQ(errno, ENOMEM);
		pp_mem_purge(src);
		CHECK_EQ(t_stats(src).nr_regions, 0);
		CHECK(k < 64);
	}
	for (i = 0; i < n; i++)
		CHECK((pages[i] = alloc_pages_src(src, NUMA_NO_NODE,
						  GFP_KERNEL, 0)) != NULL);
	for (i = 0; i < n; i++)
		__free_pages(pages[i], 0);
	free(pages);
	CHECK_EQ(pp_mem_source_destroy(src), 0);
}

/* A memfd source punches what it returns out of its file. */
static void
test_memfd(void)
{
	PP_OPTS(pp_mem_source_opts, o, .kind = PP_MEM_MEMFD);
	struct pp_mem_source *src = pp_mem_source_create(&o);
	const size_t n = 1 << MAX_PAGE_ORDER;
	struct page **pages = calloc(n, sizeof(*pages));
	struct stat st;
	size_t i;

	CHECK(src != NULL);
	CHECK(pages != NULL);
	for (i = 0; i < n; i++) {
		pages[i] = alloc_pages_src(src, NUMA_NO_NODE, GFP_KERNEL, 0);
		CHECK(pages[i] != NULL);
		memset(page_address(pages[i]), 1, PAGE_SIZE);
	}
	CHECK_EQ(fstat(pp_mem_source_fd(src), &st), 0);
	CHECK((size_t)st.st_blocks * 512 >= PP_REGION_SIZE);
	for (i = 0; i < n; i++)
		__free_pages(pages[i], 0);
	CHECK_EQ(pp_mem_purge(src), (long)PP_REGION_SIZE);
	CHECK_EQ(fstat(pp_mem_source_fd(src), &st), 0);
	CHECK((size_t)st.st_blocks * 512 < PP_REGION_SIZE / 8);
	free(pages);
	CHECK_EQ(pp_mem_source_destroy(src), 0);
}

static void
test_badinput(struct pp_mem_source *def)
{
	static char buf[4 * PAGE_SIZE] __attribute__((aligned(PAGE_SIZE)));
	PP_OPTS(pp_mem_source_opts, o, .kind = PP_MEM_USER, .addr = buf,
		.len = sizeof(buf), .nid = NUMA_NO_NODE);
	struct pp_mem_source *user = pp_mem_source_create(&o);

	CHECK(user != NULL);
	CHECK_EQ(pp_mem_source_set_dirty_decay_ms(NULL, 0), -EINVAL);
	CHECK_EQ(pp_mem_source_set_dirty_decay_ms(def, -2), -EINVAL);
	CHECK_EQ(pp_mem_source_set_dirty_decay_ms(def, PP_DECAY_MS_MAX + 1),
		 -EINVAL);
	CHECK_EQ(pp_mem_source_dirty_decay_ms(NULL), -EINVAL);
	CHECK_EQ(pp_mem_source_set_dirty_decay_ms(user, 0), -EOPNOTSUPP);
	CHECK_EQ(pp_mem_source_set_dirty_decay_ms(user, -1), 0);
	CHECK_EQ(pp_mem_source_dirty_decay_ms(user), -1);
	CHECK_EQ(pp_mem_purge(user), 0);
	CHECK_EQ(pp_mem_source_destroy(user), 0);
}

int
main(void)
{
	struct pp_mem_source *def;

	/* Read once, when the default source is created. */
	CHECK_EQ(setenv("PAGEPOOL_DIRTY_DECAY_MS", "1234", 1), 0);
	def = pp_mem_source_default();
	CHECK(def != NULL);
	CHECK_EQ(pp_mem_source_dirty_decay_ms(def), 1234);

	test_badinput(def);
	test_decay_zero(def);
	test_decay_short(def);
	test_decay_never(def);
	CHECK_EQ(pp_mem_source_set_dirty_decay_ms(def, 0), 0);
	test_reuse_zeroed();
	test_capped_remap();
	test_fault_injection();
	test_memfd();
	return T_EXIT_PASS;
}
