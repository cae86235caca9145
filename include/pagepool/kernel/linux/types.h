/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * <linux/types.h> for kernel code built on pagepool (pkg-config
 * pagepool-kernel): the kernel's fixed-width names u8..u64 and s8..s64
 * beside the system's uapi __u8..__u64, dma_addr_t and gfp_t.
 *
 * u64 is unsigned long long, as in the kernel, so that kernel code's
 * printf formats stay right; pagepool's API takes uint64_t, which the
 * compat headers convert where a pointer is passed.
 */
#ifndef PAGEPOOL_KERNEL_LINUX_TYPES_H
#define PAGEPOOL_KERNEL_LINUX_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>	/* ssize_t, off_t, as the kernel's has them */

/* The system's uapi <linux/types.h> (__u32, __le16, ...), which uapi
 * headers a driver includes expect to find under this name. */
#if defined(__has_include_next)
#if __has_include_next(<linux/types.h>)
#include_next <linux/types.h>
#define PP_KERNEL_HAVE_UAPI_TYPES 1
#endif
#endif
#ifndef PP_KERNEL_HAVE_UAPI_TYPES
typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef signed char __s8;
typedef short __s16;
typedef int __s32;
typedef long long __s64;
#endif

#include <pagepool/kcompat.h>
#include <pagepool/dma.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;

typedef u64 phys_addr_t;

#endif /* PAGEPOOL_KERNEL_LINUX_TYPES_H */
