/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The debug builds' leak report (issue 12): a destroyed pool whose pages
 * do not come back has each page still out printed with the call site
 * that allocated it and the last thread that touched it - when the
 * deferred release stalls, and at process exit. Checked here:
 *  - stall: one page allocated here and kept, one split in two fragments
 *    of which another thread puts one (so it touched the page last); the
 *    pool is destroyed and the release thread's stall warning comes with
 *    both pages, the allocation site named (leak_alloc_site(), found by
 *    dladdr() since this program exports its symbols) and the right
 *    thread ids; once they come back the pool is freed;
 *  - exit: a child process destroys a pool with a page out and exits; its
 *    stderr lists the page "at exit";
 *  - a pool destroyed with nothing out, and one never destroyed, are not
 *    reported at exit.
 * Skips in a build without debug checks (PP_DEBUG).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pagepool/page_pool.h>

#include "helpers.h"

struct page *leak_alloc_site(struct page_pool *pool);

static int freed;

static void
on_free(void *pool)
{
	(void)pool;
	/* Pairs with the acquire load in wait_freed(). */
	__atomic_store_n(&freed, 1, __ATOMIC_RELEASE);
}

/* Exported (the test links with -rdynamic) so that dladdr() names it. */
__attribute__((noinline)) struct page *
leak_alloc_site(struct page_pool *pool)
{
	struct page *page = page_pool_dev_alloc_pages(pool);

	/* Keep the call from being a tail call: the site stays here. */
	__asm__ __volatile__("" ::: "memory");
	return page;
}

static struct page_pool *
make_pool(unsigned int warn_ms)
{
	struct page_pool_params pp = {
		.pool_size = 64,
		.nid = NUMA_NO_NODE,
		.defer_ms = 10,
		.defer_warn_ms = warn_ms,
	};
	struct page_pool *pool = page_pool_create(&pp);

	CHECK(pool != NULL);
	page_pool_use_xdp_mem(pool, on_free, NULL);
	return pool;
}

/* Read all of @path into @buf. */
static void
slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f != NULL) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}

static long other_tid;

static void *
put_one_fragment(void *arg)
{
	other_tid = (long)syscall(SYS_gettid);
	page_pool_put_full_page(((struct page *)arg)->pp, arg, false);
	return NULL;
}

/* Does @out have a line for @page with @what and @tid? */
static int
has_line(const char *out, struct page *page, const char *what, long tid)
{
	char key[64], tail[64], line[512];
	const char *l, *nl;
	size_t len;

	snprintf(key, sizeof(key), "page %p ", (void *)page);
	snprintf(tail, sizeof(tail), "last touched by thread %ld", tid);
	l = strstr(out, key);
	if (l == NULL)
		return 0;
	nl = strchr(l, '\n');
	len = nl ? (size_t)(nl - l) : strlen(l);
	if (len >= sizeof(line))
		len = sizeof(line) - 1;
	memcpy(line, l, len);
	line[len] = '\0';
	return strstr(line, what) != NULL && strstr(line, tail) != NULL;
}

static void
test_stall(void)
{
	static char out[65536];
	char path[] = "/tmp/pp_leak_report.XXXXXX";
	struct page_pool *pool = make_pool(1);
	struct page *a, *b;
	pthread_t th;
	long me = (long)syscall(SYS_gettid);
	int fd = mkstemp(path), saved = dup(2), i;

	CHECK(fd >= 0 && saved >= 0);
	a = leak_alloc_site(pool);	/* slow path: the cache is empty */
	b = leak_alloc_site(pool);	/* fast path, from the cache */
	CHECK(a != NULL && b != NULL);
	page_pool_fragment_page(b, 2);
	CHECK_EQ(pthread_create(&th, NULL, put_one_fragment, b), 0);
	CHECK_EQ(pthread_join(th, NULL), 0);

	fflush(stderr);
	CHECK(dup2(fd, 2) == 2);
	freed = 0;
	page_pool_destroy(pool);	/* the xdp_mem user */
	page_pool_destroy(pool);	/* the last: deferred, then stalls */
	/* The report is printed at the first stall warning, 1 ms after the
	 * destroy; wait for it (no time limit but the test's). */
	for (i = 0; i < 100000; i++) {
		slurp(path, out, sizeof(out));
		if (strstr(out, "last touched by thread") != NULL &&
		    strstr(strstr(out, "pages in flight (stalled)"),
			   "\n  page ") != NULL)
			break;
		usleep(1000);
	}
	page_pool_put_full_page(pool, a, false);
	page_pool_put_full_page(pool, b, false);
	while (!__atomic_load_n(&freed, __ATOMIC_ACQUIRE))
		usleep(1000);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);
	slurp(path, out, sizeof(out));
	unlink(path);
	fputs(out, stderr);

	CHECK(strstr(out, "pages in flight (stalled)") != NULL);
	CHECK(strstr(out, "leak_alloc_site+") != NULL);
	CHECK(has_line(out, a, "leak_alloc_site+", me));
	CHECK(has_line(out, b, "leak_alloc_site+", other_tid));
}

static void
test_exit(void)
{
	static char out[65536];
	int p[2];
	pid_t pid;
	size_t n = 0;
	ssize_t r;
	int status;

	CHECK_EQ(pipe(p), 0);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		struct page_pool *kept = make_pool(600000);
		struct page_pool *clean = make_pool(600000);
		struct page_pool *live = make_pool(600000);
		struct page *page;

		dup2(p[1], 2);
		close(p[0]);
		page = leak_alloc_site(kept);
		CHECK(page != NULL);
		page_pool_put_full_page(clean, leak_alloc_site(clean), false);
		CHECK(leak_alloc_site(live) != NULL);
		page_pool_destroy(clean);
		page_pool_destroy(clean);
		page_pool_destroy(kept);
		page_pool_destroy(kept);
		exit(0);
	}
	close(p[1]);
	while ((r = read(p[0], out + n, sizeof(out) - 1 - n)) > 0)
		n += (size_t)r;
	out[n] = '\0';
	close(p[0]);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	fputs(out, stderr);
	CHECK(strstr(out, "pages in flight (at exit, destroyed)") != NULL);
	CHECK(strstr(out, "leak_alloc_site+") != NULL);
	/* One pool, one page: the clean and the live pools are silent. */
	CHECK(strstr(strstr(out, "pages in flight") + 1,
		     "pages in flight") == NULL);
	CHECK(strstr(strstr(out, "\n  page ") + 1, "\n  page ") == NULL);
}

int
main(void)
{
	if (!PP_DEBUG) {
		fprintf(stderr, "SKIP: the leak report is in debug builds "
			"(-Ddebug_checks=true)\n");
		return T_EXIT_SKIP;
	}
	/* The child first, before this process has threads. */
	test_exit();
	test_stall();
	return T_EXIT_PASS;
}
