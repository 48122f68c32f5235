#!/bin/bash
# C++ names as a user types them, on a template-heavy stand-in (class lexer, method scan,
# a class template table): annotate finds demo::lexer::scan by its unqualified, qualified,
# fully qualified and mangled names, and a template method without its arguments; a typo
# gets "did you mean"; report shortens long template names, --full-names keeps them.
source "$(dirname "$0")/record_lib.sh"
command -v g++ >/dev/null || { echo "SKIP: no g++"; exit 77; }
g++ -O2 -g -o lexer "$(dirname "$0")/../standins/lexer.cpp" || fail "cannot build lexer"
"$MEMPROF" record -e cpu-clock -c 50000 -o lx.data -- ./lexer 60 >/dev/null 2>rec.err ||
	fail "record: $(cat rec.err)"
mangled=$(nm lexer | awk '$2 == "T" && $3 ~ /^_ZN4demo5lexer4scan/ { print $3; exit }')
[ -n "$mangled" ] || fail "no mangled scan in lexer"
"$MEMPROF" annotate -i lx.data demo::lexer::scan >full.out 2>full.err || fail "annotate demo::lexer::scan: $(cat full.err)"
head -1 full.out | grep -q '^# lexer:demo::lexer::scan  \[0x' || fail "header: $(head -1 full.out)"
grep -q 'std::size_t lexer::scan(table<std::string, std::size_t> &out)' full.out || fail "no source of scan"
for name in scan lexer::scan "$mangled"; do
	"$MEMPROF" annotate -i lx.data "$name" >n.out 2>n.err || fail "annotate $name: $(cat n.err)"
	cmp -s n.out full.out || fail "annotate $name differs from annotate demo::lexer::scan"
done
echo "scan, lexer::scan and the mangled name annotate demo::lexer::scan"
# a template method by its name without template arguments
"$MEMPROF" annotate -i lx.data table::insert >t.out 2>t.err || fail "annotate table::insert: $(cat t.err)"
head -1 t.out | grep -q '^# lexer:demo::table<.*>::insert  \[0x' || fail "table::insert: $(head -1 t.out)"
# a typo: did you mean
"$MEMPROF" annotate -i lx.data scna >/dev/null 2>e.out; [ $? = 1 ] || fail "scna: status"
grep -q "symbol 'scna' not found .*(did you mean demo::lexer::scan" e.out || fail "no hint: $(cat e.out)"
"$MEMPROF" annotate -i lx.data zzzzzzzzzzzzzz >/dev/null 2>e.out; grep -q "did you mean" e.out && fail "hint for nothing like it: $(cat e.out)"
# report: the long template name shortened in the text table, whole on request and in csv
"$MEMPROF" report -i lx.data --no-objects --sort sym >r.out 2>&1 || fail "report: $(cat r.out)"
grep -q '\[\.\] demo::table<\.\.\.>::insert' r.out || fail "no short name: $(grep insert r.out)"
"$MEMPROF" report -i lx.data --no-objects --sort sym --full-names >r.out 2>&1 || fail "report --full-names"
grep -q '\[\.\] demo::table<std::__cxx11::basic_string<char' r.out || fail "--full-names: $(grep insert r.out)"
"$MEMPROF" report -i lx.data --csv --sort sym | grep -q 'demo::table<std::__cxx11::basic_string' || fail "csv name cut"
# the TUI shortens a template name too wide for its column too (list, annotate title);
# --full-names keeps it whole
"$MEMPROF" tui -i lx.data --batch "/insert<ENTER>" >tl.out 2>&1 || fail "tui: $(cat tl.out)"
grep -Eq '^> .* demo::table<\.\.\.>::insert +lexer$' tl.out || fail "tui list: $(grep insert tl.out)"
"$MEMPROF" tui -i lx.data --batch "/insert<ENTER><ENTER>" | head -1 | grep -q '^ Annotate demo::table<\.\.\.>::insert (lexer)' ||
	fail "tui title: $("$MEMPROF" tui -i lx.data --batch "/insert<ENTER><ENTER>" | head -1)"
"$MEMPROF" tui -i lx.data --full-names --batch "/insert<ENTER>" | grep -q '^> .* demo::table<std::__cxx11::basic_string<char' ||
	fail "tui --full-names: $("$MEMPROF" tui -i lx.data --full-names --batch "/insert<ENTER>" | grep insert)"
# wide enough for the whole name: whole
"$MEMPROF" tui -i lx.data --size 400x24 --batch "/insert<ENTER>" | grep -q '^> .* demo::table<std::__cxx11::basic_string<char.*>::insert ' ||
	fail "tui at 400 columns cut the name"
echo ok
