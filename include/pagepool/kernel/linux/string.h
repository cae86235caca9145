/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * <linux/string.h>: memcpy(), memset(), strlen() and the other string
 * functions the C library provides under the kernel's names.
 */
#ifndef PAGEPOOL_KERNEL_LINUX_STRING_H
#define PAGEPOOL_KERNEL_LINUX_STRING_H

#include <string.h>

#endif /* PAGEPOOL_KERNEL_LINUX_STRING_H */
