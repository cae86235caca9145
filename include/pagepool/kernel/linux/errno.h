/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * <linux/errno.h>: the error numbers. The C library's <errno.h> itself
 * includes <linux/errno.h>, which resolves here while this tree is on the
 * include path, so this header only passes on to the system's uapi one
 * (and to <errno.h> where there is none): it must define nothing of its
 * own that the C library's headers could see.
 */
#ifndef PAGEPOOL_KERNEL_LINUX_ERRNO_H
#define PAGEPOOL_KERNEL_LINUX_ERRNO_H

#if defined(__has_include_next)
#if __has_include_next(<linux/errno.h>)
#include_next <linux/errno.h>
#define PP_KERNEL_HAVE_UAPI_ERRNO 1
#endif
#endif
#ifndef PP_KERNEL_HAVE_UAPI_ERRNO
#include <errno.h>
#endif

#endif /* PAGEPOOL_KERNEL_LINUX_ERRNO_H */
