/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_pool debug checks (PP_DEBUG builds): misuse that cannot be reported
 * through a return value is caught here and reported with the page and the
 * pool named. A page is marked free while it sits in the pool (pp_ref_count
 * 0, which a live page never has) and its contents are poisoned, so a
 * second put of it, or a write through a stale pointer, shows when the page
 * is put again or handed out again. The functions exist in every build, so
 * a library built either way exports the same symbols; the fast paths call
 * them only when PP_DEBUG is set.
 *
 * The leak report: each page handed out is recorded, with the return
 * address of the allocation call and the thread that last allocated or put
 * it, in a table under a mutex until it comes back to its pool (recycled)
 * or leaves it (released). When a destroyed pool's release stalls, and at
 * exit, the pages still out of destroyed pools are printed, each with that
 * call site (symbolised by dladdr() when the object exports a symbol there;
 * otherwise object+offset, for addr2line) and thread.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/fork_priv.h"
#include "page_pool_priv.h"

/* ---- Leak report --------------------------------------------------------- */

#define LEAK_BUCKETS 4096u
#define LEAK_DETACHED_MAX 64u
#define LEAK_LINES_MAX 64u	/* pages listed per report */

struct leak_ent {
	struct leak_ent *next;
	struct page *page;
	struct page_pool *pool;
	void *site;
	long tid;
};

/* leak_lock guards the table and the detached list. */
static pthread_mutex_t leak_lock = PTHREAD_MUTEX_INITIALIZER;
static struct leak_ent *leak_tab[LEAK_BUCKETS];
/* Destroyed pools not yet freed: the only ones whose pages are leaks. */
static struct page_pool *leak_detached[LEAK_DETACHED_MAX];
static pthread_once_t leak_once = PTHREAD_ONCE_INIT;

/* The calling thread's id, cached; reset in a forked child, whose one
 * thread has a new id. */
static __thread long leak_tid;

/* Fork (lib/fork.c, order 5): leak_lock is held by no other thread across
 * the fork; the child releases it as the parent does, and forgets the
 * forking thread's cached id. */
void
_pp_debug_fork(enum pp_fork_phase phase)
{
	if (phase == PP_FORK_CHILD)
		leak_tid = 0;	/* under leak_lock, taken in prepare */
	_pp_fork_mutex(&leak_lock, phase);
}

static long
thread_id(void)
{
	if (leak_tid == 0)
		leak_tid = (long)syscall(SYS_gettid);
	return leak_tid;
}

static unsigned int
leak_hash(const struct page *page)
{
	uintptr_t v = (uintptr_t)page / sizeof(struct page);

	return (unsigned int)(v ^ (v >> 12)) % LEAK_BUCKETS;
}

/* The entry of @page, with leak_lock held; NULL if it is not out. */
static struct leak_ent **
leak_find(const struct page *page)
{
	struct leak_ent **e = &leak_tab[leak_hash(page)];

	while (*e != NULL && (*e)->page != page)
		e = &(*e)->next;
	return e;
}

static void
print_site(FILE *f, void *site)
{
	Dl_info di;

	if (site != NULL && dladdr(site, &di) != 0 && di.dli_fname != NULL) {
		if (di.dli_sname != NULL)
			fprintf(f, "%p (%s+%#lx in %s)", site, di.dli_sname,
				(unsigned long)((char *)site -
						(char *)di.dli_saddr),
				di.dli_fname);
		else
			fprintf(f, "%p (%s+%#lx)", site, di.dli_fname,
				(unsigned long)((char *)site -
						(char *)di.dli_fbase));
		return;
	}
	fprintf(f, "%p", site);
}

/* Print @pool's pages still out, with leak_lock held. */
static unsigned int
leak_print(struct page_pool *pool, const char *when)
{
	unsigned int b, n = 0;

	for (b = 0; b < LEAK_BUCKETS; b++) {
		struct leak_ent *e;

		for (e = leak_tab[b]; e != NULL; e = e->next) {
			if (e->pool != pool)
				continue;
			if (n++ == 0)
				fprintf(stderr, "page_pool: id %u: pages in "
					"flight (%s):\n", pool->id, when);
			if (n > LEAK_LINES_MAX)
				continue;
			fprintf(stderr, "  page %p (va %p) allocated at ",
				(void *)e->page, page_address(e->page));
			print_site(stderr, e->site);
			fprintf(stderr, ", last touched by thread %ld\n",
				e->tid);
		}
	}
	if (n > LEAK_LINES_MAX)
		fprintf(stderr, "  ... and %u more\n", n - LEAK_LINES_MAX);
	return n;
}

/* At exit: the pages of every destroyed pool still out. Pools never
 * destroyed are not reported: exiting with a live pool is no leak of
 * the pool's making. */
static void
leak_at_exit(void)
{
	unsigned int i;

	pthread_mutex_lock(&leak_lock);
	for (i = 0; i < LEAK_DETACHED_MAX; i++)
		if (leak_detached[i] != NULL)
			leak_print(leak_detached[i], "at exit, destroyed");
	pthread_mutex_unlock(&leak_lock);
}

static void
leak_init(void)
{
	atexit(leak_at_exit);
}

static void debug_alloc_check(struct page_pool *pool, struct page *page);

void
_pp_debug_alloc_at(struct page_pool *pool, struct page *page, void *site)
{
	struct leak_ent **e, *n;

	debug_alloc_check(pool, page);
	if (pool == NULL || page == NULL)
		return;
	pthread_once(&leak_once, leak_init);
	pthread_mutex_lock(&leak_lock);
	e = leak_find(page);
	n = *e;
	if (n == NULL) {
		n = calloc(1, sizeof(*n));
		if (n != NULL) {
			n->next = leak_tab[leak_hash(page)];
			leak_tab[leak_hash(page)] = n;
		}
	}
	if (n != NULL) {
		n->page = page;
		n->pool = pool;
		n->site = site;
		n->tid = thread_id();
	}
	pthread_mutex_unlock(&leak_lock);
}

void
_pp_debug_page_gone(struct page *page)
{
	struct leak_ent **e, *n;

	pthread_mutex_lock(&leak_lock);
	e = leak_find(page);
	n = *e;
	if (n != NULL)
		*e = n->next;
	pthread_mutex_unlock(&leak_lock);
	free(n);
}

/* The last thread to put @page (a fragment's put counts). */
static void
leak_touch(struct page *page)
{
	struct leak_ent *n;

	pthread_mutex_lock(&leak_lock);
	n = *leak_find(page);
	if (n != NULL)
		n->tid = thread_id();
	pthread_mutex_unlock(&leak_lock);
}

void
_pp_debug_pool_detached(struct page_pool *pool)
{
	unsigned int i;

	pthread_mutex_lock(&leak_lock);
	for (i = 0; i < LEAK_DETACHED_MAX; i++) {
		if (leak_detached[i] == NULL) {
			leak_detached[i] = pool;
			break;
		}
	}
	pthread_mutex_unlock(&leak_lock);
}

void
_pp_debug_pool_freed(struct page_pool *pool)
{
	unsigned int i;

	pthread_mutex_lock(&leak_lock);
	for (i = 0; i < LEAK_DETACHED_MAX; i++)
		if (leak_detached[i] == pool)
			leak_detached[i] = NULL;
	pthread_mutex_unlock(&leak_lock);
}

void
_pp_debug_leak_report(struct page_pool *pool, const char *when)
{
	pthread_mutex_lock(&leak_lock);
	leak_print(pool, when);
	pthread_mutex_unlock(&leak_lock);
}

/* ---- Checks -------------------------------------------------------------- */

/*
 * Errors with no pool to count them on (a put to a NULL pool, a foreign
 * page in a bulk put): page_pool_debug_errors(NULL) reads them.
 */
static uint64_t poolless_errors;

static void
report_poolless(struct page *page, const char *what)
{
	pp_fetch_add_relaxed(&poolless_errors, 1);
	fprintf(stderr, "page_pool: %s: page %p (va %p)\n", what,
		(void *)page, page ? page_address(page) : NULL);
}

static void
report(struct page_pool *pool, struct page *page, const char *what)
{
	pp_fetch_add_relaxed(&pool->debug_errors, 1);
	fprintf(stderr, "page_pool: id %u: %s: page %p (va %p)\n", pool->id,
		what, (void *)page, page ? page_address(page) : NULL);
}

static bool
not_owner(const struct page_pool *pool)
{
	unsigned long owner = pp_load_relaxed(&pool->owner);

	return owner != 0 && owner != pp_thread_self();
}

bool
__page_pool_debug_put(struct page_pool *pool, struct page *page,
		      bool allow_direct)
{
	if (pool == NULL) {
		report_poolless(page, "put to a NULL pool");
		return false;
	}
	if (page == NULL) {
		report(pool, page, "put of a NULL page");
		return false;
	}
	if ((page->pp_magic & PP_MAGIC_MASK) != PP_SIGNATURE) {
		report(pool, page, "put of a page that is not a page_pool page");
		return false;
	}
	if (page->pp != pool) {
		pp_fetch_add_relaxed(&pool->debug_errors, 1);
		fprintf(stderr,
			"page_pool: id %u: put of a page of pool %u: page %p "
			"(va %p)\n",
			pool->id, page->pp ? page->pp->id : 0, (void *)page,
			page_address(page));
		return false;
	}
	if (pp_load_relaxed(&page->pp_ref_count) <= 0) {
		report(pool, page, "double put (the page is already back)");
		return false;
	}
	leak_touch(page);
	if (allow_direct && not_owner(pool))
		report(pool, page,
		       "direct recycle from a thread that is not the owner");
	/* Its cache is never emptied again: the page, and so the pool,
	 * would be stranded. Such a put is dropped (the page leaks). */
	if (allow_direct && pp_load_relaxed(&pool->user_cnt) == 0) {
		report(pool, page, "direct recycle into a destroyed pool");
		return false;
	}
	return true;
}

void
__page_pool_debug_destroy(struct page_pool *pool)
{
	if (pool == NULL)
		return;
	if (not_owner(pool)) {
		pp_fetch_add_relaxed(&pool->debug_errors, 1);
		fprintf(stderr,
			"page_pool: id %u: destroyed from a thread that is not "
			"its owner while direct recycling is on: call "
			"page_pool_disable_direct_recycling() in the owner "
			"first\n",
			pool->id);
	}
}

void
__page_pool_debug_recycle(struct page_pool *pool, struct page *page)
{
	if (pool == NULL || page == NULL)
		return;
	memset(page_address(page), PP_POISON_FREE, PAGE_SIZE << pool->p.order);
	pp_store_relaxed(&page->pp_ref_count, 0L);
	_pp_debug_page_gone(page);
}

static void
debug_alloc_check(struct page_pool *pool, struct page *page)
{
	long ref;

	if (pool == NULL || page == NULL)
		return;
	ref = pp_load_relaxed(&page->pp_ref_count);
	if (not_owner(pool))
		report(pool, page, "allocation outside the owner thread");
	if (ref == 0) {
		const unsigned char *p = page_address(page);
		size_t i, len = PAGE_SIZE << pool->p.order;
		size_t dev_lo = 0, dev_hi = 0;

		/*
		 * The pool poisons a returned page before it syncs it for the
		 * device; on a bounce device with PP_DMA_F_POISON that sync
		 * fills the CPU's copy of the synced range (at most max_len
		 * at offset) with PP_DMA_POISON, the device's doing, not a
		 * stale write.
		 */
		if (pp_load_relaxed(&pool->dma_sync)) {
			dev_lo = pool->p.offset;
			dev_hi = dev_lo + pool->p.max_len;
		}
		for (i = 0; i < len; i++) {
			if (p[i] != PP_POISON_FREE &&
			    !(p[i] == PP_DMA_POISON && i >= dev_lo &&
			      i < dev_hi)) {
				char what[96];

				snprintf(what, sizeof(what),
					 "written after it was returned "
					 "(first change at offset %zu)",
					 i);
				report(pool, page, what);
				break;
			}
		}
	} else if (ref != 1) {
		report(pool, page, "handed out while still referenced");
	}
	pp_store_relaxed(&page->pp_ref_count, 1L);
}

/* The inline fast path's check: its caller is the allocation site. */
void
__page_pool_debug_alloc(struct page_pool *pool, struct page *page)
{
	_pp_debug_alloc_at(pool, page, __builtin_return_address(0));
}

void
_pp_debug_bulk_foreign(struct page *page)
{
	errno = EINVAL;
	if (PP_DEBUG)
		report_poolless(page, "bulk put of a page that is not a "
				      "page_pool page");
}

void
_pp_debug_recycle_bulk_nopool(unsigned int n)
{
	char what[96];

	if (!PP_DEBUG)
		return;
	snprintf(what, sizeof(what),
		 "trusted bulk recycle of %u pages to a NULL pool", n);
	report_poolless(NULL, what);
}

/* What is wrong with @page, which failed __pp_recycle_bad() for @pool, and
 * whether the checked bulk put may still be given it (*@keep). */
static const char *
recycle_bulk_fault(const struct page_pool *pool, struct page *page,
		   bool *keep, char *buf, size_t len)
{
	struct page *head;

	*keep = false;
	if (page == NULL)
		return "trusted bulk recycle of a NULL page";
	head = compound_head(page);
	if ((head->pp_magic & PP_MAGIC_MASK) != PP_SIGNATURE) {
		errno = EINVAL;
		return "trusted bulk recycle of a page that is not a "
		       "page_pool page";
	}
	if (pp_load_relaxed(&head->pp_ref_count) <= 0)
		return "trusted bulk recycle of a page already back "
		       "(a double put)";
	*keep = true;
	if (head != page)
		return "trusted bulk recycle of a tail page";
	if (head->pp != pool) {
		snprintf(buf, len,
			 "trusted bulk recycle of a page of pool %u",
			 head->pp != NULL ? head->pp->id : 0);
		return buf;
	}
	if (page_is_pfmemalloc(head))
		return "trusted bulk recycle of a pfmemalloc page";
	if (page_ref_count(head) != 1)
		return "trusted bulk recycle of a page with another page "
		       "reference";
	return "trusted bulk recycle of a page with another pool reference";
}

unsigned int
_pp_debug_recycle_bulk(struct page_pool *pool, struct page **pages,
		       unsigned int n, bool *bad)
{
	unsigned int i, left = 0;

	*bad = false;
	if (!PP_DEBUG)
		return n;
	for (i = 0; i < n; i++) {
		struct page *page = pages[i];
		unsigned long magic = 0;
		char buf[96];
		const char *what;
		bool keep;

		if (page != NULL &&
		    (__pp_recycle_bad(pool, page, &magic) |
		     (magic & (PP_MAGIC_MASK | 0x3UL))) == 0) {
			pages[left++] = page;
			continue;
		}
		*bad = true;
		what = recycle_bulk_fault(pool, page, &keep, buf, sizeof(buf));
		report(pool, page, what);
		if (keep)
			pages[left++] = page;
	}
	return left;
}

uint64_t
page_pool_debug_errors(const struct page_pool *pool)
{
	if (pool == NULL)
		return pp_load_relaxed(&poolless_errors);
	return pp_load_relaxed(&pool->debug_errors);
}
