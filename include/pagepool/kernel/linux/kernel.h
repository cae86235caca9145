/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * <linux/kernel.h>: the catch-all most driver files include first. It
 * brings the types, compiler hints, error pointers, bit and min/max
 * helpers, and the few macros of its own kernel code reaches for:
 * ARRAY_SIZE(), container_of(), ALIGN(), DIV_ROUND_UP(), pr_*() printing
 * to stderr, and WARN_ON() reporting without stopping.
 */
#ifndef PAGEPOOL_KERNEL_LINUX_KERNEL_H
#define PAGEPOOL_KERNEL_LINUX_KERNEL_H

#include <stdio.h>

/* The system's uapi <linux/kernel.h>, for uapi headers that include it. */
#if defined(__has_include_next)
#if __has_include_next(<linux/kernel.h>)
#include_next <linux/kernel.h>
#endif
#endif

#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/bits.h>
#include <linux/minmax.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
#ifndef container_of
#define container_of(ptr, type, member)                                      \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))
#endif
#ifndef ALIGN
#define ALIGN(x, a)	(((x) + ((a) - 1)) & ~((__typeof__(x))(a) - 1))
#endif
#ifndef DIV_ROUND_UP
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#endif

#ifndef pr_fmt
#define pr_fmt(fmt)	fmt
#endif
#define pr_err(fmt, ...)	fprintf(stderr, pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...)	fprintf(stderr, pr_fmt(fmt), ##__VA_ARGS__)
#define pr_notice(fmt, ...)	fprintf(stderr, pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info(fmt, ...)	fprintf(stderr, pr_fmt(fmt), ##__VA_ARGS__)
/* Compiled in, never printed: the kernel prints it only when enabled. */
#define pr_debug(fmt, ...)                                                   \
	do {                                                                 \
		if (0)                                                       \
			fprintf(stderr, pr_fmt(fmt), ##__VA_ARGS__);         \
	} while (0)

/* Reports and carries on, as the kernel does without panic_on_warn. */
#define WARN_ON(cond)                                                        \
	__extension__({                                                      \
		int __pp_warn = !!(cond);                                    \
		if (unlikely(__pp_warn))                                     \
			fprintf(stderr, "WARNING: %s:%d: %s\n", __FILE__,    \
				__LINE__, #cond);                            \
		__pp_warn;                                                   \
	})
#define WARN_ON_ONCE(cond)	WARN_ON(cond)

#endif /* PAGEPOOL_KERNEL_LINUX_KERNEL_H */
