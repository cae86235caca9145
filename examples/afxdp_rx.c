/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Example: an AF_XDP receiver whose UMEM frames are page_pool pages.
 *
 * An AF_XDP socket receives into memory of ours, the UMEM: we lend it
 * frames on the fill ring, the kernel copies each packet into one and
 * gives the frame back on the RX ring. Those are a NIC's RX descriptor
 * rings in all but name, and a kernel driver keeps the buffers it posts
 * there in a page_pool. So does this program, with three pieces of glue:
 *
 *   - the UMEM is a memory source (PP_MEM_USER), and the pool sits on it
 *     (PP_FLAG_MEM_SOURCE): every page the pool hands out is a UMEM frame;
 *   - a DMA device of our own translates a page to its UMEM offset, the
 *     address the rings carry, so page_pool_get_dma_addr() is what goes
 *     on the fill ring;
 *   - an RX descriptor's offset is back in the UMEM, where virt_to_page()
 *     finds the page the bytes belong to.
 *
 *   main (pool owner, its "NAPI")            worker
 *   -----------------------------            ------
 *   pool page --dma addr--> fill ring
 *   RX ring: offset -> virt_to_page()
 *     even frames: read, recycle direct
 *     odd frames:  data ---- ptr_ring ---->  read the frame,
 *                                            virt_to_head_page(data),
 *                                            page_pool_put_full_page()
 *   refill <-------- the pool's ring <------ (not the owner: no direct)
 *
 * At the end the socket goes first, after which the kernel holds no
 * frame; the frames it still had go back to the pool; the pool is
 * destroyed with nothing in flight. The proof is the memory source's
 * destroy, which refuses while a pool on it lives.
 *
 * Needs root (AF_XDP wants CAP_NET_RAW and CAP_BPF) and bpffs at
 * /sys/fs/bpf, where libxdp keeps its program's state. Run it on a veth
 * end in network namespaces of your own (scripts/netns.sh in pagepool's
 * source tree), never on an interface the machine needs: while it runs,
 * queue 0's traffic comes here. Copy mode, queue 0; -S binds in generic
 * (XDP_SKB) mode instead of native.
 *
 *   cc afxdp_rx.c $(pkg-config --cflags --libs pagepool libxdp libbpf) -pthread
 *   afxdp_rx [-S] [-n COUNT] IFNAME
 */
#include <errno.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <xdp/xsk.h>

#include <pagepool/dma.h>
#include <pagepool/page_pool.h>
#include <pagepool/ptr_ring.h>

#define NFRAMES		4096	/* UMEM frames, one page each */
#define RING		2048	/* fill and RX ring entries */
#define BATCH		64	/* descriptors per ring access */
#define UMEM_ALIGN	(2UL << 20)

static struct page_pool *pool;
static struct ptr_ring to_worker;	/* main -> worker, frame data */
static bool in_kernel[NFRAMES];		/* on the fill or RX ring */
static volatile sig_atomic_t stop;
static int rx_done;			/* main has stopped receiving */
static unsigned long worker_ipv4;	/* worker's, read after join */

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/*
 * Our DMA device: the "device" is the kernel, and the address it knows a
 * frame by is the frame's offset in the UMEM (the device's priv). A map
 * sets nothing up, so an unmap has nothing to undo.
 */
static dma_addr_t
umem_map(struct device *dev, void *vaddr, size_t size,
	 enum dma_data_direction dir, unsigned long attrs)
{
	unsigned char *umem = pp_dma_dev_priv(dev);

	(void)size, (void)dir, (void)attrs;
	return (dma_addr_t)((unsigned char *)vaddr - umem);
}

static int
umem_unmap(struct device *dev, dma_addr_t addr, size_t size,
	   enum dma_data_direction dir, unsigned long attrs)
{
	(void)dev, (void)addr, (void)size, (void)dir, (void)attrs;
	return 0;
}

/* libbpf's informational notes (sections of libxdp's program it skips)
 * are not for our user: warnings only. */
static int
libbpf_warnings(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level != LIBBPF_WARN)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static bool
is_ipv4(const unsigned char *frame)
{
	return frame[12] == 0x08 && frame[13] == 0x00;	/* EtherType */
}

static void *
worker(void *arg)
{
	void *batch[16];
	int i, n;

	(void)arg;
	for (;;) {
		n = ptr_ring_consume_batched(&to_worker, batch, 16);
		if (n == 0) {
			/* A1: pairs with the release store R1 in main():
			 * then every frame main handed over is in the ring
			 * for us to see. */
			if (__atomic_load_n(&rx_done, __ATOMIC_ACQUIRE) &&
			    ptr_ring_empty(&to_worker))
				break;
			usleep(100);
			continue;
		}
		for (i = 0; i < n; i++) {
			worker_ipv4 += is_ipv4(batch[i]);
			/* As the kernel frees an skb's head: the data's
			 * page is the pool's. Not the owner, so not direct:
			 * into the pool's ring, where a refill finds it. */
			page_pool_put_full_page(pool,
						virt_to_head_page(batch[i]),
						false);
		}
	}
	return NULL;
}

/* Post pool pages on the fill ring while it has room. */
static void
refill(struct xsk_ring_prod *fq)
{
	struct page *pages[BATCH];
	unsigned int i, n;
	uint32_t idx;

	do {
		/* nb_free may say more than asked: all it knows is free. */
		n = xsk_prod_nb_free(fq, BATCH);
		if (n > BATCH)
			n = BATCH;
		for (i = 0; i < n; i++) {
			pages[i] = page_pool_dev_alloc_pages(pool);
			if (pages[i] == NULL)
				break;	/* all frames out: the next round */
		}
		n = i;
		if (n == 0)
			break;
		if (xsk_ring_prod__reserve(fq, n, &idx) != n) {
			while (n > 0)	/* not posted after all */
				page_pool_recycle_direct(pool, pages[--n]);
			break;
		}
		for (i = 0; i < n; i++) {
			dma_addr_t addr = page_pool_get_dma_addr(pages[i]);

			*xsk_ring_prod__fill_addr(fq, idx + i) = addr;
			in_kernel[addr / PAGE_SIZE] = true;
		}
		/* Publishes the addresses (a release store in libxdp). */
		xsk_ring_prod__submit(fq, n);
	} while (n == BATCH);
}

static int
usage(FILE *out, int rc)
{
	fprintf(out,
		"usage: afxdp_rx [-S] [-n COUNT] IFNAME\n"
		"  Receives on IFNAME's queue 0 through an AF_XDP socket (copy mode)\n"
		"  whose UMEM frames are page_pool pages, until COUNT frames or SIGINT.\n"
		"  -S  bind in generic (XDP_SKB) mode; default native (XDP_DRV)\n"
		"  Needs root, bpffs at /sys/fs/bpf, and an interface of its own\n"
		"  (a veth end in a network namespace): queue 0's traffic comes here.\n");
	return rc;
}

int
main(int argc, char **argv)
{
	struct xsk_umem_config ucfg = {
		.fill_size = RING,
		.comp_size = RING,
		.frame_size = PAGE_SIZE,	/* one frame, one pool page */
	};
	struct xsk_socket_config scfg = {
		.rx_size = RING,
		.xdp_flags = XDP_FLAGS_DRV_MODE,
		.bind_flags = XDP_COPY,
	};
	struct pp_dma_ops ops = {
		.sz = sizeof(ops),
		.map_page = umem_map,
		.unmap_page = umem_unmap,
	};
	struct xsk_ring_prod fq;
	struct xsk_ring_cons cq, rx;
	struct xsk_umem *umem = NULL;
	struct xsk_socket *xsk = NULL;
	struct xdp_statistics st;
	socklen_t stlen = sizeof(st);
	struct pp_mem_source *src = NULL;
	struct device *dma_dev = NULL;
	struct napi_struct napi;
	struct pollfd pfd;
	unsigned long received = 0, handed = 0, ipv4 = 0, count = 0;
	unsigned char *area;
	const char *ifname;
	char *end;
	pthread_t wk;
	int opt, err, rc = 1;

	if (argc == 1)		/* nothing to run here: say what it needs */
		return usage(stdout, 0);
	while ((opt = getopt(argc, argv, "Sn:h")) != -1) {
		switch (opt) {
		case 'S':
			scfg.xdp_flags = XDP_FLAGS_SKB_MODE;
			break;
		case 'n':
			count = strtoul(optarg, &end, 0);
			if (*end != '\0')
				return usage(stderr, 1);
			break;
		default:
			return usage(opt == 'h' ? stdout : stderr, opt != 'h');
		}
	}
	if (optind != argc - 1)
		return usage(stderr, 1);
	ifname = argv[optind];
	if (if_nametoindex(ifname) == 0) {
		fprintf(stderr, "afxdp_rx: no interface %s here\n", ifname);
		return 1;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "afxdp_rx: AF_XDP needs CAP_NET_RAW and CAP_BPF: run as root\n");
		return 1;
	}

	/* The UMEM: NFRAMES pages, 2 MiB aligned because two memory sources
	 * may not share a 2 MiB window (and our pool's metadata comes from
	 * the default source). */
	area = aligned_alloc(UMEM_ALIGN, (size_t)NFRAMES * PAGE_SIZE);
	if (area == NULL) {
		perror("afxdp_rx: UMEM");
		return 1;
	}
	{
		PP_OPTS(pp_mem_source_opts, o, .kind = PP_MEM_USER,
			.addr = area, .len = (size_t)NFRAMES * PAGE_SIZE,
			.nid = NUMA_NO_NODE);

		src = pp_mem_source_create(&o);
	}
	dma_dev = src ? pp_dma_dev_create_ops(&ops, area, NULL) : NULL;
	if (dma_dev == NULL) {
		perror("afxdp_rx: memory source or DMA device");
		goto out;
	}

	/* The pool: this thread owns it (direct recycling), its pages come
	 * from the UMEM, and PP_FLAG_DMA_MAP gives each its UMEM offset. */
	napi_init_current(&napi);
	{
		struct page_pool_params pp = {
			.order = 0,
			.pool_size = NFRAMES,
			.nid = NUMA_NO_NODE,
			.dev = dma_dev,
			.dma_dir = DMA_FROM_DEVICE,
			.napi = &napi,
			.flags = PP_FLAG_DMA_MAP | PP_FLAG_MEM_SOURCE,
			.mem_source = pp_mem_source_id(src),
		};

		pool = page_pool_create(&pp);
	}
	if (pool == NULL) {
		perror("afxdp_rx: page_pool_create");
		goto out;
	}

	/* The socket, with libxdp: it registers the UMEM, creates the four
	 * rings, and attaches its default XDP program, which redirects
	 * queue 0's frames to the socket. One program per interface is all
	 * we need: skip libxdp's multi-program dispatcher. */
	setenv("LIBXDP_SKIP_DISPATCHER", "1", 0);
	libbpf_set_print(libbpf_warnings);
	err = xsk_umem__create(&umem, area, (uint64_t)NFRAMES * PAGE_SIZE, &fq,
			       &cq, &ucfg);
	if (err == 0)
		err = xsk_socket__create(&xsk, ifname, 0, umem, &rx, NULL,
					 &scfg);
	if (err != 0) {
		fprintf(stderr, "afxdp_rx: AF_XDP socket on %s: %s%s\n", ifname,
			strerror(-err),
			err == -EAFNOSUPPORT ? " (kernel without CONFIG_XDP_SOCKETS)" :
			err == -EPERM ? " (run as root, with bpffs at /sys/fs/bpf)" :
			err == -EBUSY ? " (another XDP program or socket has it)" :
			err == -EOPNOTSUPP ? " (try -S, generic mode)" : "");
		goto out;
	}
	refill(&fq);		/* frames ready before the first packet */
	if (ptr_ring_init(&to_worker, RING, GFP_KERNEL) != 0 ||
	    pthread_create(&wk, NULL, worker, NULL) != 0) {
		fprintf(stderr, "afxdp_rx: cannot start the worker\n");
		goto out;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("afxdp_rx: receiving on %s queue 0, %s mode, copy\n", ifname,
	       scfg.xdp_flags == XDP_FLAGS_SKB_MODE ? "skb" : "native");
	fflush(stdout);

	pfd.fd = xsk_socket__fd(xsk);
	pfd.events = POLLIN;
	while (!stop && (count == 0 || received < count)) {
		uint32_t idx, i, n;

		n = xsk_ring_cons__peek(&rx, BATCH, &idx);
		if (n == 0) {
			/* Sleep until frames come; wake up now and then to
			 * see a signal. */
			poll(&pfd, 1, 100);
			continue;
		}
		for (i = 0; i < n; i++) {
			const struct xdp_desc *d =
				xsk_ring_cons__rx_desc(&rx, idx + i);
			unsigned char *data = xsk_umem__get_data(area, d->addr);
			struct page *page = virt_to_page(data);

			/* The kernel has given the frame back: it is ours
			 * until it returns to the pool. */
			in_kernel[page_pool_get_dma_addr(page) / PAGE_SIZE] =
				false;
			if (received++ % 2 == 1 &&
			    ptr_ring_produce(&to_worker, data) == 0) {
				handed++;
				continue;
			}
			/* Even frames, or the worker is behind: the owner
			 * reads the frame and recycles it into its cache. */
			ipv4 += is_ipv4(data);
			page_pool_recycle_direct(pool, page);
		}
		xsk_ring_cons__release(&rx, n);
		refill(&fq);
	}
	/* R1: pairs with the acquire load A1 in worker(). */
	__atomic_store_n(&rx_done, 1, __ATOMIC_RELEASE);
	pthread_join(wk, NULL);
	printf("afxdp_rx: received %lu frames (%lu IPv4), %lu returned by the worker\n",
	       received, ipv4 + worker_ipv4, handed);
	/* What the kernel could not deliver: no frame on the fill ring
	 * (rx_dropped, rx_fill_ring_empty_descs) or a full RX ring. */
	memset(&st, 0, sizeof(st));
	if (getsockopt(pfd.fd, SOL_XDP, XDP_STATISTICS, &st, &stlen) != 0)
		perror("afxdp_rx: XDP_STATISTICS");
	printf("afxdp_rx: XDP_STATISTICS rx_dropped %llu rx_ring_full %llu rx_fill_ring_empty_descs %llu rx_invalid_descs %llu\n",
	       (unsigned long long)st.rx_dropped,
	       (unsigned long long)st.rx_ring_full,
	       (unsigned long long)st.rx_fill_ring_empty_descs,
	       (unsigned long long)st.rx_invalid_descs);
	rc = 0;

out:
	/* The socket first: once it is gone the kernel writes no frame,
	 * and those it had (fill ring, unread RX ring) are ours again. */
	if (xsk != NULL)
		xsk_socket__delete(xsk);
	if (umem != NULL)
		xsk_umem__delete(umem);
	for (unsigned int f = 0; f < NFRAMES; f++)
		if (in_kernel[f])
			page_pool_recycle_direct(pool,
						 virt_to_page(area + f * PAGE_SIZE));
	ptr_ring_cleanup(&to_worker, NULL);
	/* Every page is back: destroy frees the pool at once, and then the
	 * source lets go of the UMEM. */
	page_pool_destroy(pool);
	if (src != NULL && pp_mem_source_destroy(src) != 0) {
		fprintf(stderr, "afxdp_rx: page_pool not freed: pages still in flight\n");
		return 1;	/* the UMEM stays: a page may point into it */
	}
	pp_dma_dev_destroy(dma_dev);
	free(area);
	if (rc == 0)
		printf("afxdp_rx: page_pool freed, nothing in flight\n");
	if (rc == 0 && count != 0 && received < count) {
		fprintf(stderr, "afxdp_rx: stopped at %lu of %lu frames\n",
			received, count);
		rc = 1;
	}
	return rc;
}
