// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The seed 004 TX path (copy into page_frag_cache fragments with prepare /
 * probe / commit, attach them to a TX skb) and tun's receive into the room
 * left in a fragment, each beside the pre-seed struct page_frag path, so a
 * tool can run both on the same frames. See frag_sock.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pagepool/page.h>

#include "frag_sock.h"

/* The block skb_page_frag_refill() tries first: 32 KiB (order 3 at 4 KiB). */
#define FRAG_SOCK_PAGE_ORDER	PAGE_FRAG_CACHE_MAX_ORDER

void
frag_sock_init(struct frag_sock *sk, enum frag_sock_path path)
{
	memset(sk, 0, sizeof(*sk));
	sk->path = path;
	page_frag_cache_init(&sk->nc);
}

int
frag_sock_bind(struct frag_sock *sk)
{
	int err;

	if (sk->path != FRAG_SOCK_CACHE || sk->bound)
		return 0;
	err = page_frag_cache_bind(&sk->nc);
	sk->bound = err == 0;
	return err;
}

void
frag_sock_release(struct frag_sock *sk)
{
	if (sk->path == FRAG_SOCK_CACHE) {
		if (sk->bound)
			(void)page_frag_cache_unbind(&sk->nc);
		sk->bound = false;
		page_frag_cache_drain(&sk->nc);
	} else if (sk->pf.page != NULL) {
		put_page(sk->pf.page);
		sk->pf.page = NULL;
	}
}

bool
frag_sock_page_frag_refill(unsigned int sz, struct page_frag *pf)
{
	if (pf->page != NULL) {
		/*
		 * Only our own reference left: every fragment came back, so
		 * the whole block is ours to write again. A1: acquire, pairs
		 * with the release half (R2) of the acq_rel decrement in
		 * put_page() on the thread that freed the last fragment, so
		 * its reads of the old bytes come before our new writes.
		 * page_ref_count() is relaxed: enough in the kernel, where
		 * the control dependency orders the stores, but not in C11.
		 */
		if (pp_load_acquire(&pf->page->_refcount) == 1) {
			pf->offset = 0;
			return true;
		}
		if (pf->offset + sz <= pf->size)
			return true;
		put_page(pf->page);
		pf->page = NULL;
	}
	pf->offset = 0;
	if (FRAG_SOCK_PAGE_ORDER > 0) {
		/* A large block is a bonus; do not work hard for it. */
		pf->page = alloc_pages(GFP_KERNEL | __GFP_COMP | __GFP_NOWARN |
				       __GFP_NORETRY, FRAG_SOCK_PAGE_ORDER);
		if (pf->page != NULL) {
			pf->size = PAGE_SIZE << FRAG_SOCK_PAGE_ORDER;
			return true;
		}
	}
	pf->page = alloc_pages(GFP_KERNEL, 0);
	if (pf->page == NULL)
		return false;
	pf->size = PAGE_SIZE;
	return true;
}

/* A fragment of @page's block was handed out: remember the block. */
static void
frag_sock_track_slow(struct frag_sock *sk, struct page *page)
{
	unsigned int mask, i;

	if (2 * (sk->nr_blocks + 1) > sk->blocks_cap) {
		unsigned int cap = sk->blocks_cap ? 2 * sk->blocks_cap : 64;
		struct page **nb = calloc(cap, sizeof(*nb));

		if (nb == NULL) {
			sk->untracked++;
			return;
		}
		for (unsigned int j = 0; j < sk->blocks_cap; j++) {
			if (sk->blocks[j] == NULL)
				continue;
			i = (unsigned int)((uintptr_t)sk->blocks[j] >> 6) & (cap - 1);
			while (nb[i] != NULL)
				i = (i + 1) & (cap - 1);
			nb[i] = sk->blocks[j];
		}
		free(sk->blocks);
		sk->blocks = nb;
		sk->blocks_cap = cap;
	}
	mask = sk->blocks_cap - 1;
	for (i = (unsigned int)((uintptr_t)page >> 6) & mask;
	     sk->blocks[i] != NULL; i = (i + 1) & mask)
		if (sk->blocks[i] == page)
			return;
	sk->blocks[i] = page;
	sk->nr_blocks++;
}

/*
 * A fragment of @page's block was handed out. A block other than the
 * previous fragment's is one opened because room ran out (a rewind keeps
 * the block), on either path: counted here, where both pass. Both pass
 * the block's head page, so the usual case is settled by the pointer,
 * without reading the page's descriptor: that line also holds the
 * block's count, which another thread's frees keep writing, and this
 * record is the tool's, not the path under test.
 */
static inline void
frag_sock_track(struct frag_sock *sk, struct page *page)
{
	if (PP_LIKELY(page == sk->last))
		return;
	page = compound_head(page);
	if (page == sk->last)
		return;
	if (sk->last != NULL)
		sk->refills++;
	sk->last = page;
	frag_sock_track_slow(sk, page);
}

void
frag_sock_destroy(struct frag_sock *sk)
{
	free(sk->blocks);
	sk->blocks = NULL;
	sk->nr_blocks = sk->blocks_cap = 0;
	sk->last = NULL;
}

long
frag_sock_blocks_held(const struct frag_sock *sk)
{
	long held = 0;

	if (sk->untracked > 0)
		return -1;
	for (unsigned int i = 0; i < sk->blocks_cap; i++) {
		if (sk->blocks[i] == NULL)
			continue;
		/* A block whose region went back to the system (the
		 * default source's dirty decay) is free, and its descriptor
		 * unmapped: ask the allocator by address before reading. */
		if (pp_page_source(sk->blocks[i]) == NULL)
			continue;
		held += page_ref_count(sk->blocks[i]) != 0;
	}
	return held;
}

/* Copy @n bytes of @iov, after skipping @skip, to @dst. */
static void
iov_copy(void *dst, const struct iovec *iov, int iovcnt, size_t skip,
	 size_t n)
{
	unsigned char *d = dst;

	for (int i = 0; i < iovcnt && n > 0; i++) {
		size_t len = iov[i].iov_len, c;

		if (skip >= len) {
			skip -= len;
			continue;
		}
		c = len - skip < n ? len - skip : n;
		memcpy(d, (const unsigned char *)iov[i].iov_base + skip, c);
		d += c;
		n -= c;
		skip = 0;
	}
}

/*
 * The copied bytes, [@off, @off + @n) of @page, join @skb as
 * tcp_sendmsg() adds them on either allocator: grown into fragment
 * @i - 1 when @merge (they continue it; its reference covers them), else
 * fragment @i, taking over a reference the caller took. Either way the
 * skb's lengths grow by @n.
 */
static void
frag_sock_attach(struct frag_sock *sk, struct sk_buff *skb, int i,
		 bool merge, struct page *page, unsigned int off, size_t n)
{
	if (merge) {
		skb_frag_size_add(&skb_shinfo(skb)->frags[i - 1], (int)n);
		sk->coalesced++;
	} else {
		skb_fill_page_desc(skb, i, page, (int)off, (int)n);
	}
	skb_len_add(skb, (int)n);
}

/* One copy into the page_frag_cache: the seed's tcp_sendmsg() step. */
static ssize_t
frag_sock_copy_cache(struct frag_sock *sk, struct sk_buff *skb,
		     const struct iovec *iov, int iovcnt, size_t skip,
		     size_t left)
{
	struct page_frag pf;
	bool merge;
	ssize_t n;
	void *va;
	int i, ret;

	/*
	 * Take what is left after the last fragment, if enough (probe: it
	 * never opens a block, and costs less than prepare)...
	 */
	va = page_frag_alloc_refill_probe(&sk->nc, FRAG_SOCK_MIN_ROOM, &pf);
	if (va == NULL) {
		/* ...else a fresh block (or this one again, if all is back). */
		va = page_frag_alloc_refill_prepare(&sk->nc,
						    FRAG_SOCK_MIN_ROOM, &pf,
						    GFP_KERNEL);
		if (va == NULL)
			return -ENOMEM;
	}
	frag_sock_track(sk, pf.page);
	i = skb_shinfo(skb)->nr_frags;
	merge = skb_can_coalesce(skb, i, pf.page, (int)pf.offset);
	if (!merge && i >= MAX_SKB_FRAGS)
		return -EMSGSIZE;	/* nothing committed: nothing to undo */
	if (sk->nocache) {
		n = page_frag_copy_to_va_nocache(&pf, iov, iovcnt, skip);
		if (n <= 0)
			return n < 0 ? n : -EINVAL;
	} else {
		n = (ssize_t)(left < pf.size ? left : pf.size);
		iov_copy(va, iov, iovcnt, skip, (size_t)n);
	}
	/* A new fragment's reference is the one the commit hands out. */
	ret = merge ? page_frag_commit_noref(&sk->nc, &pf, (unsigned int)n)
		    : page_frag_commit(&sk->nc, &pf, (unsigned int)n);
	if (ret < 0)
		return ret;
	frag_sock_attach(sk, skb, i, merge, pf.page, pf.offset, (size_t)n);
	return n;
}

/* One copy into the plain page_frag: the pre-seed tcp_sendmsg() step. */
static ssize_t
frag_sock_copy_page_frag(struct frag_sock *sk, struct sk_buff *skb,
			 const struct iovec *iov, int iovcnt, size_t skip,
			 size_t left)
{
	struct page_frag *pf = &sk->pf;
	bool merge;
	size_t n;
	int i;

	if (!frag_sock_page_frag_refill(FRAG_SOCK_MIN_ROOM, pf))
		return -ENOMEM;
	frag_sock_track(sk, pf->page);
	n = pf->size - pf->offset;
	if (n > left)
		n = left;
	i = skb_shinfo(skb)->nr_frags;
	merge = skb_can_coalesce(skb, i, pf->page, (int)pf->offset);
	if (!merge && i >= MAX_SKB_FRAGS)
		return -EMSGSIZE;
	iov_copy((unsigned char *)page_address(pf->page) + pf->offset, iov,
		 iovcnt, skip, n);
	/* One page reference per fragment, the skb's to drop. */
	if (!merge)
		get_page(pf->page);
	frag_sock_attach(sk, skb, i, merge, pf->page, pf->offset, n);
	pf->offset += (uint32_t)n;
	return (ssize_t)n;
}

ssize_t
frag_sock_sendmsg(struct frag_sock *sk, struct sk_buff *skb,
		  const struct iovec *iov, int iovcnt)
{
	size_t total = 0, done = 0;
	ssize_t n;

	if (sk == NULL || skb == NULL || iov == NULL || iovcnt < 0)
		return -EINVAL;
	for (int i = 0; i < iovcnt; i++)
		total += iov[i].iov_len;
	while (done < total) {
		if (sk->path == FRAG_SOCK_CACHE)
			n = frag_sock_copy_cache(sk, skb, iov, iovcnt, done,
						 total - done);
		else
			n = frag_sock_copy_page_frag(sk, skb, iov, iovcnt,
						     done, total - done);
		if (n < 0)
			return done > 0 && n == -EMSGSIZE ? (ssize_t)done : n;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

ssize_t
frag_sock_read_frame(struct frag_sock *sk, int fd, unsigned int max_len,
		     struct frag_frame *fr)
{
	struct page_frag pf;
	ssize_t n;
	void *va;
	int ret;

	if (sk == NULL || fr == NULL || max_len == 0)
		return -EINVAL;
	/*
	 * Each frame starts on a cache line, as tun_build_skb() aligns the
	 * offset to SMP_CACHE_BYTES before its refill: the kernel's copy of
	 * the frame then starts on a line, and the frame shares no line
	 * with the fragment before it, which its holder may still be using.
	 */
	if (sk->path == FRAG_SOCK_CACHE) {
		va = page_frag_alloc_refill_prepare_align(&sk->nc, max_len, &pf,
							  GFP_KERNEL,
							  SMP_CACHE_BYTES);
		if (va == NULL && errno == ENOMEM && max_len > PAGE_SIZE) {
			/*
			 * A request above a page that does not fit in what is
			 * left fails and keeps the block (the kernel's rule, so
			 * one large frame cannot throw a block away). A frame
			 * must be whole, so leave the block to its fragments
			 * and take a fresh one.
			 */
			page_frag_cache_drain(&sk->nc);
			va = page_frag_alloc_refill_prepare_align(
				&sk->nc, max_len, &pf, GFP_KERNEL,
				SMP_CACHE_BYTES);
		}
		if (va == NULL)
			return -errno;
	} else {
		/* Past the size, the refill's room test fails: a new page. */
		sk->pf.offset = SKB_DATA_ALIGN(sk->pf.offset);
		if (!frag_sock_page_frag_refill(max_len, &sk->pf))
			return -ENOMEM;
		pf = sk->pf;
		va = (unsigned char *)page_address(pf.page) + pf.offset;
	}
	frag_sock_track(sk, pf.page);
	n = read(fd, va, max_len);
	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	if (n == 0)
		return 0;
	if (sk->path == FRAG_SOCK_CACHE) {
		/* Only the bytes read become the fragment; the rest stays. */
		ret = page_frag_commit(&sk->nc, &pf, (unsigned int)n);
		if (ret < 0)
			return ret;
	} else {
		get_page(pf.page);
		sk->pf.offset += (uint32_t)n;
	}
	fr->page = pf.page;
	fr->va = va;
	fr->offset = pf.offset;
	fr->len = (uint32_t)n;
	return n;
}

void
frag_frame_free(struct frag_frame *fr)
{
	page_frag_free(fr->va);
	fr->page = NULL;
	fr->va = NULL;
}
