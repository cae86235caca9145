/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * <linux/build_bug.h>: BUILD_BUG_ON() and static_assert(), compile-time
 * checks of a driver's descriptor layouts.
 */
#ifndef PAGEPOOL_KERNEL_LINUX_BUILD_BUG_H
#define PAGEPOOL_KERNEL_LINUX_BUILD_BUG_H

#include <pagepool/kcompat.h>

/* A statement, usable inside a function as in the kernel. */
#define BUILD_BUG_ON(cond)                                                   \
	do {                                                                 \
		PP_STATIC_ASSERT(!(cond), "BUILD_BUG_ON(" #cond ")");        \
	} while (0)

#if !defined(__cplusplus) && !defined(static_assert)
#define static_assert(cond, ...)	_Static_assert(cond, "" __VA_ARGS__)
#endif

#endif /* PAGEPOOL_KERNEL_LINUX_BUILD_BUG_H */
