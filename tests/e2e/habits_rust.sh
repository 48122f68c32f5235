#!/bin/bash
# Rust names as perf shows them (issue 28.9): a tiny Rust program built with rustc in the
# legacy (_ZN..17h<hash>E) and v0 (_R...) manglings, recorded with cpu-clock:
# (1) every dso,sym row of memprof report --full-names names what perf report names
#     (demangled, without the hash or .llvm. suffix, v0's generic arguments kept);
# (2) annotate finds count_words by its short name, its path and its mangled name.
# Skipped (77) without rustc.
PATH=$PATH:${HOME:-/root}/.cargo/bin
command -v rustc >/dev/null || { echo "skip: no rustc"; exit 77; }
. "$(dirname "$0")/e2e_lib.sh"
cat >words.rs <<'RS'
use std::collections::HashMap;
#[inline(never)]
fn count_words(text: &str) -> usize {
    let mut m: HashMap<&str, usize> = HashMap::new();
    for w in text.split_whitespace() {
        *m.entry(w).or_insert(0) += 1;
    }
    m.len()
}
fn main() {
    let s = "the quick brown fox jumps over the lazy dog ".repeat(20000);
    let mut t = 0;
    for _ in 0..20 {
        t += count_words(&s);
    }
    println!("{}", t);
}
RS
rustc -O -g -o legacy words.rs 2>err && rustc -O -g -C symbol-mangling-version=v0 -o v0 words.rs 2>>err ||
	{ echo "skip: rustc: $(head -1 err)"; exit 77; }

for b in legacy v0; do
	"$MEMPROF" record -q -e cpu-clock -o $b.data ./$b >/dev/null 2>err ||
		{ echo "FAIL record $b: $(cat err)"; fail=1; continue; }
	# (1)
	"$PERF" report -i $b.data --stdio --sort dso,sym 2>/dev/null | grep -v '^#' | grep -v '^$' |
		sed -E 's/^ +[0-9.]+% +//; s/ +$//; s/  +/ /' | sort >perf.$b
	"$MEMPROF" report -i $b.data --no-objects --full-names --sort dso,sym 2>/dev/null |
		grep -v '^#' | grep -v '^$' | sed -E 's/^ +[0-9]+ +[0-9.]+% +//; s/ +$//; s/  +/ /' | sort >mp.$b
	grep -q 'words::count_words$' perf.$b || { echo "FAIL perf names no words::count_words ($b)"; fail=1; }
	if ! diff perf.$b mp.$b >d.$b; then
		echo "FAIL $b: $(grep -c '^>' d.$b) of $(wc -l <mp.$b) rows named otherwise than perf:"
		head -6 d.$b
		fail=1
	fi
	# (2)
	mangled=$(nm $b | awk '/count_words/ { print $3; exit }')
	for want in count_words words::count_words "$mangled"; do
		"$MEMPROF" annotate -i $b.data "$want" >ann 2>err &&
			head -1 ann | grep -q ':words::count_words ' ||
			{ echo "FAIL annotate $want ($b): $(head -1 err ann)"; fail=1; }
	done
done

[ $fail = 0 ] && echo "ok: Rust names as perf's, annotate by the short name"
exit $fail
