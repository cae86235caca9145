/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * <linux/slab.h>: kmalloc() and friends on the C library's allocator,
 * honouring __GFP_ZERO. kvmalloc() is kmalloc() here: userspace has no
 * separate vmalloc space.
 */
#ifndef PAGEPOOL_KERNEL_LINUX_SLAB_H
#define PAGEPOOL_KERNEL_LINUX_SLAB_H

#include <stdlib.h>
#include <string.h>

#include <linux/types.h>

static inline void *
kmalloc(size_t size, gfp_t flags)
{
	return (flags & __GFP_ZERO) ? calloc(1, size) : malloc(size);
}

static inline void *
kzalloc(size_t size, gfp_t flags)
{
	return kmalloc(size, flags | __GFP_ZERO);
}

static inline void *
kmalloc_array(size_t n, size_t size, gfp_t flags)
{
	if (size != 0 && n > SIZE_MAX / size)
		return NULL;
	return kmalloc(n * size, flags);
}

static inline void *
kcalloc(size_t n, size_t size, gfp_t flags)
{
	return kmalloc_array(n, size, flags | __GFP_ZERO);
}

static inline void
kfree(const void *p)
{
	free((void *)p);
}

#define kvmalloc(size, flags)		kmalloc(size, flags)
#define kvzalloc(size, flags)		kzalloc(size, flags)
#define kvcalloc(n, size, flags)	kcalloc(n, size, flags)
#define kvfree(p)			kfree(p)

#endif /* PAGEPOOL_KERNEL_LINUX_SLAB_H */
