/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * GenMC: the page allocator's remote frees (the real src/mm/page_alloc.c
 * in page_alloc_env.h): a block freed by a thread other than the one that
 * allocated it goes to the owner's inbox (remote_flush(), a CAS push,
 * release R6) and comes back into a cache by an exchange or a CAS that
 * takes the whole list (acquire A6 in inbox_collect(), A6' in
 * inbox_close(), A6'' in _pp_inboxes_steal()). The owner, A, allocates
 * order-0 pages and hands them to B, which writes each (the user's data)
 * and frees it. MODE selects what A, or a third thread C, does meanwhile:
 *  COLLECT  A allocates until its stack is empty, so that its refill
 *           collects the inbox (A6), and writes each page it gets, which
 *           may be one B just freed;
 *  CLOSE    A exits: its destructor closes the inbox (A6'), taking what
 *           was pushed, and drains its cache to the zone, which writes
 *           the pages' list links; B's push meets an open or a closed
 *           inbox (then the block goes to the zone);
 *  STEAL    C takes every inbox (_pp_inboxes_steal(), as pp_mem_purge()
 *           does) into the zone (C caches nothing) while B pushes;
 *  SHARED   A takes a second reference (get_page()) to the page it hands
 *           B, and both drop theirs (__free_pages(), put_page()): the
 *           last drop frees it (A2' on a sole reference, R2/A2 on a
 *           shared one), into A's stack or, if it is B's, A's inbox; A
 *           then allocates twice and writes what it gets.
 *
 * Checks: every write to a page (the user's data, the allocator's list
 * links) ordered before the page's next owner writes it, which GenMC
 * reports as a race otherwise; at the end, after every thread has exited
 * (its cache drained), all pages back in the zone as one block.
 */
#define MODE_COLLECT 1
#define MODE_CLOSE 2
#define MODE_STEAL 3
#define MODE_SHARED 4

#ifndef MODE
#define MODE MODE_COLLECT
#endif

#include "page_alloc_env.h"

static struct page *handed;

static void *
b_thread(void *arg)
{
	(void)arg;
	env_write(handed, 'b');
#if MODE == MODE_SHARED
	put_page(handed);
#else
	__free_pages(handed, 0);
#endif
	env_thread_exit();
	return NULL;
}

#if MODE == MODE_STEAL
static void *
c_thread(void *arg)
{
	(void)arg;
	_pp_inboxes_steal();
	env_thread_exit();
	return NULL;
}
#endif

static void *
a_thread(void *arg)
{
	struct page *p[2];
	pthread_t b;
#if MODE == MODE_STEAL
	pthread_t c;
#endif
	int i;

	(void)arg;
	/* The refill takes a batch of 2: the stack is then empty. */
	p[0] = alloc_pages(GFP_KERNEL, 0);
	p[1] = alloc_pages(GFP_KERNEL, 0);
	assert(p[0] != NULL && p[1] != NULL);
	assert(p[0]->_pcp_owner != 0);
	handed = p[0];
	if (MODE == MODE_SHARED)
		get_page(handed);
	pthread_create(&b, NULL, b_thread, NULL);
#if MODE == MODE_STEAL
	pthread_create(&c, NULL, c_thread, NULL);
#endif
	env_write(p[1], 'a');
	__free_pages(p[1], 0);
#if MODE == MODE_SHARED
	__free_pages(handed, 0);
#endif
#if MODE == MODE_COLLECT || MODE == MODE_SHARED
	/* The stack holds p[1] (and, in SHARED, perhaps p[0]); the second
	 * allocation refills from the inbox or the zone. */
	for (i = 0; i < 2; i++) {
		p[i] = alloc_pages(GFP_KERNEL, 0);
		assert(p[i] != NULL);
		env_write(p[i], 'a');
	}
	for (i = 0; i < 2; i++)
		__free_pages(p[i], 0);
#endif
	(void)i;
	env_thread_exit();
	pthread_join(b, NULL);
#if MODE == MODE_STEAL
	pthread_join(c, NULL);
#endif
	return NULL;
}

int
main(void)
{
	pthread_t a;
	unsigned int i;

	env_init();
	pthread_create(&a, NULL, a_thread, NULL);
	pthread_join(a, NULL);
	/* A closed its inbox on exit: a block B pushed before was taken by
	 * the close, one B freed after went to the zone. */
	env_check_all_free();
	for (i = 0; i < ENV_NPAGES; i++)
		env_write(&env_pages[i], 'm');
	return 0;
}
