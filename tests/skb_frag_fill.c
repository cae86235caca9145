/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The kernel's inline fragment helpers a TX path builds skbs with
 * (skb_fill_page_desc(), skb_can_coalesce(), skb_frag_size_add(),
 * skb_len_add() and the skb_frag_* accessors), as tcp_sendmsg() uses them:
 * a fragment per new piece, the next piece of the same page right behind
 * it grown into it instead, and the skb's lengths by what was added. Then
 * kfree_skb() drops exactly the references the fragments took over.
 */
#include <pagepool/page.h>
#include <pagepool/skbuff.h>

#include "helpers.h"

/* Accessors and setters read and write what the kernel's do. */
static void
test_accessors(void)
{
	struct page *page = alloc_pages(GFP_KERNEL, 0);
	skb_frag_t f;

	CHECK(page != NULL);
	skb_frag_fill_page_desc(&f, page, 100, 200);
	CHECK(skb_frag_page(&f) == page);
	CHECK_EQ(skb_frag_off(&f), 100);
	CHECK_EQ(skb_frag_size(&f), 200);
	CHECK((unsigned char *)skb_frag_address(&f) ==
	      (unsigned char *)page_address(page) + 100);
	skb_frag_size_add(&f, 50);
	CHECK_EQ(skb_frag_size(&f), 250);
	skb_frag_size_sub(&f, 30);
	CHECK_EQ(skb_frag_size(&f), 220);
	skb_frag_size_set(&f, 10);
	CHECK_EQ(skb_frag_size(&f), 10);
	skb_frag_off_add(&f, 8);
	CHECK_EQ(skb_frag_off(&f), 108);
	skb_frag_off_set(&f, 4000);
	CHECK_EQ(skb_frag_off(&f), 4000);
	CHECK(skb_frag_page(&f) == page);
	put_page(page);
}

/*
 * tcp_sendmsg()'s step: bytes at @off of @page, @len long, appended to
 * @skb: grown into its last fragment when they continue it, else a new
 * fragment holding a new reference.
 */
static void
append(struct sk_buff *skb, struct page *page, int off, int len)
{
	int i = skb_shinfo(skb)->nr_frags;

	if (skb_can_coalesce(skb, i, page, off)) {
		skb_frag_size_add(&skb_shinfo(skb)->frags[i - 1], len);
	} else {
		get_page(page);
		skb_fill_page_desc(skb, i, page, off, len);
	}
	skb_len_add(skb, len);
}

static void
test_fill_and_coalesce(void)
{
	struct page *a = alloc_pages(GFP_KERNEL, 0);
	struct page *b = alloc_pages(GFP_KERNEL, 0);
	struct sk_buff *skb = alloc_skb(128, GFP_KERNEL);
	unsigned int truesize;
	skb_frag_t *fr;

	CHECK(a != NULL && b != NULL && skb != NULL);
	skb_put(skb, 40);
	truesize = skb->truesize;
	/* Nothing to coalesce with in an skb without fragments. */
	CHECK(!skb_can_coalesce(skb, 0, a, 0));
	append(skb, a, 0, 100);
	append(skb, a, 100, 60);	/* continues fragment 0 */
	append(skb, a, 200, 10);	/* a gap: a new fragment */
	append(skb, b, 210, 5);		/* another page: a new fragment */
	append(skb, b, 215, 7);		/* continues fragment 2 */
	fr = skb_shinfo(skb)->frags;
	CHECK_EQ(skb_shinfo(skb)->nr_frags, 3);
	CHECK(skb_frag_page(&fr[0]) == a);
	CHECK_EQ(skb_frag_off(&fr[0]), 0);
	CHECK_EQ(skb_frag_size(&fr[0]), 160);
	CHECK(skb_frag_page(&fr[1]) == a);
	CHECK_EQ(skb_frag_off(&fr[1]), 200);
	CHECK_EQ(skb_frag_size(&fr[1]), 10);
	CHECK(skb_frag_page(&fr[2]) == b);
	CHECK_EQ(skb_frag_off(&fr[2]), 210);
	CHECK_EQ(skb_frag_size(&fr[2]), 12);
	/* Bytes at the end of the last fragment, of another page: no. */
	CHECK(!skb_can_coalesce(skb, 3, a, 222));
	CHECK(skb_can_coalesce(skb, 3, b, 222));
	/* The lengths count every byte added, linear data apart. */
	CHECK_EQ(skb->data_len, 182);
	CHECK_EQ(skb->len, 40 + 182);
	CHECK_EQ(skb_headlen(skb), 40);
	CHECK_EQ(skb->truesize, truesize + 182);
	CHECK(skb_is_nonlinear(skb));
	/* __skb_fill_page_desc() fills a slot and leaves nr_frags. */
	__skb_fill_page_desc(skb, 3, b, 300, 1);
	CHECK_EQ(skb_shinfo(skb)->nr_frags, 3);
	CHECK(skb_frag_page(&fr[3]) == b);
	/* One reference per fragment, taken over by the skb: kfree_skb()
	 * drops two of a's and one of b's. */
	CHECK_EQ(page_ref_count(a), 3);
	CHECK_EQ(page_ref_count(b), 2);
	kfree_skb(skb);
	CHECK_EQ(page_ref_count(a), 1);
	CHECK_EQ(page_ref_count(b), 1);
	put_page(a);
	put_page(b);
}

int
main(void)
{
	test_accessors();
	test_fill_and_coalesce();
	return T_EXIT_PASS;
}
