/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The exported netmem forms of page_pool (Linux >= 6.12). A netmem_ref is a
 * page pointer in pagepool, so these convert and call the page forms; they
 * are out of line because the kernel exports them and their page forms are
 * out of line here too. The inline netmem forms are in pagepool/page_pool.h.
 */
#include <errno.h>

#include "page_pool_priv.h"

/*
 * page_pool_put_page_bulk() takes an array of page pointers; the caller's
 * netmem array is converted through a stack batch, since reading one type
 * through the other would break C's aliasing rules. The batch is the NAPI
 * budget, the size of the bulk a driver's completion loop frees at once.
 */
#define PP_NETMEM_BULK	64

netmem_ref
page_pool_alloc_frag_netmem(struct page_pool *pool, unsigned int *offset,
			    unsigned int size, gfp_t gfp)
{
	return page_to_netmem(page_pool_alloc_frag(pool, offset, size, gfp));
}

void
page_pool_put_netmem_bulk(netmem_ref *data, uint32_t count)
{
	struct page *batch[PP_NETMEM_BULK];

	if (data == NULL) {
		if (count != 0)
			errno = EINVAL;
		return;
	}
	while (count > 0) {
		uint32_t i, n = count < PP_NETMEM_BULK ? count : PP_NETMEM_BULK;

		for (i = 0; i < n; i++)
			batch[i] = netmem_to_page(data[i]);
		page_pool_put_page_bulk(batch, n);
		data += n;
		count -= n;
	}
}
