#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Lint the man pages: every page renders without a single groff warning,
# carries the sections our style requires, and is installed by meson.build;
# every public function and every public macro of the documented headers
# has a page; pagepool pages named in cross-references exist.
#
# Usage: lint.sh SOURCE_ROOT
# Exit: 0 pass, 1 fail, 77 skip (groff missing), as the tests do.

set -u

if [ $# -ne 1 ]; then
	echo "usage: $0 SOURCE_ROOT" >&2
	exit 1
fi
src=$1
mandir=$src/docs/man
incdir=$src/include/pagepool

if ! command -v groff >/dev/null 2>&1; then
	echo "SKIP: groff not found (Debian: groff-base)"
	exit 77
fi

LC_ALL=C
export LC_ALL

fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT HUP INT TERM

# Lay the pages out as they are installed, so that ".so man3/x.3" resolves.
mkdir "$tmp/man3" "$tmp/man7"
pages=0
for f in "$mandir"/*.3 "$mandir"/*.7; do
	[ -e "$f" ] || continue
	cp "$f" "$tmp/man${f##*.}/"
	pages=$((pages + 1))
done
if [ "$pages" -eq 0 ]; then
	fail "no pages in $mandir"
	exit 1
fi

# Is a pagepool page referenced as NAME(SEC) present?
have_page() {
	[ -f "$mandir/$1.$2" ]
}

# meson.build, read once: every page must be listed in it.
meson_list=$(cat "$mandir/meson.build")

# Is a page a link page (".so" only)? Prints its target if so.
so_target() {
	while IFS= read -r l; do
		case $l in
		'.so '*) echo "${l#.so }"; return ;;
		esac
	done < "$1"
}

for f in "$tmp"/man3/* "$tmp"/man7/*; do
	base=${f##*/}
	name=${base%.*}
	sec=${base##*.}
	rel=man$sec/$base

	# Read the page once, in the shell: first line, requests, sections.
	first= lines=0 requests=0 so= th= sections=
	while IFS= read -r l; do
		lines=$((lines + 1))
		[ "$lines" -eq 1 ] && first=$l
		case $l in
		'.\"'*) ;;
		*) requests=$((requests + 1)) ;;
		esac
		case $l in
		'.so '*) so=${l#.so } ;;
		'.TH '*) th=$l ;;
		'.SH '*) sections="$sections|${l#.SH }|" ;;
		esac
	done < "$f"

	if [ "$first" != '.\" SPDX-License-Identifier: MIT' ]; then
		fail "$rel: first line is not the SPDX identifier"
	fi
	case $meson_list in
	*"'$base'"*) ;;
	*) fail "$rel: not listed in docs/man/meson.build" ;;
	esac

	if [ -n "$so" ]; then
		# A link page: one .so line to an existing, non-link page.
		if [ "$requests" -ne 1 ]; then
			fail "$rel: a .so page must hold nothing but the .so line"
		fi
		case $so in
		man[37]/*.[37]) ;;
		*) fail "$rel: .so target '$so' is not man3/x.3 or man7/x.7" ;;
		esac
		if [ ! -f "$tmp/$so" ]; then
			fail "$rel: .so target $so does not exist"
		elif [ -n "$(so_target "$tmp/$so")" ]; then
			fail "$rel: .so target $so is itself a link"
		fi
		# The target is rendered on its own.
		continue
	fi

	set -- $th
	if [ "${2:-} ${3:-}" != "$name $sec" ]; then
		fail "$rel: .TH says '${2:-} ${3:-}', expected '$name $sec'"
	fi
	required="NAME DESCRIPTION AVAILABILITY SEE_ALSO"
	if [ "$sec" = 3 ]; then
		required="$required SYNOPSIS RETURN_VALUE CONCURRENCY"
	fi
	for s in $required; do
		s=$(echo "$s" | sed 's/_/ /g')
		case $sections in
		*"|$s|"* | *"|\"$s\"|"*) ;;
		*) fail "$rel: no '$s' section" ;;
		esac
	done
	if ! grep -q '^Available since pagepool [0-9]' "$f"; then
		fail "$rel: no 'Available since pagepool X.Y.' line"
	fi
	# Cross-references to our own pages must resolve.
	for ref in $(sed -n 's/^\.BR \([A-Za-z_][A-Za-z0-9_]*\) (\([37]\)).*/\1.\2/p' "$f"); do
		case $ref in
		ptr_ring*|__ptr_ring*|PTR_RING*|__PTR_RING*|pp_*|PP_*|\
		pagepool.*|page_*|PAGE_*|__page_pool*|alloc_pages*|\
		__free_pages.*|free_frozen_pages.*|put_page.*|get_page.*|\
		virt_to_page.*|compound_*|PageTail.*|set_page_*|\
		clear_page_*|napi_*|dma_*|DMA_*|__GFP_*|MAX_PAGE_ORDER.*|\
		NR_PAGE_ORDERS.*|NUMA_NO_NODE.*)
			have_page "${ref%.*}" "${ref##*.}" ||
				fail "$rel: refers to missing page $ref"
			;;
		esac
	done

	# Render as man(1) would on a terminal, with every warning enabled.
	out=$(cd "$tmp" && groff -man -ww -z -Tutf8 "$rel" 2>&1)
	if [ -n "$out" ]; then
		fail "$rel: groff warnings:"
		printf '%s\n' "$out" | sed 's/^/    /'
	fi
done

# Public names that need a page: every function declared PP_API or defined
# static inline in the documented headers, and every macro the macro-bearing
# ones define. A component's header joins these lists together with its
# pages (the *_pvt.h indirect headers are not API and never do; kcompat.h is
# the kernel vocabulary, described in pagepool(7)). Kernel style puts the
# return type of a definition on its own line, so a "static" or "PP_API"
# line without "(" means the name starts the next line.
documented="ptr_ring.h fault.h version.h.in page.h netmem.h dma.h opts.h
	page_pool_types.h page_pool.h page_frag_cache.h"
macro_documented="ptr_ring.h page.h netmem.h dma.h opts.h page_pool_types.h
	page_pool.h page_frag_cache.h"
# Macros of those headers that are not API and have no page of their own,
# besides the include guards (PAGEPOOL_*_H) and the local helpers a header
# #undefs again (PP_DMA_STATS_FIELD):
#  - encodings inside struct page that only the inline helpers and the
#    library read: the node's place in page->flags (PP_NODES_PGSHIFT), the
#    page_pool signature and DMA tracking index in page->pp_magic
#    (PP_SIGNATURE, PP_MAGIC_MASK, PP_DMA_INDEX_*) and the fragment bias
#    (PP_BIAS_MAX); page_alloc(7) and page_pool(7) describe them;
#  - the statistics increments of the inline fast paths (__pp_stat_inc,
#    pp_alloc_stat_inc).
# An entry that no documented header defines any more is an error, so the
# list cannot outlive the names it excuses.
internal_macros="PP_NODES_PGSHIFT PP_SIGNATURE PP_MAGIC_MASK PP_DMA_INDEX_SHIFT
	PP_DMA_INDEX_BITS PP_DMA_INDEX_MASK PP_BIAS_MAX __pp_stat_inc
	pp_alloc_stat_inc"
define_re='s/^#[ 	]*define[ 	]\{1,\}\([A-Za-z_][A-Za-z0-9_]*\).*/\1/p'
undef_re='s/^#[ 	]*undef[ 	]\{1,\}\([A-Za-z_][A-Za-z0-9_]*\).*/\1/p'
macros=$(
	for h in $macro_documented; do
		h=$incdir/$h
		[ -f "$h" ] || continue
		undefs=" $(sed -n "$undef_re" "$h" | tr '\n' ' ') "
		for m in $(sed -n "$define_re" "$h"); do
			case $m in
			PAGEPOOL_*_H) continue ;;
			esac
			case $undefs in
			*" $m "*) continue ;;
			esac
			echo "$m"
		done
	done
)
for m in $internal_macros; do
	case " $(echo $macros) " in
	*" $m "*) ;;
	*) fail "lint.sh: allowlisted macro $m is not defined in any documented header" ;;
	esac
done
names=$(
	for h in $documented; do
		h=$incdir/$h
		if [ ! -f "$h" ]; then
			echo "MISSING-HEADER:$h"
			continue
		fi
		awk '
		pending {
			pending = 0
			if (match($0, /^[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
				s = substr($0, 1, RLENGTH)
				sub(/[ \t]*\($/, "", s)
				print s
			}
			next
		}
		/^(static|PP_API)[ \t]/ {
			if (index($0, "(") == 0) {
				pending = 1
				next
			}
			s = $0
			sub(/\(.*/, "", s)
			n = split(s, w, /[ \t*]+/)
			if (w[n] != "")
				print w[n]
		}' "$h"
	done
	for m in $macros; do
		case " $(echo $internal_macros) " in
		*" $m "*) ;;
		*) echo "$m" ;;
		esac
	done
)
checked=0
for n in $(printf '%s\n' "$names" | sort -u); do
	case $n in
	MISSING-HEADER:*) fail "${n#*:} not found"; continue ;;
	esac
	checked=$((checked + 1))
	have_page "$n" 3 || fail "$n: public in include/pagepool but has no docs/man/$n.3"
done
if [ "$checked" -lt 10 ]; then
	fail "found only $checked public names in $incdir: header parsing broken?"
fi

echo "$pages pages, $checked public names, $fails failures"
[ "$fails" -eq 0 ] || exit 1
exit 0
