/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Validation of PP_OPTS() option structs, shared by every constructor that
 * takes one: a struct from a newer caller is accepted only if the part this
 * library does not understand is all zero, so a request it cannot honour
 * fails with EINVAL rather than being dropped (libbpf_validate_opts()),
 * and one claiming more than PP_OPTS_MAX_SZ bytes is refused unread.
 */
#include <string.h>

#include "opts_priv.h"

bool
_pp_opts_valid(const void *opts, size_t known_sz)
{
	const unsigned char *p = opts;
	size_t sz, i;

	if (opts == NULL)
		return true;
	memcpy(&sz, opts, sizeof(sz));
	/*
	 * Checked before any byte past sz is read: the tail scan trusts sz,
	 * so a garbage one (SIZE_MAX) would read through whatever follows
	 * the caller's struct until a non-zero byte or a fault. No options
	 * struct comes near a page; libbpf trusts sz without a bound.
	 */
	if (sz < sizeof(size_t) || sz > PP_OPTS_MAX_SZ)
		return false;
	for (i = known_sz; i < sz; i++) {
		if (p[i] != 0)
			return false;
	}
	return true;
}
