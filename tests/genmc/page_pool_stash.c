/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * GenMC: the per-thread return stash (the real src/net/core/page_pool_stash.c,
 * ENV_STASH in page_pool_env.h) against its pool's owner. The owner thread
 * registers itself (napi_init_current(), page_pool_enable_direct_recycling()),
 * allocates the pool's pages, hands some to a remote thread, and then
 * destroys the pool, retrying the release as the deferred-release thread
 * would. The remote thread writes each page (the packet's data) and puts
 * it: not being the owner, it puts into its stash, which reaches the ring
 * when it fills, when the thread exits, or when the destroy steals it.
 *
 * MODE selects what runs. Only STEAL races a put with the whole destroy;
 * the others start the destroy once the remote thread has said (a flag,
 * release/acquire) that the steps before it are done, which keeps each
 * configuration to the race it is about and to a few dozen executions:
 *  STEAL  the remote thread stashes one page and stays (no exit), racing
 *         the destroy, which takes the page out of its stash
 *         (_pp_stash_steal()); meanwhile the owner recycles a page of its
 *         own (direct);
 *  REUSE  the remote thread stashes a page, says so, and puts two more
 *         while the owner steals from the stashes (_pp_stash_steal(), as
 *         page_pool_release() does, but without the rest of the destroy,
 *         which follows once the remote thread is done): the second put
 *         fills the stash (PP_STASH_SIZE and the flush threshold are 2)
 *         unless the steal emptied it, and the third writes the slot entry
 *         of the first again, which the steal may just have read out;
 *  FULL   the remote thread puts two pages (the second flushes the stash
 *         into the ring) while the owner allocates: it may refill from the
 *         ring with a page the remote thread wrote, and writes it; the
 *         destroy follows both;
 *  EXIT   the remote thread stashes one page, says so, and exits: its
 *         stash's destructor flushes the page into the ring, unlinks the
 *         stash and frees it, while the destroy walks the stashes;
 *  BULK   the owner gives one of two fragment references of a page to the
 *         remote thread, which writes the page and drops its reference,
 *         while the owner puts its own with page_pool_put_page_bulk(): if
 *         that is the last, the owner's bulk path (A3, a sole reference)
 *         caches the page, and the owner allocates it again and writes it;
 *         if the remote's is the last, the page goes to its stash, which
 *         the destroy steals.
 * With -DREMOTE_BULK=1 the remote thread returns its first page with a
 * single put (which claims the stash slot) and the rest with one
 * page_pool_put_page_bulk(): a non-owner's batch that passes the owner's
 * batch test (bulk_remote()) goes to the slot with one publication of its
 * entries (_pp_stash_put_remote_bulk()). REUSE then writes two entries
 * at once while the owner's steal reads the first; FULL fills the stash
 * with the bulk put; STEAL and BULK put their one page with a bulk put of
 * one (BULK: bulk_remote()'s sole-reference test against the owner's
 * drop).
 *
 * Checks: no access to the pool after it was freed, nor to a stash after
 * it was freed (GenMC's heap); every write to a page ordered before the
 * page's next owner writes it (the allocator's, or the pool's owner on a
 * reallocation); at the end no page is left in a stash, every page is back
 * in the allocator, the pool was freed once, and its counts reconcile
 * (every page the allocator gave it entered it and was released).
 */
#define MODE_STEAL 1
#define MODE_REUSE 2
#define MODE_FULL 3
#define MODE_EXIT 4
#define MODE_BULK 5

#ifndef MODE
#define MODE MODE_STEAL
#endif
#ifndef REMOTE_BULK
#define REMOTE_BULK 0
#endif

#define ENV_STASH 1
/* A ring of 8: the stash's flush threshold is a quarter of it, 2. */
#define ENV_RING 8
#if MODE == MODE_REUSE
#define ENV_NPAGES 3
#else
#define ENV_NPAGES 2
#endif

#include "page_pool_env.h"

#if MODE == MODE_REUSE
#define REMOTE_PAGES 3
#elif MODE == MODE_FULL
#define REMOTE_PAGES 2
#else
#define REMOTE_PAGES 1
#endif

static struct page_pool *pool;
static struct napi_struct napi;
static struct page *remote_page[REMOTE_PAGES];
/* The remote thread's stash, read by main after the joins. */
static struct pp_stash *remote_stash;
/* Set (release) by the remote thread once the steps the destroy waits for
 * are done; the owner waits for it (acquire) except in STEAL. */
static int remote_ready;

static void
say_ready(void)
{
	__atomic_store_n(&remote_ready, 1, __ATOMIC_RELEASE);
}

static void
write_page(struct page *page, char v)
{
	/* Plain: the packet's data. */
	((char *)page_address(page))[1] = v;
}

static void *
remote(void *arg)
{
	int i;

	(void)arg;
#if REMOTE_BULK && REMOTE_PAGES > 1
	/* The first page with a single put, which finds or claims the stash
	 * slot, the rest with one bulk put, which then takes the slot's fast
	 * path: one publication of their entries (no bulk put inside a loop:
	 * that trips an assertion in GenMC's LLVM passes). */
	write_page(remote_page[0], 'r');
	page_pool_put_full_page(pool, remote_page[0], false);
	if (MODE != MODE_FULL)
		say_ready();
	{
		struct page *bulk[REMOTE_PAGES - 1];

		for (i = 1; i < REMOTE_PAGES; i++) {
			write_page(remote_page[i], 'r');
			bulk[i - 1] = remote_page[i];
		}
		page_pool_put_page_bulk(bulk, REMOTE_PAGES - 1);
	}
#elif REMOTE_BULK
	/* The one page (BULK: the fragment page) in a bulk put of one. */
	{
		struct page *bulk[1];

		write_page(remote_page[0], 'r');
		bulk[0] = remote_page[0];
		page_pool_put_page_bulk(bulk, 1);
		say_ready();
	}
#else
	for (i = 0; i < REMOTE_PAGES; i++) {
		write_page(remote_page[i], 'r');
		page_pool_put_full_page(pool, remote_page[i], false);
		if (i == 0 && MODE != MODE_FULL)
			say_ready();
	}
#endif
	remote_stash = stash_self;
	if (MODE == MODE_FULL)
		say_ready();
#if MODE == MODE_EXIT
	env_thread_exit();
#endif
	return NULL;
}

static void *
owner(void *arg)
{
	struct page *own, *page;
	pthread_t r;
	int i;

	(void)arg;
	napi_init_current(&napi);
	assert(page_pool_enable_direct_recycling(pool, &napi) == 0);
#if MODE == MODE_BULK
	own = page_pool_alloc_pages(pool, GFP_KERNEL);
	assert(own != NULL);
	page_pool_fragment_page(own, 2);
	remote_page[0] = own;
	pthread_create(&r, NULL, remote, NULL);
	{
		struct page *bulk[1] = { own };

		page_pool_put_page_bulk(bulk, 1);
	}
	/* If the bulk put cached it, this is the same page. */
	page = page_pool_alloc_pages(pool, GFP_KERNEL);
	if (page != NULL) {
		write_page(page, 'o');
		page_pool_recycle_direct(pool, page);
	}
#else
	for (i = 0; i < REMOTE_PAGES; i++) {
		remote_page[i] = page_pool_alloc_pages(pool, GFP_KERNEL);
		assert(remote_page[i] != NULL);
	}
	own = NULL;
	if (MODE == MODE_STEAL) {
		own = page_pool_alloc_pages(pool, GFP_KERNEL);
		assert(own != NULL);
	}
	pthread_create(&r, NULL, remote, NULL);
	if (own != NULL) {
		write_page(own, 'o');
		page_pool_recycle_direct(pool, own);
	}
	if (MODE == MODE_FULL) {
		/* The cache is empty: a refill from the ring, or nothing. */
		page = page_pool_alloc_pages(pool, GFP_KERNEL);
		if (page != NULL) {
			write_page(page, 'o');
			page_pool_recycle_direct(pool, page);
		}
	}
#endif
	(void)i;
	if (MODE != MODE_STEAL)
		AWAIT(__atomic_load_n(&remote_ready, __ATOMIC_ACQUIRE));
	if (MODE == MODE_REUSE) {
		_pp_stash_steal(pool);
		pthread_join(r, NULL);
	}
	page_pool_destroy(pool);
	env_release_retry(pool, 2);
	if (MODE != MODE_REUSE)
		pthread_join(r, NULL);
	return NULL;
}

int
main(void)
{
	pthread_t o;
	unsigned int i;
	uint32_t allocs = 0;

	pool = env_pool_create(false);
	pthread_create(&o, NULL, owner, NULL);
	pthread_join(o, NULL);

	for (i = 0; i < ENV_NPAGES; i++)
		allocs += (uint32_t)env_page_allocs[i];
	assert(env_pool_freed == 1);
	assert(env_freed_hold == allocs);
	assert(env_freed_release == env_freed_hold);
	if (remote_stash != NULL && MODE != MODE_EXIT) {
		for (i = 0; i < PP_STASH_SLOTS; i++)
			assert(remote_stash->slot[i].head ==
			       remote_stash->slot[i].tail);
	}
	for (i = 0; i < ENV_NPAGES; i++)
		assert(!__atomic_load_n(&env_page_used[i], __ATOMIC_RELAXED));
	return 0;
}
