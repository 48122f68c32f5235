#!/usr/bin/env bash
# Install what memprof needs to build and test on Debian 12 (run as root, or with sudo).
# One list, used by README's commands and by .ci/run.
set -euo pipefail
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
PKGS=(
  build-essential cmake pkg-config      # the build
  libpfm4-dev                           # event names -> perf_event_attr
  libelf-dev libdw-dev                  # symbols, source lines, build-ids
  libiberty-dev                         # cplus_demangle: Rust and D names
  libzstd-dev                           # perf record -z (PERF_RECORD_COMPRESSED)
  zlib1g-dev                            # report --pprof (gzipped profile.proto)
  golang-go                             # go tool pprof: the referee of report --pprof
  libcapstone-dev                       # disassembly for annotate --asm
  libncurses-dev                        # memprof tui
  libcmocka-dev                         # unit tests
  libhwloc-dev libnuma-dev              # numa/: topology (hwloc 2), memory policy (numaif.h)
  dmidecode                             # referee for the SMBIOS memory-device decoding
  linux-perf                            # the referee in the end-to-end tests
  valgrind                              # the simulated PMU (record --sim)
  tmux                                  # drives the TUI in its end-to-end test
  chromium                              # loads report --html pages headless (e2e_report_html)
  clang                                 # libFuzzer harnesses
  qemu-user-static                      # runs aarch64 (and i386) test programs (events_arm_aliases, predict_cross_*)
  libc6-dev-i386 lib32gcc-12-dev        # gcc/clang -m32 for predict_cross_i386 (gcc-multilib would
                                        # conflict with the arm64 cross compiler; these do not)
  binutils time procps                  # objdump/nm, /usr/bin/time, ps in tests and benches
  libc6-dbg                             # glibc's DWARF: its assembler aliases (clone3) in e2e habits_names
)
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${PKGS[@]}"
