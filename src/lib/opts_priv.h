/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Private: validation of and access to the `size_t sz`-first option structs
 * declared with PP_OPTS() (pagepool/opts.h), after libbpf's
 * libbpf_validate_opts(), OPTS_HAS() and OPTS_GET().
 *
 *	if (!PP_OPTS_VALID(opts))
 *		return -EINVAL;
 *	cost = PP_OPTS_GET(opts, map_cost_ns, 0);
 *
 * PP_OPTS_GET() never reads past the caller's sz, so a struct from an
 * older caller yields the fallback for fields it does not have.
 */
#ifndef PAGEPOOL_OPTS_PRIV_H
#define PAGEPOOL_OPTS_PRIV_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The largest sz accepted: at most this many bytes of a caller's struct are
 * ever read, whatever its sz claims. Documented in PP_OPTS(3).
 */
#define PP_OPTS_MAX_SZ 4096

/*
 * _pp_opts_valid() - true if @opts (whose first member is a size_t sz) may be
 * used by a library that knows @known_sz bytes of it: sz covers at least
 * the sz field itself and at most PP_OPTS_MAX_SZ bytes, and every byte in
 * [known_sz, sz) is zero. NULL is valid (all defaults).
 */
bool _pp_opts_valid(const void *opts, size_t known_sz);

#define PP_OPTS_VALID(opts) _pp_opts_valid((opts), sizeof(*(opts)))

#define PP_OPTS_HAS(opts, field)                                             \
	((opts) != NULL &&                                                   \
	 (opts)->sz >= offsetof(__typeof__(*(opts)), field) +                \
			       sizeof((opts)->field))

#define PP_OPTS_GET(opts, field, fallback)                                   \
	(PP_OPTS_HAS(opts, field) ? (opts)->field : (fallback))

#endif /* PAGEPOOL_OPTS_PRIV_H */
