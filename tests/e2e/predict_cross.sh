#!/bin/bash
# memprof predict, must-show 3: the known-count test (known.c) for another architecture.
#   predict_cross.sh aarch64: aarch64-linux-gnu-gcc (and clang --target with its binutils),
#                             run by qemu-aarch64-static;
#   predict_cross.sh i386:    gcc -m32 and clang -m32, run natively or by qemu-i386-static.
# i386 needs libc6-dev-i386 and lib32gcc-12-dev (tools/install-deps.sh), which live beside
# the arm64 cross compiler (the gcc-multilib meta-package does not: it conflicts with it).
# Exits 77, saying what is missing, when the toolchain or the emulator is not there.
set -u
: "${MEMPROF:?}" "${PREDICT_SRC:?}" "${PREDICT_INC:?}"
arch=${1:?arch}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T"
SRC=$PREDICT_SRC/known.c
LL=$(grep -n 'KNOWN-LIKELY' "$SRC" | cut -d: -f1)
UL=$(grep -n 'KNOWN-UNLIKELY' "$SRC" | cut -d: -f1)
echo 'int main(void) { return 0; }' >t.c
ccs=()
run=()
case $arch in
aarch64)
	command -v qemu-aarch64-static >/dev/null || { echo "skip: qemu-aarch64-static not installed (qemu-user-static)"; exit 77; }
	run=(qemu-aarch64-static -L /usr/aarch64-linux-gnu)
	aarch64-linux-gnu-gcc t.c -o t 2>/dev/null && ccs+=("aarch64-linux-gnu-gcc")
	clang --target=aarch64-linux-gnu -fuse-ld=bfd -B/usr/bin/aarch64-linux-gnu- t.c -o t 2>/dev/null &&
		"${run[@]}" ./t && ccs+=("clang --target=aarch64-linux-gnu -fuse-ld=bfd -B/usr/bin/aarch64-linux-gnu-")
	[ ${#ccs[@]} -gt 0 ] || { echo "skip: no aarch64 cross compiler (gcc-aarch64-linux-gnu, tests/pmulab/setup.sh)"; exit 77; }
	;;
i386)
	for c in gcc clang; do $c -m32 t.c -o t 2>/dev/null && ccs+=("$c -m32"); done
	[ ${#ccs[@]} -gt 0 ] || { echo "skip: neither gcc -m32 nor clang -m32 links (install libc6-dev-i386 lib32gcc-12-dev)"; exit 77; }
	if ! ./t 2>/dev/null; then
		command -v qemu-i386-static >/dev/null ||
			{ echo "skip: this kernel does not run i386 programs and qemu-i386-static is not installed"; exit 77; }
		run=(qemu-i386-static)
		echo "(this kernel does not run i386 programs: through qemu-i386-static)"
	fi
	;;
*) echo "unknown arch $arch"; exit 2 ;;
esac
fail=0
n=0
for cc in "${ccs[@]}"; do
	for opt in -O0 -O2; do
		for pie in "-fPIE -pie" "-fno-pie -no-pie"; do
			for form in "" -DDEBUGPRED_ATOMIC -DDEBUGPRED_GENERIC; do
				lbl="$cc $opt $pie $form"
				# shellcheck disable=SC2086
				$cc -std=c11 -Wall -Werror $opt $pie -DDEBUGPRED $form -I"$PREDICT_INC" "$SRC" -o k 2>cc.err ||
					{ echo "FAIL $lbl: build: $(head -3 cc.err)"; fail=1; continue; }
				file k | grep -q "$([ "$arch" = i386 ] && echo 'Intel 80386' || echo 'ARM aarch64')" ||
					{ echo "FAIL $lbl: not an $arch binary: $(file k)"; fail=1; }
				"$MEMPROF" predict -o p.pred --csv -- "${run[@]}" ./k >out.csv 2>err.txt ||
					{ echo "FAIL $lbl: $(cat err.txt)"; fail=1; continue; }
				grep -qF "likely,999,1,0.10,0,i < 999,loop,$SRC,$LL," out.csv &&
					grep -qF "unlikely,300,700,70.00,1,i % 10 < 7,loop,$SRC,$UL," out.csv ||
					{ echo "FAIL $lbl:"; cat out.csv; fail=1; }
				"$MEMPROF" predict -i p.pred --json | grep -q "\"arch\": \"$arch\"" ||
					{ echo "FAIL $lbl: record's arch is not $arch"; fail=1; }
				n=$((n + 1))
			done
		done
	done
done
[ $fail -eq 0 ] && echo "ok: $n $arch builds with exact counts (${ccs[*]})"
exit $fail
