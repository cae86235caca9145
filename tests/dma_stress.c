/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * DMA devices under concurrency, on the IOMMU model and the identity
 * device:
 *  - independent workers, each mapping its own buffers, "receiving" a
 *    checksummed packet through the device, syncing for the CPU, checking
 *    it, writing a reply and syncing for the device, "transmitting" it
 *    back through the device, and unmapping;
 *  - a page_pool-shaped pipeline across threads: a refill thread maps
 *    buffers and posts them to a NIC thread, which DMAs a packet into each
 *    and hands it to a stack thread, which syncs, verifies and unmaps;
 *    buffers travel through ptr_rings, so the device sees maps, accesses
 *    and unmaps of the same mapping from three threads;
 *  - a rogue thread doing DMA to never-mapped IOVAs all along, whose
 *    faults must all be counted (and only those);
 *  - both again in bounce mode (PP_DMA_F_BOUNCE), where every byte the
 *    packets carry goes through per-mapping buffers and the debug table.
 * More threads than CPUs is fine (overcommit); run under TSan and ASan.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>

#include <pagepool/atomic_pvt.h>
#include <pagepool/dma.h>
#include <pagepool/ptr_ring.h>

#include "helpers.h"

#define PG		PP_IOMMU_PAGE_SIZE
#define NWORKERS	3
#define BUF_PAGES	3
#define NBUFS		32	/* pipeline buffers */

static uint32_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)*s;
}

static uint32_t
csum(const unsigned char *p, size_t n)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

/* A packet: payload then the checksum of the payload. */
static void
make_packet(unsigned char *pkt, size_t len, uint64_t *seed)
{
	uint32_t c;
	size_t i;

	for (i = 0; i + 4 < len; i++)
		pkt[i] = (unsigned char)rnd(seed);
	c = csum(pkt, len - 4);
	memcpy(pkt + len - 4, &c, 4);
}

static int
packet_ok(const unsigned char *pkt, size_t len)
{
	uint32_t c;

	memcpy(&c, pkt + len - 4, 4);
	return c == csum(pkt, len - 4);
}

struct ctx {
	struct device *dev;
	long iters;
	long bad;		/* checksum or call failures, under @lock:
				 * each thread adds its own at the end */
	pthread_mutex_t lock;
	dma_addr_t rogue_addr;	/* never mapped on @dev */
	int stop;		/* rogue thread stops when set */
	long rogue_faults;
};

static void
add_bad(struct ctx *c, long n)
{
	pthread_mutex_lock(&c->lock);
	c->bad += n;
	pthread_mutex_unlock(&c->lock);
}

struct worker {
	struct ctx *c;
	int id;
};

static void *
worker_fn(void *arg)
{
	struct worker *w = arg;
	struct ctx *c = w->c;
	unsigned char *buf = aligned_alloc(PG, BUF_PAGES * PG);
	unsigned char pkt[2 * PG], back[2 * PG];
	uint64_t seed = 0x9e3779b97f4a7c15ULL * (uint64_t)(w->id + 1);
	long i, bad = 0;

	if (buf == NULL) {
		add_bad(c, 1);
		return NULL;
	}
	for (i = 0; i < c->iters; i++) {
		size_t off = rnd(&seed) % 256;
		size_t len = 8 + rnd(&seed) % (2 * PG - 8);
		size_t headroom = rnd(&seed) % 64;
		size_t size = headroom + len + rnd(&seed) % 128;
		unsigned long attrs =
			(rnd(&seed) & 1) ? DMA_ATTR_SKIP_CPU_SYNC : 0;
		dma_addr_t a;

		a = pp_dma_map(c->dev, buf + off, size, DMA_BIDIRECTIONAL,
			       attrs);
		if (a == DMA_MAPPING_ERROR) {
			bad++;
			continue;
		}
		/* RX: the device writes, the CPU syncs and checks. */
		make_packet(pkt, len, &seed);
		bad += pp_dma_dev_write(c->dev, a + headroom, pkt, len) != 0;
		bad += pp_dma_sync_for_cpu(c->dev, a, headroom, len,
					   DMA_FROM_DEVICE) != 0;
		bad += !packet_ok(buf + off + headroom, len);
		/* TX: the CPU rewrites, syncs for the device, it reads. */
		make_packet(buf + off + headroom, len, &seed);
		bad += pp_dma_sync_for_device(c->dev, a, headroom, len,
					      DMA_TO_DEVICE) != 0;
		bad += pp_dma_dev_read(c->dev, a + headroom, back, len) != 0;
		bad += !packet_ok(back, len);
		bad += memcmp(back, buf + off + headroom, len) != 0;
		bad += pp_dma_unmap(c->dev, a, size, DMA_BIDIRECTIONAL,
				    attrs) != 0;
	}
	free(buf);
	add_bad(c, bad);
	return NULL;
}

/* Pipeline: refill -> (posted) -> NIC -> (received) -> stack -> (free). */
struct rxbuf {
	unsigned char *mem;
	dma_addr_t dma;
	size_t len;
};

struct pipe {
	struct ctx *c;
	struct ptr_ring free_ring, posted, received;
	struct rxbuf bufs[NBUFS];
	long done;		/* packets the stack thread finished */
};

static void *
refill_fn(void *arg)
{
	struct pipe *p = arg;
	long n = 0;

	while (n < p->c->iters) {
		struct rxbuf *b = ptr_ring_consume(&p->free_ring);

		if (b == NULL) {
			sched_yield();
			continue;
		}
		b->dma = pp_dma_map(p->c->dev, b->mem, BUF_PAGES * PG,
				    DMA_FROM_DEVICE, DMA_ATTR_SKIP_CPU_SYNC);
		if (b->dma == DMA_MAPPING_ERROR) {
			add_bad(p->c, 1);
			break;
		}
		while (ptr_ring_produce(&p->posted, b) != 0)
			sched_yield();
		n++;
	}
	return NULL;
}

static void *
nic_fn(void *arg)
{
	struct pipe *p = arg;
	unsigned char pkt[BUF_PAGES * PG];
	uint64_t seed = 42;
	long n = 0, bad = 0;

	while (n < p->c->iters) {
		struct rxbuf *b = ptr_ring_consume(&p->posted);

		if (b == NULL) {
			sched_yield();
			continue;
		}
		b->len = 8 + rnd(&seed) % (BUF_PAGES * PG - 8);
		make_packet(pkt, b->len, &seed);
		bad += pp_dma_dev_write(p->c->dev, b->dma, pkt, b->len) != 0;
		while (ptr_ring_produce(&p->received, b) != 0)
			sched_yield();
		n++;
	}
	add_bad(p->c, bad);
	return NULL;
}

static void *
stack_fn(void *arg)
{
	struct pipe *p = arg;
	long bad = 0;

	while (p->done < p->c->iters) {
		struct rxbuf *b = ptr_ring_consume(&p->received);

		if (b == NULL) {
			sched_yield();
			continue;
		}
		bad += pp_dma_sync_for_cpu(p->c->dev, b->dma, 0, b->len,
					   DMA_FROM_DEVICE) != 0;
		bad += !packet_ok(b->mem, b->len);
		bad += pp_dma_unmap(p->c->dev, b->dma, BUF_PAGES * PG,
				    DMA_FROM_DEVICE,
				    DMA_ATTR_SKIP_CPU_SYNC) != 0;
		memset(b->mem, 0, b->len);	/* reuse must not see it */
		/*
		 * Give back only what the refill thread will still take:
		 * once it has stopped, the slots it consumed last stay
		 * non-NULL until its next batch of zeroing, which never
		 * comes, so the ring can look full for good. With iters
		 * not a multiple of the ring's batch this hung here.
		 */
		if (p->done < p->c->iters - NBUFS)
			while (ptr_ring_produce(&p->free_ring, b) != 0)
				sched_yield();
		p->done++;
	}
	add_bad(p->c, bad);
	return NULL;
}

static void *
rogue_fn(void *arg)
{
	struct ctx *c = arg;
	unsigned char junk[8] = { 0 };
	long faults = 0;

	do {
		if (pp_dma_dev_write(c->dev, c->rogue_addr, junk,
				     sizeof(junk)) == -EFAULT)
			faults++;
		sched_yield();
		/* A1: pairs with release R1 in run(); only a stop flag. */
	} while (!pp_load_acquire(&c->stop) || faults < 10);
	c->rogue_faults = faults;
	return NULL;
}

static void
run(struct device *dev, dma_addr_t rogue_addr, long iters)
{
	struct ctx c = { .dev = dev, .iters = iters,
			 .rogue_addr = rogue_addr };
	struct worker w[NWORKERS];
	pthread_t tw[NWORKERS], tr, tn, ts, trog;
	struct pipe *p;
	PP_OPTS(pp_dma_stats, s);
	int i;

	pthread_mutex_init(&c.lock, NULL);
	p = calloc(1, sizeof(*p));
	CHECK(p != NULL);
	p->c = &c;
	CHECK_EQ(ptr_ring_init(&p->free_ring, NBUFS, GFP_KERNEL), 0);
	CHECK_EQ(ptr_ring_init(&p->posted, NBUFS, GFP_KERNEL), 0);
	CHECK_EQ(ptr_ring_init(&p->received, NBUFS, GFP_KERNEL), 0);
	for (i = 0; i < NBUFS; i++) {
		p->bufs[i].mem = aligned_alloc(PG, BUF_PAGES * PG);
		CHECK(p->bufs[i].mem != NULL);
		CHECK_EQ(ptr_ring_produce(&p->free_ring, &p->bufs[i]), 0);
	}

	CHECK_EQ(pthread_create(&trog, NULL, rogue_fn, &c), 0);
	for (i = 0; i < NWORKERS; i++) {
		w[i].c = &c;
		w[i].id = i;
		CHECK_EQ(pthread_create(&tw[i], NULL, worker_fn, &w[i]), 0);
	}
	CHECK_EQ(pthread_create(&tr, NULL, refill_fn, p), 0);
	CHECK_EQ(pthread_create(&tn, NULL, nic_fn, p), 0);
	CHECK_EQ(pthread_create(&ts, NULL, stack_fn, p), 0);
	for (i = 0; i < NWORKERS; i++)
		CHECK_EQ(pthread_join(tw[i], NULL), 0);
	CHECK_EQ(pthread_join(tr, NULL), 0);
	CHECK_EQ(pthread_join(tn, NULL), 0);
	CHECK_EQ(pthread_join(ts, NULL), 0);
	/* R1: pairs with acquire A1 in rogue_fn(). */
	pp_store_release(&c.stop, 1);
	CHECK_EQ(pthread_join(trog, NULL), 0);

	CHECK_EQ(c.bad, 0);
	CHECK_EQ(p->done, iters);
	CHECK_EQ(pp_dma_dev_get_stats(dev, &s), 0);
	CHECK_EQ(s.maps, (NWORKERS + 1) * iters);
	CHECK_EQ(s.unmaps, s.maps);
	CHECK_EQ(s.live_mappings, 0);
	CHECK_EQ(s.map_errors, 0);
	CHECK_EQ(s.faults, c.rogue_faults);
	CHECK_EQ(s.last_fault_addr, rogue_addr);
	CHECK_EQ(s.dev_writes, (NWORKERS + 1) * iters);
	CHECK_EQ(s.dev_reads, NWORKERS * iters);
	CHECK(s.max_live_mappings >= 1);
	CHECK(s.max_live_mappings <= NWORKERS + NBUFS);
	printf("%s: %ld iterations x %d threads, %llu faults (all rogue), "
	       "max %llu live mappings\n",
	       pp_dma_dev_name(dev), iters, NWORKERS + 4,
	       (unsigned long long)s.faults,
	       (unsigned long long)s.max_live_mappings);

	ptr_ring_cleanup(&p->free_ring, NULL);
	ptr_ring_cleanup(&p->posted, NULL);
	ptr_ring_cleanup(&p->received, NULL);
	for (i = 0; i < NBUFS; i++)
		free(p->bufs[i].mem);
	free(p);
	pthread_mutex_destroy(&c.lock);
}

int
main(void)
{
	long iters = t_scale(20000);
	struct device *dev;

	{
		/* Small IOVA space: the quarantine and reuse get exercised. */
		PP_OPTS(pp_iommu_opts, o, .flags = PP_DMA_F_QUIET,
			.iova_size = 1024 * PG);

		dev = pp_iommu_create(&o);
		CHECK(dev != NULL);
		/* Below the IOVA base (4 GiB). */
		run(dev, 64, iters);
		pp_dma_dev_destroy(dev);
	}
	{
		PP_OPTS(pp_dma_dev_opts, o, .flags = PP_DMA_F_QUIET);

		dev = pp_dma_identity_create(&o);
		CHECK(dev != NULL);
		/* The identity device knows only 0 as never mapped. */
		run(dev, 0, iters);
		pp_dma_dev_destroy(dev);
	}
	/*
	 * Bounce mode: the same traffic, every byte through per-mapping
	 * buffers and the debug table, with any misuse (a lost or wrong
	 * copy, an ownership mix-up between threads) a failed check here.
	 * Fewer rounds: each map allocates and copies.
	 */
	{
		PP_OPTS(pp_iommu_opts, o, .name = "iommu-bounce",
			.flags = PP_DMA_F_QUIET | PP_DMA_F_BOUNCE |
				 PP_DMA_F_POISON,
			.iova_size = 1024 * PG);

		dev = pp_iommu_create(&o);
		CHECK(dev != NULL);
		run(dev, 64, iters / 4);
		pp_dma_dev_destroy(dev);
	}
	{
		PP_OPTS(pp_dma_dev_opts, o, .name = "identity-bounce",
			.flags = PP_DMA_F_QUIET | PP_DMA_F_BOUNCE);

		dev = pp_dma_identity_create(&o);
		CHECK(dev != NULL);
		run(dev, 0, iters / 4);
		pp_dma_dev_destroy(dev);
	}
	return T_EXIT_PASS;
}
