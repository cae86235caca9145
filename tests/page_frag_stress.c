/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_frag_cache across threads, the kernel test's shape with checks: a
 * producer allocates fragments of varying size and alignment (page_frag_
 * alloc_align, and prepare/commit with the nocache copy), fills each with a
 * checksummed payload and passes it over an SPSC ptr_ring; the consumer
 * verifies the payload and frees it by an interior address. A block is
 * reused in place only after its last fragment came back, so early reuse
 * shows up as a corrupt payload, and TSan sees every handover. At the end
 * the producer drains with fragments possibly still in the ring, the
 * consumer frees them, and no page is left in use.
 *
 * The producer's cache is bound to it (page_frag_cache_bind()), and it
 * keeps a few fragments of its own, checked and freed by it some
 * allocations later: those frees go back to the cache's bias while the
 * consumer's drop the block's count, so the rewind decides on both, and a
 * reference counted twice or lost shows up as a corrupt payload here or
 * there, or as a page left in use.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include <pagepool/page_frag_cache.h>
#include <pagepool/ptr_ring.h>

#include "cpu.h"
#include "page_helpers.h"

struct hdr {
	uint32_t len;		/* payload bytes after the header */
	uint32_t seed;
};

static struct ptr_ring ring;
static long n_items, n_sent;
static long consumed;	/* fragments the consumer freed */
static int done;
static long bad;

/* Fragments the producer keeps and frees itself, oldest first. */
#define LOCAL_HELD 8

static uint8_t
pattern(uint32_t seed, uint32_t i)
{
	return (uint8_t)(seed * 31u + i * 7u + (i >> 8));
}

/* Does @h still hold the payload it was given? */
static bool
intact(const struct hdr *h)
{
	const uint8_t *p = (const uint8_t *)(h + 1);
	uint32_t i;

	for (i = 0; i < h->len; i++)
		if (p[i] != pattern(h->seed, i))
			return false;
	return true;
}

static void *
consumer(void *arg)
{
	long got = 0;

	(void)arg;
	pp_tool_pin_nth_cpu(1);
	while (got < n_sent) {
		struct hdr *h = __ptr_ring_consume(&ring);

		if (h == NULL) {
			sched_yield();
			continue;
		}
		bad += !intact(h);
		/* Any address inside the fragment frees it: its middle,
		 * header included (p + len / 2 is one past the end of an
		 * empty payload, which is the next fragment's, or the next
		 * block's). */
		page_frag_free((uint8_t *)h + (sizeof(*h) + h->len) / 2);
		/* Release: pairs with the producer's acquire in
		 * quiesce(): this free happens before its check. */
		pp_store_release(&consumed, ++got);
	}
	pp_store_release(&done, 1);
	pp_thread_cache_drain();
	return NULL;
}

/*
 * Every fragment back (the consumer's, then the producer's own): the
 * block's count must be exactly the cache's bias, however each free took
 * its way back.
 */
static void
quiesce(struct page_frag_cache *nc, struct hdr **held, long sent)
{
	unsigned int slot;

	while (pp_load_acquire(&consumed) < sent)
		sched_yield();
	for (slot = 0; slot < LOCAL_HELD; slot++) {
		if (held[slot] != NULL) {
			CHECK(intact(held[slot]));
			page_frag_free(held[slot]);
			held[slot] = NULL;
		}
	}
	if (nc->page != NULL)
		CHECK_EQ(page_ref_count(nc->page), (int)nc->pagecnt_bias);
}

static void *
producer(void *arg)
{
	struct page_frag_cache nc = { 0 };
	struct hdr *held[LOCAL_HELD] = { NULL };
	uint8_t src[4096];
	uint32_t x = 12345;
	long i, sent = 0, local_bad = 0;
	unsigned int slot;

	(void)arg;
	pp_tool_pin_nth_cpu(0);
	CHECK_EQ(page_frag_cache_bind(&nc), 0);
	for (i = 0; i < (long)sizeof(src); i++)
		src[i] = 0;
	for (i = 0; i < n_items; i++) {
		uint32_t len, k;
		struct hdr *h;

		x = x * 1103515245u + 12345u;
		len = (x >> 8) % 3000;
		if ((i & 3) == 3) {
			/* prepare, copy, commit */
			struct page_frag pf;
			struct iovec iov;
			struct hdr hh = { .len = len, .seed = (uint32_t)i };
			ssize_t n;

			h = page_frag_alloc_refill_prepare_align(
				&nc, sizeof(hh) + len, &pf, GFP_KERNEL, 8);
			CHECK(h != NULL);
			for (k = 0; k < len; k++)
				src[k] = pattern(hh.seed, k);
			memcpy(h, &hh, sizeof(hh));
			pf.offset += sizeof(hh);
			pf.size -= sizeof(hh);
			iov.iov_base = src;
			iov.iov_len = len;
			n = page_frag_copy_to_va_nocache(&pf, &iov, 1, 0);
			CHECK_EQ(n, len);
			pf.offset -= sizeof(hh);
			pf.size += sizeof(hh);
			CHECK(page_frag_commit(&nc, &pf, sizeof(hh) + len) > 0);
		} else {
			h = page_frag_alloc_align(&nc, sizeof(*h) + len,
						  GFP_KERNEL,
						  1u << ((x >> 4) % 7 + 2));
			CHECK(h != NULL);
			h->len = len;
			h->seed = (uint32_t)i;
			for (k = 0; k < len; k++)
				((uint8_t *)(h + 1))[k] = pattern(h->seed, k);
		}
		if ((i & 3) == 1) {
			/* Keep it: free the oldest kept one (maybe of a
			 * block drained since) on this thread. */
			slot = (unsigned int)(i >> 2) % LOCAL_HELD;
			if (held[slot] != NULL) {
				local_bad += !intact(held[slot]);
				page_frag_free(held[slot]);
			}
			held[slot] = h;
			continue;
		}
		/* R1 in __ptr_ring_produce() publishes the payload. */
		while (__ptr_ring_produce(&ring, h) != 0)
			sched_yield();
		sent++;
		if ((i & 65535) == 65535)
			quiesce(&nc, held, sent);
		else if ((i & 8191) == 8191)
			page_frag_cache_drain(&nc);	/* fragments in flight */
	}
	quiesce(&nc, held, sent);
	CHECK_EQ(local_bad, 0);
	CHECK_EQ(page_frag_cache_unbind(&nc), 0);
	page_frag_cache_drain(&nc);
	while (!pp_load_acquire(&done))
		sched_yield();
	pp_thread_cache_drain();
	return NULL;
}

int
main(void)
{
	struct pp_mem_source *src = pp_mem_source_default();
	pthread_t p, c;
	unsigned long base;

	CHECK(src != NULL);
	pp_thread_cache_drain();
	base = t_in_use(src);
	n_items = t_scale(1000000);
	/* The producer keeps every i with i % 4 == 1. */
	n_sent = n_items - (n_items + 2) / 4;
	CHECK_EQ(ptr_ring_init(&ring, 512, GFP_KERNEL), 0);
	CHECK_EQ(pthread_create(&c, NULL, consumer, NULL), 0);
	CHECK_EQ(pthread_create(&p, NULL, producer, NULL), 0);
	pthread_join(p, NULL);
	pthread_join(c, NULL);
	CHECK_EQ(bad, 0);
	CHECK(__ptr_ring_empty(&ring));
	ptr_ring_cleanup(&ring, NULL);
	pp_thread_cache_drain();
	CHECK_EQ(t_in_use(src), base);
	return T_EXIT_PASS;
}
