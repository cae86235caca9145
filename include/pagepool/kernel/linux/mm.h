/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * <linux/mm.h>: struct page and its helpers (page_address(),
 * virt_to_page(), virt_to_head_page(), get_page(), put_page(), ...) from
 * pagepool/page.h. <linux/gfp.h> and <linux/mm_types.h> resolve here too.
 */
#ifndef PAGEPOOL_KERNEL_LINUX_MM_H
#define PAGEPOOL_KERNEL_LINUX_MM_H

#include <linux/types.h>
#include <pagepool/page.h>

#endif /* PAGEPOOL_KERNEL_LINUX_MM_H */
