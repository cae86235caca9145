/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * The live view: with PAGEPOOL_STATS=1 in its environment, a process
 * publishes its pools (the kernel's page-pool-get fields and the eleven
 * counters of page-pool-stats-get) in /dev/shm/pagepool.<pid>, where
 * pp-stat reads them while it runs. Layout: src/lib/stats_shm.h.
 *
 * Nothing here touches a fast path. The pools keep counting as always,
 * each counter with its single writer; a publisher thread started with
 * the first pool copies them into the file every PAGEPOOL_STATS_MS
 * milliseconds (default 500), with the relaxed loads page_pool_get_stats()
 * uses from any thread. Creating, destroying and freeing a pool tell this
 * file (three calls in page_pool.c), so the slot table holds exactly the
 * pools that exist, and a pool is not freed while the publisher reads it
 * (free_pool() waits for shm_lock). The file is unlinked at exit; pp-stat
 * also recognises the file of a process that died without exiting.
 *
 * The detach and free calls also serve the debug builds' leak report
 * (page_pool_debug.c), which needs the same two moments.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "lib/fork_priv.h"
#include "lib/stats_shm.h"
#include "mm/page_alloc_priv.h"
#include "page_pool_priv.h"

PP_STATIC_ASSERT(PP_SHM_ORDERS == NR_PAGE_ORDERS,
		 "the live view shows every order");

static pthread_once_t shm_once = PTHREAD_ONCE_INIT;
static bool shm_on;			/* written once, in shm_init() */
static unsigned int shm_period_ms = 500;
static char shm_name[64];
static pid_t shm_pid;			/* the publishing process */

/* shm_lock guards everything below and every slot's writes. */
static pthread_mutex_t shm_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pp_shm_header *shm;

struct slot_meta {
	struct page_pool *pool;		/* NULL: free */
	uint32_t id, order, ring_size;
	int32_t nid;
	uint64_t defer_warn_ms;
	uint64_t detach_ms;		/* 0: attached */
};
static struct slot_meta meta[PP_SHM_SLOTS];
static uint32_t shm_dropped;

/* Fork (lib/fork.c, order 3): shm_lock is held by no other thread across
 * the fork; the child releases it as the parent does. */
void
_pp_shm_fork(enum pp_fork_phase phase)
{
	_pp_fork_mutex(&shm_lock, phase);
}

static uint64_t
boottime_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The process's start time in clock ticks since boot (/proc/self/stat
 * field 22): with the pid, it names this process even after the pid is
 * reused. 0 if unreadable. */
static uint64_t
proc_start_time(void)
{
	char buf[1024], *p;
	unsigned long long start = 0;
	FILE *f = fopen("/proc/self/stat", "r");
	size_t n;
	int field;

	if (f == NULL)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* The command name may hold spaces: count from its closing ')'. */
	p = strrchr(buf, ')');
	if (p == NULL)
		return 0;
	for (field = 2; field < 22 && p != NULL; field++)
		p = strchr(p + 1, ' ');
	if (p != NULL)
		start = strtoull(p + 1, NULL, 10);
	return start;
}

static void
shm_unlink_at_exit(void)
{
	/* A forked child exiting must not remove its parent's view. */
	if (getpid() == shm_pid)
		shm_unlink(shm_name);
}

/*
 * A forked child shares the mapping but has no publisher, and its pools
 * are not the parent's: it stops publishing (its pools are not shown) and
 * never writes the parent's file.
 */
static void
shm_atfork_child(void)
{
	shm_on = false;
}

/* Copy one pool into its slot (or clear a slot). Called with shm_lock. */
static void
publish_slot(unsigned int i)
{
	struct pp_shm_pool *s = &shm->pool[i];
	struct slot_meta *m = &meta[i];
	struct page_pool_stats st;
	uint32_t seq = pp_load_relaxed(&s->seq);
	uint64_t v[PP_SHM_NR_STATS];
	int64_t inflight = 0;
	unsigned int k;

	if (m->pool == NULL && pp_load_relaxed(&s->state) == PP_SHM_FREE)
		return;
	memset(&st, 0, sizeof(st));
	if (m->pool != NULL) {
		page_pool_get_stats(m->pool, &st);
		inflight = page_pool_inflight(m->pool);
	}
	v[PP_SHM_ALLOC_FAST] = st.alloc_stats.fast;
	v[PP_SHM_ALLOC_SLOW] = st.alloc_stats.slow;
	v[PP_SHM_ALLOC_SLOW_HIGH_ORDER] = st.alloc_stats.slow_high_order;
	v[PP_SHM_ALLOC_EMPTY] = st.alloc_stats.empty;
	v[PP_SHM_ALLOC_REFILL] = st.alloc_stats.refill;
	v[PP_SHM_ALLOC_WAIVE] = st.alloc_stats.waive;
	v[PP_SHM_RECYCLE_CACHED] = st.recycle_stats.cached;
	v[PP_SHM_RECYCLE_CACHE_FULL] = st.recycle_stats.cache_full;
	v[PP_SHM_RECYCLE_RING] = st.recycle_stats.ring;
	v[PP_SHM_RECYCLE_RING_FULL] = st.recycle_stats.ring_full;
	v[PP_SHM_RECYCLE_RELEASED_REFCNT] = st.recycle_stats.released_refcnt;

	/* W1: the slot is being written (odd); the release fence orders
	 * this store before the field stores below, for a reader's check
	 * in pp-stat (pairs with its acquire fence F1). */
	pp_store_relaxed(&s->seq, seq + 1);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	/* Relaxed field stores: a reader may see them torn across fields,
	 * never a torn value. */
	pp_store_relaxed(&s->state, m->pool == NULL ? PP_SHM_FREE :
				    m->detach_ms ? PP_SHM_DETACHED : PP_SHM_LIVE);
	pp_store_relaxed(&s->id, m->id);
	pp_store_relaxed(&s->nid, m->nid);
	pp_store_relaxed(&s->order, m->order);
	pp_store_relaxed(&s->ring_size, m->ring_size);
	pp_store_relaxed(&s->inflight, inflight);
	pp_store_relaxed(&s->inflight_mem,
			 inflight > 0 ? (uint64_t)inflight *
						(PAGE_SIZE << m->order)
				      : 0);
	pp_store_relaxed(&s->detach_time, m->detach_ms / 1000);
	pp_store_relaxed(&s->detach_ms, m->detach_ms);
	pp_store_relaxed(&s->defer_warn_ms, m->defer_warn_ms);
	for (k = 0; k < PP_SHM_NR_STATS; k++)
		pp_store_relaxed(&s->stats[k], v[k]);
	/* W2: the slot is whole again; pairs with the reader's acquire
	 * load A1 of seq in pp-stat. */
	pp_store_release(&s->seq, seq + 2);
}

/* The default allocator's zones: each under its zone lock, taken once a
 * pass per node, never on a path of the pools. */
static void
publish_allocator(void)
{
	struct pp_mem_source *src = pp_mem_source_default();
	int nodes = _pp_numa_nr_nodes();
	unsigned int i, o;

	pp_store_relaxed(&shm->bad_pages, (uint64_t)_pp_bad_page_count());
	for (i = 0; i < PP_SHM_NODES; i++) {
		struct pp_shm_zone *z = &shm->zone[i];
		struct _pp_zone_stats st;

		if (src == NULL || (int)i >= nodes ||
		    _pp_zone_stats(src, (int)i, &st) != 0) {
			pp_store_relaxed(&z->nid, -1);
			continue;
		}
		pp_store_relaxed(&z->regions, (uint32_t)st.nr_regions);
		pp_store_relaxed(&z->managed_pages, (uint64_t)st.managed_pages);
		pp_store_relaxed(&z->free_pages, (uint64_t)st.free_pages);
		for (o = 0; o < PP_SHM_ORDERS; o++)
			pp_store_relaxed(&z->nr_free[o], (uint64_t)st.nr_free[o]);
		pp_store_relaxed(&z->nid, (int32_t)i);
	}
}

static void
publish_all(void)
{
	unsigned int i, n = 0;

	publish_allocator();
	pthread_mutex_lock(&shm_lock);
	for (i = 0; i < PP_SHM_SLOTS; i++) {
		publish_slot(i);
		n += meta[i].pool != NULL;
	}
	/* Header fields: relaxed, a heartbeat the reader only displays. */
	pp_store_relaxed(&shm->pools, n);
	pp_store_relaxed(&shm->dropped, shm_dropped);
	pp_store_relaxed(&shm->updated_ms, boottime_ms());
	pp_store_relaxed(&shm->publishes, shm->publishes + 1);
	pthread_mutex_unlock(&shm_lock);
}

static void *
publisher(void *arg)
{
	struct timespec ts;

	(void)arg;
	ts.tv_sec = shm_period_ms / 1000;
	ts.tv_nsec = (long)(shm_period_ms % 1000) * 1000000;
	for (;;) {
		publish_all();
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void
shm_init(void)
{
	const char *e = getenv("PAGEPOOL_STATS");
	pthread_attr_t attr;
	pthread_t th;
	void *p;
	int fd;

	if (e == NULL || strcmp(e, "1") != 0)
		return;
	e = getenv("PAGEPOOL_STATS_MS");
	if (e != NULL) {
		unsigned long ms = strtoul(e, NULL, 10);

		if (ms >= 10 && ms <= 60000)
			shm_period_ms = (unsigned int)ms;
	}
	shm_pid = getpid();
	snprintf(shm_name, sizeof(shm_name), PP_SHM_NAME_FMT, (long)shm_pid);
	/* Readable by others: counters are not secrets, and an operator's
	 * pp-stat may run as another user. */
	fd = shm_open(shm_name, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		fprintf(stderr, "pagepool: PAGEPOOL_STATS: cannot create "
			"/dev/shm%s: %s\n", shm_name, strerror(errno));
		return;
	}
	if (ftruncate(fd, sizeof(*shm)) != 0) {
		close(fd);
		shm_unlink(shm_name);
		return;
	}
	p = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 0);
	close(fd);
	if (p == MAP_FAILED) {
		shm_unlink(shm_name);
		return;
	}
	shm = p;
	shm->version = PP_SHM_VERSION;
	shm->slot_size = sizeof(struct pp_shm_pool);
	shm->nslots = PP_SHM_SLOTS;
	shm->pid = shm_pid;
	shm->start_time = proc_start_time();
	shm->period_ms = shm_period_ms;
	/* R: the magic last, so a reader that sees it sees the rest (pairs
	 * with the acquire load of magic in pp-stat). */
	pp_store_release(&shm->magic, PP_SHM_MAGIC);
	atexit(shm_unlink_at_exit);
	pthread_atfork(NULL, NULL, shm_atfork_child);

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&th, &attr, publisher, NULL) == 0)
		shm_on = true;
	pthread_attr_destroy(&attr);
}

/* The slot of @pool, or -1. Called with shm_lock. */
static int
slot_find(const struct page_pool *pool)
{
	unsigned int i;

	for (i = 0; i < PP_SHM_SLOTS; i++)
		if (meta[i].pool == pool)
			return (int)i;
	return -1;
}

void
_pp_shm_pool_add(struct page_pool *pool)
{
	unsigned int i;

	pthread_once(&shm_once, shm_init);
	if (!shm_on)
		return;
	pthread_mutex_lock(&shm_lock);
	for (i = 0; i < PP_SHM_SLOTS; i++) {
		if (meta[i].pool != NULL)
			continue;
		/* The creating thread reads its pool's parameters; the
		 * publisher then reads only the copies and the counters. */
		meta[i] = (struct slot_meta){
			.pool = pool,
			.id = pool->id,
			.order = pool->p.order,
			.ring_size = (uint32_t)pool->ring.size,
			.nid = pool->p.nid,
			.defer_warn_ms = pool->p.defer_warn_ms,
		};
		break;
	}
	if (i == PP_SHM_SLOTS)
		shm_dropped++;
	pthread_mutex_unlock(&shm_lock);
}

void
_pp_shm_pool_detach(struct page_pool *pool)
{
	int i;

	if (PP_DEBUG)
		_pp_debug_pool_detached(pool);
	if (!shm_on)
		return;
	pthread_mutex_lock(&shm_lock);
	i = slot_find(pool);
	if (i >= 0)
		meta[i].detach_ms = boottime_ms();
	pthread_mutex_unlock(&shm_lock);
}

void
_pp_shm_pool_del(struct page_pool *pool)
{
	int i;

	if (PP_DEBUG)
		_pp_debug_pool_freed(pool);
	if (!shm_on)
		return;
	pthread_mutex_lock(&shm_lock);
	i = slot_find(pool);
	if (i >= 0) {
		meta[i].pool = NULL;
		/* Cleared now, not at the next pass: a freed pool must not
		 * be read, and must not be shown either. */
		publish_slot((unsigned int)i);
	} else if (shm_dropped > 0) {
		shm_dropped--;
	}
	pthread_mutex_unlock(&shm_lock);
}
