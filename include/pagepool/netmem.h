/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * netmem_ref: the kernel's handle to network memory (include/net/netmem.h,
 * Linux >= 6.12), which page_pool's netmem API hands out and takes back.
 *
 * In the kernel a netmem_ref is a struct page pointer, or a net_iov pointer
 * with bit 0 set for device memory a pool may hand out (devmem TCP). pagepool
 * has no device memory, so every netmem_ref is a page pointer cast to an
 * integer: the conversions are casts, free at run time, and an array of
 * netmem_ref has the layout of an array of struct page pointers.
 */
#ifndef PAGEPOOL_NETMEM_H
#define PAGEPOOL_NETMEM_H

#include <pagepool/page.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * An integer, not a pointer, as in the kernel: a netmem_ref cannot be
 * dereferenced by mistake, only converted with the helpers below.
 */
typedef unsigned long netmem_ref;

/** page_to_netmem() - the netmem_ref of @page (0 for NULL). */
static inline netmem_ref
page_to_netmem(struct page *page)
{
	return (netmem_ref)page;
}

/** netmem_to_page() - the page behind @netmem (NULL for 0). */
static inline struct page *
netmem_to_page(netmem_ref netmem)
{
	return (struct page *)netmem;
}

/** virt_to_netmem() - the netmem_ref of the page containing @addr. */
static inline netmem_ref
virt_to_netmem(const void *addr)
{
	return page_to_netmem(virt_to_page(addr));
}

/** netmem_address() - the address of @netmem's memory (NULL for 0). */
static inline void *
netmem_address(netmem_ref netmem)
{
	struct page *page = netmem_to_page(netmem);

	return page != NULL ? page_address(page) : NULL;
}

#ifdef __cplusplus
}
#endif

#endif /* PAGEPOOL_NETMEM_H */
