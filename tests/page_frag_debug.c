/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * page_frag_cache debug checks (PP_DEBUG builds): a second page_frag_free()
 * of one fragment, given any address inside it, a free of an address no
 * fragment covers, and a free of a fragment given back with
 * page_frag_alloc_abort() are reported, counted (page_frag_debug_errors())
 * and dropped, so the block is never freed, or reused in place, under a
 * live sibling. Without PP_DEBUG the same allocations and single frees run
 * and their reference counts are checked; the misuse itself is skipped.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <pagepool/page_frag_cache.h>
#include <pagepool/page_pool.h>	/* PP_DEBUG */

#include "helpers.h"

static FILE *log_file;
static int saved_fd;

static void
capture_start(void)
{
	log_file = tmpfile();
	CHECK(log_file != NULL);
	fflush(stderr);
	saved_fd = dup(STDERR_FILENO);
	dup2(fileno(log_file), STDERR_FILENO);
}

/* Stop capturing; fail unless the log contains @want. */
static void
capture_expect(const char *want)
{
	char buf[4096];
	size_t len;

	fflush(stderr);
	dup2(saved_fd, STDERR_FILENO);
	close(saved_fd);
	rewind(log_file);
	len = fread(buf, 1, sizeof(buf) - 1, log_file);
	buf[len] = '\0';
	fclose(log_file);
	if (strstr(buf, want) == NULL) {
		fprintf(stderr, "want \"%s\" in \"%s\"\n", want, buf);
		CHECK(0);
	}
}

static int
block_refs(const void *frag)
{
	return page_ref_count(compound_head(virt_to_page(frag)));
}

/* A free that must be refused: reported with @what, counted, errno. */
static void
expect_refused(void *addr, const char *what)
{
	uint64_t before = page_frag_debug_errors();
	char want[160];

	capture_start();
	errno = 0;
	page_frag_free(addr);
	snprintf(want, sizeof(want), "page_frag: %s: address %p", what, addr);
	capture_expect(want);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(page_frag_debug_errors(), before + 1);
}

/*
 * The cache has let go of its block: only fragments hold it. A double
 * free of one would take the last reference of its live sibling.
 */
static void
test_after_drain(void)
{
	struct page_frag_cache nc = { 0 };
	char *a = page_frag_alloc(&nc, 100, GFP_KERNEL);
	char *b = page_frag_alloc(&nc, 100, GFP_KERNEL);

	CHECK(a != NULL && b != NULL);
	page_frag_cache_drain(&nc);
	CHECK_EQ(block_refs(b), 2);
	page_frag_free(a + 10);
	CHECK_EQ(block_refs(b), 1);
	if (PP_DEBUG) {
		expect_refused(a, "double free of a fragment");
		expect_refused(a + 99, "double free of a fragment");
		CHECK_EQ(block_refs(b), 1);	/* b's block is still b's */
		/* Past the last fragment's end: no fragment there. */
		expect_refused(b + 100, "free of an address in no fragment");
		CHECK_EQ(block_refs(b), 1);
	}
	memset(b, 0x5a, 100);
	page_frag_free(b);
}

/*
 * The cache still holds its bias: a double free would let the cache find
 * the count at zero and reuse the block in place under b.
 */
static void
test_reuse_in_place(void)
{
	struct page_frag_cache nc = { 0 };
	char *a = page_frag_alloc(&nc, 1000, GFP_KERNEL);
	char *b = page_frag_alloc(&nc, 1000, GFP_KERNEL);
	char *c;
	int i, refs;

	CHECK(a != NULL && b != NULL);
	refs = block_refs(a);
	page_frag_free(a);
	CHECK_EQ(block_refs(b), refs - 1);
	if (PP_DEBUG) {
		expect_refused(a, "double free of a fragment");
		CHECK_EQ(block_refs(b), refs - 1);
	}
	/*
	 * Fill the block with page-sized fragments, each freed at once, until
	 * one does not fit: the cache then gives up its references. b is
	 * out, so the block must not be reused in place (a new fragment at
	 * a, its offset 0) but left to b.
	 */
	for (i = 0;; i++) {
		CHECK(i < 16);
		c = page_frag_alloc(&nc, PAGE_SIZE, GFP_KERNEL);
		CHECK(c != NULL);
		CHECK(c != a);
		if (compound_head(virt_to_page(c)) !=
		    compound_head(virt_to_page(b)))
			break;
		page_frag_free(c);
	}
	CHECK_EQ(block_refs(b), 1);
	page_frag_free(b);
	page_frag_free(c);
	page_frag_cache_drain(&nc);
}

/* prepare / commit / abort keep the record right. */
static void
test_commit_abort(void)
{
	struct page_frag_cache nc = { 0 };
	struct page_frag pf;
	char *a, *b;

	a = page_frag_alloc_refill_prepare(&nc, 64, &pf, GFP_KERNEL);
	CHECK(a != NULL);
	CHECK_EQ(page_frag_commit(&nc, &pf, 64), 64);
	/* Extend a with the bytes right after it: still one fragment. */
	CHECK(page_frag_alloc_refill_probe(&nc, 32, &pf) == a + 64);
	CHECK_EQ(page_frag_commit_noref(&nc, &pf, 32), 32);
	b = page_frag_alloc(&nc, 50, GFP_KERNEL);
	CHECK(b == a + 96);
	CHECK_EQ(page_frag_alloc_abort(&nc, b, 50), 0);
	page_frag_cache_drain(&nc);
	CHECK_EQ(block_refs(a), 1);
	if (PP_DEBUG) {
		expect_refused(b, "free of an address in no fragment");
		CHECK_EQ(block_refs(a), 1);
	}
	page_frag_free(a + 95);		/* the extension is a's */
}

/* Many fragments, freed in a scrambled order, each once: nothing is
 * reported, and the block goes back when the last one does. */
static void
test_many(void)
{
	struct page_frag_cache nc = { 0 };
	char *f[200];
	uint64_t before = page_frag_debug_errors();
	int i;

	for (i = 0; i < 200; i++) {
		f[i] = page_frag_alloc_align(&nc, 1 + (unsigned int)i % 100,
					     GFP_KERNEL, 8);
		CHECK(f[i] != NULL);
	}
	page_frag_cache_drain(&nc);
	for (i = 0; i < 200; i++)
		page_frag_free(f[(i * 7) % 200] + (i % 2));
	CHECK_EQ(page_frag_debug_errors(), before);
}

int
main(void)
{
	if (!PP_DEBUG)
		fprintf(stderr, "PP_DEBUG is off: the double-free checks are "
				"not built; running the frees they watch "
				"only\n");
	test_after_drain();
	test_reuse_in_place();
	test_commit_abort();
	test_many();
	CHECK(PP_DEBUG || page_frag_debug_errors() == 0);
	return T_EXIT_PASS;
}
