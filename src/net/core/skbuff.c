/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Socket buffers: building an skb over a buffer the driver owns, page
 * fragments, and the free paths (the kernel's net/core/skbuff.c, the parts
 * an RX path uses, written anew).
 *
 * Where each piece of an skb goes when it is freed decides whether a
 * page_pool recycles: a head or fragment of an skb marked pp_recycle is
 * handed to napi_pp_put_page(), which recognises pool pages by their
 * signature and returns them with allow_direct false, so the pool's own
 * owner check decides between the lockless alloc cache (freed on the
 * pool's NAPI thread) and the ring (any other thread) — the kernel's
 * page_pool_napi_local() rule. Everything else is put_page()d (a page
 * fragment head) or freed (a head from the general allocator).
 *
 * The skb structs themselves come from the general allocator (the
 * kernel's skbuff slab) or, for napi_build_skb() and napi_consume_skb(),
 * from a per-thread cache shaped like the kernel's per-CPU
 * napi_alloc_cache: a stack of 64, refilled 16 at a time when empty, half
 * flushed when full. A per-thread key's destructor flushes it when the
 * thread exits, since threads, unlike CPUs, go away.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <pagepool/page_frag_cache.h>
#include <pagepool/page_pool.h>
#include <pagepool/skbuff.h>

#include "lib/mem_priv.h"
#include "lib/tls_priv.h"
#include "mm/page_frag_cache_priv.h"

/* Largest head we build: the kernel's u16 header offsets bound it too. */
#define SKB_MAX_HEAD 65536u

/* ---- The skbuff "slab" and the per-thread cache ------------------------ */

/* The per-thread cache below is reached per packet through an
 * initial-exec pointer (lib/tls_priv.h); the cache itself, 2 KiB, is on
 * the heap, so that the library's thread-local storage stays small
 * enough for dlopen(). */

/*
 * The skbuff "slab": structs from the general allocator, with a per-thread
 * stack of freed ones in front, as the kernel's skbuff_cache has its
 * per-CPU freelists. kfree_skb() on the RX path (generic XDP's drops, the
 * stack's) frees a struct per packet and napi_build_skb() refills its
 * cache from here, so without the stack every packet would pay malloc()
 * and free() where the kernel pays a per-CPU slab pop and push.
 */
#define SKBUFF_SLAB_CPU	128

struct skbuff_slab {
	unsigned int count;
	struct sk_buff *obj[SKBUFF_SLAB_CPU];
};

/*
 * Small heads: the kernel takes a head of up to SKB_SMALL_HEAD_CACHE_SIZE
 * bytes from a slab of its own (skb_small_head_cache, in
 * kmalloc_reserve()) and gives the skb all of it. Its size is
 * SKB_HEAD_ALIGN() of the larger of MAX_TCP_HEADER and GRO_MAX_HEAD plus
 * NET_SKB_PAD: with x86-64's usual configuration (MAX_HEADER 176), 320
 * and 304 + 64, so 384 bytes of data and the shared info. Not a power of
 * two, so its end offset, SKB_SMALL_HEAD_HEADROOM, tells a small head
 * from any other. Here a per-thread stack of such buffers stands in for
 * the slab: glibc's aligned_alloc() and free() of each head cost 770
 * instructions (callgrind, tap_net_test's pinned ICMP loop: 49.6M ->
 * 34.3M for 20000 requests, 31% of the loop's user instructions).
 */
#define SKB_SMALL_HEAD_DATA	384u
#define SKB_SMALL_HEAD_CACHE_SIZE SKB_HEAD_ALIGN(SKB_SMALL_HEAD_DATA)
#define SKB_SMALL_HEAD_HEADROOM	SKB_WITH_OVERHEAD(SKB_SMALL_HEAD_CACHE_SIZE)
#define SKB_SMALL_HEAD_CPU	64

PP_STATIC_ASSERT((SKB_SMALL_HEAD_CACHE_SIZE &
		  (SKB_SMALL_HEAD_CACHE_SIZE - 1)) != 0,
		 "a small head's size must not be a power of two");

struct skb_small_head_slab {
	unsigned int count;
	void *obj[SKB_SMALL_HEAD_CPU];
};

struct napi_alloc_cache {
	unsigned int skb_count;
	struct sk_buff *skb_cache[NAPI_SKB_CACHE_SIZE];
	struct skbuff_slab slab;
	struct skb_small_head_slab small;
};

/* The calling thread's cache, NULL until its first use needs one. It
 * exists only while its exit-time flush is armed (napi_cache_create()). */
static __thread struct napi_alloc_cache *napi_cache_self PP_TLS_IE;
static pthread_key_t napi_cache_key;
static pthread_once_t napi_cache_once = PTHREAD_ONCE_INIT;
static bool napi_cache_key_ok;

static struct napi_alloc_cache *napi_cache_create(void);

/*
 * The calling thread's cache, made on first use; NULL if it cannot be
 * (no memory, or no key to free it at the thread's exit): the caller then
 * goes to the general allocator, as the cache would have.
 */
static PP_ALWAYS_INLINE struct napi_alloc_cache *
napi_cache(void)
{
	struct napi_alloc_cache *nc = napi_cache_self;

	if (PP_LIKELY(nc != NULL))
		return nc;
	return napi_cache_create();
}

static struct sk_buff *
skbuff_cache_alloc(void)
{
	struct napi_alloc_cache *nc = napi_cache_self;

	if (nc != NULL && PP_LIKELY(nc->slab.count > 0))
		return nc->slab.obj[--nc->slab.count];
	return malloc(sizeof(struct sk_buff));
}

static void
skbuff_cache_free(struct sk_buff *skb)
{
	struct napi_alloc_cache *nc = napi_cache();

	if (PP_LIKELY(nc != NULL && nc->slab.count < SKBUFF_SLAB_CPU)) {
		nc->slab.obj[nc->slab.count++] = skb;
		return;
	}
	free(skb);
}

/*
 * A head for @total bytes (SKB_HEAD_ALIGN()ed), as kmalloc_reserve(): a
 * small head when it fits one, with *@total raised to its size, the skb
 * getting all of it; else @total bytes from the general allocator.
 */
static void *
skb_head_alloc(unsigned int *total)
{
	struct napi_alloc_cache *nc = napi_cache_self;

	if (*total > SKB_SMALL_HEAD_CACHE_SIZE)
		return aligned_alloc(SMP_CACHE_BYTES, *total);
	*total = SKB_SMALL_HEAD_CACHE_SIZE;
	if (nc != NULL && PP_LIKELY(nc->small.count > 0))
		return nc->small.obj[--nc->small.count];
	return aligned_alloc(SMP_CACHE_BYTES, SKB_SMALL_HEAD_CACHE_SIZE);
}

/* Free a head skb_head_alloc() gave, its skb's end offset @end saying
 * which kind (as the kernel's skb_kfree_head() did). Any thread. */
static void
skb_head_free(void *head, unsigned int end)
{
	struct napi_alloc_cache *nc;

	if (end == SKB_SMALL_HEAD_HEADROOM) {
		nc = napi_cache();
		if (PP_LIKELY(nc != NULL &&
			      nc->small.count < SKB_SMALL_HEAD_CPU)) {
			nc->small.obj[nc->small.count++] = head;
			return;
		}
	}
	free(head);
}

void
pp_skb_cache_thread_drain(void)
{
	struct napi_alloc_cache *nc = napi_cache_self;

	if (nc == NULL)
		return;
	while (nc->skb_count > 0)
		free(nc->skb_cache[--nc->skb_count]);
	while (nc->slab.count > 0)
		free(nc->slab.obj[--nc->slab.count]);
	while (nc->small.count > 0)
		free(nc->small.obj[--nc->small.count]);
}

static void
napi_cache_destructor(void *arg)
{
	(void)arg;
	pp_skb_cache_thread_drain();
	/* A later free on this exiting thread (another destructor's) makes
	 * the cache again and arms the key again, and so runs this again. */
	_pp_free(napi_cache_self);
	napi_cache_self = NULL;
}

static void
napi_cache_key_init(void)
{
	napi_cache_key_ok = pthread_key_create(&napi_cache_key,
					       napi_cache_destructor) == 0;
}

/* Make the calling thread's cache and arm its exit-time flush. Without a
 * key the cache (and what it holds) would leak at the thread's exit, so
 * the thread runs uncached. */
static __attribute__((noinline)) struct napi_alloc_cache *
napi_cache_create(void)
{
	struct napi_alloc_cache *nc;

	pthread_once(&napi_cache_once, napi_cache_key_init);
	if (!napi_cache_key_ok)
		return NULL;
	nc = _pp_zalloc_thread(napi_cache_key, sizeof(*nc));
	napi_cache_self = nc;
	return nc;
}

static struct sk_buff *
napi_skb_cache_get(void)
{
	struct napi_alloc_cache *nc = napi_cache();

	if (PP_UNLIKELY(nc == NULL))
		return skbuff_cache_alloc();
	if (PP_UNLIKELY(nc->skb_count == 0)) {
		while (nc->skb_count < NAPI_SKB_CACHE_BULK) {
			struct sk_buff *skb = skbuff_cache_alloc();

			if (skb == NULL)
				break;
			nc->skb_cache[nc->skb_count++] = skb;
		}
		if (nc->skb_count == 0)
			return NULL;
	}
	return nc->skb_cache[--nc->skb_count];
}

static void
napi_skb_cache_put(struct sk_buff *skb)
{
	struct napi_alloc_cache *nc = napi_cache();
	unsigned int i;

	if (PP_UNLIKELY(nc == NULL)) {
		skbuff_cache_free(skb);
		return;
	}
	nc->skb_cache[nc->skb_count++] = skb;
	if (PP_UNLIKELY(nc->skb_count == NAPI_SKB_CACHE_SIZE)) {
		for (i = NAPI_SKB_CACHE_HALF; i < NAPI_SKB_CACHE_SIZE; i++)
			skbuff_cache_free(nc->skb_cache[i]);
		nc->skb_count = NAPI_SKB_CACHE_HALF;
	}
}

/* ---- Building ---------------------------------------------------------- */

static void
build_skb_around(struct sk_buff *skb, void *data, unsigned int frag_size)
{
	struct skb_shared_info *shinfo;
	unsigned int size = SKB_WITH_OVERHEAD(frag_size);

	memset(skb, 0, sizeof(*skb));
	skb->head = data;
	skb->data = data;
	skb->tail = 0;
	skb->end = size;
	skb->truesize = SKB_TRUESIZE(size);
	skb->users = 1;
	skb->head_frag = 1;
	skb->mac_header = 0xffff;
	skb->network_header = 0xffff;
	skb->transport_header = 0xffff;
	shinfo = skb_shinfo(skb);
	memset(shinfo, 0, offsetof(struct skb_shared_info, frags));
	shinfo->dataref = 1;
}

static bool
frag_size_ok(const void *data, unsigned int frag_size)
{
	if (data == NULL || frag_size > SKB_MAX_HEAD ||
	    frag_size <= SKB_DATA_ALIGN(sizeof(struct skb_shared_info))) {
		errno = EINVAL;
		return false;
	}
	return true;
}

struct sk_buff *
build_skb(void *data, unsigned int frag_size)
{
	struct sk_buff *skb;

	if (!frag_size_ok(data, frag_size))
		return NULL;
	skb = skbuff_cache_alloc();
	if (skb == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	build_skb_around(skb, data, frag_size);
	return skb;
}

struct sk_buff *
napi_build_skb(void *data, unsigned int frag_size)
{
	struct sk_buff *skb;

	if (!frag_size_ok(data, frag_size))
		return NULL;
	skb = napi_skb_cache_get();
	if (PP_UNLIKELY(skb == NULL)) {
		errno = ENOMEM;
		return NULL;
	}
	build_skb_around(skb, data, frag_size);
	return skb;
}

struct sk_buff *
alloc_skb(unsigned int size, gfp_t gfp)
{
	struct sk_buff *skb;
	unsigned int total;
	void *data;

	(void)gfp;
	if (size > SKB_MAX_HEAD) {
		errno = EINVAL;
		return NULL;
	}
	total = SKB_HEAD_ALIGN(size);
	skb = skbuff_cache_alloc();
	data = skb_head_alloc(&total);
	if (skb == NULL || data == NULL) {
		if (data != NULL)
			skb_head_free(data, SKB_WITH_OVERHEAD(total));
		free(skb);
		errno = ENOMEM;
		return NULL;
	}
	build_skb_around(skb, data, total);
	skb->head_frag = 0;
	return skb;
}

/* ---- Data -------------------------------------------------------------- */

void *
skb_put(struct sk_buff *skb, unsigned int len)
{
	if (skb == NULL || skb_is_nonlinear(skb) ||
	    len > skb->end - skb->tail) {
		errno = EINVAL;
		return NULL;
	}
	return __skb_put(skb, len);
}

void *
skb_push(struct sk_buff *skb, unsigned int len)
{
	if (skb == NULL || len > skb_headroom(skb)) {
		errno = EINVAL;
		return NULL;
	}
	return __skb_push(skb, len);
}

void *
skb_pull(struct sk_buff *skb, unsigned int len)
{
	if (skb == NULL || len > skb_headlen(skb)) {
		errno = EINVAL;
		return NULL;
	}
	return __skb_pull(skb, len);
}

int
skb_add_rx_frag(struct sk_buff *skb, int i, struct page *page, int off,
		int size, unsigned int truesize)
{
	skb_frag_t *frag;

	if (skb == NULL || page == NULL || i < 0 || i >= MAX_SKB_FRAGS ||
	    off < 0 || size < 0)
		return -EINVAL;
	frag = &skb_shinfo(skb)->frags[i];
	frag->netmem = page;
	frag->offset = (unsigned int)off;
	frag->len = (unsigned int)size;
	if (i + 1 > skb_shinfo(skb)->nr_frags)
		skb_shinfo(skb)->nr_frags = (uint8_t)(i + 1);
	skb->len += (unsigned int)size;
	skb->data_len += (unsigned int)size;
	skb->truesize += truesize;
	return 0;
}

/* ---- Freeing ----------------------------------------------------------- */

bool
napi_pp_put_page(struct page *page)
{
	if (page == NULL)
		return false;
	page = compound_head(page);
	if (PP_UNLIKELY((page->pp_magic & PP_MAGIC_MASK) != PP_SIGNATURE))
		return false;
	/* allow_direct false: the pool checks whether we are its owner, as
	 * page_pool_napi_local() does in the kernel. */
	page_pool_put_full_page(page->pp, page, false);
	return true;
}

static void
skb_page_unref(struct page *page, bool recycle)
{
	if (recycle && napi_pp_put_page(page))
		return;
	/* A fragment of a cache bound to this thread (a socket's payload
	 * freed by its owner) goes back to the cache without an atomic. */
	if (_pp_frag_put_local(page))
		return;
	put_page(page);
}

static void
skb_free_head(struct sk_buff *skb, unsigned char *head)
{
	if (skb->head_frag) {
		if (skb->pp_recycle && napi_pp_put_page(virt_to_page(head)))
			return;
		page_frag_free(head);
	} else {
		skb_head_free(head, skb->end);
	}
}

static void
skb_release_data(struct sk_buff *skb)
{
	struct skb_shared_info *shinfo = skb_shinfo(skb);
	int i;

	/* No clones: this skb is the data's only user. */
	for (i = 0; i < shinfo->nr_frags; i++)
		skb_page_unref(shinfo->frags[i].netmem, skb->pp_recycle);
	skb_free_head(skb, skb->head);
}

/* Drop one user reference; true if it was the last. */
static bool
skb_unref(struct sk_buff *skb)
{
	if (skb == NULL)
		return false;
	/* The sole holder needs no atomic (the kernel's fast path). */
	if (PP_LIKELY(pp_load_relaxed(&skb->users) == 1))
		return true;
	/* R6/A6: acq_rel pairs with the other holders' drops, so the last
	 * one frees the skb after all their accesses. */
	return pp_fetch_sub_acq_rel(&skb->users, 1) == 1;
}

void
kfree_skb(struct sk_buff *skb)
{
	if (!skb_unref(skb))
		return;
	skb_release_data(skb);
	skbuff_cache_free(skb);
}

void
consume_skb(struct sk_buff *skb)
{
	/* Same work as a drop; the kernel only traces them differently. */
	kfree_skb(skb);
}

void
napi_consume_skb(struct sk_buff *skb, int budget)
{
	/* Budget 0: netpoll, not the NAPI context; no thread cache. */
	if (PP_UNLIKELY(budget == 0)) {
		consume_skb(skb);
		return;
	}
	if (!skb_unref(skb))
		return;
	skb_release_data(skb);
	napi_skb_cache_put(skb);
}

int
pskb_expand_head(struct sk_buff *skb, int nhead, int ntail, gfp_t gfp)
{
	unsigned int size, total, off;
	unsigned char *data, *old_head;
	struct skb_shared_info *old;

	(void)gfp;
	if (skb == NULL || nhead < 0 || ntail < 0 ||
	    skb->end + (unsigned int)nhead + (unsigned int)ntail > SKB_MAX_HEAD)
		return -EINVAL;
	total = SKB_HEAD_ALIGN(skb->end + (unsigned int)nhead +
			       (unsigned int)ntail);
	data = skb_head_alloc(&total);
	if (data == NULL)
		return -ENOMEM;
	/* The new head's room, all of it (a small head may be larger). */
	size = SKB_WITH_OVERHEAD(total);
	old_head = skb->head;
	old = skb_shinfo(skb);
	/* Headroom and linear data move; the fragments' references move
	 * with the shared info, so only the old head is freed. */
	memcpy(data + nhead, skb->head, skb->tail);
	memcpy(data + size, old, sizeof(*old));
	off = (unsigned int)nhead;
	skb_free_head(skb, old_head);
	skb->head = data;
	skb->head_frag = 0;
	skb->data = data + (skb->data - old_head) + off;
	skb->tail += off;
	/* The kernel grows truesize only for skbs without a socket (one
	 * with a socket has it charged there); ours never have one. */
	skb->truesize += size - skb->end;
	skb->end = size;
	if (skb->mac_header != 0xffff)
		skb->mac_header = (uint16_t)(skb->mac_header + off);
	if (skb->network_header != 0xffff)
		skb->network_header = (uint16_t)(skb->network_header + off);
	if (skb->transport_header != 0xffff)
		skb->transport_header = (uint16_t)(skb->transport_header + off);
	return 0;
}

int
skb_linearize(struct sk_buff *skb)
{
	struct skb_shared_info *shinfo;
	unsigned int room, need, i;
	int ret;

	if (skb == NULL)
		return -EINVAL;
	if (!skb_is_nonlinear(skb))
		return 0;
	/* The kernel's __pskb_pull_tail() of every fragment byte: room at
	 * the tail first (with some to spare, as it takes), then the bytes,
	 * then the fragments go back where freeing the skb would send them. */
	need = skb->data_len;
	room = skb->end - skb->tail;
	if (room < need) {
		ret = pskb_expand_head(skb, 0, (int)(need - room + 128),
				       GFP_ATOMIC);
		if (ret != 0)
			return ret;
	}
	shinfo = skb_shinfo(skb);
	for (i = 0; i < shinfo->nr_frags; i++) {
		skb_frag_t *frag = &shinfo->frags[i];

		memcpy(skb->head + skb->tail,
		       (unsigned char *)page_address(frag->netmem) +
			       frag->offset,
		       frag->len);
		skb->tail += frag->len;
	}
	for (i = 0; i < shinfo->nr_frags; i++)
		skb_page_unref(shinfo->frags[i].netmem, skb->pp_recycle);
	shinfo->nr_frags = 0;
	shinfo->xdp_frags_size = 0;
	skb->data_len = 0;
	return 0;
}
