# The SIMULATED label in report and annotate (tests/e2e/sim_labels.sh).
add_test(NAME e2e_sim_labels COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/sim_labels.sh)
set_tests_properties(e2e_sim_labels PROPERTIES LABELS "e2e;sim" TIMEOUT 300
  ENVIRONMENT "MEMPROF=${MEMPROF_BIN};KERNELS=${KERNELS_DIR};SHARED_DIR=${SHARED_DIR};PERF=perf")
