/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * A child forked from a threaded process uses the library (lib/fork.c).
 * Each child creates a pool, allocates and puts pages, destroys a pool
 * with a page in flight (which starts the child's own release thread)
 * and returns the page, allocates from the page allocator and purges,
 * then _exit()s; the parent waits for it at most CHILD_TIMEOUT_MS, then
 * kills it and fails: a child that inherited a lock held by another
 * thread of the parent hangs.
 *
 *   release-pass    the deferred-release thread sleeps inside its pass
 *                   with defer_lock held (delay point PP_TP_DEFER_PASS),
 *                   and the main thread forks then. Without the fork
 *                   handlers the child hangs at its deferred destroy.
 *   release-locked  the thread sleeps inside page_pool_release() with the
 *                   pool's producer lock held and defer_lock dropped
 *                   (PP_TP_RELEASE_LOCKED). Without the prepare handler's
 *                   wait for the pass to end, the child's copy of that
 *                   pool has its lock held for ever, and the child's own
 *                   release thread spins on it.
 *                   In both, the child returns its copy of the deferred
 *                   pool's page in flight, and checks that its new release
 *                   thread leaves the parent's deferred pool alone.
 *   user-locked     a user thread returns the page in flight of a
 *                   deferred pool and sleeps inside that pool's producer
 *                   lock (PP_TP_RING_PRODUCED) when the main thread forks;
 *                   the child waits until the pool is due, then defers a
 *                   pool of its own. Had the child kept the parent's
 *                   deferred pools, its release thread would spin on that
 *                   lock for ever and never free the child's pool.
 *                   The three need -Dtest_hooks=true.
 *   busy          worker threads loop over pool create/alloc/put/destroy
 *                 (some deferred), alloc_pages()/__free_pages() and
 *                 pp_mem_purge() while the main thread forks repeatedly,
 *                 with the live view's publisher thread (PAGEPOOL_STATS=1,
 *                 every 10 ms) running too.
 *
 * Under ThreadSanitizer a child of a threaded process may not start
 * threads (TSan's die_after_fork), so there the child skips the deferred
 * destroy, which would restart the release thread, and says so; the rest
 * runs, and TSan checks the prepare handler's lock order against the
 * order the workers take the locks in.
 *
 * Under AddressSanitizer the busy mode is skipped: the sanitizer's own
 * allocator (GCC 12's runtime) takes no lock around fork(), so a child
 * whose parent had a worker inside malloc() hangs in its first malloc()
 * on the sanitizer's lock, not the library's (seen in gdb: the child
 * waits in SizeClassAllocator64::GetFromAllocator under page_pool_create()).
 * The release modes fork while the only other threads wait, and run.
 *
 * Without the hooks the busy mode runs, then the test exits 77. With a
 * mode's name as its argument only that mode runs.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pagepool/page.h>
#include <pagepool/page_pool.h>

#include "../src/lib/test_hooks.h"
#include "page_pool_helpers.h"

#define CHILD_TIMEOUT_MS 5000
#define DELAY_US 200000
/* user-locked: how long the returner holds the producer lock. */
#define USER_LOCKED_US 1500000

#if defined(__SANITIZE_THREAD__)
#define T_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define T_TSAN 1
#endif
#endif
#ifndef T_TSAN
#define T_TSAN 0
#endif
#if defined(__SANITIZE_ADDRESS__)
#define T_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define T_ASAN 1
#endif
#endif
#ifndef T_ASAN
#define T_ASAN 0
#endif

static const struct page_pool_params child_pp = {
	.pool_size = 64,
	.nid = NUMA_NO_NODE,
	.defer_ms = 1,
	.defer_warn_ms = 60000,
};

static int p1_freed;

/* How long a child sleeps before its work (user-locked mode). */
static int child_delay_ms;

static void
p1_on_free(void *pool)
{
	(void)pool;
	/* Pairs with the acquire load in wait_p1_freed(). */
	__atomic_store_n(&p1_freed, 1, __ATOMIC_RELEASE);
}

static void
wait_p1_freed(void)
{
	int waited;

	for (waited = 0; !__atomic_load_n(&p1_freed, __ATOMIC_ACQUIRE);
	     waited++) {
		CHECK(waited < 3000);
		usleep(1000);
	}
}

/*
 * What a child does: every kind of call, then _exit(). @p1 and @p1_page:
 * a pool the parent destroyed with @p1_page in flight (or NULL), whose
 * copies the child owns; it returns the page and waits for the pool's
 * copy to be freed.
 */
static void
child_work(struct page_pool *p1, struct page *p1_page)
{
	struct page *pages[32], *p;
	struct page_pool *pool;
	unsigned int i;

	if (child_delay_ms > 0)
		usleep((useconds_t)child_delay_ms * 1000);
	/* The parent's arming is copied too. */
	(void)_pp_test_delay_set(PP_TP_DEFER_PASS, 0, 1);
	(void)_pp_test_delay_set(PP_TP_RELEASE_LOCKED, 0, 1);
	pool = page_pool_create(&child_pp);
	CHECK(pool != NULL);
	for (i = 0; i < 32; i++) {
		pages[i] = page_pool_dev_alloc_pages(pool);
		CHECK(pages[i] != NULL);
	}
	for (i = 0; i < 32; i++)
		page_pool_put_full_page(pool, pages[i], false);
	if (!T_TSAN) {
		/* A deferred destroy: takes defer_lock and starts the
		 * child's own release thread, which frees the pool once
		 * the page is back. */
		pp_test_watch_free(pool);
		p = page_pool_dev_alloc_pages(pool);
		CHECK(p != NULL);
		page_pool_destroy(pool);
		page_pool_put_full_page(pool, p, false);
		pp_test_wait_freed(3000);
		if (p1 != NULL) {
			/* The parent's deferred pool is off the child's
			 * list: the page goes back to its copy, which the
			 * child's release thread never retries. */
			page_pool_put_full_page(p1, p1_page, false);
			usleep(20000);
			CHECK_EQ(__atomic_load_n(&p1_freed, __ATOMIC_ACQUIRE),
				 0);
		}
	} else {
		page_pool_destroy(pool);
	}
	for (i = 0; i < 32; i++) {
		pages[i] = alloc_pages(GFP_KERNEL, i % 4);
		CHECK(pages[i] != NULL);
	}
	for (i = 0; i < 32; i++)
		__free_pages(pages[i], i % 4);
	pp_thread_cache_drain();
	CHECK(pp_mem_purge(NULL) >= 0);
	_exit(0);
}

/* Fork a child running child_work(); 0 if it exited 0 in time. */
static int
fork_and_wait(const char *mode, struct page_pool *p1, struct page *p1_page)
{
	int status, waited;
	pid_t pid, r;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0)
		child_work(p1, p1_page);
	for (waited = 0; waited < CHILD_TIMEOUT_MS; waited++) {
		r = waitpid(pid, &status, WNOHANG);
		CHECK(r >= 0);
		if (r == pid) {
			if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
				return 0;
			fprintf(stderr, "%s: child failed (status %#x)\n",
				mode, status);
			return -1;
		}
		usleep(1000);
	}
	kill(pid, SIGKILL);
	CHECK(waitpid(pid, &status, 0) == pid);
	fprintf(stderr, "%s: child hung for %d ms: it inherited a lock "
		"another thread held at fork\n", mode, CHILD_TIMEOUT_MS);
	return -1;
}

/*
 * Fork while the release thread sleeps at @point, inside its pass, over a
 * pool with a page in flight. 0 pass, 1 fail, 77 without the hooks.
 */
static int
mode_release(const char *name, unsigned int point)
{
	struct page_pool_params pp = child_pp;
	struct page_pool *pool;
	struct page *page;
	int ret, waited;

	if (_pp_test_delay_set(point, 0, 1) == -ENOSYS)
		return T_EXIT_SKIP;
	pp.defer_ms = 10;
	pool = page_pool_create(&pp);
	CHECK(pool != NULL);
	page_pool_use_xdp_mem(pool, p1_on_free, NULL);
	/* Relaxed, pairs with nothing: a reset before the pool that sets
	 * it is destroyed (the release thread gets it under defer_lock). */
	__atomic_store_n(&p1_freed, 0, __ATOMIC_RELAXED);
	page = page_pool_dev_alloc_pages(pool);
	CHECK(page != NULL);
	page_pool_destroy(pool);	/* the memory model's user */
	page_pool_destroy(pool);	/* deferred: the thread starts */
	/* Armed after the destroy, which passes the release point too. */
	CHECK_EQ(_pp_test_delay_set(point, DELAY_US, 1), 0);
	/* Wait until the thread sleeps inside its pass. */
	for (waited = 0; _pp_test_delay_hits(point) == 0; waited++) {
		CHECK(waited < 5000);
		usleep(1000);
	}
	ret = fork_and_wait(name, pool, page);
	CHECK_EQ(_pp_test_delay_set(point, 0, 1), 0);
	page_pool_put_full_page(pool, page, false);
	wait_p1_freed();
	return ret == 0 ? T_EXIT_PASS : T_EXIT_FAIL;
}

/* user-locked: the returner thread, which puts the page in flight of a
 * destroyed pool and sleeps inside the ring's producer lock. */
struct returner {
	struct page_pool *pool;
	struct page *page;
};

static void *
returner(void *arg)
{
	struct returner *r = arg;

	CHECK_EQ(_pp_test_delay_self(PP_TP_RING_PRODUCED, USER_LOCKED_US), 0);
	page_pool_put_full_page(r->pool, r->page, false);
	CHECK_EQ(_pp_test_delay_self(PP_TP_RING_PRODUCED, 0), 0);
	return NULL;
}

/*
 * Fork while a user thread returns the page in flight of a deferred pool
 * and holds that pool's producer lock (the put after destroy every driver
 * makes), with the release thread between passes. The child sleeps until
 * the pool is due, then defers a pool of its own: its new release thread
 * must not touch the parent's deferred pool, whose lock it inherited held
 * (it would spin on it for ever, and never free the child's pool).
 */
static int
mode_user_locked(void)
{
	struct page_pool_params pp = child_pp;
	struct returner r;
	pthread_t th;
	int ret, waited;

	if (_pp_test_delay_self(PP_TP_RING_PRODUCED, 0) == -ENOSYS)
		return T_EXIT_SKIP;
	CHECK_EQ(_pp_test_delay_set(PP_TP_RING_PRODUCED, 0, 1), 0);
	pp.defer_ms = 200;
	r.pool = page_pool_create(&pp);
	CHECK(r.pool != NULL);
	page_pool_use_xdp_mem(r.pool, p1_on_free, NULL);
	/* Relaxed, pairs with nothing: a reset before the pool that sets
	 * it is destroyed (the release thread gets it under defer_lock). */
	__atomic_store_n(&p1_freed, 0, __ATOMIC_RELAXED);
	r.page = page_pool_dev_alloc_pages(r.pool);
	CHECK(r.page != NULL);
	page_pool_destroy(r.pool);	/* the memory model's user */
	page_pool_destroy(r.pool);	/* deferred, first retry in 200 ms */
	CHECK_EQ(pthread_create(&th, NULL, returner, &r), 0);
	for (waited = 0; _pp_test_delay_hits(PP_TP_RING_PRODUCED) == 0;
	     waited++) {
		CHECK(waited < 5000);
		usleep(1000);
	}
	child_delay_ms = 400;	/* the pool is due in the child by then */
	ret = fork_and_wait("user-locked", NULL, NULL);
	child_delay_ms = 0;
	CHECK_EQ(pthread_join(th, NULL), 0);
	wait_p1_freed();
	return ret == 0 ? T_EXIT_PASS : T_EXIT_FAIL;
}

#define NWORKERS 2

static int stop;

static void *
worker(void *arg)
{
	struct page_pool_params pp = child_pp;
	struct page *pages[16];
	unsigned long n = 0;
	unsigned int i;

	(void)arg;
	/* Relaxed: a stop flag, pairs with the store in mode_busy();
	 * pthread_join() orders the rest. */
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		struct page_pool *pool = page_pool_create(&pp);
		struct page *kept = NULL;

		CHECK(pool != NULL);
		for (i = 0; i < 16; i++) {
			pages[i] = page_pool_dev_alloc_pages(pool);
			CHECK(pages[i] != NULL);
		}
		if (n % 8 == 0)
			kept = pages[15];	/* in flight at destroy */
		for (i = 0; i < (kept != NULL ? 15u : 16u); i++)
			page_pool_put_full_page(pool, pages[i], false);
		page_pool_destroy(pool);
		if (kept != NULL)
			page_pool_put_full_page(pool, kept, false);
		for (i = 0; i < 16; i++) {
			pages[i] = alloc_pages(GFP_KERNEL, i % 3);
			CHECK(pages[i] != NULL);
		}
		for (i = 0; i < 16; i++)
			__free_pages(pages[i], i % 3);
		if (n % 16 == 0)
			(void)pp_mem_purge(NULL);
		n++;
	}
	return NULL;
}

static int
mode_busy(void)
{
	pthread_t th[NWORKERS];
	int i, rounds = T_SANITIZED ? 5 : 30, fails = 0;

	for (i = 0; i < NWORKERS; i++)
		CHECK(pthread_create(&th[i], NULL, worker, NULL) == 0);
	for (i = 0; i < rounds; i++) {
		usleep(5000);
		/* The first failure ends the mode: each hang costs
		 * CHILD_TIMEOUT_MS. */
		if (fork_and_wait("busy", NULL, NULL) != 0) {
			fails++;
			break;
		}
	}
	/* Relaxed: pairs with the load in worker(). */
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < NWORKERS; i++)
		CHECK(pthread_join(th[i], NULL) == 0);
	return fails == 0 ? T_EXIT_PASS : T_EXIT_FAIL;
}

static const struct {
	const char *name;
	unsigned int point;
} modes[] = {
	{ "release-pass", PP_TP_DEFER_PASS },
	{ "release-locked", PP_TP_RELEASE_LOCKED },
};

int
main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : NULL;
	int ret = T_EXIT_PASS, r;
	unsigned int i;

	/* Read when the first pool is created; the file goes at exit. */
	setenv("PAGEPOOL_STATS", "1", 0);
	setenv("PAGEPOOL_STATS_MS", "10", 0);

	if (T_TSAN)
		printf("fork_child: ThreadSanitizer: the children skip the "
		       "deferred destroy (a child of a threaded process may "
		       "not start threads under TSan)\n");
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (only != NULL && strcmp(only, modes[i].name) != 0)
			continue;
		r = mode_release(modes[i].name, modes[i].point);
		if (r == T_EXIT_SKIP)
			printf("%s: needs -Dtest_hooks=true, skipped\n",
			       modes[i].name);
		else
			printf("%s: %s\n", modes[i].name,
			       r == 0 ? "ok" : "FAILED");
		if (r == T_EXIT_FAIL ||
		    (r == T_EXIT_SKIP && ret == T_EXIT_PASS))
			ret = r;
	}
	if (only == NULL || strcmp(only, "user-locked") == 0) {
		r = mode_user_locked();
		if (r == T_EXIT_SKIP)
			printf("user-locked: needs -Dtest_hooks=true, skipped\n");
		else
			printf("user-locked: %s\n", r == 0 ? "ok" : "FAILED");
		if (r == T_EXIT_FAIL ||
		    (r == T_EXIT_SKIP && ret == T_EXIT_PASS))
			ret = r;
	}
	if (T_ASAN && (only == NULL || strcmp(only, "busy") == 0)) {
		printf("busy: skipped under AddressSanitizer: its allocator "
		       "takes no lock around fork(), so a child can hang in "
		       "malloc() on a lock a worker held\n");
		if (only != NULL)
			ret = T_EXIT_SKIP;
	} else if (only == NULL || strcmp(only, "busy") == 0) {
		r = mode_busy();
		printf("busy: %s\n", r == 0 ? "ok" : "FAILED");
		if (r != T_EXIT_PASS)
			ret = T_EXIT_FAIL;
	}
	return ret;
}
