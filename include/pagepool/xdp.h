/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * DOC: xdp — XDP buffers, frames, RX queue info and memory models
 *
 * The kernel's include/net/xdp.h and net/core/xdp.c: a driver describes a
 * received buffer in a struct xdp_buff, runs the attached program on it,
 * and acts on the verdict. A buffer kept beyond the poll (XDP_TX,
 * XDP_REDIRECT) becomes a struct xdp_frame, stored in the buffer's own
 * headroom, and is given back with xdp_return_frame*() according to the
 * memory model its RX queue registered: MEM_TYPE_PAGE_POOL returns the page
 * to its page_pool (directly from the pool's NAPI thread with
 * xdp_return_frame_rx_napi(), through the ring otherwise).
 *
 * Programs. There is no BPF here: a program is a C function with the XDP
 * contract. It receives a struct xdp_md with the packet's bounds (data,
 * data_end, data_meta) and its ingress device and queue, may read and write
 * the packet between data and data_end, may move data and data_meta into
 * the headroom or data_end within the buffer (what bpf_xdp_adjust_head,
 * _meta and _tail allow), and returns a verdict (enum xdp_action).
 * bpf_prog_run_xdp() runs it and counts the verdict in the RX queue's
 * statistics; a verdict outside the enum, or bounds moved outside the
 * buffer, is counted as invalid and must be treated as XDP_ABORTED by the
 * caller (bpf_warn_invalid_xdp_action(), trace_xdp_exception()).
 */
#ifndef PAGEPOOL_XDP_H
#define PAGEPOOL_XDP_H

#include <stdbool.h>
#include <stdint.h>

#include <pagepool/kcompat.h>
#include <pagepool/page.h>

#ifdef __cplusplus
extern "C" {
#endif

struct net_device;
struct page_pool;
struct sk_buff;

/** enum xdp_action - a program's verdict. */
enum xdp_action {
	XDP_ABORTED = 0,
	XDP_DROP,
	XDP_PASS,
	XDP_TX,
	XDP_REDIRECT,
};

/* Number of valid verdicts. */
#define XDP_ACTION_MAX	(XDP_REDIRECT + 1)

/* Headroom a driver leaves in front of every packet for XDP. */
#define XDP_PACKET_HEADROOM	256

/* Attach flags (the kernel's uapi values). */
#define XDP_FLAGS_UPDATE_IF_NOEXIST	(1U << 0)
#define XDP_FLAGS_SKB_MODE		(1U << 1)
#define XDP_FLAGS_DRV_MODE		(1U << 2)
#define XDP_FLAGS_MODES		(XDP_FLAGS_SKB_MODE | XDP_FLAGS_DRV_MODE)
#define XDP_FLAGS_MASK		(XDP_FLAGS_UPDATE_IF_NOEXIST | XDP_FLAGS_MODES)

/* ndo_xdp_xmit() flags: ring the doorbell after these frames. */
#define XDP_XMIT_FLUSH		(1U << 0)
#define XDP_XMIT_FLAGS_MASK	XDP_XMIT_FLUSH

/* Frames per page_pool bulk return in xdp_return_frame_bulk(), and per
 * ndo_xdp_xmit() call of a redirect. */
#define XDP_BULK_QUEUE_SIZE	16

/** enum xdp_mem_type - who gets a frame's memory back. */
enum xdp_mem_type {
	MEM_TYPE_PAGE_SHARED = 0,	/* page_frag_free() */
	MEM_TYPE_PAGE_ORDER0,		/* put_page() */
	MEM_TYPE_PAGE_POOL,		/* the page's page_pool */
	MEM_TYPE_XSK_BUFF_POOL,		/* not supported */
	MEM_TYPE_MAX,
};

/** struct xdp_mem_info - a registered memory model. */
struct xdp_mem_info {
	uint32_t type;
	uint32_t id;
};

/**
 * struct xdp_rxq_stats - verdicts counted by bpf_prog_run_xdp() on a
 * queue (pagepool's addition; the kernel counts in BPF maps and drivers).
 * @action: per verdict
 * @invalid: verdicts outside enum xdp_action, or bounds out of the buffer
 * Written by the queue's NAPI thread only, with relaxed atomic stores, so
 * any thread may read them.
 */
struct xdp_rxq_stats {
	uint64_t action[XDP_ACTION_MAX];
	uint64_t invalid;
};

/** struct xdp_rxq_info - an RX queue as XDP sees it. */
struct xdp_rxq_info {
	struct net_device *dev;
	uint32_t queue_index;
	uint32_t reg_state;
	struct xdp_mem_info mem;
	unsigned int napi_id;
	uint32_t frag_size;
	struct xdp_rxq_stats stats;
} PP_CACHELINE_ALIGNED;

/** struct xdp_txq_info - the TX device of a redirected buffer. */
struct xdp_txq_info {
	struct net_device *dev;
};

/** struct xdp_buff - a received buffer while XDP looks at it. */
struct xdp_buff {
	void *data;
	void *data_end;
	void *data_meta;
	void *data_hard_start;
	struct xdp_rxq_info *rxq;
	struct xdp_txq_info *txq;
	uint32_t frame_sz;
	uint32_t flags;
};

/** struct xdp_frame - a buffer kept past the poll; lives in its headroom. */
struct xdp_frame {
	void *data;
	uint32_t len;
	uint32_t headroom;
	uint32_t metasize;
	uint32_t frame_sz;
	struct xdp_mem_info mem;
	struct net_device *dev_rx;
	uint32_t flags;
};

/** struct xdp_frame_bulk - pages collected by xdp_return_frame_bulk(). */
struct xdp_frame_bulk {
	int count;
	struct page *q[XDP_BULK_QUEUE_SIZE];
};

/**
 * struct xdp_md - a program's context. Pointers where BPF has 32-bit
 * offsets; a program may move data, data_meta and data_end as the BPF
 * helpers would.
 */
struct xdp_md {
	void *data;
	void *data_end;
	void *data_meta;
	uint32_t ingress_ifindex;
	uint32_t rx_queue_index;
	uint32_t egress_ifindex;
};

/**
 * struct bpf_prog - an XDP program.
 * @run: the program; @priv is passed to it (its "maps")
 * @name: for messages
 */
struct bpf_prog {
	uint32_t (*run)(struct xdp_md *ctx, void *priv);
	void *priv;
	const char *name;
};

/** xdp_init_buff() - start describing a buffer of @frame_sz bytes. */
static inline void
xdp_init_buff(struct xdp_buff *xdp, uint32_t frame_sz,
	      struct xdp_rxq_info *rxq)
{
	xdp->frame_sz = frame_sz;
	xdp->rxq = rxq;
	xdp->txq = NULL;
	xdp->flags = 0;
}

/**
 * xdp_prepare_buff() - the packet is @data_len bytes at @hard_start +
 * @headroom; @meta_valid: data_meta may be used (else it is data + 1, the
 * kernel's "no metadata support" mark).
 */
static inline void
xdp_prepare_buff(struct xdp_buff *xdp, unsigned char *hard_start,
		 int headroom, int data_len, bool meta_valid)
{
	unsigned char *data = hard_start + headroom;

	xdp->data_hard_start = hard_start;
	xdp->data = data;
	xdp->data_end = data + data_len;
	xdp->data_meta = meta_valid ? data : data + 1;
}

/**
 * bpf_prog_run_xdp() - run @prog on @xdp and count the verdict in
 * @xdp->rxq's statistics.
 * Return: the verdict; one outside enum xdp_action is returned as is and
 * counted invalid. Bounds moved outside the buffer (which the kernel's
 * verifier would have refused) are restored and XDP_ACTION_MAX, an invalid
 * verdict, is returned.
 * Context: the queue's NAPI thread.
 */
PP_API uint32_t bpf_prog_run_xdp(const struct bpf_prog *prog,
				 struct xdp_buff *xdp);

/**
 * bpf_warn_invalid_xdp_action() - report once per program on stderr that
 * it returned @act, which the driver does not support.
 */
PP_API void bpf_warn_invalid_xdp_action(struct net_device *dev,
					const struct bpf_prog *prog,
					uint32_t act);

/**
 * trace_xdp_exception() - count an XDP error on @dev (an aborted or
 * invalid verdict, a failed XDP_TX or XDP_REDIRECT): the kernel's
 * xdp_exception tracepoint, read back with dev->xdp_exceptions.
 */
PP_API void trace_xdp_exception(struct net_device *dev,
				const struct bpf_prog *prog, uint32_t act);

/**
 * xdp_rxq_info_reg() - register an RX queue's XDP info.
 * Return: 0; -EINVAL (NULL @xdp_rxq or @dev).
 * Context: the driver, before the queue runs.
 */
PP_API int xdp_rxq_info_reg(struct xdp_rxq_info *xdp_rxq,
			    struct net_device *dev, uint32_t queue_index,
			    unsigned int napi_id);

/** xdp_rxq_info_unreg() - undo xdp_rxq_info_reg() and the memory model. */
PP_API void xdp_rxq_info_unreg(struct xdp_rxq_info *xdp_rxq);

/** xdp_rxq_info_is_reg() - is @xdp_rxq registered? */
PP_API bool xdp_rxq_info_is_reg(const struct xdp_rxq_info *xdp_rxq);

/**
 * xdp_rxq_info_reg_mem_model() - the queue's buffers are of @type; for
 * MEM_TYPE_PAGE_POOL @allocator is the pool, which gets a user reference
 * (dropped by xdp_rxq_info_unreg_mem_model()).
 * Return: 0; -EINVAL (unregistered queue, bad type, a page_pool type
 * without a pool); -EOPNOTSUPP (MEM_TYPE_XSK_BUFF_POOL); -ENOSPC.
 */
PP_API int xdp_rxq_info_reg_mem_model(struct xdp_rxq_info *xdp_rxq,
				      enum xdp_mem_type type,
				      void *allocator);

/** xdp_rxq_info_unreg_mem_model() - drop the memory model. */
PP_API void xdp_rxq_info_unreg_mem_model(struct xdp_rxq_info *xdp_rxq);

/**
 * xdp_convert_buff_to_frame() - keep @xdp beyond the poll: a struct
 * xdp_frame written at the start of its headroom.
 * Return: the frame; NULL if the headroom cannot hold it.
 */
PP_API struct xdp_frame *xdp_convert_buff_to_frame(struct xdp_buff *xdp);

/**
 * xdp_return_frame() - give a frame's memory back per its memory model,
 * from any thread. xdp_return_frame_rx_napi(): the same from the NAPI
 * thread of the frame's page_pool, recycling directly.
 */
PP_API void xdp_return_frame(struct xdp_frame *xdpf);
/** xdp_return_frame_rx_napi() - see xdp_return_frame(). */
PP_API void xdp_return_frame_rx_napi(struct xdp_frame *xdpf);

/** xdp_return_buff() - give an xdp_buff's memory back (from its NAPI). */
PP_API void xdp_return_buff(struct xdp_buff *xdp);

/**
 * bpf_redirect() - the program's helper: redirect this packet to the TX
 * side of the device @ifindex. Use as "return bpf_redirect(ifindex, 0);".
 * Return: XDP_REDIRECT; XDP_ABORTED for unknown @flags (none are known).
 * Context: inside a program (the calling thread's redirect state).
 */
PP_API long bpf_redirect(uint32_t ifindex, uint64_t flags);

/**
 * xdp_do_redirect() - carry out the redirect the program asked for: the
 * buffer becomes a frame queued for the target device, sent in bulks of
 * XDP_BULK_QUEUE_SIZE through its ndo_xdp_xmit() and at xdp_do_flush().
 * Return: 0 (the frame is the target's now); -EINVAL (no redirect was
 * asked for, or the headroom cannot hold a frame); -ENODEV (no such
 * device, or it is down, or cannot transmit XDP frames). On error the
 * caller still owns the buffer (drop it and count an exception).
 * Context: the RX queue's NAPI thread.
 */
PP_API int xdp_do_redirect(struct net_device *dev, struct xdp_buff *xdp,
			   const struct bpf_prog *prog);

/**
 * xdp_do_flush() - send every frame redirected by this thread and not yet
 * sent; the driver calls it at the end of a poll that redirected.
 * Frames a target does not take are freed and counted in its tx_dropped.
 */
PP_API void xdp_do_flush(void);

/*
 * ---- CPU maps (the kernel's BPF_MAP_TYPE_CPUMAP) --------------------------
 *
 * An entry per "CPU": a ptr_ring of frames and a consumer thread that
 * builds an skb from each frame (xdp_build_skb_from_frame()) and hands it
 * to the stack of the frame's ingress device. The skb is freed on that
 * thread, so page_pool pages go back to their pool through its ring.
 */

/* Frames per enqueue into an entry's ring, and per consumer batch. */
#define CPU_MAP_BULK_SIZE	8

struct bpf_cpu_map;

/** struct cpu_map_stats - counters of one CPU map entry. */
struct cpu_map_stats {
	uint64_t enqueued;	/* frames put into the ring */
	uint64_t dropped;	/* frames refused: ring full */
	uint64_t processed;	/* frames the consumer turned into skbs */
	uint64_t skb_errors;	/* frames the consumer could not build */
};

/**
 * cpu_map_create() - a CPU map with room for @max_entries entries (keys
 * 0 .. max_entries - 1, at most 256).
 * Return: the map; NULL with errno EINVAL or ENOMEM.
 */
PP_API struct bpf_cpu_map *cpu_map_create(unsigned int max_entries);

/**
 * cpu_map_update_elem() - create entry @key: a ring of @qsize frames
 * (1..16384) and its consumer thread, pinned to CPU @key when that CPU
 * exists and is allowed.
 * Return: 0; -EINVAL; -EEXIST (entry exists); -ENOMEM; -EAGAIN.
 * Context: any thread, while no producer redirects to @key.
 */
PP_API int cpu_map_update_elem(struct bpf_cpu_map *map, uint32_t key,
			       uint32_t qsize);

/**
 * cpu_map_delete_elem() - stop entry @key: its consumer processes what is
 * queued, then exits. Return: 0; -EINVAL; -ENOENT.
 * Context: once no producer redirects to @key any more.
 */
PP_API int cpu_map_delete_elem(struct bpf_cpu_map *map, uint32_t key);

/** cpu_map_destroy() - delete every entry and free @map. NULL is a no-op. */
PP_API void cpu_map_destroy(struct bpf_cpu_map *map);

/** cpu_map_get_stats() - entry @key's counters. Return: 0, -EINVAL, -ENOENT. */
PP_API int cpu_map_get_stats(const struct bpf_cpu_map *map, uint32_t key,
			     struct cpu_map_stats *stats);

/**
 * bpf_redirect_map() - the program's helper: redirect this packet to entry
 * @key of @map (a struct bpf_cpu_map). Use as "return bpf_redirect_map(map,
 * key, 0);". Return: XDP_REDIRECT; XDP_ABORTED for unknown @flags.
 */
PP_API long bpf_redirect_map(void *map, uint32_t key, uint64_t flags);

/**
 * xdp_build_skb_from_frame() - an skb over @xdpf's buffer, for the stack
 * of @dev (marked for recycling if the frame's memory is a page_pool's).
 * Return: the skb; NULL with errno on failure (the frame is then still
 * the caller's).
 */
PP_API struct sk_buff *xdp_build_skb_from_frame(struct xdp_frame *xdpf,
						struct net_device *dev);

/** xdp_frame_bulk_init() - start an empty bulk. */
static inline void
xdp_frame_bulk_init(struct xdp_frame_bulk *bq)
{
	bq->count = 0;
}

/**
 * xdp_return_frame_bulk() - collect page_pool frames in @bq and return
 * them XDP_BULK_QUEUE_SIZE at a time (others at once); end with
 * xdp_flush_frame_bulk().
 */
PP_API void xdp_return_frame_bulk(struct xdp_frame *xdpf,
				  struct xdp_frame_bulk *bq);
/** xdp_flush_frame_bulk() - return what @bq collected. */
PP_API void xdp_flush_frame_bulk(struct xdp_frame_bulk *bq);

#ifdef __cplusplus
}
#endif

#endif /* PAGEPOOL_XDP_H */
