/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * libFuzzer harness for page_frag_cache: each input is a sequence of calls
 * on two caches - one the harness owns, and the thread's own cache behind
 * netdev_alloc_frag() - allocating with and without alignment, reserving
 * with prepare and probe, committing (with and without a reference),
 * aborting, freeing (by any address inside a fragment) and draining. After
 * every call: live fragments lie inside their block, are aligned as asked
 * and never overlap; each keeps the bytes written into it; and each block's
 * reference count is exactly its live fragments plus the references the
 * cache still holds (pagecnt_bias), so a reference lost or taken twice
 * shows at the call that did it. Built with ASan, UBSan and the debug
 * checks (which also catch a second free), the end of each input frees
 * everything and expects no debug error.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <pagepool/page_frag_cache.h>

#define MAX_LIVE 256

struct frag {
	unsigned char *va;
	unsigned int len;
	unsigned char tag;
	int cache;		/* 0: the harness's cache, 1: the thread's */
};

static struct frag live[MAX_LIVE];
static int nlive;

/* The latest fragment each cache handed out, while abort may undo it. */
static int latest[2] = { -1, -1 };

static void
fail(const char *why)
{
	fprintf(stderr, "page_frag_fuzz: %s\n", why);
	__builtin_trap();
}

static struct page *
block_of(const void *va)
{
	struct page *page = virt_to_page(va);

	if (page == NULL)
		fail("fragment not in allocator memory");
	return compound_head(page);
}

static struct page *
cached_block(const struct page_frag_cache *nc)
{
	if (nc->encoded_page == 0)
		return NULL;
	return block_of((void *)(nc->encoded_page & PAGE_MASK));
}

static void
check_contents(const struct frag *f)
{
	static unsigned char pattern[PAGE_FRAG_CACHE_MAX_SIZE];

	/* memcmp, not a byte loop the fuzzer would instrument. */
	memset(pattern, f->tag, f->len);
	if (memcmp(f->va, pattern, f->len) != 0)
		fail("a live fragment's bytes changed");
}

/* A new fragment: in its block, not overlapping any other; filled. */
static int
add_frag(unsigned char *va, unsigned int len, int cache, unsigned char tag)
{
	struct page *head = block_of(va);
	unsigned char *base = page_address(head);
	size_t bsz = PAGE_SIZE << compound_order(head);
	int i;

	if (va < base || va + len > base + bsz)
		fail("fragment runs past its block");
	for (i = 0; i < nlive; i++) {
		if (va < live[i].va + live[i].len && live[i].va < va + len)
			fail("fragments overlap");
	}
	if (nlive == MAX_LIVE)
		fail("harness: too many fragments");
	memset(va, tag, len);
	live[nlive] = (struct frag){ va, len, tag, cache };
	return nlive++;
}

static void
del_frag(int k)
{
	int c;

	live[k] = live[--nlive];
	for (c = 0; c < 2; c++) {
		if (latest[c] == k)
			latest[c] = -1;
		else if (latest[c] == nlive)
			latest[c] = k;
	}
}

/*
 * Every block's reference count is its live fragments plus what a cache
 * holding it has not handed out yet.
 */
static void
check_refs(struct page_frag_cache *const nc[2])
{
	struct page *cb[2] = { cached_block(nc[0]), cached_block(nc[1]) };
	int i, j, c;

	for (c = 0; c < 2; c++) {
		if (cb[c] != NULL && nc[c]->offset >
		    (PAGE_SIZE << compound_order(cb[c])))
			fail("cache offset past its block");
	}
	for (i = 0; i < nlive; i++) {
		struct page *head = block_of(live[i].va);
		long want = 0;

		for (j = 0; j < nlive; j++) {
			if (block_of(live[j].va) == head) {
				if (j < i)
					break;
				want++;
			}
		}
		if (j < nlive && j < i)
			continue;	/* block already checked */
		for (c = 0; c < 2; c++) {
			if (cb[c] == head)
				want += nc[c]->pagecnt_bias;
		}
		if (page_ref_count(head) != want)
			fail("block refcount is not live fragments + bias");
	}
	for (c = 0; c < 2; c++) {
		long want;

		if (cb[c] == NULL)
			continue;
		want = nc[c]->pagecnt_bias;
		for (j = 0; j < nlive; j++) {
			if (block_of(live[j].va) == cb[c])
				want++;
		}
		if (c == 1 && cb[0] == cb[1])
			fail("two caches hold one block");
		if (page_ref_count(cb[c]) != want)
			fail("cached block refcount is not live fragments + bias");
	}
}

static unsigned int
frag_size(uint8_t arg, uint8_t sel)
{
	/* Mostly small, sometimes past a page, rarely the cache maximum. */
	switch (sel % 8) {
	case 0:
		return PAGE_FRAG_CACHE_MAX_SIZE - arg;
	case 1:
		return (unsigned int)arg * 128 + 1;
	default:
		return (unsigned int)arg * 8 + 1;
	}
}

static void
free_frag(int k, unsigned int where)
{
	check_contents(&live[k]);
	/* Any address inside the fragment frees it. */
	page_frag_free(live[k].va + where % live[k].len);
	del_frag(k);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct page_frag_cache own;
	struct page_frag_cache *nc[2];
	struct page_frag pending = { 0 };
	int pending_cache = -1;
	uint64_t errors0 = page_frag_debug_errors();
	unsigned char tag = 0;
	size_t i;

	page_frag_cache_init(&own);
	nc[0] = &own;
	nc[1] = pp_frag_cache_thread();
	nlive = 0;
	latest[0] = latest[1] = -1;
	for (i = 0; i + 2 < size; i += 3) {
		uint8_t op = data[i], arg = data[i + 1], sel = data[i + 2];
		int c = sel >> 7, k, ret;
		unsigned int len = frag_size(arg, sel), align;
		struct page_frag pf;
		unsigned char *va;

		tag++;
		/* Anything but a commit invalidates a prepared space. */
		if (op % 10 != 3)
			pending_cache = -1;
		switch (op % 10) {
		case 0:	/* allocate, unaligned or aligned */
		case 1:
			align = 1u << ((sel >> 3) % (PAGE_SHIFT + 1));
			if (c == 1)
				va = op % 10 ? netdev_alloc_frag_align(len, align)
					     : netdev_alloc_frag(len);
			else
				va = op % 10 ? page_frag_alloc_align(
						       nc[0], len, GFP_KERNEL,
						       align)
					     : page_frag_alloc(nc[0], len,
							       GFP_KERNEL);
			if (op % 10 == 0)
				align = 1;
			if (va == NULL) {
				if (len <= PAGE_SIZE)
					fail("a small allocation failed");
				break;
			}
			if ((uintptr_t)va & (align - 1))
				fail("fragment not aligned as asked");
			latest[c] = add_frag(va, len, c, tag);
			break;
		case 2:	/* reserve space; a commit may follow */
			align = 1u << ((sel >> 3) % 7);
			va = page_frag_alloc_refill_prepare_align(
				nc[c], len, &pf, GFP_KERNEL, align);
			if (va == NULL) {
				if (len <= PAGE_SIZE)
					fail("a small prepare failed");
				break;
			}
			if (va != (unsigned char *)page_address(pf.page) +
					  pf.offset ||
			    pf.size < len || ((uintptr_t)va & (align - 1)))
				fail("prepare described other space");
			/* The whole space is free: write it all. */
			for (k = 0; k < nlive; k++) {
				if (va < live[k].va + live[k].len &&
				    live[k].va < va + pf.size)
					fail("prepared space overlaps a fragment");
			}
			memset(va, 0x5a, pf.size);
			/* A new block ends what abort may undo. */
			if (latest[c] >= 0 &&
			    block_of(live[latest[c]].va) != pf.page)
				latest[c] = -1;
			pending = pf;
			pending_cache = c;
			break;
		case 3:	/* commit what was prepared */
			if (pending_cache < 0) {
				if (page_frag_commit(nc[c], &pending, 0) !=
				    -EINVAL)
					fail("commit of 0 bytes accepted");
				break;
			}
			c = pending_cache;
			pending_cache = -1;
			len = 1 + len % pending.size;
			va = (unsigned char *)page_address(pending.page) +
			     pending.offset;
			if (arg & 1) {
				struct iovec iov = { (void *)(uintptr_t)data,
						     size };

				if (page_frag_copy_to_va_nocache(&pending, &iov,
								 1, i) < 0)
					fail("copy into prepared space");
			}
			ret = page_frag_commit(nc[c], &pending, len);
			if (ret < (int)len)
				fail("commit returned less than committed");
			latest[c] = add_frag(va, len, c, tag);
			break;
		case 4: {	/* append to the latest fragment, or commit new */
			va = page_frag_alloc_refill_probe(nc[c], len, &pf);
			if (va == NULL)
				break;
			k = latest[c];
			if (k >= 0 && live[k].va + live[k].len == va) {
				for (int j = 0; j < nlive; j++) {
					if (va < live[j].va + live[j].len &&
					    live[j].va < va + len)
						fail("probed space overlaps");
				}
				if (page_frag_commit_noref(nc[c], &pf, len) !=
				    (int)len)
					fail("commit_noref");
				memset(va, live[k].tag, len);
				live[k].len += len;
			} else {
				if (page_frag_commit(nc[c], &pf, len) < (int)len)
					fail("commit after probe");
				latest[c] = add_frag(va, len, c, tag);
			}
			break;
		}
		case 5:	/* undo the latest allocation */
			k = latest[c];
			if (k < 0 || live[k].cache != c)
				break;
			check_contents(&live[k]);
			if (page_frag_alloc_abort(nc[c], live[k].va,
						  live[k].len) != 0)
				fail("abort of the latest allocation refused");
			del_frag(k);
			latest[c] = -1;
			break;
		case 6:	/* abort of anything else is refused */
			if (nlive == 0)
				break;
			k = arg % nlive;
			if (k == latest[0] || k == latest[1])
				break;
			/* After an abort, the fragment before it is the
			 * cache's latest again, and may be undone too. */
			if (nc[c]->encoded_page != 0 &&
			    live[k].va + live[k].len ==
				    (unsigned char *)(nc[c]->encoded_page &
						      PAGE_MASK) +
					    nc[c]->offset)
				break;
			if (page_frag_alloc_abort(nc[c], live[k].va,
						  live[k].len) != -EINVAL)
				fail("abort of an older fragment accepted");
			break;
		case 7:
		case 8:
			if (nlive == 0)
				break;
			free_frag(arg % nlive, sel);
			break;
		case 9:	/* give the cached block back */
			if (c == 0)
				page_frag_cache_drain(nc[0]);
			else
				pp_frag_cache_thread_drain();
			latest[c] = -1;
			break;
		}
		check_refs(nc);
	}
	for (i = 0; i < (size_t)nlive; i++)
		check_contents(&live[i]);
	while (nlive > 0)
		free_frag(nlive - 1, 0);
	page_frag_cache_drain(&own);
	pp_frag_cache_thread_drain();
	if (page_frag_debug_errors() != errors0)
		fail("the debug checks refused a free");
	return 0;
}
