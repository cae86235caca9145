/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The AF_XDP device's set-up and tear-down without traffic, as any user:
 * bad options are EINVAL and a missing interface ENODEV, each with a
 * message; a device on the loopback interface registers under its name,
 * and opening it either works (root, in network and mount namespaces of
 * the test's own with bpffs mounted there, so no interface or mount of
 * the machine is touched; the kernel's program in SKB mode, as lo has no
 * native XDP) or fails
 * with a message naming the cause (no permission, no bpffs); either way
 * closing and destroying it leaves nothing (the sanitizer builds check
 * leaks) and a device that was opened had its page_pool freed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <pagepool/netdevice.h>
#include <pagepool/page_pool.h>

#include "drivers/net/xsk.h"
#include "helpers.h"

static int pool_freed;
static bool bpffs_ok;		/* ours, in the private mount namespace */

static void
on_pool_free(void *pool)
{
	(void)pool;
	pool_freed = 1;
}

static void
test_bad_input(void)
{
	struct pp_xsk_opts o = { .sz = sizeof(o) };
	char msg[256];

	msg[0] = '\0';
	errno = 0;
	CHECK(pp_xsk_create(NULL, NULL, msg, sizeof(msg)) == NULL);
	CHECK_EQ(errno, EINVAL);
	CHECK(msg[0] != '\0');

	o.ring_size = 100;	/* not a power of two */
	errno = 0;
	CHECK(pp_xsk_create("lo", &o, msg, sizeof(msg)) == NULL);
	CHECK_EQ(errno, EINVAL);

	o.ring_size = 2048;
	o.frames = 2048;	/* less than twice the ring */
	errno = 0;
	CHECK(pp_xsk_create("lo", &o, msg, sizeof(msg)) == NULL);
	CHECK_EQ(errno, EINVAL);

	o.sz = 1;		/* an older, shorter struct */
	errno = 0;
	CHECK(pp_xsk_create("lo", &o, NULL, 0) == NULL);
	CHECK_EQ(errno, EINVAL);

	msg[0] = '\0';
	errno = 0;
	CHECK(pp_xsk_create("ppnosuchif0", NULL, msg, sizeof(msg)) == NULL);
	CHECK_EQ(errno, ENODEV);
	CHECK(strstr(msg, "no interface ppnosuchif0") != NULL);

	CHECK(!pp_xsk_is(NULL));
	CHECK(pp_xsk_napi(NULL) == NULL);
	CHECK(pp_xsk_page_pool(NULL) == NULL);
	CHECK_EQ(pp_xsk_ifindex(NULL), -EINVAL);
	CHECK_EQ(pp_xsk_wait(NULL, 0), -EINVAL);
	pp_xsk_destroy(NULL);
}

static void
test_lo(bool private_netns)
{
	struct pp_xsk_opts o = { .sz = sizeof(o), .ring_size = 64,
				 .frames = 256, .skb_mode = true };
	struct pp_xsk_stats st;
	struct net_device *dev;
	char msg[256];
	int ret;

	dev = pp_xsk_create("lo", &o, msg, sizeof(msg));
	CHECK(dev != NULL);
	CHECK(pp_xsk_is(dev));
	CHECK(dev_get_by_name("lo") == dev);
	CHECK(pp_xsk_ifindex(dev) > 0);
	CHECK(pp_xsk_page_pool(dev) == NULL);	/* down */
	CHECK_EQ(pp_xsk_get_stats(dev, &st), 0);
	/* A second device of the same name is refused. */
	errno = 0;
	CHECK(pp_xsk_create("lo", &o, msg, sizeof(msg)) == NULL);
	CHECK_EQ(errno, EEXIST);

	/* Only where no interface of the machine can get a program. */
	if (private_netns) {
		struct pp_xsk_opts on = o;
		struct net_device *ndev;

		/* Native mode on lo, which has none: the failure half-way
		 * (UMEM made, socket refused) frees what it took. */
		pp_xsk_destroy(dev);
		on.skb_mode = false;
		ndev = pp_xsk_create("lo", &on, msg, sizeof(msg));
		CHECK(ndev != NULL);
		ret = dev_open(ndev);
		if (ret != 0)
			printf("native open on lo: %s\n",
			       pp_xsk_open_error(ndev));
		else
			dev_close(ndev);
		pp_xsk_destroy(ndev);
		/* At once: the kernel releases the queue of the socket just
		 * closed a moment later (the driver waits for it). */
		dev = pp_xsk_create("lo", &o, msg, sizeof(msg));
		CHECK(dev != NULL);

		ret = dev_open(dev);
		if (ret == 0) {
			struct page_pool *pool = pp_xsk_page_pool(dev);

			CHECK(pool != NULL);
			page_pool_use_xdp_mem(pool, on_pool_free, NULL);
			page_pool_destroy(pool);
			CHECK_EQ(napi_poll(pp_xsk_napi(dev)), 0);
			CHECK(pp_xsk_wait(dev, 1) >= 0);
			CHECK_EQ(pp_xsk_get_stats(dev, &st), 0);
			CHECK_EQ(st.rx_dropped, 0);
			dev_close(dev);
			CHECK(pool_freed);
			printf("open on lo in a private namespace: ok\n");
		} else if (ret == -EAFNOSUPPORT || !bpffs_ok) {
			/* The kernel lacks AF_XDP, or bpffs did not mount. */
			printf("note: open on lo not checked: %s\n",
			       pp_xsk_open_error(dev));
			CHECK(strlen(pp_xsk_open_error(dev)) > 0);
		} else {
			/* Right after the native attempt closed its socket:
			 * the driver waits out the kernel's release of the
			 * queue rather than failing with EBUSY. */
			fprintf(stderr, "open on lo failed: %s\n",
				pp_xsk_open_error(dev));
			CHECK(ret == 0);
		}
	} else if (geteuid() != 0) {
		ret = dev_open(dev);
		CHECK(ret < 0);
		printf("open on lo, unprivileged: %s\n",
		       pp_xsk_open_error(dev));
		CHECK(strstr(pp_xsk_open_error(dev), "bpffs") != NULL ||
		      strstr(pp_xsk_open_error(dev), "run as root") != NULL);
	}
	pp_xsk_destroy(dev);
	CHECK(dev_get_by_name("lo") == NULL);
}

int
main(void)
{
	bool private_netns = false;

	test_bad_input();
	/* Root: network and mount namespaces of our own: a lo no one uses,
	 * and a bpffs that vanishes with us. */
	if (geteuid() == 0 && unshare(CLONE_NEWNET | CLONE_NEWNS) == 0) {
		struct statfs sfs;

		private_netns = true;
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
		    (statfs("/sys/fs/bpf", &sfs) != 0 ||
		     (unsigned long)sfs.f_type != 0xcafe4a11ul))
			(void)mount("bpf", "/sys/fs/bpf", "bpf", 0, NULL);
		bpffs_ok = statfs("/sys/fs/bpf", &sfs) == 0 &&
			   (unsigned long)sfs.f_type == 0xcafe4a11ul;
	}
	test_lo(private_netns);
	pp_skb_cache_thread_drain();
	printf("PASS: afxdp_create\n");
	return T_EXIT_PASS;
}
