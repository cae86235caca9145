/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The pagepool authors
 *
 * Extensible option structs, after libbpf's LIBBPF_OPTS. Every creation
 * options struct in pagepool starts with `size_t sz`, the size of the struct
 * the caller was compiled against. PP_OPTS() declares one zero-filled with
 * sz set, so a caller built against an older header passes a shorter struct
 * (the library uses defaults for the fields it lacks) and one built against a
 * newer header is accepted as long as every byte the library does not know
 * is zero (otherwise the call fails with EINVAL instead of silently ignoring
 * a request). An sz above 4096 is refused with EINVAL before any byte past
 * the known fields is read.
 *
 *	PP_OPTS(pp_iommu_opts, opts, .map_cost_ns = 200);
 *	dev = pp_iommu_create(&opts);
 */
#ifndef PAGEPOOL_OPTS_H
#define PAGEPOOL_OPTS_H

#ifndef PP_OPTS
/*
 * PP_OPTS() - declare @NAME of options struct @TYPE, zero-filled (padding
 * included), with sz set and the given designated initialisers. The fields
 * left out are zero on purpose: C++ compilers warn about them under
 * -Wextra, so the warning is silenced for this one initialiser.
 */
#define PP_OPTS(TYPE, NAME, ...)                                             \
	struct TYPE NAME = ({                                                \
		struct TYPE __pp_opts;                                       \
		__builtin_memset(&__pp_opts, 0, sizeof(__pp_opts));          \
		_Pragma("GCC diagnostic push")                               \
		_Pragma("GCC diagnostic ignored \"-Wmissing-field-initializers\"") \
		__pp_opts = (struct TYPE){ .sz = sizeof(struct TYPE),        \
					   __VA_ARGS__ };                    \
		_Pragma("GCC diagnostic pop")                                \
		__pp_opts;                                                   \
	})
#endif

#endif /* PAGEPOOL_OPTS_H */
