/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * A process with a stalled destroy, for tests/tool_pp_stat.sh: creates a
 * pool, keeps one page, destroys the pool (deferred: one page in flight,
 * warned about after 1 ms), forks a child that creates and destroys a
 * pool of its own and exits (which must leave the parent's live view in
 * place), and prints "ready". The fork comes right after the destroy,
 * with the library's threads running (tests/fork_child.c forks inside a
 * release pass on purpose). It returns the page when its standard input
 * closes, waits for the pool to be freed, and exits.
 */
#include <stdio.h>
#include <sys/wait.h>

#include <pagepool/page_pool.h>

#include "page_pool_helpers.h"

static int freed;

/*
 * Set in the child: LeakSanitizer's check at exit stops the world and
 * takes every lock of the sanitizer's allocator, which GCC 12's runtime
 * does not take around fork() (LLVM's took it in 2023); another thread
 * of the parent allocating at the fork leaves one held in the child,
 * which then hangs in the check (seen 4 times in 40 ASan runs). The
 * sanitizer calls this hook, if defined, before it checks.
 */
static int lsan_off;

int __lsan_is_turned_off(void);

int
__lsan_is_turned_off(void)
{
	return lsan_off;
}

static void
on_free(void *pool)
{
	(void)pool;
	/* Pairs with the acquire load in the wait below. */
	__atomic_store_n(&freed, 1, __ATOMIC_RELEASE);
}

int
main(void)
{
	struct page_pool_params pp = {
		.pool_size = 64,
		.nid = NUMA_NO_NODE,
		.defer_ms = 200,
		.defer_warn_ms = 1,
	};
	struct page_pool *pool = page_pool_create(&pp);
	struct page *page;
	pid_t child;
	int status;

	CHECK(pool != NULL);
	page_pool_use_xdp_mem(pool, on_free, NULL);
	page = page_pool_dev_alloc_pages(pool);
	CHECK(page != NULL);
	page_pool_destroy(pool);	/* drops the xdp_mem user */
	page_pool_destroy(pool);	/* the last user: deferred */
	/*
	 * Fork at once, while the release thread may be in its first pass
	 * and the live view's publisher in one of its own: the library's
	 * fork handlers (lib/fork.c) let the child call into it whatever
	 * the other threads hold. (Before them the child could inherit a
	 * held lock and hang; the ASan CI run of 8e046be did once.)
	 */

	fflush(stdout);
	child = fork();
	CHECK(child >= 0);
	if (child == 0) {
		lsan_off = 1;
		struct page_pool *own = page_pool_create(&pp);

		CHECK(own != NULL);
		page_pool_destroy(own);
		exit(0);	/* runs the library's exit handlers */
	}
	CHECK_EQ(waitpid(child, &status, 0), child);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	printf("ready\n");
	fflush(stdout);
	while (getchar() != EOF)
		;
	page_pool_put_full_page(pool, page, false);
	while (!__atomic_load_n(&freed, __ATOMIC_ACQUIRE))
		usleep(1000);
	return 0;
}
