/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * <linux/bits.h>: BIT() and GENMASK().
 */
#ifndef PAGEPOOL_KERNEL_LINUX_BITS_H
#define PAGEPOOL_KERNEL_LINUX_BITS_H

#define BIT(nr)			(1UL << (nr))
#define BIT_ULL(nr)		(1ULL << (nr))
#define BITS_PER_LONG		(__SIZEOF_LONG__ * 8)
#define BITS_PER_LONG_LONG	64
/* Bits h..l set, h >= l. */
#define GENMASK(h, l)                                                        \
	((~0UL << (l)) & (~0UL >> (BITS_PER_LONG - 1 - (h))))
#define GENMASK_ULL(h, l)                                                    \
	((~0ULL << (l)) & (~0ULL >> (BITS_PER_LONG_LONG - 1 - (h))))

#endif /* PAGEPOOL_KERNEL_LINUX_BITS_H */
