# SPDX-License-Identifier: MIT
#
# Copyright (c) 2026 The pagepool authors
#
# The known fixes, each as the edit that reverts it, for run.sh. One call
# a mutant:
#   mutant NAME FILE 'PERL' 'TEST [ARG...]' ['TEST [ARG...]' ...]
# FILE is relative to the source root; PERL is a perl program run with
# -0pi on it (the whole file is $_), which must change it; each TEST is a
# program built under tests/ with its arguments, and the mutant is killed
# when one of them fails (exit status other than 0 and 77) under the
# AddressSanitizer + UBSan build with the delay points (-Dtest_hooks).
# When the code moves on and a PERL no longer matches, run.sh says so and
# fails: update the mutant with the fix it reverts.

# ---- Seed 000: page_pool_put() racing page_pool_destroy() ----------------

# The kernel's 271683bb2cf3, first half: page_pool_release() takes and
# drops the producer lock after reading in-flight, so a producer between
# its produce and its unlock is waited out before the pool is freed.
mutant barrier src/net/core/page_pool.c \
	's{\tpp_spin_lock\(&pool->ring\.producer_lock\);\n\tPP_TEST_DELAY\(PP_TP_RELEASE_LOCKED\);\n\tpp_spin_unlock\(&pool->ring\.producer_lock\);\n(\tpool->destroy_cnt\+\+;)}{$1}' \
	'page_pool_destroy_race barrier'

# 271683bb2cf3, second half: the ring statistics are counted inside the
# producer lock; after a successful produce and the unlock the pool may be
# gone. Single put (recycle_in_ring) and bulk put (recycle_ring_bulk).
mutant stats-locked-single src/net/core/page_pool_put.c \
	's{(\tif \(ok\)\n\t\t__pp_stat_inc\(pool->ring_recycle_stats\.ring\);\n\telse\n\t\t__pp_stat_inc\(pool->ring_recycle_stats\.ring_full\);\n)(.*?PP_TEST_DELAY\(PP_TP_RING_UNLOCKED\);\n)}{$2$1}s' \
	'page_pool_destroy_race stats-locked'
mutant stats-locked-bulk src/net/core/page_pool_put.c \
	's{(#if PAGE_POOL_STATS\n\tpp_store_relaxed\(&pool->ring_recycle_stats\.ring,.*?#endif\n)(.*?PP_TEST_DELAY\(PP_TP_RING_UNLOCKED\);\n)}{$2$1}s' \
	'page_pool_destroy_race stats-locked'

# The release as the last touch: put_decide() counts released_refcnt
# before _pp_return_page(), whose release-count increment may let the
# deferred release free the pool ...
mutant release-last-stat src/net/core/page_pool_put.c \
	's{(\t_pp_released_refcnt_inc\(pool\);\n)(\t_pp_return_page\(pool, page\);\n)}{$2$1}' \
	'page_pool_destroy_race release-last'
# ... and _pp_return_page() unmaps before that increment, not after.
mutant release-last-unmap src/net/core/page_pool.c \
	's{(\tif \(pool->dma_map\)\n\t\t_pp_dma_unmap\(pool, page\);\n)(.*?PP_TEST_DELAY\(PP_TP_RETURN_RELEASED\);\n)}{$2$1}s' \
	'page_pool_destroy_race release-last'

# ---- Seed 003: destroy, then the driver unbinds the device ---------------

# Destroy unmaps every page still mapped, in flight or not (the scrub):
# without it a page returned after destroy is unmapped on a device the
# driver has unbound.
mutant unmap-at-destroy src/net/core/page_pool.c \
	's{\t\tif \(pool->dma_map\)\n\t\t\t_pp_dma_scrub\(pool\);\n}{}' \
	'page_pool_dma_destroy_stress' 'page_pool_dma_destroy'
# The scrub waits for the DMA ops other threads started (device-user
# count drained) ...
mutant dma-wait-users src/net/core/page_pool_dma.c \
	's{\twhile \(__atomic_load_n\(&t->users, __ATOMIC_SEQ_CST\) != 0\)\n\t\tpp_cpu_relax\(\);\n}{}' \
	'page_pool_dma_destroy' 'page_pool_dma_destroy_stress'
# ... which only works if those ops count themselves ...
mutant dma-users-counted src/net/core/page_pool_dma.c \
	's{\t__atomic_fetch_add\(&t->users, 1, __ATOMIC_SEQ_CST\);\n}{}; s{\t__atomic_fetch_sub\(&t->users, 1, __ATOMIC_RELEASE\);\n}{\t(void)t;\n}' \
	'page_pool_dma_destroy' 'page_pool_dma_destroy_stress'
# ... and no op starts once the scrub revoked the device.
mutant dma-revoked src/net/core/page_pool_dma.c \
	's{if \(!__atomic_load_n\(&t->revoked, __ATOMIC_SEQ_CST\)\)}{if (1)}' \
	'page_pool_dma_destroy' 'page_pool_dma_destroy_stress'

# ---- Fork ------------------------------------------------------------------

# The pthread_atfork() handlers (src/lib/fork.c): without them a child
# forked while the release thread holds defer_lock hangs.
mutant fork-handlers src/lib/fork.c \
	's{\t\(void\)pthread_atfork\(fork_prepare, fork_parent, fork_child\);\n}{\t(void)fork_prepare;\n\t(void)fork_parent;\n\t(void)fork_child;\n}' \
	'fork_child release-pass'
# The prepare handler waits for a release pass to end: the pass drops
# defer_lock while it holds a pool's lock, which the child would inherit.
mutant fork-pass-wait src/net/core/page_pool.c \
	's{\t\twhile \(defer_in_pass && !defer_self\)\n\t\t\tpthread_cond_wait\(&defer_idle, &defer_lock\);\n}{}' \
	'fork_child release-locked'
# The child drops the parent's deferred pools: a user thread may have held
# one's producer lock at the fork, and the child's release thread would
# spin on it.
mutant fork-child-list src/net/core/page_pool.c \
	's{\t\t\tdefer_head = NULL;\n}{}' \
	'fork_child user-locked'

# ---- dlopen() ------------------------------------------------------------

# The page allocator's slots (17 KiB a thread) back in thread-local
# storage: the library's TLS no longer fits glibc's spare static TLS, and
# dlopen() fails.
mutant page-alloc-slots-tls src/mm/page_alloc.c \
	's{(static __thread struct pp_thread_cache tcache;\n)}{$1static __thread struct pp_pcp tcache_slots_tls[PP_PCP_SLOTS] __attribute__((used));\n}' \
	'dlopen_lib ../src/libpagepool.so'
# -z nodelete: without it dlclose() unmaps the library while a thread
# that used it still has to run its per-thread destructors.
mutant dlopen-nodelete src/meson.build \
	"s{\\n\\t\\t'-Wl,-z,nodelete'\\)}{)}" \
	'dlopen_lib ../src/libpagepool.so'

# ---- ptr_ring ------------------------------------------------------------

# Seed 002's order: head-first publishes consumer_head, then zeroes the
# batch (zeroing first is mainline's false "empty" window).
mutant ptr-ring-head-first include/pagepool/ptr_ring.h \
	's{(\t\tpp_store_relaxed\(&r->consumer_head, consumer_head\);\n)(\t\t__ptr_ring_zero_tail\(r, zero_end\);\n)}{$2$1}' \
	'ptr_ring_states'
# Wrap before publish: consumer_head is wrapped to 0 before it is stored,
# so a lockless reader never indexes queue[size]. Each order has its own.
mutant ptr-ring-wrap-mainline include/pagepool/ptr_ring.h \
	's{(\t\tif \(PP_UNLIKELY\(consumer_head >= r->size\)\) \{\n\t\t\tconsumer_head = 0;\n\t\t\tr->consumer_tail = 0;\n\t\t\}\n)(.*?\t\tpp_store_relaxed\(&r->consumer_head, consumer_head\);\n)}{$2$1\t\tpp_store_relaxed(&r->consumer_head, consumer_head);\n}s' \
	'ptr_ring_states'
mutant ptr-ring-wrap-head-first include/pagepool/ptr_ring.h \
	's{(\t\tif \(consumer_head >= r->size\)\n\t\t\tconsumer_head = 0;\n)(.*?\t\tpp_store_relaxed\(&r->consumer_head, consumer_head\);\n)}{$2$1\t\tpp_store_relaxed(&r->consumer_head, consumer_head);\n}s' \
	'ptr_ring_states'
