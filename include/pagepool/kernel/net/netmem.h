/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * <net/netmem.h>: netmem_ref and its conversions (pagepool/netmem.h).
 */
#ifndef PAGEPOOL_KERNEL_NET_NETMEM_H
#define PAGEPOOL_KERNEL_NET_NETMEM_H

#include <linux/mm.h>
#include <pagepool/netmem.h>

#endif /* PAGEPOOL_KERNEL_NET_NETMEM_H */
