/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Many threads (more than CPUs) allocating from a shared memfd source and
 * the default source, writing a per-thread checksummed pattern over every
 * block they get, holding some, freeing some, and passing some to another
 * thread (sometimes with an extra reference both sides drop) which checks
 * the pattern before freeing. A block handed out twice, or reused before
 * its last reference is gone, breaks a pattern (and is a data race that
 * TSan reports). At the end every thread has exited, so every cache was
 * drained by its exit destructor: the memfd source must be whole and
 * destroy cleanly.
 *
 * A second round does the same over a caller's region (PP_MEM_USER),
 * misaligned, whose descriptors are built a chunk at a time when the zone
 * runs dry: the threads build chunks while others allocate and free
 * blocks of the chunks already built.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "page_helpers.h"

#define NTHREADS	4
#define HELD		48
#define MAILBOX		128

struct mailbox {
	pthread_mutex_t lock;
	struct page *slot[MAILBOX];
	unsigned int n;
};

static struct mailbox boxes[NTHREADS];
static struct pp_mem_source *shared;
static long iters;

/* Each block's words: a header naming writer and sequence, then a
 * sequence-dependent pattern, so a stale or foreign write shows. */
static void
stamp(struct page *p, uint64_t tag)
{
	uint64_t *w = page_address(p);
	size_t i, n = (PAGE_SIZE << compound_order(p)) / sizeof(*w);

	w[0] = tag;
	for (i = 1; i < n; i++)
		w[i] = tag * 0x9e3779b97f4a7c15ull + i;
}

static void
verify(struct page *p)
{
	uint64_t *w = page_address(p);
	size_t i, n = (PAGE_SIZE << compound_order(p)) / sizeof(*w);
	uint64_t tag = w[0];

	for (i = 1; i < n; i += 1 + (i & 7))
		CHECK(w[i] == tag * 0x9e3779b97f4a7c15ull + i);
	CHECK(w[n - 1] == tag * 0x9e3779b97f4a7c15ull + (n - 1));
}

static void
drop(struct page *p)
{
	verify(p);
	if (compound_order(p) == 0 && (((uintptr_t)p >> 6) & 1))
		put_page(p);
	else
		__free_pages(p, compound_order(p));
}

static void
drain_box(struct mailbox *b)
{
	struct page *got[MAILBOX];
	unsigned int n, i;

	pthread_mutex_lock(&b->lock);
	n = b->n;
	memcpy(got, b->slot, n * sizeof(got[0]));
	b->n = 0;
	pthread_mutex_unlock(&b->lock);
	for (i = 0; i < n; i++)
		drop(got[i]);
}

/* Hand @p to @b; false if the box is full. */
static int
post(struct mailbox *b, struct page *p)
{
	int ok = 0;

	pthread_mutex_lock(&b->lock);
	if (b->n < MAILBOX) {
		b->slot[b->n++] = p;
		ok = 1;
	}
	pthread_mutex_unlock(&b->lock);
	return ok;
}

static void *
worker(void *arg)
{
	long id = (long)(intptr_t)arg;
	struct page *held[HELD] = { NULL };
	struct page *bulk[8];
	uint32_t rng = 0x9e3779b9u * (uint32_t)(id + 1);
	uint64_t seq = 0;
	unsigned int order, k;
	struct page *p;
	long it;
	int i;

	for (it = 0; it < iters; it++) {
		rng = rng * 1664525u + 1013904223u;
		i = (int)((rng >> 8) % HELD);
		if (held[i] != NULL) {
			p = held[i];
			held[i] = NULL;
			verify(p);
			switch ((rng >> 20) & 3) {
			case 0:		/* hand over with an extra ref */
				if (compound_order(p) == 0) {
					get_page(p);
					if (!post(&boxes[(id + 1) % NTHREADS],
						  p))
						put_page(p);
					put_page(p);
					break;
				}
				/* fall through */
			case 1:
				if (post(&boxes[(id + 1 + (rng & 1)) %
						NTHREADS], p))
					break;
				/* fall through */
			default:
				drop(p);
				break;
			}
			continue;
		}
		if ((rng >> 16) % 16 == 0) {
			/* Bulk into a scratch array, stamp, free. */
			memset(bulk, 0, sizeof(bulk));
			k = (unsigned int)alloc_pages_bulk_src(
				shared, NUMA_NO_NODE, 0, 8, bulk);
			while (k-- > 0) {
				stamp(bulk[k], ((uint64_t)id << 56) | seq++);
				drop(bulk[k]);
			}
			continue;
		}
		order = (rng >> 12) % 8 == 0 ? (rng >> 4) % 6 : 0;
		p = (rng >> 24) & 1 ? alloc_pages(0, order) :
				      alloc_pages_src(shared, NUMA_NO_NODE, 0,
						      order);
		CHECK(p != NULL);
		CHECK_EQ(page_ref_count(p), 1);
		CHECK(virt_to_page((char *)page_address(p) + 100) == p);
		stamp(p, ((uint64_t)id << 56) | seq++);
		held[i] = p;
		if ((it & 63) == 0)
			drain_box(&boxes[id]);
	}
	for (i = 0; i < HELD; i++)
		if (held[i] != NULL)
			drop(held[i]);
	drain_box(&boxes[id]);
	return NULL;
}

/* All workers over @shared, to the end. */
static void
run(void)
{
	pthread_t t[NTHREADS];
	long i;

	for (i = 0; i < NTHREADS; i++)
		CHECK_EQ(pthread_create(&t[i], NULL, worker,
					(void *)(intptr_t)i), 0);
	for (i = 0; i < NTHREADS; i++)
		CHECK_EQ(pthread_join(t[i], NULL), 0);
	/* Pages posted after their target's last drain. */
	for (i = 0; i < NTHREADS; i++)
		drain_box(&boxes[i]);
}

int
main(void)
{
	const size_t ulen = 256UL << 20;
	struct _pp_zone_stats st;
	char *map;
	long i;

	iters = t_scale(200000);
	for (i = 0; i < NTHREADS; i++)
		CHECK_EQ(pthread_mutex_init(&boxes[i].lock, NULL), 0);
	{
		PP_OPTS(pp_mem_source_opts, o, .kind = PP_MEM_MEMFD);
		shared = pp_mem_source_create(&o);
		CHECK(shared != NULL);
	}
	run();
	t_check_whole(shared);
	CHECK_EQ(pp_mem_source_destroy(shared), 0);

	/* A user region starting 3 pages into a 4 MiB window, so its first
	 * and last chunks are partial. */
	map = mmap(NULL, ulen + (8UL << 20), PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	CHECK(map != MAP_FAILED);
	{
		char *base = (char *)((((uintptr_t)map + (4UL << 20) - 1) &
				       ~((uintptr_t)(4UL << 20) - 1)) +
				      3 * PAGE_SIZE);
		PP_OPTS(pp_mem_source_opts, o, .kind = PP_MEM_USER,
			.addr = base, .len = ulen);
		shared = pp_mem_source_create(&o);
		CHECK(shared != NULL);
	}
	run();
	{
		/* The threads built more than the first (partial) chunk. */
		struct pp_region *r = _pp_source_zone(shared, 0)->regions;

		CHECK(r->built_pfn - r->base_pfn > (1UL << MAX_PAGE_ORDER));
	}
	pp_thread_cache_drain();
	st = t_stats(shared);
	CHECK_EQ(st.managed_pages, ulen / PAGE_SIZE);
	CHECK_EQ(st.free_pages, st.managed_pages);
	CHECK_EQ(pp_mem_source_destroy(shared), 0);
	CHECK_EQ(munmap(map, ulen + (8UL << 20)), 0);
	return T_EXIT_PASS;
}
