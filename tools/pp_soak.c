/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * pp_soak: a long-running mixed workload over the whole library, checking
 * as it goes. Owner threads each run a page_pool (their NAPI context) and a
 * page_frag_cache and allocate four kinds of buffer - whole pool pages, pool
 * fragments, page_frag fragments and page_pool_alloc_va() buffers - fill
 * each with a header and a pattern derived from its sequence number (pool
 * buffers of a DMA pool are filled by the device, through
 * pp_dma_dev_write(), then synced for the CPU), and pass them over
 * ptr_rings to consumer threads. Consumers check every byte and return the
 * buffer themselves (a non-owner return; whole pages partly in bulk, with
 * page_pool_put_page_bulk()), or send it back to its owner,
 * which returns it directly when it is a page of its current pool. Every
 * owner destroys its pool and creates a new one at a fixed period while
 * buffers of the old one are still out, alternating between the identity
 * DMA device and the IOMMU model.
 *
 * At the end every buffer is back: each owner reconciles its last pool's
 * in-flight count with the pages the pool itself still holds, every pool
 * ever created must be released with nothing in flight, and both DMA
 * devices must have no mapping left and no fault. The summary gives
 * buffers moved, mismatches, pages lost and DMA faults; the exit status is
 * 1 if any of the last three is not zero.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pagepool/dma.h>
#include <pagepool/page_frag_cache.h>
#include <pagepool/page_pool.h>

#include "cli.h"
#include "cpu.h"

#define PROG		"pp_soak"
#define MAX_THREADS	64
#define RING_SIZE	256
#define BATCH		16
#define MAX_POOLS	65536
#define MAGIC_LIVE	0x50505350u	/* "PSPP": a buffer in transit */
#define MAGIC_DEAD	0x44454144u	/* checked and returned */
#define MIN_BUF		64

enum kind { K_PAGE, K_POOL_FRAG, K_PAGE_FRAG, K_VA, K_NR };

static const char *const kind_name[K_NR] = {
	"pages", "pool frags", "page_frag frags", "alloc_va buffers",
};

enum dma_mode { DMA_BOTH, DMA_IDENTITY, DMA_IOMMU, DMA_NOMAP };

/* What every buffer starts with. */
struct hdr {
	uint32_t magic;
	uint16_t owner;
	uint8_t kind;
	uint8_t pad;
	uint32_t len;		/* bytes of header + pattern */
	uint32_t gen;		/* the owner's pool generation */
	uint64_t seq;
	struct page_pool *pool;	/* NULL for page_frag fragments */
};

struct config {
	unsigned long duration_s;
	unsigned long max_buffers;	/* 0: no limit */
	int owners;
	int consumers;
	unsigned long recreate_ms;	/* 0: never */
	enum dma_mode dma;
	bool pin;
	bool verbose;
	unsigned long seed;
};

struct owner {
	/* The rings start cache lines of their own (struct ptr_ring's
	 * alignment); the owner struct is allocated aligned. */
	struct ptr_ring out;	/* owner -> consumers */
	struct ptr_ring back;	/* consumers -> owner */
	int id;
	pthread_t thread;
	struct napi_struct napi;
	struct page_pool *pool;
	struct device *dev;
	uint32_t gen;
	struct page_frag_cache nc;
	uint64_t rng;
	uint64_t seq;
	unsigned char *staging;
	/* Written by the owner; read by main after the join. */
	uint64_t sent[K_NR];
	uint64_t alloc_fail;
	uint64_t returned_direct;
	uint64_t dma_write_faults;
	uint64_t lost;
	uint64_t accounting_errors;
	/* 1 once this owner will produce no more. */
	int producing_done;
};

struct consumer {
	int id;
	pthread_t thread;
	uint64_t rng;
	unsigned char *expect;
	/* Read by main while running (progress and --max-buffers). */
	uint64_t moved[K_NR];
	uint64_t mismatches;
	uint64_t sent_back;
	uint64_t bulk_returned;
	/* Whole pages waiting for one page_pool_put_page_bulk(). */
	struct page *bulk[BATCH];
	unsigned int nbulk;
} __attribute__((aligned(64)));

struct pool_rec {
	struct page_pool *pool;
	int state;		/* 1 live, 2 destroyed, 3 released */
	int inflight_at_release;
};

static struct config cfg = {
	.duration_s = 10,
	.owners = 2,
	.consumers = 2,
	.recreate_ms = 50,
	.dma = DMA_BOTH,
	.seed = 1,
};

static struct owner *owners;
static struct consumer *consumers;
static struct device *identity_dev, *iommu_dev;

static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pool_rec *recs;
static int nrecs;
static struct page_pool_stats released_stats;
/* Records of released pools compacted away: how many, and what they still
 * counted in flight. Under rec_lock. */
static uint64_t pools_created, compacted_lost;

/* Set by main (or SIGINT) to end the run; an atomic, so a signal handler
 * may store it and threads may poll it. */
static int stop_flag;
static int consumers_running;
static unsigned long mismatch_reports;

static uint64_t
rnd(uint64_t *s)
{
	/* xorshift64*: fast, and the same run for the same --seed. */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static bool
stopping(void)
{
	/* Relaxed: a flag to poll; what the threads hand over afterwards
	 * is ordered by R1/A1 and R2/A2. */
	return __atomic_load_n(&stop_flag, __ATOMIC_RELAXED) != 0;
}

static void
stop(void)
{
	/* Relaxed: pairs with the relaxed load in stopping(). */
	__atomic_store_n(&stop_flag, 1, __ATOMIC_RELAXED);
}

/* The pattern after the header: 64-bit words from the sequence number. */
static void
make_pattern(unsigned char *buf, const struct hdr *h)
{
	size_t i, words = (h->len - sizeof(*h) + 7) / 8;
	uint64_t w;

	memcpy(buf, h, sizeof(*h));
	for (i = 0; i < words; i++) {
		w = h->seq * 0x9e3779b97f4a7c15ULL + i;
		memcpy(buf + sizeof(*h) + i * 8, &w, 8);
	}
}

static void
mismatch(struct consumer *c, const char *what, const void *va)
{
	c->mismatches++;
	/* Relaxed: only limits how much is printed. */
	if (__atomic_fetch_add(&mismatch_reports, 1, __ATOMIC_RELAXED) < 10)
		fprintf(stderr, PROG ": mismatch: %s (buffer %p)\n", what, va);
}

/* ---- Pools -------------------------------------------------------------- */

/* Called by the library when a pool is finally freed. */
static void
pool_released(void *p)
{
	struct page_pool *pool = p;
	int i;

	pthread_mutex_lock(&rec_lock);
	for (i = 0; i < nrecs; i++) {
		if (recs[i].pool == pool && recs[i].state == 2) {
			recs[i].state = 3;
			recs[i].inflight_at_release = page_pool_inflight(pool);
			page_pool_get_stats(pool, &released_stats);
			break;
		}
	}
	pthread_mutex_unlock(&rec_lock);
}

static struct device *
pick_dev(uint32_t gen)
{
	switch (cfg.dma) {
	case DMA_IDENTITY:
		return identity_dev;
	case DMA_IOMMU:
		return iommu_dev;
	case DMA_NOMAP:
		return NULL;
	default:
		return gen % 2 ? iommu_dev : identity_dev;
	}
}

static int
pool_create(struct owner *o)
{
	unsigned int order = o->gen % 4 == 3 ? 1 : 0;
	struct page_pool_params pp = {
		.order = order,
		.pool_size = RING_SIZE,
		.nid = NUMA_NO_NODE,
		.dev = pick_dev(o->gen),
		.napi = &o->napi,
		.dma_dir = DMA_FROM_DEVICE,
		.max_len = (unsigned int)(PAGE_SIZE << order),
		/* A destroyed pool's last pages come back while the run
		 * goes on: retry its release often. */
		.defer_ms = 10,
	};
	struct page_pool *pool;

	if (pp.dev != NULL)
		pp.flags = PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV;
	pool = page_pool_create(&pp);
	if (pool == NULL) {
		fprintf(stderr, PROG ": page_pool_create: %s\n", strerror(errno));
		return -1;
	}
	pthread_mutex_lock(&rec_lock);
	if (nrecs == MAX_POOLS) {
		/* A long run: forget the released pools, keeping their
		 * verdict. */
		int i, j = 0;

		for (i = 0; i < nrecs; i++) {
			if (recs[i].state != 3)
				recs[j++] = recs[i];
			else if (recs[i].inflight_at_release > 0)
				compacted_lost +=
					(uint64_t)recs[i].inflight_at_release;
		}
		nrecs = j;
	}
	if (nrecs == MAX_POOLS) {
		pthread_mutex_unlock(&rec_lock);
		fprintf(stderr, PROG ": %d pools alive or stalled\n", nrecs);
		page_pool_destroy(pool);
		return -1;
	}
	recs[nrecs++] = (struct pool_rec){ pool, 1, 0 };
	pools_created++;
	pthread_mutex_unlock(&rec_lock);
	/* The memory model's reference: its disconnect tells us when the
	 * pool is finally freed (the kernel's xdp_rxq_info registration). */
	page_pool_use_xdp_mem(pool, pool_released, NULL);
	o->pool = pool;
	o->dev = pp.dev;
	return 0;
}

static void
pool_retire(struct owner *o)
{
	int i;

	pthread_mutex_lock(&rec_lock);
	for (i = nrecs - 1; i >= 0; i--) {
		if (recs[i].pool == o->pool && recs[i].state == 1) {
			recs[i].state = 2;
			break;
		}
	}
	pthread_mutex_unlock(&rec_lock);
	/* Both users: the creator and the memory model. */
	page_pool_destroy(o->pool);
	page_pool_destroy(o->pool);
	o->pool = NULL;
}

/*
 * Pages waiting in the pool's ring: from the consumer head to the producer
 * (consumed slots behind the head may still be non-NULL until their batch
 * is zeroed).
 */
static int
ring_entries(const struct ptr_ring *r)
{
	int n;

	if (r->size == 0 || r->queue[r->consumer_head] == NULL)
		return 0;
	n = (r->producer - r->consumer_head + r->size) % r->size;
	return n == 0 ? r->size : n;
}

/*
 * With every buffer back, what the pool counts in flight must be exactly
 * the pages it holds itself: its ring and its partly used fragment page
 * (the alloc cache is emptied first).
 */
static void
pool_reconcile(struct owner *o)
{
	int inflight, held;

	page_pool_update_nid(o->pool, NUMA_NO_NODE);
	inflight = page_pool_inflight(o->pool);
	held = ring_entries(&o->pool->ring) + (o->pool->frag_page != NULL);
	if (inflight > held) {
		o->lost += (uint64_t)(inflight - held);
		fprintf(stderr, PROG ": owner %d: pool %u counts %d in flight "
			"with %d in the pool and every buffer back\n", o->id,
			page_pool_id(o->pool), inflight, held);
	} else if (inflight < held) {
		o->accounting_errors++;
		fprintf(stderr, PROG ": owner %d: pool %u counts %d in flight "
			"but holds %d pages\n", o->id, page_pool_id(o->pool),
			inflight, held);
	}
}

/* ---- Returning buffers ---------------------------------------------------- */

static struct page *
head_of(const void *va)
{
	struct page *page = virt_to_page(va);

	return page != NULL ? compound_head(page) : NULL;
}

/*
 * Give a checked buffer back to where it came from. @direct: the caller is
 * the owner of @h->pool's NAPI context and the pool is its current one.
 */
static void
give_back(void *va, const struct hdr *h, unsigned int where, bool direct)
{
	struct page *head;

	switch (h->kind) {
	case K_PAGE:
	case K_POOL_FRAG:
		head = head_of(va);
		page_pool_put_page(h->pool, head, -1, direct);
		break;
	case K_VA:
		page_pool_free_va(h->pool, va, direct);
		break;
	default:
		/* Any address inside a fragment frees it. */
		page_frag_free((char *)va + where % h->len);
		break;
	}
}

/* The owner's side of the back ring. */
static void
drain_back(struct owner *o, int max)
{
	void *batch[BATCH];
	int n, i;

	while (max > 0) {
		n = ptr_ring_consume_batched(&o->back, batch,
					     max < BATCH ? max : BATCH);
		if (n == 0)
			return;
		for (i = 0; i < n; i++) {
			const struct hdr *h = batch[i];
			bool direct = h->pool != NULL && h->pool == o->pool;

			give_back(batch[i], h, (unsigned int)rnd(&o->rng),
				  direct);
			o->returned_direct += direct;
		}
		max -= n;
	}
}

/* ---- Owner ---------------------------------------------------------------- */

static unsigned int
rnd_len(uint64_t *s, unsigned int max)
{
	unsigned int len = MIN_BUF + (unsigned int)(rnd(s) % (max - MIN_BUF + 1));

	return len & ~7u;
}

/* Allocate a buffer of kind @k; NULL if the library had none. */
static void *
alloc_buf(struct owner *o, enum kind k, unsigned int *len)
{
	unsigned int block = (unsigned int)(PAGE_SIZE << o->pool->p.order);
	unsigned int off, size;
	struct page *page;

	switch (k) {
	case K_PAGE:
		page = page_pool_dev_alloc_pages(o->pool);
		*len = block;
		return page != NULL ? page_address(page) : NULL;
	case K_POOL_FRAG:
		*len = rnd_len(&o->rng, 2048);
		page = page_pool_dev_alloc_frag(o->pool, &off, *len);
		return page != NULL ? (char *)page_address(page) + off : NULL;
	case K_PAGE_FRAG:
		*len = rnd_len(&o->rng, 3072);
		return page_frag_alloc_align(&o->nc, *len, GFP_KERNEL, 8);
	default:
		size = rnd_len(&o->rng, block);
		*len = size;
		return page_pool_dev_alloc_va(o->pool, &size);
	}
}

/* Write the header and pattern: by the device for a DMA pool's buffer. */
static void
fill_buf(struct owner *o, void *va, const struct hdr *h)
{
	struct page *head;
	unsigned int off;

	make_pattern(o->staging, h);
	if (h->pool == NULL || o->dev == NULL) {
		memcpy(va, o->staging, h->len);
		return;
	}
	head = head_of(va);
	off = (unsigned int)((char *)va - (char *)page_address(head));
	if (pp_dma_dev_write(o->dev, page_pool_get_dma_addr(head) + off,
			     o->staging, h->len) != 0) {
		/* Counted, and the CPU writes instead, so a mismatch later
		 * means corruption, not this fault. */
		o->dma_write_faults++;
		memcpy(va, o->staging, h->len);
		return;
	}
	page_pool_dma_sync_for_cpu(o->pool, head, off, h->len);
}

static void *
owner_main(void *arg)
{
	struct owner *o = arg;
	uint64_t next_retire;
	unsigned long iter = 0;

	if (cfg.pin)
		pp_tool_pin_nth_cpu(o->id);
	napi_init_current(&o->napi);
	page_frag_cache_init(&o->nc);
	if (pool_create(o) != 0)
		exit(1);
	next_retire = now_ms() + cfg.recreate_ms;
	while (!stopping()) {
		enum kind k = (enum kind)(rnd(&o->rng) % K_NR);
		unsigned int len;
		struct hdr h;
		void *va;

		if (cfg.recreate_ms != 0 && (++iter & 63) == 0 &&
		    now_ms() >= next_retire) {
			pool_retire(o);
			o->gen++;
			if (pool_create(o) != 0)
				exit(1);
			next_retire = now_ms() + cfg.recreate_ms;
		}
		drain_back(o, BATCH);
		va = alloc_buf(o, k, &len);
		if (va == NULL) {
			o->alloc_fail++;
			sched_yield();
			continue;
		}
		h = (struct hdr){
			.magic = MAGIC_LIVE,
			.owner = (uint16_t)o->id,
			.kind = (uint8_t)k,
			.len = len,
			.gen = o->gen,
			.seq = ++o->seq,
			.pool = k == K_PAGE_FRAG ? NULL : o->pool,
		};
		fill_buf(o, va, &h);
		while (ptr_ring_produce(&o->out, va) != 0) {
			if (stopping()) {
				/* Nobody will take it: give it back. */
				give_back(va, &h, 0, k != K_PAGE_FRAG);
				va = NULL;
				break;
			}
			drain_back(o, BATCH);
			sched_yield();
		}
		if (va != NULL)
			o->sent[k]++;
	}
	/* R1: pairs with acquire A1 in consumer_main(): a consumer that sees
	 * this sees every buffer this owner produced. */
	__atomic_store_n(&o->producing_done, 1, __ATOMIC_RELEASE);
	/* Consumers may still send buffers back until they have all gone. */
	/* A2: pairs with release R2 in consumer_main(). */
	while (__atomic_load_n(&consumers_running, __ATOMIC_ACQUIRE) > 0) {
		drain_back(o, RING_SIZE);
		sched_yield();
	}
	drain_back(o, RING_SIZE * 2);
	page_frag_cache_drain(&o->nc);
	pool_reconcile(o);
	pool_retire(o);
	return NULL;
}

/* ---- Consumer ------------------------------------------------------------- */

/* Check one buffer: its header, where it lies, and every pattern byte. */
static bool
check_buf(struct consumer *c, void *va, struct hdr *h)
{
	struct page *head = head_of(va);
	char *base;
	size_t block;

	memcpy(h, va, sizeof(*h));
	if (h->magic != MAGIC_LIVE) {
		mismatch(c, h->magic == MAGIC_DEAD ? "buffer delivered twice"
						   : "header overwritten", va);
		return false;
	}
	if (h->owner >= cfg.owners || h->kind >= K_NR || h->len < MIN_BUF ||
	    (h->kind == K_PAGE_FRAG) != (h->pool == NULL)) {
		mismatch(c, "header fields out of range", va);
		return false;
	}
	if (head == NULL) {
		mismatch(c, "buffer not in allocator memory", va);
		return false;
	}
	base = page_address(head);
	block = PAGE_SIZE << compound_order(head);
	if ((char *)va < base || (char *)va + h->len > base + block) {
		mismatch(c, "buffer runs past its block", va);
		return false;
	}
	if (h->pool != NULL && head->pp != h->pool) {
		mismatch(c, "page belongs to another pool", va);
		return false;
	}
	make_pattern(c->expect, h);
	if (memcmp(va, c->expect, h->len) != 0) {
		/* The header was fine, so the buffer can still go back. */
		mismatch(c, "pattern differs", va);
	}
	return true;
}

static void
flush_bulk(struct consumer *c)
{
	page_pool_put_page_bulk(c->bulk, c->nbulk);
	c->bulk_returned += c->nbulk;
	c->nbulk = 0;
}

static void
consume_one(struct consumer *c, void *va)
{
	struct hdr h;

	if (!check_buf(c, va, &h))
		return;	/* leaked on purpose: its header cannot be trusted */
	/* Relaxed: a statistic, read by main for progress. */
	__atomic_fetch_add(&c->moved[h.kind], 1, __ATOMIC_RELAXED);
	((struct hdr *)va)->magic = MAGIC_DEAD;
	/* A quarter go back to their owner, the rest are returned here. */
	if ((rnd(&c->rng) & 3) == 0 &&
	    ptr_ring_produce(&owners[h.owner].back, va) == 0) {
		c->sent_back++;
		return;
	}
	/* Half the whole pages go back in bulk, possibly of several pools
	 * (the kernel's XDP_REDIRECT completion path). */
	if (h.kind == K_PAGE && (rnd(&c->rng) & 1)) {
		c->bulk[c->nbulk++] = head_of(va);
		if (c->nbulk == BATCH)
			flush_bulk(c);
		return;
	}
	give_back(va, &h, (unsigned int)rnd(&c->rng), false);
}

static bool
all_owners_done(void)
{
	int i;

	for (i = 0; i < cfg.owners; i++) {
		/* A1: pairs with release R1 in owner_main(). */
		if (!__atomic_load_n(&owners[i].producing_done,
				     __ATOMIC_ACQUIRE))
			return false;
	}
	return true;
}

static void *
consumer_main(void *arg)
{
	struct consumer *c = arg;
	void *batch[BATCH];
	int start = c->id % cfg.owners;

	if (cfg.pin)
		pp_tool_pin_nth_cpu(cfg.owners + c->id);
	for (;;) {
		bool done = all_owners_done();
		int got = 0, i, j, n;

		for (i = 0; i < cfg.owners; i++) {
			struct owner *o = &owners[(start + i) % cfg.owners];

			n = ptr_ring_consume_batched(&o->out, batch, BATCH);
			for (j = 0; j < n; j++)
				consume_one(c, batch[j]);
			got += n;
		}
		start = (start + 1) % cfg.owners;
		if (got == 0 && c->nbulk > 0)
			flush_bulk(c);
		/* Owners finished before this pass, and the pass found
		 * nothing: every ring is empty for good. */
		if (got == 0 && done)
			break;
		if (got == 0)
			sched_yield();
	}
	/* Returns this thread stashed must reach their pools' rings before
	 * the owners, released by R2, count what their pools hold; the
	 * stash's own flush at thread exit would come after R2. */
	pp_stash_flush();
	/* R2: pairs with acquire A2 in owner_main(): the owners drain their
	 * back rings until every consumer has left. */
	__atomic_fetch_sub(&consumers_running, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* ---- Main ----------------------------------------------------------------- */

static uint64_t
moved_total(void)
{
	uint64_t t = 0;
	int i, k;

	for (i = 0; i < cfg.consumers; i++) {
		for (k = 0; k < K_NR; k++)
			/* Relaxed: progress only. */
			t += __atomic_load_n(&consumers[i].moved[k],
					     __ATOMIC_RELAXED);
	}
	return t;
}

static void
on_sigint(int sig)
{
	(void)sig;
	stop();
}

static void
usage(FILE *out)
{
	fprintf(out,
		"Usage: " PROG " [options]\n"
		"Soak the library: owners allocate pages, pool fragments, page_frag\n"
		"fragments and alloc_va buffers, consumers check and return them,\n"
		"pools are destroyed and recreated under traffic.\n"
		"\n"
		"  -d, --duration SEC     run time, 1..%d seconds (default 10)\n"
		"  -n, --max-buffers N    stop earlier, after N buffers (default: no\n"
		"                         limit)\n"
		"  -o, --owners N         owner threads, 1..%d (default 2)\n"
		"  -c, --consumers N      consumer threads, 1..%d (default 2)\n"
		"  -r, --recreate-ms MS   destroy and recreate each pool every MS\n"
		"                         ms; 0 never (default 50)\n"
		"  -D, --dma MODE         pools map through: both (identity and the\n"
		"                         IOMMU model, alternating; default),\n"
		"                         identity, iommu or none\n"
		"  -p, --pin              pin threads to CPUs, owners first\n"
		"  -s, --seed N           random seed (default 1)\n"
		"  -v, --verbose          a progress line every second\n"
		"  -h, --help             this text\n"
		"\n"
		"Exit status: 0 no mismatch, no page lost, no DMA fault; 1 any of\n"
		"them, or a setup failure; 2 bad usage.\n",
		86400, MAX_THREADS, MAX_THREADS);
}

#define NUM(opt, arg, min, max) pp_tool_parse_num(PROG, opt, arg, min, max)

static void
parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "max-buffers", required_argument, NULL, 'n' },
		{ "owners", required_argument, NULL, 'o' },
		{ "consumers", required_argument, NULL, 'c' },
		{ "recreate-ms", required_argument, NULL, 'r' },
		{ "dma", required_argument, NULL, 'D' },
		{ "pin", no_argument, NULL, 'p' },
		{ "seed", required_argument, NULL, 's' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "d:n:o:c:r:D:ps:vh", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'd':
			cfg.duration_s = NUM("--duration", optarg, 1, 86400);
			break;
		case 'n':
			cfg.max_buffers = NUM("--max-buffers", optarg, 1,
					      1ULL << 62);
			break;
		case 'o':
			cfg.owners = (int)NUM("--owners", optarg, 1,
					      MAX_THREADS);
			break;
		case 'c':
			cfg.consumers = (int)NUM("--consumers", optarg, 1,
						 MAX_THREADS);
			break;
		case 'r':
			cfg.recreate_ms = NUM("--recreate-ms", optarg, 0,
					      3600000);
			break;
		case 'D':
			if (strcmp(optarg, "both") == 0)
				cfg.dma = DMA_BOTH;
			else if (strcmp(optarg, "identity") == 0)
				cfg.dma = DMA_IDENTITY;
			else if (strcmp(optarg, "iommu") == 0)
				cfg.dma = DMA_IOMMU;
			else if (strcmp(optarg, "none") == 0)
				cfg.dma = DMA_NOMAP;
			else {
				fprintf(stderr, PROG ": --dma: '%s' is not "
					"both, identity, iommu or none\n",
					optarg);
				exit(2);
			}
			break;
		case 'p':
			cfg.pin = true;
			break;
		case 's':
			cfg.seed = NUM("--seed", optarg, 0, ~0ULL);
			break;
		case 'v':
			cfg.verbose = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n",
			argv[optind]);
		usage(stderr);
		exit(2);
	}
}

static void *
xalloc(size_t align, size_t size)
{
	void *p = NULL;

	if (posix_memalign(&p, align, size) != 0) {
		fprintf(stderr, PROG ": out of memory\n");
		exit(1);
	}
	memset(p, 0, size);
	return p;
}

/* Wait for every destroyed pool to be released; the rest are stalled. */
static uint64_t
wait_released(int *stalled)
{
	uint64_t deadline = now_ms() + 10000, lost = compacted_lost;
	int i, left;

	for (;;) {
		left = 0;
		pthread_mutex_lock(&rec_lock);
		for (i = 0; i < nrecs; i++)
			left += recs[i].state != 3;
		pthread_mutex_unlock(&rec_lock);
		if (left == 0 || now_ms() >= deadline)
			break;
		usleep(10000);
	}
	*stalled = left;
	/* Under the lock: a pool's release calls pool_released() first, so
	 * none can be freed while its count is read here. */
	pthread_mutex_lock(&rec_lock);
	for (i = 0; i < nrecs; i++) {
		if (recs[i].state == 3) {
			lost += (uint64_t)(recs[i].inflight_at_release > 0
						   ? recs[i].inflight_at_release
						   : 0);
		} else {
			int n = page_pool_inflight(recs[i].pool);

			fprintf(stderr, PROG ": pool %u not released, %d in "
				"flight\n", page_pool_id(recs[i].pool), n);
			lost += (uint64_t)(n > 0 ? n : 0);
		}
	}
	pthread_mutex_unlock(&rec_lock);
	return lost;
}

/* Faults and leftover mappings of a device; then it is destroyed. */
static void
check_dev(struct device *dev, uint64_t *faults, uint64_t *mappings)
{
	struct pp_dma_stats st = { .sz = sizeof(st) };

	if (dev == NULL)
		return;
	if (pp_dma_dev_get_stats(dev, &st) == 0) {
		*faults += st.faults;
		*mappings += st.live_mappings;
		if (st.live_mappings != 0)
			fprintf(stderr, PROG ": %s: %llu mappings left\n",
				pp_dma_dev_name(dev),
				(unsigned long long)st.live_mappings);
	}
	/* Leftover mappings are leaked, not freed: safe either way. */
	pp_dma_dev_destroy(dev);
}

int
main(int argc, char **argv)
{
	uint64_t moved[K_NR] = { 0 }, total = 0, mismatches = 0, lost = 0;
	uint64_t faults = 0, mappings = 0, sent = 0, back = 0, direct = 0;
	uint64_t bulk = 0;
	uint64_t alloc_fail = 0, dma_write_faults = 0, accounting = 0;
	uint64_t start, last_report;
	int i, k, stalled;
	bool ok;

	parse_args(argc, argv);
	signal(SIGINT, on_sigint);
	recs = xalloc(64, sizeof(*recs) * MAX_POOLS);
	{
		PP_OPTS(pp_dma_dev_opts, io, .name = "soak-identity");
		PP_OPTS(pp_iommu_opts, mo, .name = "soak-iommu");

		identity_dev = pp_dma_identity_create(&io);
		iommu_dev = pp_iommu_create(&mo);
		if (identity_dev == NULL || iommu_dev == NULL) {
			fprintf(stderr, PROG ": DMA device: %s\n",
				strerror(errno));
			return 1;
		}
	}
	owners = xalloc(64, sizeof(*owners) * (size_t)cfg.owners);
	consumers = xalloc(64, sizeof(*consumers) * (size_t)cfg.consumers);
	for (i = 0; i < cfg.owners; i++) {
		struct owner *o = &owners[i];

		o->id = i;
		o->rng = (cfg.seed + 1) * 0x9e3779b97f4a7c15ULL + (uint64_t)i;
		o->staging = xalloc(64, PAGE_SIZE << 1);
		if (ptr_ring_init(&o->out, RING_SIZE, GFP_KERNEL) != 0 ||
		    ptr_ring_init(&o->back, RING_SIZE, GFP_KERNEL) != 0) {
			fprintf(stderr, PROG ": ptr_ring_init failed\n");
			return 1;
		}
	}
	printf(PROG ": %d owners, %d consumers, %lu s, pools recreated every "
	       "%lu ms (0: never), DMA %s\n", cfg.owners, cfg.consumers,
	       cfg.duration_s, cfg.recreate_ms,
	       cfg.dma == DMA_BOTH ? "identity+iommu"
	       : cfg.dma == DMA_IDENTITY ? "identity"
	       : cfg.dma == DMA_IOMMU ? "iommu" : "none");
	fflush(stdout);
	consumers_running = cfg.consumers;
	for (i = 0; i < cfg.consumers; i++) {
		consumers[i].id = i;
		consumers[i].rng = (cfg.seed + 7) * 0xbf58476d1ce4e5b9ULL +
				   (uint64_t)i;
		consumers[i].expect = xalloc(64, PAGE_SIZE << 1);
		if (pthread_create(&consumers[i].thread, NULL, consumer_main,
				   &consumers[i]) != 0) {
			fprintf(stderr, PROG ": pthread_create failed\n");
			return 1;
		}
	}
	for (i = 0; i < cfg.owners; i++) {
		if (pthread_create(&owners[i].thread, NULL, owner_main,
				   &owners[i]) != 0) {
			fprintf(stderr, PROG ": pthread_create failed\n");
			return 1;
		}
	}
	start = last_report = now_ms();
	while (!stopping()) {
		uint64_t t = now_ms();

		if (t - start >= cfg.duration_s * 1000 ||
		    (cfg.max_buffers != 0 && moved_total() >= cfg.max_buffers))
			break;
		if (cfg.verbose && t - last_report >= 1000) {
			printf(PROG ": %llu s, %llu buffers moved\n",
			       (unsigned long long)((t - start) / 1000),
			       (unsigned long long)moved_total());
			fflush(stdout);
			last_report = t;
		}
		usleep(10000);
	}
	stop();
	for (i = 0; i < cfg.owners; i++)
		pthread_join(owners[i].thread, NULL);
	for (i = 0; i < cfg.consumers; i++)
		pthread_join(consumers[i].thread, NULL);
	lost = wait_released(&stalled);
	for (i = 0; i < cfg.owners; i++) {
		struct owner *o = &owners[i];

		for (k = 0; k < K_NR; k++)
			sent += o->sent[k];
		lost += o->lost;
		accounting += o->accounting_errors;
		direct += o->returned_direct;
		alloc_fail += o->alloc_fail;
		dma_write_faults += o->dma_write_faults;
		ptr_ring_cleanup(&o->out, NULL);
		ptr_ring_cleanup(&o->back, NULL);
		free(o->staging);
	}
	for (i = 0; i < cfg.consumers; i++) {
		for (k = 0; k < K_NR; k++)
			moved[k] += consumers[i].moved[k];
		mismatches += consumers[i].mismatches;
		back += consumers[i].sent_back;
		bulk += consumers[i].bulk_returned;
		free(consumers[i].expect);
	}
	for (k = 0; k < K_NR; k++)
		total += moved[k];
	/* A buffer sent and never checked is a mismatch too. */
	if (sent != total) {
		fprintf(stderr, PROG ": %llu buffers sent, %llu checked\n",
			(unsigned long long)sent, (unsigned long long)total);
		mismatches += sent > total ? sent - total : total - sent;
	}
	mismatches += accounting;
	check_dev(identity_dev, &faults, &mappings);
	check_dev(iommu_dev, &faults, &mappings);
	lost += mappings;

	printf("elapsed: %.1f s\n", (double)(now_ms() - start) / 1000.0);
	printf("buffers moved: %llu (", (unsigned long long)total);
	for (k = 0; k < K_NR; k++)
		printf("%s%s %llu", k ? ", " : "", kind_name[k],
		       (unsigned long long)moved[k]);
	printf(")\n");
	printf("returned by consumers: %llu (%llu in bulk), by owners: %llu "
	       "(%llu direct)\n", (unsigned long long)(total - back),
	       (unsigned long long)bulk, (unsigned long long)back,
	       (unsigned long long)direct);
	printf("pools created: %llu, stalled at exit: %d\n",
	       (unsigned long long)pools_created, stalled);
	printf("recycle: fast %llu, slow %llu, ring %llu, cached %llu, "
	       "ring_full %llu, released_refcnt %llu\n",
	       (unsigned long long)released_stats.alloc_stats.fast,
	       (unsigned long long)released_stats.alloc_stats.slow,
	       (unsigned long long)released_stats.recycle_stats.ring,
	       (unsigned long long)released_stats.recycle_stats.cached,
	       (unsigned long long)released_stats.recycle_stats.ring_full,
	       (unsigned long long)released_stats.recycle_stats.released_refcnt);
	printf("allocation failures: %llu\n", (unsigned long long)alloc_fail);
	printf("mismatches: %llu\n", (unsigned long long)mismatches);
	printf("pages lost: %llu\n", (unsigned long long)lost);
	printf("dma faults: %llu\n", (unsigned long long)faults);
	if (dma_write_faults != 0)
		printf("(of which device writes: %llu)\n",
		       (unsigned long long)dma_write_faults);
	ok = mismatches == 0 && lost == 0 && faults == 0 && stalled == 0 &&
	     total > 0;
	printf("result: %s\n", ok ? "PASS" : "FAIL");
	free(consumers);
	free(owners);
	free(recs);
	return ok ? 0 : 1;
}
