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
static long n_items;
static int done;
static long bad;

static uint8_t
pattern(uint32_t seed, uint32_t i)
{
	return (uint8_t)(seed * 31u + i * 7u + (i >> 8));
}

static void *
consumer(void *arg)
{
	long got = 0;

	(void)arg;
	pp_tool_pin_nth_cpu(1);
	while (got < n_items) {
		struct hdr *h = __ptr_ring_consume(&ring);
		uint8_t *p;
		uint32_t i;

		if (h == NULL) {
			sched_yield();
			continue;
		}
		p = (uint8_t *)(h + 1);
		for (i = 0; i < h->len; i++)
			if (p[i] != pattern(h->seed, i)) {
				bad++;
				break;
			}
		/* Any address inside the fragment frees it: its middle,
		 * header included (p + len / 2 is one past the end of an
		 * empty payload, which is the next fragment's, or the next
		 * block's). */
		page_frag_free((uint8_t *)h + (sizeof(*h) + h->len) / 2);
		got++;
	}
	pp_store_release(&done, 1);
	pp_thread_cache_drain();
	return NULL;
}

static void *
producer(void *arg)
{
	struct page_frag_cache nc = { 0 };
	uint8_t src[4096];
	uint32_t x = 12345;
	long i;

	(void)arg;
	pp_tool_pin_nth_cpu(0);
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
		/* R1 in __ptr_ring_produce() publishes the payload. */
		while (__ptr_ring_produce(&ring, h) != 0)
			sched_yield();
		if ((i & 8191) == 8191)
			page_frag_cache_drain(&nc);	/* fragments in flight */
	}
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
