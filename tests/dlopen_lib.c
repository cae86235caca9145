// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * libpagepool.so loaded with dlopen(), as a plugin or a language binding
 * (Python's ctypes, say) loads it, by a program not linked with it:
 *  - the load itself: a library whose thread-local storage is marked for
 *    the static TLS block (any initial-exec access marks all of it) loads
 *    only if the whole of that storage fits in what glibc keeps spare for
 *    dlopen(), under 2 KiB; otherwise dlopen() fails with "cannot
 *    allocate memory in static TLS block";
 *  - every per-thread cache the library keeps (the page allocator's, the
 *    skb structs' and small heads', the fragment cache's, XDP's redirect
 *    state), used on the main thread and on a second thread, whose exit
 *    runs the library's per-thread destructors;
 *  - dlclose() while a thread that used the library is still alive: that
 *    thread's exit must still find the destructors' code, so the library
 *    stays loaded (-z nodelete) rather than crash the process then.
 * Exit 0 pass, 1 fail.
 *   dlopen_lib PATH-TO-libpagepool.so
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The library's calls, by their C types; nothing here links with it. */
struct page;
struct sk_buff;
typedef struct page *alloc_pages_fn(unsigned int gfp, unsigned int order);
typedef void free_pages_fn(struct page *page, unsigned int order);
typedef void *frag_alloc_fn(unsigned int fragsz, unsigned int align_mask);
typedef void frag_free_fn(void *addr);
typedef struct sk_buff *alloc_skb_fn(unsigned int size, unsigned int gfp);
typedef void kfree_skb_fn(struct sk_buff *skb);
typedef long redirect_fn(unsigned int ifindex, unsigned long long flags);
typedef void flush_fn(void);

static alloc_pages_fn *p_alloc_pages;
static free_pages_fn *p_free_pages;
static frag_alloc_fn *p_frag_alloc;
static frag_free_fn *p_frag_free;
static alloc_skb_fn *p_alloc_skb;
static kfree_skb_fn *p_kfree_skb;
static redirect_fn *p_redirect;
static flush_fn *p_flush;

#define GFP_PLAIN	0xcc0u	/* GFP_KERNEL, <pagepool/kcompat.h> */
#define XDP_REDIRECT	4

static int failures;

#define CHECK(c)							\
	do {								\
		if (!(c)) {						\
			fprintf(stderr, "%s:%d: check failed: %s\n",	\
				__FILE__, __LINE__, #c);		\
			failures++;					\
		}							\
	} while (0)

static void *
sym(void *h, const char *name)
{
	void *p = dlsym(h, name);

	if (p == NULL) {
		fprintf(stderr, "dlsym(%s): %s\n", name, dlerror());
		exit(1);
	}
	return p;
}

/* Touch every per-thread cache of the calling thread. */
static void
use_library(void)
{
	struct page *pg[8];
	struct sk_buff *skb[4];
	void *frag[8];
	int i;

	for (i = 0; i < 8; i++) {
		pg[i] = p_alloc_pages(GFP_PLAIN, (unsigned int)i % 4);
		CHECK(pg[i] != NULL);
	}
	for (i = 0; i < 8; i++)
		if (pg[i] != NULL)
			p_free_pages(pg[i], (unsigned int)i % 4);
	for (i = 0; i < 8; i++) {
		frag[i] = p_frag_alloc(100 + 300 * (unsigned int)i, ~0u);
		CHECK(frag[i] != NULL);
		if (frag[i] != NULL)
			memset(frag[i], i, 100);
	}
	for (i = 0; i < 8; i++)
		if (frag[i] != NULL)
			p_frag_free(frag[i]);
	/* Small heads and skb structs: freed into the thread's caches. */
	for (i = 0; i < 4; i++) {
		skb[i] = p_alloc_skb(128, GFP_PLAIN);
		CHECK(skb[i] != NULL);
	}
	for (i = 0; i < 4; i++)
		if (skb[i] != NULL)
			p_kfree_skb(skb[i]);
	CHECK(p_redirect(1, 0) == XDP_REDIRECT);
	p_flush();
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int used, closed;

static void *
worker(void *arg)
{
	(void)arg;
	use_library();
	pthread_mutex_lock(&lock);
	used = 1;
	pthread_cond_broadcast(&cond);
	while (!closed)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	/* Exits now, after dlclose(): the library's destructors run. */
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t;
	void *h;

	if (argc != 2) {
		fprintf(stderr, "usage: dlopen_lib PATH-TO-libpagepool.so\n");
		return 2;
	}
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		fprintf(stderr, "dlopen(%s): %s\n", argv[1], dlerror());
		return 1;
	}
	p_alloc_pages = (alloc_pages_fn *)sym(h, "alloc_pages");
	p_free_pages = (free_pages_fn *)sym(h, "__free_pages");
	p_frag_alloc = (frag_alloc_fn *)sym(h, "__netdev_alloc_frag_align");
	p_frag_free = (frag_free_fn *)sym(h, "page_frag_free");
	p_alloc_skb = (alloc_skb_fn *)sym(h, "alloc_skb");
	p_kfree_skb = (kfree_skb_fn *)sym(h, "kfree_skb");
	p_redirect = (redirect_fn *)sym(h, "bpf_redirect");
	p_flush = (flush_fn *)sym(h, "xdp_do_flush");

	use_library();
	if (pthread_create(&t, NULL, worker, NULL) != 0) {
		fprintf(stderr, "pthread_create failed\n");
		return 1;
	}
	pthread_mutex_lock(&lock);
	while (!used)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	/* Twice the work on a thread that has done it once: its caches. */
	use_library();

	CHECK(dlclose(h) == 0);
	pthread_mutex_lock(&lock);
	closed = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	pthread_join(t, NULL);
	if (failures != 0)
		return 1;
	printf("dlopen_lib: loaded, used on two threads, closed: ok\n");
	return 0;
}
