# The SIMULATED label in report and annotate (tests/e2e/sim_labels.sh).
add_test(NAME e2e_sim_labels COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/sim_labels.sh)
set_tests_properties(e2e_sim_labels PROPERTIES LABELS "e2e;sim" TIMEOUT 300
  ENVIRONMENT "MEMPROF=${MEMPROF_BIN};KERNELS=${KERNELS_DIR};SHARED_DIR=${SHARED_DIR};PERF=perf")
# A simulated recording reads by default: key columns, the misses in annotate, csv headers.
add_test(NAME e2e_sim_readable COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/sim_readable.sh)
set_tests_properties(e2e_sim_readable PROPERTIES LABELS "e2e;sim" TIMEOUT 300
  ENVIRONMENT "MEMPROF=${MEMPROF_BIN};KERNELS=${KERNELS_DIR};SHARED_DIR=${SHARED_DIR};PERF=perf")
