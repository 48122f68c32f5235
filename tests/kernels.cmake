# The kernels check their own results (exit status 1 when a check fails); these tests run
# them small, require status 0 and the values the options imply (tests/e2e/kernels.sh),
# and feed them bad options.
foreach(c cachebench_modes falseshare_totals falseshare_article help)
  add_test(NAME kernels_${c} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/kernels.sh ${c})
  set_tests_properties(kernels_${c} PROPERTIES ENVIRONMENT "KERNELS=${KERNELS_DIR}")
endforeach()
add_test(NAME kernels_matmul_all_agree COMMAND ${KERNELS_DIR}/matmul -N 64 -a all)
add_test(NAME kernels_bad_options COMMAND bash -c "
  out=$(${KERNELS_DIR}/cachebench -m inc -n 0 2>&1); rc=$?
  [ $rc -eq 2 ] && echo \"$out\" | grep -q 'needs -n 1' || exit 1
  out=$(${KERNELS_DIR}/matmul -N 100 2>&1); rc=$?
  [ $rc -eq 2 ] && echo \"$out\" | grep -q 'multiple of 8' || exit 1
  out=$(${KERNELS_DIR}/falseshare -d 3 2>&1); rc=$?
  [ $rc -eq 2 ] && echo \"$out\" | grep -q 'multiple of 8' || exit 1
  out=$(${KERNELS_DIR}/cachebench -o diagonal 2>&1); rc=$?
  [ $rc -eq 2 ] && echo \"$out\" | grep -q \"unknown order 'diagonal'\" || exit 1")
# matmul with one wrong entry in block (1, 2) of each blocked result (MATMUL_FAULT_BLOCK):
# every run must fail the entry-by-entry comparison with the naive product.
add_executable(matmul_fault ${PROJECT_SOURCE_DIR}/kernels/matmul.c)
target_compile_definitions(matmul_fault PRIVATE MATMUL_FAULT_BLOCK)
target_compile_options(matmul_fault PRIVATE -O2)
target_link_libraries(matmul_fault PRIVATE memprof_debugpred mp_numa_plain mp_marker m)
add_test(NAME kernels_matmul_checks COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/kernels.sh matmul_checks)
set_tests_properties(kernels_matmul_checks PROPERTIES ENVIRONMENT "KERNELS=${KERNELS_DIR};MATMUL_FAULT=$<TARGET_FILE:matmul_fault>")
