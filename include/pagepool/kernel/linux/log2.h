/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * <linux/log2.h>: the power-of-two helpers ring sizes are checked and
 * rounded with.
 */
#ifndef PAGEPOOL_KERNEL_LINUX_LOG2_H
#define PAGEPOOL_KERNEL_LINUX_LOG2_H

#include <stdbool.h>

static inline bool
is_power_of_2(unsigned long n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

/* floor(log2(n)); n must not be 0, as in the kernel. */
static inline int
ilog2(unsigned long n)
{
	return (int)(sizeof(n) * 8 - 1) - __builtin_clzl(n);
}

/* The smallest power of two >= n; n must be 1 or more. */
static inline unsigned long
roundup_pow_of_two(unsigned long n)
{
	return n <= 1 ? 1UL : 1UL << (ilog2(n - 1) + 1);
}

static inline unsigned long
rounddown_pow_of_two(unsigned long n)
{
	return 1UL << ilog2(n);
}

#endif /* PAGEPOOL_KERNEL_LINUX_LOG2_H */
