#!/bin/bash
# tui_layers: the tui module's files form layers, each using only those below it
# (tui/tui_view.h says which): no file calls a function of a file above or beside it
# (read from the symbols of libmp_tui.a) or includes such a file's header, only tui_draw.c
# includes <curses.h>, and no view is told apart by its ops table (ops == &x_ops).
# Needs TUI_LIB (the built libmp_tui.a) and SRCDIR.
set -u
: "${TUI_LIB:?}" "${SRCDIR:?}"
command -v nm >/dev/null || { echo "skipped: no nm"; exit 77; }

# the layer of each file (its header has the same layer); a file uses lower layers only
declare -A rank=(
	[tui_data]=1 [tui_source]=2 [tui_view]=2 [tui_render]=3
	[tui_text]=4 [tui_diff]=4 [tui_annview]=4 [tui_tview]=4 [tui_list]=5 [tui_dview]=5 [tui_chains]=6
	[tui_keys]=7 [tui_model]=8 [tui_draw]=1 [tui_loop]=9
)
declare -A header_of=([tui_internal]=tui_data [tui_term]=tui_draw)
fail=0
bad() {
	echo "tui_layers: $*"
	fail=1
}

# every .c of tui/ has a layer
for f in "$SRCDIR"/tui/*.c; do
	b=$(basename "$f" .c)
	[ -n "${rank[$b]:-}" ] || bad "$b.c has no layer in tui_layers.sh"
done

# calls: which object defines each symbol another one uses
edges=$(nm -A "$TUI_LIB" 2>/dev/null | awk '
	{ split($1, p, ":"); f = p[2]; sub(/\.c\.o$|\.o$/, "", f) }
	NF == 3 && $2 ~ /^[TDRB]$/ { def[$3] = f }
	NF == 3 && $2 == "U" { use[f, $3] = 1 }
	END { for (k in use) { split(k, q, SUBSEP); if (q[2] in def && def[q[2]] != q[1])
		print q[1], def[q[2]], q[2] } }' | sort -u)
[ -n "$edges" ] || bad "no calls between the files of $TUI_LIB (nm failed?)"
while read -r from to sym; do
	[ -n "$from" ] || continue
	[ "${rank[$to]:-0}" -lt "${rank[$from]:-0}" ] ||
		bad "$from.c calls $sym of $to.c, which is not below it"
done <<<"$edges"

# includes: a file includes headers of its layer's own file or below
for f in "$SRCDIR"/tui/*.c "$SRCDIR"/tui/*.h; do
	b=$(basename "$f"); b=${b%.*}
	self=${header_of[$b]:-$b}
	[ "$b" = mp_tui ] && continue
	while read -r h; do
		h=${h%.h}
		case $h in mp_* | memprof/*) continue ;; esac
		g=${header_of[$h]:-$h}
		[ -n "${rank[$g]:-}" ] || { bad "$(basename "$f") includes $h.h of no layer"; continue; }
		[ "$g" = "$self" ] || [ "${rank[$g]}" -lt "${rank[$self]}" ] ||
			bad "$(basename "$f") includes $h.h, which is not below it"
	done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
done

curses=$(grep -l '#include <n\?curses' "$SRCDIR"/tui/* | xargs -n1 basename | tr '\n' ' ')
[ "$curses" = "tui_draw.c " ] || bad "<curses.h> included by: $curses(only tui_draw.c may)"
grep -n 'ops *[!=]= *&\|&tui_[a-z]*_ops *[!=]=' "$SRCDIR"/tui/*.c &&
	bad "a view told apart by its ops table (above): give the ops a hook or a flag"

[ $fail = 0 ] && echo "tui_layers: $(wc -l <<<"$edges") calls between files, all downwards"
exit $fail
