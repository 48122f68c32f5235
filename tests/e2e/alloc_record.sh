#!/bin/bash
# record --alloc end to end (issue 26), on tests/alloc_prog.c, whose allocations are known
# by construction, recorded with -e page-faults -c 1 -d (every first touch of a page is a
# sample with its address):
#  - the held-out heap check: one malloc of 128 pages touched once each by one function:
#    report --mem-mode --sort alloc gives 127..129 samples under "alloc_block
#    alloc_prog.c:LINE", LINE the malloc call's;
#  - freed and reused: a block freed and one of the same size malloc'ed at the same address
#    by another function: the faults belong to the second (the live one), none to the first;
#  - realloc: the new block's faults under the realloc call (grow), the old block's under
#    alloc_block with its old size;
#  - fork: the child's copy-on-write faults on the parent's block under the parent's site in
#    the child's pid, the child's own block under its own site;
#  - threads: four threads' blocks, live at once, all under one site;
#  - type and typeoff (perf's data-type keys) name the members of a global struct, and of
#    heap objects whose allocation's result is a typed pointer variable (an array of struct
#    rec touched at known fields, in the -O2 build where the variable is in the return
#    register and in an -O0 build where only its declaration line tells), while a block
#    stored in a void * stays untyped; annotate --data-type lays struct rec out with the
#    samples of each member, its hole, padding and cache line boundary;
#  - perf reads the file as usual (report, script, mem report); pipe mode; --csv and --json;
#    the spool folder is gone after the run; one-line errors for --alloc -p, a missing
#    library, --sort alloc on a recording without allocation records.
D=$(cd "$(dirname "$0")" && pwd)
source "$D/record_lib.sh"
: "${PROG:?set PROG}"
SRC=$D/../alloc_prog.c
line_of() { grep -n "$1" "$SRC" | head -1 | cut -d: -f1; }
L_BLOCK=$(line_of ALLOC_BLOCK_LINE)
L_AGAIN=$(line_of ALLOC_AGAIN_LINE)
L_GROW=$(line_of GROW_LINE)
mkdir tmp
export TMPDIR=$W/tmp
rec() { # rec OUT MODE...: record the program with --alloc
	local out=$1
	shift
	"$MEMPROF" record -e page-faults -c 1 -d --alloc -o "$out" -- "$PROG" "$@" >rec.out 2>rec.err ||
		fail "record --alloc $*: $(cat rec.err)"
}
# count REPORT SITE [FIELD VALUE]: samples of the rows whose site (two words) is SITE (and
# whose column FIELD, counted from the site's first word as 1, is VALUE), summed
count() {
	awk -v site="$2" -v f="${3:-0}" -v v="${4:-}" '
		/^#/ || NF < 4 { next }
		($3 " " $4) == site && (f == 0 || $(2 + f) == v) { s += $1 }
		END { print s + 0 }' "$1"
}
in_range() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }

# --- the held-out check
rec pages.data pages 128
grep -q "allocation records from 1 process images, 0 lost" rec.err ||
	fail "record's summary: $(cat rec.err)"
"$MEMPROF" report -i pages.data --mem-mode --sort alloc,alloc_size >pages.txt 2>rep.err ||
	fail "report --sort alloc: $(cat rep.err)"
n=$(count pages.txt "alloc_block alloc_prog.c:$L_BLOCK")
in_range "$n" 127 129 || fail "pages: $n samples under alloc_block alloc_prog.c:$L_BLOCK, want 127..129: $(cat pages.txt)"
[ "$(count pages.txt "alloc_block alloc_prog.c:$L_BLOCK" 3 524288)" = "$n" ] ||
	fail "pages: the object's size is not 524288: $(cat pages.txt)"
grep -q "^# Allocation records: 3 (0 lost), at most 1 objects live, 0 frees of unknown" pages.txt ||
	fail "pages: the header's allocation line: $(grep Allocation pages.txt)"
# every offset once: 127..129 rows of one sample each, page-aligned offsets + 0 from the
# block's start (malloc's header sits before it)
"$MEMPROF" report -i pages.data --mem-mode --sort alloc,alloc_offset >off.txt 2>rep.err ||
	fail "report --sort alloc,alloc_offset: $(cat rep.err)"
rows=$(awk -v s="alloc_block alloc_prog.c:$L_BLOCK" '!/^#/ && NF >= 5 && ($3 " " $4) == s && $1 == 1' off.txt | wc -l)
[ "$rows" = "$n" ] || fail "pages: $rows offsets with one sample each, want $n: $(head -20 off.txt)"
"$MEMPROF" mem report -i pages.data --sort alloc >mem.txt 2>rep.err || fail "mem report: $(cat rep.err)"
[ "$(count mem.txt "alloc_block alloc_prog.c:$L_BLOCK")" = "$n" ] || fail "mem report --sort alloc: $(cat mem.txt)"
# script -F alloc: one line per sample, the heap object last
"$MEMPROF" script -i pages.data -F tid,addr,alloc >script.txt 2>rep.err || fail "script -F alloc: $(cat rep.err)"
[ "$(grep -c " alloc_block alloc_prog.c:$L_BLOCK +0x[0-9a-f]* (524288 bytes)\$" script.txt)" = "$n" ] ||
	fail "script -F alloc: $(grep -c alloc_block script.txt) lines under alloc_block, want $n: $(head -5 script.txt)"
grep -q "+0x7f000 (524288 bytes)\$" script.txt || fail "script -F alloc: no touch of the last page's start: $(tail -3 script.txt)"
# perf reads the file as if the records were not there
perf_reads pages.data
[ "$(perf_samples pages.data page-faults)" = "$(mp_samples rec.err page-faults)" ] ||
	fail "perf sees $(perf_samples pages.data page-faults) samples, memprof wrote $(mp_samples rec.err page-faults)"
"$PERF" script -i pages.data >/dev/null 2>perf.err || fail "perf script: $(cat perf.err)"
"$PERF" mem report -i pages.data --stdio >/dev/null 2>perf.err || fail "perf mem report: $(cat perf.err)"
[ -z "$(ls -A tmp)" ] || fail "the spool is left in TMPDIR: $(ls -la tmp)"
# the default mem-mode order of a recording with allocation records has alloc
"$MEMPROF" report -i pages.data --mem-mode >def.txt 2>rep.err || fail "report --mem-mode: $(cat rep.err)"
grep -q "^# Sort order: local_weight,mem,sym,dso,symbol_daddr,alloc," def.txt ||
	fail "default sort: $(grep 'Sort order' def.txt)"
"$MEMPROF" report -i pages.data --mem-mode --sort alloc --csv >p.csv || fail "--csv"
grep -q "^page-faults,$n,[0-9.]*,alloc_block alloc_prog.c:$L_BLOCK\$" p.csv || fail "--csv: $(cat p.csv)"
"$MEMPROF" report -i pages.data --mem-mode --sort alloc,alloc_size --json >p.json || fail "--json"
python3 - "$n" "alloc_block alloc_prog.c:$L_BLOCK" p.json <<'PY' || fail "--json: $(cat p.json)"
import json, sys
rows = json.load(open(sys.argv[3]))["events"][0]["rows"]
r = [x for x in rows if x["alloc"] == sys.argv[2]]
assert len(r) == 1 and r[0]["samples"] == int(sys.argv[1]) and r[0]["alloc_size"] == "524288", r
PY

# --- freed and reused: the live object
rec reuse.data reuse 128
grep -q "same=1" rec.err || fail "reuse: the second block is not at the first's address: $(cat rec.err)"
"$MEMPROF" report -i reuse.data --mem-mode --sort alloc >reuse.txt || fail "report reuse"
n=$(count reuse.txt "alloc_again alloc_prog.c:$L_AGAIN")
in_range "$n" 127 129 || fail "reuse: $n samples under alloc_again:$L_AGAIN, want 127..129: $(cat reuse.txt)"
[ "$(count reuse.txt "alloc_block alloc_prog.c:$L_BLOCK")" = 0 ] ||
	fail "reuse: samples under the freed block's site: $(cat reuse.txt)"

# --- realloc
rec realloc.data realloc
"$MEMPROF" report -i realloc.data --mem-mode --sort alloc,alloc_size >realloc.txt || fail "report realloc"
n=$(awk -v l="alloc_prog.c:$L_GROW" '!/^#/ && $4 == l && $5 == 262144 { s += $1 } END { print s + 0 }' realloc.txt)
in_range "$n" 59 60 || fail "realloc: $n samples in the grown block under grow (line $L_GROW), want 59..60: $(cat realloc.txt)"
n=$(count realloc.txt "alloc_block alloc_prog.c:$L_BLOCK" 3 16384)
in_range "$n" 3 4 || fail "realloc: $n samples in the old block, want 3..4: $(cat realloc.txt)"

# --- fork: per-process address spaces
rec fork.data fork 16
grep -q "allocation records from 2 process images" rec.err || fail "fork: $(cat rec.err)"
"$MEMPROF" report -i fork.data --mem-mode --sort alloc,alloc_size,pid >fork.txt || fail "report fork"
pids=$(awk '!/^#/ && NF >= 6 { print $6 }' fork.txt | sort -un)
[ "$(echo "$pids" | wc -l)" = 2 ] || fail "fork: want two pids: $(cat fork.txt)"
parent=$(echo "$pids" | head -1)
child=$(echo "$pids" | tail -1)
pblk=$(awk -v s="alloc_block alloc_prog.c:$L_BLOCK" -v p="$parent" '!/^#/ && ($3 " " $4) == s && $5 == 65536 && $6 == p { t += $1 } END { print t + 0 }' fork.txt)
cblk=$(awk -v s="alloc_block alloc_prog.c:$L_BLOCK" -v p="$child" '!/^#/ && ($3 " " $4) == s && $5 == 65536 && $6 == p { t += $1 } END { print t + 0 }' fork.txt)
cown=$(awk -v s="alloc_again alloc_prog.c:$L_AGAIN" -v p="$child" '!/^#/ && ($3 " " $4) == s && $6 == p { t += $1 } END { print t + 0 }' fork.txt)
in_range "$pblk" 15 16 || fail "fork: parent's block $pblk samples, want 15..16: $(cat fork.txt)"
in_range "$cblk" 15 16 || fail "fork: the child's copy-on-write faults of the parent's block: $cblk, want 15..16: $(cat fork.txt)"
in_range "$cown" 3 4 || fail "fork: the child's own block: $cown, want 3..4: $(cat fork.txt)"

# --- threads
rec threads.data threads
"$MEMPROF" report -i threads.data --mem-mode --sort alloc >threads.txt || fail "report threads"
n=$(count threads.txt "alloc_block alloc_prog.c:$L_BLOCK")
in_range "$n" 56 64 || fail "threads: $n samples under alloc_block, want 56..64: $(cat threads.txt)"

# --- pipe mode
"$MEMPROF" record -q -e page-faults -c 1 -d --alloc -o - -- "$PROG" pages 128 2>/dev/null |
	"$MEMPROF" report -i - --mem-mode --sort alloc >pipe.txt 2>pipe.err || fail "pipe: $(cat pipe.err)"
n=$(count pipe.txt "alloc_block alloc_prog.c:$L_BLOCK")
in_range "$n" 127 129 || fail "pipe: $n samples, want 127..129: $(cat pipe.txt)"

# --- data types of globals (perf's type and typeoff keys, from DWARF)
"$MEMPROF" record -q -e page-faults -c 1 -d -o types.data -- "$PROG" types 2>/dev/null || fail "record types"
"$MEMPROF" report -i types.data --mem-mode --sort symbol_daddr,typeoff >types.txt || fail "report typeoff"
for want in "+0x0 (a)" "+0x1040 (b)" "+0x20a8 (in[10].y)"; do
	grep -qF "[.] gpair struct pagepair $want" <(sed 's/  */ /g' types.txt) ||
		fail "typeoff: no 'struct pagepair $want' row: $(grep gpair types.txt)"
done
"$MEMPROF" report -i types.data --mem-mode --sort type >type.txt || fail "report type"
[ "$(awk '!/^#/ && $3 == "struct" && $4 == "pagepair" { print $1 }' type.txt)" = 3 ] ||
	fail "type: struct pagepair should have 3 samples: $(cat type.txt)"

# --- data types of heap objects: struct rec *r = malloc(n * sizeof(*r)), 63 pages touched
# at known fields (k % 4: 0 and 3 hits, 1 link.b, 2 key); void *v = malloc(...) untyped
L_RECS=$(line_of RECS_LINE)
L_RAW=$(line_of RAW_LINE)
for prog in "$PROG" "$PROG_O0"; do
	"$MEMPROF" record -q -e page-faults -c 1 -d --alloc -o ht.data -- "$prog" heaptypes 64 2>/dev/null ||
		fail "record heaptypes ($prog)"
	"$MEMPROF" report -i ht.data --mem-mode --sort alloc,typeoff >ht.txt 2>rep.err ||
		fail "report --sort alloc,typeoff: $(cat rep.err)"
	sed 's/  */ /g' ht.txt >hts.txt
	for want in "31 alloc_recs alloc_prog.c:$L_RECS struct rec +0x40 (hits)" \
		"16 alloc_recs alloc_prog.c:$L_RECS struct rec +0x58 (link.b)" \
		"16 alloc_recs alloc_prog.c:$L_RECS struct rec +0x8 (key)" \
		"31 alloc_raw alloc_prog.c:$L_RAW (unknown)"; do
		awk -v w="$want" '{ sub(/^ /, ""); sub(/ [0-9.]+%/, "") } $0 == w { f = 1 } END { exit !f }' hts.txt ||
			fail "heap typeoff ($prog): no row '$want': $(cat ht.txt)"
	done
	[ "$(grep -c "alloc_recs" ht.txt)" = 3 ] || fail "heap typeoff ($prog): other rows under alloc_recs: $(cat ht.txt)"
	"$MEMPROF" report -i ht.data --mem-mode --sort type >htt.txt || fail "report --sort type"
	[ "$(awk '!/^#/ && $3 == "struct" && $4 == "rec" { print $1 }' htt.txt)" = 63 ] ||
		fail "heap type ($prog): struct rec should have 63 samples: $(cat htt.txt)"
	# annotate --data-type: struct rec's layout with the samples of each member, the hole,
	# the padding and the cache line boundary (perf annotate --data-type's table)
	"$MEMPROF" annotate -i ht.data --data-type='struct rec' >ann.txt 2>ann.err ||
		fail "annotate --data-type ($prog): $(cat ann.err)"
	sed 's/[ \t][ \t]*/ /g; s/^ //' ann.txt >anns.txt
	for want in "Annotate type: 'struct rec' in $(basename "$prog") (63 samples):" \
		"Percent Samples offset size field" \
		"100.00 63 0 128 struct rec {" \
		"0.00 0 0 4 int id;" \
		"0.00 0 4 4 /* XXX 4 bytes hole */" \
		"25.40 16 8 8 long int key;" \
		"0.00 0 16 48 char[48] name;" \
		"/* --- cacheline 1 boundary (64 bytes) --- */" \
		"49.21 31 64 8 long int hits;" \
		"0.00 0 72 8 double avg;" \
		"25.40 16 80 16 struct pair link {" \
		"0.00 0 80 8 long int a;" \
		"25.40 16 88 8 long int b;" \
		"0.00 0 96 1 char tag;" \
		"0.00 0 97 31 /* XXX 31 bytes padding */" \
		"/* size: 128, cachelines: 2, members: 7, holes: 1 (4 bytes), padding: 31 bytes */"; do
		grep -qxF "$want" anns.txt || fail "annotate --data-type ($prog): no line '$want': $(cat ann.txt)"
	done
	# the lines in their order, the braces closed
	[ "$(grep -c '};' anns.txt)" = 2 ] || fail "annotate --data-type: want two closing braces: $(cat ann.txt)"
	[ "$(grep -n 'cacheline 1' anns.txt | cut -d: -f1)" = "$(($(grep -n ' name;' anns.txt | cut -d: -f1) + 1))" ] ||
		fail "annotate --data-type: the boundary is not right after name: $(cat ann.txt)"
	# perf's name match: 'rec' is struct rec; a type nothing fell in says so
	"$MEMPROF" annotate -i ht.data --data-type=rec >ann2.txt || fail "annotate --data-type=rec"
	cmp -s ann.txt ann2.txt || fail "annotate --data-type=rec differs from 'struct rec': $(diff ann.txt ann2.txt)"
	"$MEMPROF" annotate -i ht.data --data-type='struct nothere' >ann3.txt || fail "annotate --data-type nothere"
	grep -q "^# no sample's data address is in a matching data type" ann3.txt || fail "no type: $(cat ann3.txt)"
done

# --- errors: one line each
"$MEMPROF" record --alloc -p 1 -o x.data >out 2>err
[ $? = 2 ] && [ "$(wc -l <err)" = 1 ] && grep -q -- "--alloc needs a command" err || fail "--alloc -p: $(cat err)"
MEMPROF_ALLOC_LIB=$W/none.so "$MEMPROF" record -e page-faults --alloc -o x.data -- true >out 2>err
[ $? = 1 ] && [ "$(wc -l <err)" = 1 ] && grep -q "none.so" err || fail "missing library: $(cat err)"
"$MEMPROF" record -q -e page-faults -c 1 -d -o plain.data -- "$PROG" pages 8 2>/dev/null || fail "plain record"
"$MEMPROF" report -i plain.data --mem-mode --sort alloc >out 2>err
[ $? = 1 ] && [ "$(wc -l <err)" = 1 ] && grep -q "no allocation records" err || fail "--sort alloc without records: $(cat err)"
# annotate --data-type takes no symbol; without data types it says so
"$MEMPROF" annotate -i plain.data --data-type=rec main >out 2>err
[ $? = 2 ] && [ "$(wc -l <err)" = 1 ] && grep -q "annotates types, not 'main'" err || fail "--data-type SYMBOL: $(cat err)"
"$MEMPROF" record -q -e page-faults -c 1 -o noaddr.data -- "$PROG" pages 8 2>/dev/null || fail "record without -d"
"$MEMPROF" annotate -i noaddr.data --data-type >out 2>err
[ $? = 1 ] && [ "$(wc -l <err)" = 1 ] && grep -q "no event of the recording has data addresses" err || fail "--data-type without -d: $(cat err)"
exit 0
