/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * <linux/minmax.h>: min(), max() and clamp() evaluating each argument
 * once. In C, as in the kernel, min() and max() of two different types
 * draw a warning (comparison of distinct pointer types); min_t() and
 * max_t() convert both to the named type first.
 */
#ifndef PAGEPOOL_KERNEL_LINUX_MINMAX_H
#define PAGEPOOL_KERNEL_LINUX_MINMAX_H

#ifndef __cplusplus
#define __pp_typecheck(x, y)	((void)(&(x) == &(y)))
#else
#define __pp_typecheck(x, y)	((void)0)
#endif

/* Names unique to each expansion, so that nested uses (clamp(), a min()
 * of a min()) do not shadow each other's temporaries. */
#define __PP_PASTE2(a, b)	a##b
#define __PP_PASTE(a, b)	__PP_PASTE2(a, b)
#define __PP_UNIQUE(p)		__PP_PASTE(__pp_##p, __COUNTER__)

#define __pp_cmp(x, y, op, ux, uy)                                           \
	__extension__({                                                      \
		__typeof__(x) ux = (x);                                      \
		__typeof__(y) uy = (y);                                      \
		__pp_typecheck(ux, uy);                                      \
		ux op uy ? ux : uy;                                          \
	})
#define __pp_cmp_t(type, x, y, op, ux, uy)                                   \
	__extension__({                                                      \
		type ux = (x);                                               \
		type uy = (y);                                               \
		ux op uy ? ux : uy;                                          \
	})

#define min(x, y)	__pp_cmp(x, y, <, __PP_UNIQUE(a), __PP_UNIQUE(b))
#define max(x, y)	__pp_cmp(x, y, >, __PP_UNIQUE(a), __PP_UNIQUE(b))
#define min_t(type, x, y)                                                    \
	__pp_cmp_t(type, x, y, <, __PP_UNIQUE(a), __PP_UNIQUE(b))
#define max_t(type, x, y)                                                    \
	__pp_cmp_t(type, x, y, >, __PP_UNIQUE(a), __PP_UNIQUE(b))
#define clamp(val, lo, hi)	min(max(val, lo), hi)
#define clamp_t(type, val, lo, hi)	min_t(type, max_t(type, val, lo), hi)

#endif /* PAGEPOOL_KERNEL_LINUX_MINMAX_H */
