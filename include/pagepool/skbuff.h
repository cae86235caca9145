/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * DOC: skbuff — the socket buffer, the part a driver and a small stack use
 *
 * The kernel's struct sk_buff (include/linux/skbuff.h), reduced to what an
 * RX path needs: a head built over a buffer the driver already owns
 * (build_skb(), napi_build_skb()) with the headroom in front and struct
 * skb_shared_info at the tail of the buffer, page fragments
 * (skb_add_rx_frag(), or the inline skb_fill_page_desc() family a TX path
 * copies into), and the free paths that give page_pool pages back to
 * their pool.
 *
 *   head          data             tail        end
 *   |  headroom   |  linear data   | tailroom  | skb_shared_info |
 *   '--- the buffer: frag_size bytes, one page_pool page ------------'
 *
 * Recycling. An skb marked with skb_mark_for_recycle() returns each of its
 * page_pool pages (head and fragments) with napi_pp_put_page(): the page
 * goes back to its pool directly when the freeing thread is the pool's
 * owner (the kernel: in the NAPI context that owns the pool), through the
 * pool's ring otherwise. Any other page is dropped with put_page(). An skb
 * that is not marked never touches a pool: its head and fragments must then
 * be ordinary pages (page_pool_release_page() turns a pool page into one).
 *
 * skb structs. napi_build_skb() and napi_consume_skb() use a per-thread
 * cache of 64 structs, refilled and flushed 16 and 32 at a time, as the
 * kernel's per-CPU napi_alloc_cache; build_skb(), kfree_skb() and
 * consume_skb() use the general allocator (the kernel's skbuff slab). A
 * thread's cache is flushed when the thread exits.
 *
 * Not modelled: clones, fclones, frag_list, GSO, checksums, sockets.
 * Errors: constructors return NULL and set errno; free functions accept
 * NULL.
 */
#ifndef PAGEPOOL_SKBUFF_H
#define PAGEPOOL_SKBUFF_H

#include <stdbool.h>
#include <stdint.h>

#include <pagepool/kcompat.h>
#include <pagepool/page.h>

#ifdef __cplusplus
extern "C" {
#endif

struct net_device;

/* Fragments per skb: 17, as the kernel's default CONFIG_MAX_SKB_FRAGS. */
#define MAX_SKB_FRAGS 17

/* Headroom reserved by skb allocators, and the IP alignment shift (0 on
 * x86, where unaligned loads are cheap). */
#define NET_SKB_PAD	64
#define NET_IP_ALIGN	0

/* The kernel's size arithmetic of a head: aligned to the cache line, with
 * the shared info at the end. */
#define SKB_DATA_ALIGN(X)                                                    \
	(((X) + (SMP_CACHE_BYTES - 1)) & ~(SMP_CACHE_BYTES - 1))
#define SKB_WITH_OVERHEAD(X)                                                 \
	((X) - SKB_DATA_ALIGN(sizeof(struct skb_shared_info)))
#define SKB_HEAD_ALIGN(X)                                                    \
	(SKB_DATA_ALIGN(X) + SKB_DATA_ALIGN(sizeof(struct skb_shared_info)))
#define SKB_TRUESIZE(X)                                                      \
	((X) + SKB_DATA_ALIGN(sizeof(struct sk_buff)) +                      \
	 SKB_DATA_ALIGN(sizeof(struct skb_shared_info)))

/* The per-thread skb cache (the kernel's NAPI_SKB_CACHE_*). */
#define NAPI_SKB_CACHE_SIZE	64
#define NAPI_SKB_CACHE_BULK	16
#define NAPI_SKB_CACHE_HALF	(NAPI_SKB_CACHE_SIZE / 2)

/* skb->pkt_type values the stack sets. */
#define PACKET_HOST		0
#define PACKET_BROADCAST	1
#define PACKET_MULTICAST	2
#define PACKET_OTHERHOST	3

/** struct skb_frag - one page fragment: bytes [offset, offset + len). */
typedef struct skb_frag {
	struct page *netmem;
	unsigned int len;
	unsigned int offset;
} skb_frag_t;

/**
 * struct skb_shared_info - the tail of an skb head: fragments and the
 * data reference count.
 */
struct skb_shared_info {
	uint8_t flags;
	uint8_t meta_len;
	uint8_t nr_frags;
	uint8_t tx_flags;
	unsigned int xdp_frags_size;
	int dataref;
	skb_frag_t frags[MAX_SKB_FRAGS];
};

/**
 * struct sk_buff - a packet. Offsets (tail, end, the *_header fields) are
 * from head, as the kernel keeps them on 64-bit machines; 0xffff means a
 * header that is not set.
 */
struct sk_buff {
	struct sk_buff *next;
	struct sk_buff *prev;
	struct net_device *dev;
	unsigned int len;		/* linear + fragment bytes */
	unsigned int data_len;		/* fragment bytes */
	uint16_t mac_len;
	uint16_t queue_mapping;
	uint8_t cloned : 1,
		pkt_type : 3,
		head_frag : 1,		/* head is a page fragment */
		pp_recycle : 1;		/* pages go back to their page_pool */
	uint16_t protocol;		/* network byte order */
	uint16_t transport_header;
	uint16_t network_header;
	uint16_t mac_header;
	uint32_t tail;
	uint32_t end;
	unsigned char *head;
	unsigned char *data;
	unsigned int truesize;
	int users;
	uint32_t hash;
};

/** skb_shinfo() - the shared info at the end of @skb's head. */
static inline struct skb_shared_info *
skb_shinfo(const struct sk_buff *skb)
{
	return (struct skb_shared_info *)(skb->head + skb->end);
}

/** skb_end_pointer() - the end of the linear area (start of shinfo). */
static inline unsigned char *
skb_end_pointer(const struct sk_buff *skb)
{
	return skb->head + skb->end;
}

/** skb_tail_pointer() - the end of the linear data. */
static inline unsigned char *
skb_tail_pointer(const struct sk_buff *skb)
{
	return skb->head + skb->tail;
}

/** skb_headroom() - bytes between head and data. */
static inline unsigned int
skb_headroom(const struct sk_buff *skb)
{
	return (unsigned int)(skb->data - skb->head);
}

/** skb_tailroom() - bytes between tail and end (0 for a non-linear skb). */
static inline int
skb_tailroom(const struct sk_buff *skb)
{
	return skb->data_len ? 0 : (int)(skb->end - skb->tail);
}

/** skb_headlen() - bytes of linear data. */
static inline unsigned int
skb_headlen(const struct sk_buff *skb)
{
	return skb->len - skb->data_len;
}

/** skb_is_nonlinear() - does @skb have fragment bytes? */
static inline bool
skb_is_nonlinear(const struct sk_buff *skb)
{
	return skb->data_len != 0;
}

/**
 * skb_reserve() - make @len bytes of headroom in an empty skb.
 * Context: the skb's holder; @skb has no data yet (the kernel's rule).
 */
static inline void
skb_reserve(struct sk_buff *skb, int len)
{
	skb->data += len;
	skb->tail += len;
}

/** skb_mark_for_recycle() - the skb's pages go back to their page_pool. */
static inline void
skb_mark_for_recycle(struct sk_buff *skb)
{
	skb->pp_recycle = 1;
}

/** skb_mac_header() - the Ethernet header. */
static inline unsigned char *
skb_mac_header(const struct sk_buff *skb)
{
	return skb->head + skb->mac_header;
}

/** skb_reset_mac_header() - the MAC header starts at data. */
static inline void
skb_reset_mac_header(struct sk_buff *skb)
{
	skb->mac_header = (uint16_t)(skb->data - skb->head);
}

/** skb_network_header() - the network (IP) header. */
static inline unsigned char *
skb_network_header(const struct sk_buff *skb)
{
	return skb->head + skb->network_header;
}

/** skb_reset_network_header() - the network header starts at data. */
static inline void
skb_reset_network_header(struct sk_buff *skb)
{
	skb->network_header = (uint16_t)(skb->data - skb->head);
}

/*
 * ---- Fragments: the kernel's inline accessors and fillers --------------
 *
 * What a TX path builds its skbs with (tcp_sendmsg() and the seed 004
 * callers): inline and unchecked, as in the kernel, where the caller
 * already knows @i is the next free slot. skb_add_rx_frag() is the
 * checked, out-of-line way to attach one. The kernel's
 * __skb_fill_page_desc() also marks the skb pfmemalloc for a page from the
 * reserves; pagepool's skbs carry no such mark.
 */

/** skb_frag_page() - the page @frag's bytes lie in. */
static inline struct page *
skb_frag_page(const skb_frag_t *frag)
{
	return frag->netmem;
}

/** skb_frag_size() - how many bytes @frag holds. */
static inline unsigned int
skb_frag_size(const skb_frag_t *frag)
{
	return frag->len;
}

/** skb_frag_size_set() - @frag holds @size bytes. */
static inline void
skb_frag_size_set(skb_frag_t *frag, unsigned int size)
{
	frag->len = size;
}

/** skb_frag_size_add() - @frag grows by @delta bytes at its end. */
static inline void
skb_frag_size_add(skb_frag_t *frag, int delta)
{
	frag->len += (unsigned int)delta;
}

/** skb_frag_size_sub() - @frag loses @delta bytes at its end. */
static inline void
skb_frag_size_sub(skb_frag_t *frag, int delta)
{
	frag->len -= (unsigned int)delta;
}

/** skb_frag_off() - where @frag's bytes start in its page. */
static inline unsigned int
skb_frag_off(const skb_frag_t *frag)
{
	return frag->offset;
}

/** skb_frag_off_set() - @frag's bytes start at @offset in its page. */
static inline void
skb_frag_off_set(skb_frag_t *frag, unsigned int offset)
{
	frag->offset = offset;
}

/** skb_frag_off_add() - move @frag's start @delta bytes on. */
static inline void
skb_frag_off_add(skb_frag_t *frag, int delta)
{
	frag->offset += (unsigned int)delta;
}

/** skb_frag_address() - the address of @frag's first byte. */
static inline void *
skb_frag_address(const skb_frag_t *frag)
{
	return (unsigned char *)page_address(skb_frag_page(frag)) +
	       skb_frag_off(frag);
}

/** skb_frag_fill_page_desc() - @frag is bytes [@off, @off + @size) of @page. */
static inline void
skb_frag_fill_page_desc(skb_frag_t *frag, struct page *page, int off,
			int size)
{
	frag->netmem = page;
	frag->offset = (unsigned int)off;
	frag->len = (unsigned int)size;
}

/**
 * __skb_fill_page_desc() - slot @i of @skb is bytes [@off, @off + @size) of
 * @page; nr_frags and the lengths unchanged.
 */
static inline void
__skb_fill_page_desc(struct sk_buff *skb, int i, struct page *page, int off,
		     int size)
{
	skb_frag_fill_page_desc(&skb_shinfo(skb)->frags[i], page, off, size);
}

/**
 * skb_fill_page_desc() - as __skb_fill_page_desc(), and @skb then has
 * @i + 1 fragments. The skb takes over the caller's reference to @page;
 * its lengths are the caller's to add (skb_len_add()).
 */
static inline void
skb_fill_page_desc(struct sk_buff *skb, int i, struct page *page, int off,
		   int size)
{
	__skb_fill_page_desc(skb, i, page, off, size);
	skb_shinfo(skb)->nr_frags = (uint8_t)(i + 1);
}

/** skb_len_add() - @delta more fragment bytes: len, data_len, truesize. */
static inline void
skb_len_add(struct sk_buff *skb, int delta)
{
	skb->len += (unsigned int)delta;
	skb->data_len += (unsigned int)delta;
	skb->truesize += (unsigned int)delta;
}

/**
 * skb_can_coalesce() - would bytes at @off of @page continue fragment
 * @i - 1 of @skb, so that fragment can grow (skb_frag_size_add()) instead
 * of slot @i taking a new one? Never for @i 0.
 */
static inline bool
skb_can_coalesce(const struct sk_buff *skb, int i, const struct page *page,
		 int off)
{
	const skb_frag_t *frag;

	if (i == 0)
		return false;
	frag = &skb_shinfo(skb)->frags[i - 1];
	return page == skb_frag_page(frag) &&
	       (unsigned int)off == skb_frag_off(frag) + skb_frag_size(frag);
}

/**
 * __skb_put() - add @len bytes of data at the tail, unchecked.
 * Return: where the new bytes start.
 */
static inline void *
__skb_put(struct sk_buff *skb, unsigned int len)
{
	void *tmp = skb_tail_pointer(skb);

	skb->tail += len;
	skb->len += len;
	return tmp;
}

/** __skb_push() - prepend @len bytes from the headroom, unchecked. */
static inline void *
__skb_push(struct sk_buff *skb, unsigned int len)
{
	skb->data -= len;
	skb->len += len;
	return skb->data;
}

/** __skb_pull() - remove @len bytes from the start, unchecked. */
static inline void *
__skb_pull(struct sk_buff *skb, unsigned int len)
{
	skb->len -= len;
	skb->data += len;
	return skb->data;
}

/**
 * skb_put() - add @len bytes of data at the tail.
 * Return: where the new bytes start; NULL (errno EINVAL, @skb unchanged)
 * if the tailroom is too small or @skb is non-linear, where the kernel
 * panics.
 */
PP_API void *skb_put(struct sk_buff *skb, unsigned int len);

/**
 * skb_push() - prepend @len bytes from the headroom.
 * Return: the new data; NULL (errno EINVAL, unchanged) if the headroom is
 * too small.
 */
PP_API void *skb_push(struct sk_buff *skb, unsigned int len);

/**
 * skb_pull() - remove @len bytes from the start of the linear data.
 * Return: the new data; NULL (unchanged) if @len exceeds the linear data.
 */
PP_API void *skb_pull(struct sk_buff *skb, unsigned int len);

/**
 * build_skb() - an skb whose head is @data, a buffer of @frag_size bytes
 * ending with room for struct skb_shared_info.
 * @data: a page fragment: a page_pool page (mark the skb for recycling) or
 *	any page of the page allocator
 * @frag_size: the buffer's size; more than SKB_DATA_ALIGN(sizeof(struct
 *	skb_shared_info))
 *
 * The skb has no data yet: skb_reserve() the headroom, skb_put() the
 * length. The struct comes from the general allocator.
 * Context: any thread.
 * Return: the skb; NULL with errno EINVAL (NULL @data, @frag_size too
 * small or above 64 KiB) or ENOMEM. The buffer is not freed on failure.
 */
PP_API struct sk_buff *build_skb(void *data, unsigned int frag_size);

/**
 * napi_build_skb() - build_skb() with the struct from the calling thread's
 * skb cache: the driver's RX path.
 */
PP_API struct sk_buff *napi_build_skb(void *data, unsigned int frag_size);

/**
 * alloc_skb() - an skb with a head of at least @size bytes, not a page
 * fragment: up to the kernel's small-head size from the thread's stack of
 * small heads (the skb then gets all of it), else from the general
 * allocator.
 * Return: the skb; NULL with errno EINVAL (size above 64 KiB) or ENOMEM.
 */
PP_API struct sk_buff *alloc_skb(unsigned int size, gfp_t gfp);

/**
 * skb_add_rx_frag() - attach bytes [@off, @off + @size) of @page as
 * fragment @i.
 * @truesize: the memory the fragment pins (a whole page, usually)
 *
 * The skb takes over the caller's reference to @page.
 * Return: 0; -EINVAL for NULL arguments or @i outside [0, MAX_SKB_FRAGS)
 * (the skb is then unchanged and the reference still the caller's).
 */
PP_API int skb_add_rx_frag(struct sk_buff *skb, int i, struct page *page,
			   int off, int size, unsigned int truesize);

/**
 * pskb_expand_head() - move the linear data to a new head with @nhead more
 * bytes of headroom and @ntail more of tailroom (the generic XDP path, when
 * a driver left too little headroom).
 *
 * The new head is taken as alloc_skb() takes one; the old one is freed
 * as the skb's pages are (recycled if marked).
 * Return: 0; -EINVAL, -ENOMEM (the skb is then unchanged).
 */
PP_API int pskb_expand_head(struct sk_buff *skb, int nhead, int ntail,
			    gfp_t gfp);

/**
 * skb_linearize() - copy every fragment byte of @skb into its head, growing
 * the head (pskb_expand_head()) if its tailroom is short, and release the
 * fragments as freeing the skb would (to their page_pool if marked).
 * Return: 0 (also for a linear skb); -EINVAL, -ENOMEM (the skb is then
 * unchanged).
 * Context: the skb's holder.
 */
PP_API int skb_linearize(struct sk_buff *skb);

/** skb_get() - take another reference to @skb. */
static inline struct sk_buff *
skb_get(struct sk_buff *skb)
{
	/* Relaxed: the caller already holds a reference; the release of the
	 * data pairs with the acq_rel drop R6 in skbuff.c. */
	pp_fetch_add_relaxed(&skb->users, 1);
	return skb;
}

/**
 * napi_pp_put_page() - give @page back to its page_pool if it belongs to
 * one (directly when the caller is the pool's owner, through the ring
 * otherwise).
 * Return: true if it was a page_pool page; false, untouched, if not.
 * Context: any thread holding the page's pool reference.
 */
PP_API bool napi_pp_put_page(struct page *page);

/**
 * kfree_skb() - drop a reference; the last frees the skb as a drop.
 * consume_skb() - the same, for an skb consumed normally.
 * @skb: the skb, or NULL
 *
 * The struct goes to the general allocator.
 * Context: any thread.
 */
PP_API void kfree_skb(struct sk_buff *skb);
/** consume_skb() - see kfree_skb(). */
PP_API void consume_skb(struct sk_buff *skb);

/**
 * napi_consume_skb() - consume_skb() from a NAPI poll: the struct goes to
 * the calling thread's skb cache.
 * @budget: the poll's budget; 0 means not from NAPI (netpoll), and the skb
 *	is freed as consume_skb() does
 * Context: the NAPI thread.
 */
PP_API void napi_consume_skb(struct sk_buff *skb, int budget);

/**
 * pp_skb_cache_thread_drain() - give the calling thread's cached skb
 * structs (its napi cache and the structs kfree_skb() kept) back to the
 * general allocator (done at thread exit anyway).
 */
PP_API void pp_skb_cache_thread_drain(void);

#ifdef __cplusplus
}
#endif

#endif /* PAGEPOOL_SKBUFF_H */
