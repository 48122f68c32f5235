#!/bin/bash
# The TUI's data view (issue 25), by memprof tui --batch screens:
#  - a page-fault recording with data addresses of globtouch (64 pages of glob_bss, 16 of
#    glob_data): D lists glob_bss with 64 samples and glob_data with 16 (t: samples), as
#    report --mem-mode --sort symbol_daddr counts them; ENTER on glob_bss lists the code
#    that touched it (touch, at its source line, 64); ENTER there annotates touch; q comes
#    back to the data view and to the symbol list; TAB shows the cache lines (64 of
#    glob_bss, one fault each) and the levels;
#  - the Skylake-SP perf mem fixture: TAB TAB (mem) gives perf's levels (LFB 5, L3 4, L1 4,
#    L2 1 samples) and its weight sum 1725; percent of recording (t t t) is of the weights
#    (LFB 729 of 1725: 42.26%), the code view's percent of its row (249 of LFB's 729);
#  - objects and fields (issue 26): alloc_prog's malloc'ed block under its allocation
#    site (alloc, as report --mem-mode --sort alloc) and the code that touched it; the
#    members of a global struct and of heap objects (typeoff, as report's);
#  - a recording without data addresses: D says so on one line.
D=$(cd "$(dirname "$0")" && pwd)
source "$D/record_lib.sh"
FIX=${SHARED_DIR:-}/perfdata
SKX=$FIX/pdc-mem-load-latency-skx.data
[ -f "$SKX" ] || { echo "SKIP: no $FIX fixtures"; exit 77; }
tui() { "$MEMPROF" tui -i "$1" -k /dev/null --size "$2" --batch "$3" 2>&1; }

gcc -O2 -g -o globtouch "$D/../standins/globtouch.c" || fail "cannot build globtouch"
"$MEMPROF" record -q -e page-faults -c 1 -d -o m.data -- ./globtouch >/dev/null 2>rec.err ||
	fail "record: $(cat rec.err)"
tui m.data 120x400 Dt >s1.txt
head -1 s1.txt | grep -q '^ Data by symbol_daddr | [0-9]* samples of .page-faults. with data' ||
	fail "data view title: $(head -2 s1.txt)"
# a row's count (the cursor's '>' taken off)
row() { sed 's/^>/ /' "$1" | awk -v s="$2" '$2 == "[.]" && $3 == s { print $1 }'; }
[ "$(row s1.txt glob_bss)" = 64 ] || fail "glob_bss: '$(row s1.txt glob_bss)' samples: $(cat s1.txt)"
[ "$(row s1.txt glob_data)" = 16 ] || fail "glob_data: '$(row s1.txt glob_data)' samples"
# the same rows as report --mem-mode's
"$MEMPROF" report -i m.data -k /dev/null --mem-mode --sort symbol_daddr --csv >rep.csv
[ "$(grep -c '^page-faults,' rep.csv)" = "$(sed -n '3,$p' s1.txt | grep -c '^[> ] *[0-9]* *\[')" ] ||
	fail "rows differ from report --mem-mode: $(cat rep.csv) / $(cat s1.txt)"
# ENTER: the code that touched glob_bss (the first row: the most samples)
tui m.data 120x12 'Dt<ENTER>' >s2.txt
head -1 s2.txt | grep -q '^ Code that touched \[\.\] glob_bss | 64 samples' || fail "code title: $(head -1 s2.txt)"
line=$(grep -n 'p\[i \* PAGE\] = ' "$D/../standins/globtouch.c" | cut -d: -f1)
grep -q "^> *64  touch  globtouch.c:$line  globtouch" s2.txt || fail "code rows (touch at :$line): $(cat s2.txt)"
[ "$(sed -n '3,11p' s2.txt | grep -c '[0-9]')" = 1 ] || fail "more than touch touched glob_bss: $(cat s2.txt)"
# ENTER there: annotate touch; q twice: the data view, then the symbol list
tui m.data 120x12 'Dt<ENTER><ENTER>' | head -1 | grep -q 'touch' || fail "annotate from the code view"
tui m.data 120x12 'D<ENTER>q' | head -1 | grep -q '^ Data by symbol_daddr' || fail "q back to the data view"
tui m.data 120x12 'D<ENTER><LEFT>q' | head -1 | grep -q '^ Symbols' || fail "LEFT, q back to the symbols"
# TAB: cache lines, one fault on the first line of each of glob_bss's 64 pages
tui m.data 120x200 'Dt<TAB>' >s3.txt
head -1 s3.txt | grep -q '^ Data by dcacheline' || fail "TAB: $(head -1 s3.txt)"
[ "$(grep -c '^[> ] *1  \[\.\] glob_bss+0x\(0\|[0-9a-f]*000\) *$' s3.txt)" = 64 ] ||
	fail "glob_bss cache lines: $(grep glob_bss s3.txt | head)"
tui m.data 120x10 'D<TAB><TAB>' | head -1 | grep -q '^ Data by mem' || fail "TAB TAB: mem"

# the Skylake file's levels and weights, as perf gives them
tui "$SKX" 160x12 'Dt<TAB><TAB>' >k.txt
head -1 k.txt | grep -q "^ Data by mem | 14 samples of '.*' with data, weight 1725$" ||
	fail "Skylake title: $(head -1 k.txt)"
lv() { sed 's/^>/ /' k.txt | awk -v l="$1" 'index($0, "  " l " or " l " hit") { print $1 }'; }
[ "$(lv LFB/MAB)" = 5 ] && [ "$(lv L3)" = 4 ] && [ "$(lv L1)" = 4 ] && [ "$(lv L2)" = 1 ] ||
	fail "Skylake levels: LFB '$(lv LFB/MAB)' L3 '$(lv L3)' L1 '$(lv L1)' L2 '$(lv L2)': $(cat k.txt)"
# the dummy event has no counts: its cell is blank, the weight second
w=$(sed -n '3,8p' k.txt | sed 's/^>/ /' | awk 'NF { s += $2 } END { print s }')
[ "$w" = 1725 ] || fail "Skylake weights sum to $w: $(cat k.txt)"

# t t t, percent of recording: of the recording's weights (1725), not of its periods;
# the code view's percent is of its row (LFB's 729), percent of recording of the 1725
tui "$SKX" 160x12 'Dttt<TAB><TAB>' | grep -q '^> *42\.26% *729  LFB/MAB' ||
	fail "percent of recording: $(tui "$SKX" 160x12 'Dttt<TAB><TAB>')"
tui "$SKX" 160x12 'D<TAB><TAB><ENTER>' >c1.txt
head -1 c1.txt | grep -q '; percent of it$' || fail "code view title: $(head -1 c1.txt)"
grep -q '^> *34\.16% *249  0xffffffffa423a4fe' c1.txt || fail "code percent of row: $(cat c1.txt)"
tui "$SKX" 160x12 'Dttt<TAB><TAB><ENTER>' | grep -q '^> *14\.43% *249  0xffffffffa423a4fe' ||
	fail "code percent of recording: $(tui "$SKX" 160x12 'Dttt<TAB><TAB><ENTER>')"

# objects and fields (issue 26): alloc_prog's 128-page block recorded with --alloc: the
# keys after mem are alloc (its allocation site, as report --mem-mode --sort alloc counts
# it, 127..129 samples) and typeoff; ENTER on the site: touch_pages at its store's line;
# the global struct gpair of alloc_prog types (no --alloc: no alloc key) by member
if [ -x "${PROG:-}" ]; then
	SRC=$D/../alloc_prog.c
	lb=$(grep -n ALLOC_BLOCK_LINE "$SRC" | cut -d: -f1)
	lt=$(grep -n '((volatile char \*)p)\[i \* page\] = 1' "$SRC" | cut -d: -f1)
	"$MEMPROF" record -q -e page-faults -c 1 -d --alloc -o a.data -- "$PROG" pages >/dev/null 2>rec.err ||
		fail "record --alloc: $(cat rec.err)"
	tui a.data 120x10 'Dt<TAB><TAB><TAB>' >a1.txt
	head -1 a1.txt | grep -q '^ Data by alloc | [0-9]* samples' || fail "alloc key: $(cat a1.txt)"
	n=$(sed 's/^>/ /' a1.txt | awk -v s="alloc_block alloc_prog.c:$lb" 'substr($0, index($0, $2)) == s { print $1 }')
	[ -n "$n" ] && [ "$n" -ge 127 ] && [ "$n" -le 129 ] || fail "alloc_block: '$n' samples: $(cat a1.txt)"
	"$MEMPROF" report -i a.data --mem-mode --sort alloc --csv >a.csv 2>/dev/null
	grep -q "^page-faults,$n,[0-9.]*,alloc_block alloc_prog.c:$lb\$" a.csv ||
		fail "report --sort alloc disagrees with $n: $(cat a.csv)"
	grep -q '^ *[0-9]*  \[not allocated\]$' a1.txt || fail "no [not allocated] row: $(cat a1.txt)"
	tui a.data 120x10 'Dt<TAB><TAB><TAB><ENTER>' >a2.txt
	head -1 a2.txt | grep -q "^ Code that touched alloc_block alloc_prog.c:$lb | $n samples" ||
		fail "alloc code title: $(head -1 a2.txt)"
	grep -q "^> *$n  touch_pages  alloc_prog.c:$lt  alloc_prog\$" a2.txt || fail "alloc code: $(cat a2.txt)"
	tui a.data 120x10 'D<TAB><TAB><TAB><TAB>' | head -1 | grep -q '^ Data by typeoff' ||
		fail "typeoff after alloc: $(tui a.data 120x10 'D<TAB><TAB><TAB><TAB>' | head -1)"
	# heap objects typed through the pointer their allocation goes to (alloc_prog
	# heaptypes: struct rec's members): the same rows and counts as report's typeoff
	"$MEMPROF" record -q -e page-faults -c 1 -d --alloc -o ht.data -- "$PROG" heaptypes >/dev/null 2>&1 ||
		fail "record heaptypes"
	tui ht.data 120x40 'Dt<TAB><TAB><TAB><TAB>' | sed -n '3,39s/^[> ] *\([0-9][0-9]*\)  /\1 /p' | sort >ht.tui
	"$MEMPROF" report -i ht.data --mem-mode --sort typeoff --stdio 2>/dev/null |
		awk '!/^#/ && NF >= 3 { $2 = ""; sub(/  /, " "); print }' | sort >ht.rep
	grep -q '^[0-9]* struct rec +0x8 (key)$' ht.tui || fail "heap typeoff: no struct rec key row: $(cat ht.tui)"
	cmp -s ht.tui ht.rep || fail "heap typeoff rows differ from report's: $(diff ht.tui ht.rep)"
	"$MEMPROF" record -q -e page-faults -c 1 -d -o ty.data -- "$PROG" types >/dev/null 2>&1 || fail "record types"
	tui ty.data 120x12 'Dt<TAB><TAB><TAB>' >ty.txt
	head -1 ty.txt | grep -q '^ Data by typeoff' || fail "typeoff without allocation records: $(head -1 ty.txt)"
	for f in '+0x0 (a)' '+0x1040 (b)' '+0x20a8 (in\[10\].y)'; do
		grep -q "^[> ] *1  struct pagepair $f\$" ty.txt || fail "typeoff: no 'struct pagepair $f' row: $(cat ty.txt)"
	done
fi

# without data addresses: one line
"$MEMPROF" record -q -e page-faults -c 1 -o n.data -- ./globtouch >/dev/null 2>&1 || fail "record n.data"
tui n.data 120x8 D | tail -1 | grep -q "^no data view: n.data has no data addresses (record with -d" ||
	fail "no data addresses: $(tui n.data 120x8 D | tail -1)"
echo ok
