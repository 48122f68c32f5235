# The kernels check their own results; these tests run them small and feed them bad options.
add_test(NAME kernels_cachebench_modes COMMAND bash -c "
  set -e
  for m in walk inc addnext; do for o in seq random; do
    ${KERNELS_DIR}/cachebench -m $m -o $o -s 256K -r 20 | grep -q \"mode=$m order=$o\"
  done; done
  ${KERNELS_DIR}/cachebench -t 0.05 -s 16K | grep -q 'ns/element='")
add_test(NAME kernels_matmul_all_agree COMMAND ${KERNELS_DIR}/matmul -N 64 -a all)
add_test(NAME kernels_falseshare_totals COMMAND bash -c "
  set -e
  ${KERNELS_DIR}/falseshare -T 2 -d 8 -i 100000 | grep -q 'threads=2 displacement=8'
  ${KERNELS_DIR}/falseshare -T 2 -d 0 -A -i 100000 | grep -q 'atomic=1'
  ${KERNELS_DIR}/falseshare -T 3 -d 64 -i 100000 | grep -q 'threads=3 displacement=64'")
add_test(NAME kernels_bad_options COMMAND bash -c "
  out=$(${KERNELS_DIR}/cachebench -m inc -n 0 2>&1); rc=$?
  [ $rc -eq 2 ] && echo \"$out\" | grep -q 'needs -n 1' || exit 1
  out=$(${KERNELS_DIR}/matmul -N 100 2>&1); rc=$?
  [ $rc -eq 2 ] && echo \"$out\" | grep -q 'multiple of 8' || exit 1
  out=$(${KERNELS_DIR}/falseshare -d 3 2>&1); rc=$?
  [ $rc -eq 2 ] && echo \"$out\" | grep -q 'multiple of 8' || exit 1
  ${KERNELS_DIR}/cachebench -o diagonal 2>&1 | grep -q \"unknown order 'diagonal'\"")
