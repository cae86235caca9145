/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Private: the thread-local storage model of the library's per-thread
 * state.
 */
#ifndef PAGEPOOL_TLS_PRIV_H
#define PAGEPOOL_TLS_PRIV_H

/*
 * PP_TLS_IE - initial-exec, for __thread variables a fast path reads: the
 * default model of a shared library's thread variables calls
 * __tls_get_addr() on every access, this one is a load relative to the
 * thread pointer. Any use marks the library as needing static TLS: a
 * program linked with it has that at start-up, while a dlopen() of it
 * needs glibc's static TLS surplus to hold all of the library's thread
 * variables, not only these, and glibc keeps under 2 KiB spare for all
 * the libraries a process dlopen()s (about 1.7 KiB with glibc 2.36 in a
 * small program; the tunable glibc.rtld.optional_static_tls adds to it).
 * So the library's thread-local storage stays a few hundred bytes (412
 * with the test hooks): a per-thread struct of any size (the page
 * allocator's slots, the skb cache, XDP's redirect state) lives on the
 * heap, made on first use and freed by a pthread key's destructor,
 * behind an initial-exec pointer. tests/dlopen_lib.c loads the library
 * with dlopen() and fails when it does not fit. Empty in the GenMC
 * harnesses (PP_MODEL_CHECK), which build some files with __thread
 * defined away, where the attribute would not compile; the model does
 * not depend on it.
 */
#ifdef PP_MODEL_CHECK
#define PP_TLS_IE
#else
#define PP_TLS_IE __attribute__((tls_model("initial-exec")))
#endif

#endif /* PAGEPOOL_TLS_PRIV_H */
