/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * A process with a stalled destroy, for tests/tool_pp_stat.sh: creates a
 * pool, keeps one page, destroys the pool (deferred: one page in flight,
 * warned about after 1 ms), forks a child that creates and destroys a
 * pool of its own and exits (which must leave the parent's live view in
 * place), and prints "ready". It returns the page when its standard input
 * closes, waits for the pool to be freed, and exits.
 */
#include <stdio.h>
#include <sys/wait.h>

#include <pagepool/page_pool.h>

#include "page_pool_helpers.h"

static int freed;

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
		.defer_ms = 1000,
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
	 * Fork between the release thread's passes (at the destroy and
	 * every defer_ms after), not during one: a child of a threaded
	 * process inherits whatever lock another thread held at fork
	 * (POSIX promises it only async-signal-safe calls), and this
	 * child calls into the library. The ASan CI run of 8e046be hung
	 * here once (the child never exited).
	 */
	usleep(300 * 1000);
	fflush(stdout);
	child = fork();
	CHECK(child >= 0);
	if (child == 0) {
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
