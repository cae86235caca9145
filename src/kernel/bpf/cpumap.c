/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * CPU maps: XDP_REDIRECT to another CPU (the kernel's kernel/bpf/cpumap.c,
 * BPF_MAP_TYPE_CPUMAP, written anew). Each entry is a ptr_ring of
 * xdp_frames and a consumer thread, pinned to its CPU when it can be. The
 * redirecting NAPI thread enqueues frames CPU_MAP_BULK_SIZE at a time
 * under the ring's producer lock; the consumer takes them in batches
 * without a lock (it is the ring's only consumer), builds an skb over each
 * frame's buffer and gives it to the small stack of the frame's ingress
 * device, which frees it there. Page_pool pages therefore come back to
 * their pool from a thread that is not its owner: through the pool's ring,
 * the case the page_pool's ring exists for.
 *
 * Generic XDP redirects skbs rather than frames: they share the ring,
 * told apart by bit 0 of the pointer as in the kernel, and the consumer
 * hands them to the stack as they are.
 *
 * The consumer polls its ring, yielding and then sleeping briefly when it
 * stays empty, where the kernel's kthread sleeps until the producer's
 * flush wakes it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <pagepool/ptr_ring.h>
#include <pagepool/xdp.h>

#include "net/core/dev_priv.h"

#define CPU_MAP_MAX_ENTRIES	256
#define CPU_MAP_MAX_QSIZE	16384

struct bpf_cpu_map_entry {
	struct ptr_ring ring;
	/* enqueued, dropped: under the ring's producer lock; processed,
	 * skb_errors: the consumer's. Read with relaxed loads. */
	struct cpu_map_stats stats;
	pthread_t thread;
	uint32_t key;
	int stop;
};

struct bpf_cpu_map {
	unsigned int max_entries;
	pthread_mutex_t lock;		/* update and delete */
	struct bpf_cpu_map_entry *entries[];
};

struct bpf_cpu_map *
cpu_map_create(unsigned int max_entries)
{
	struct bpf_cpu_map *map;

	if (max_entries == 0 || max_entries > CPU_MAP_MAX_ENTRIES) {
		errno = EINVAL;
		return NULL;
	}
	map = calloc(1, sizeof(*map) +
			max_entries * sizeof(map->entries[0])); /* NOLINT(bugprone-sizeof-expression) */
	if (map == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	map->max_entries = max_entries;
	pthread_mutex_init(&map->lock, NULL);
	return map;
}

static void
cpu_map_deliver(struct xdp_frame *xdpf, struct bpf_cpu_map_entry *rcpu)
{
	struct sk_buff *skb = xdp_build_skb_from_frame(xdpf, xdpf->dev_rx);

	if (skb == NULL) {
		xdp_return_frame(xdpf);
		netdev_stat_add(rcpu->stats.skb_errors, 1);
		return;
	}
	_pp_stack_receive(skb);
	netdev_stat_add(rcpu->stats.processed, 1);
}

/* An skb in the ring: bit 0 set (structs are at least 2-aligned). */
#define CPU_MAP_SKB_BIT 1UL

static void
cpu_map_deliver_any(void *ptr, struct bpf_cpu_map_entry *rcpu)
{
	if ((uintptr_t)ptr & CPU_MAP_SKB_BIT) {
		_pp_stack_receive((struct sk_buff *)((uintptr_t)ptr &
						     ~CPU_MAP_SKB_BIT));
		netdev_stat_add(rcpu->stats.processed, 1);
		return;
	}
	cpu_map_deliver(ptr, rcpu);
}

static void *
cpu_map_kthread(void *arg)
{
	struct bpf_cpu_map_entry *rcpu = arg;
	void *frames[CPU_MAP_BULK_SIZE];
	unsigned int idle = 0;
	int n, i;

	for (;;) {
		n = __ptr_ring_consume_batched(&rcpu->ring, frames,
					       CPU_MAP_BULK_SIZE);
		if (n > 0) {
			idle = 0;
			for (i = 0; i < n; i++)
				cpu_map_deliver_any(frames[i], rcpu);
			continue;
		}
		/* A16: pairs with release R16 in cpu_map_delete_elem():
		 * producers were done before it, so an empty ring after
		 * this load stays empty. */
		if (pp_load_acquire(&rcpu->stop) &&
		    __ptr_ring_empty(&rcpu->ring))
			break;
		if (++idle < 256) {
			sched_yield();
		} else {
			struct timespec ts = { 0, 50000 };

			nanosleep(&ts, NULL);
		}
	}
	pp_skb_cache_thread_drain();
	return NULL;
}

int
cpu_map_update_elem(struct bpf_cpu_map *map, uint32_t key, uint32_t qsize)
{
	struct bpf_cpu_map_entry *rcpu;
	cpu_set_t set;
	int ret = 0;

	if (map == NULL || key >= map->max_entries || qsize == 0 ||
	    qsize > CPU_MAP_MAX_QSIZE)
		return -EINVAL;
	pthread_mutex_lock(&map->lock);
	if (map->entries[key] != NULL) {
		ret = -EEXIST;
		goto out;
	}
	rcpu = calloc(1, sizeof(*rcpu));
	if (rcpu == NULL || ptr_ring_init(&rcpu->ring, (int)qsize,
					  GFP_KERNEL) != 0) {
		free(rcpu);
		ret = -ENOMEM;
		goto out;
	}
	rcpu->key = key;
	if (pthread_create(&rcpu->thread, NULL, cpu_map_kthread, rcpu) != 0) {
		ptr_ring_cleanup(&rcpu->ring, NULL);
		free(rcpu);
		ret = -EAGAIN;
		goto out;
	}
	/* Pinned to its CPU when there is one; otherwise anywhere. */
	CPU_ZERO(&set);
	CPU_SET(key, &set);
	(void)pthread_setaffinity_np(rcpu->thread, sizeof(set), &set);
	/* R17: pairs with acquire A17 in _pp_cpu_map_lookup(). */
	pp_store_release(&map->entries[key], rcpu);
out:
	pthread_mutex_unlock(&map->lock);
	return ret;
}

int
cpu_map_delete_elem(struct bpf_cpu_map *map, uint32_t key)
{
	struct bpf_cpu_map_entry *rcpu;

	if (map == NULL || key >= map->max_entries)
		return -EINVAL;
	pthread_mutex_lock(&map->lock);
	rcpu = map->entries[key];
	if (rcpu == NULL) {
		pthread_mutex_unlock(&map->lock);
		return -ENOENT;
	}
	pp_store_relaxed(&map->entries[key], NULL);
	pthread_mutex_unlock(&map->lock);
	/* R16: pairs with acquire A16 in cpu_map_kthread(). */
	pp_store_release(&rcpu->stop, 1);
	pthread_join(rcpu->thread, NULL);
	ptr_ring_cleanup(&rcpu->ring, NULL);
	free(rcpu);
	return 0;
}

void
cpu_map_destroy(struct bpf_cpu_map *map)
{
	unsigned int i;

	if (map == NULL)
		return;
	for (i = 0; i < map->max_entries; i++)
		(void)cpu_map_delete_elem(map, i);
	pthread_mutex_destroy(&map->lock);
	free(map);
}

int
cpu_map_get_stats(const struct bpf_cpu_map *map, uint32_t key,
		  struct cpu_map_stats *stats)
{
	struct bpf_cpu_map_entry *rcpu;

	if (map == NULL || stats == NULL || key >= map->max_entries)
		return -EINVAL;
	rcpu = pp_load_acquire(&map->entries[key]);
	if (rcpu == NULL)
		return -ENOENT;
	stats->enqueued = pp_load_relaxed(&rcpu->stats.enqueued);
	stats->dropped = pp_load_relaxed(&rcpu->stats.dropped);
	stats->processed = pp_load_relaxed(&rcpu->stats.processed);
	stats->skb_errors = pp_load_relaxed(&rcpu->stats.skb_errors);
	return 0;
}

struct bpf_cpu_map_entry *
_pp_cpu_map_lookup(struct bpf_cpu_map *map, uint32_t key)
{
	if (key >= map->max_entries)
		return NULL;
	/* A17: pairs with release R17 in cpu_map_update_elem(). */
	return pp_load_acquire(&map->entries[key]);
}

unsigned int
_pp_cpu_map_enqueue(struct bpf_cpu_map_entry *rcpu, struct xdp_frame **frames,
		    unsigned int n)
{
	unsigned int i;

	pp_spin_lock(&rcpu->ring.producer_lock);
	for (i = 0; i < n; i++)
		if (__ptr_ring_produce(&rcpu->ring, frames[i]) != 0)
			break;
	netdev_stat_add(rcpu->stats.enqueued, i);
	netdev_stat_add(rcpu->stats.dropped, n - i);
	pp_spin_unlock(&rcpu->ring.producer_lock);
	return i;
}

int
_pp_cpu_map_enqueue_skb(struct bpf_cpu_map_entry *rcpu, struct sk_buff *skb)
{
	int ret;

	pp_spin_lock(&rcpu->ring.producer_lock);
	ret = __ptr_ring_produce(&rcpu->ring,
				 (void *)((uintptr_t)skb | CPU_MAP_SKB_BIT));
	if (ret == 0)
		netdev_stat_add(rcpu->stats.enqueued, 1);
	else
		netdev_stat_add(rcpu->stats.dropped, 1);
	pp_spin_unlock(&rcpu->ring.producer_lock);
	return ret;
}
