# Cache-line sharing (issue 26): memprof c2c record/report on synthetic recordings with
# known HITM lines (test_c2c writes them with perfdata's writer), compared with perf c2c.
mp_add_cmocka_test(test_c2c SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_c2c.c LIBS mp_perfdata)
target_compile_options(test_c2c PRIVATE -O1 -g)
set_tests_properties(test_c2c PROPERTIES ENVIRONMENT "MEMPROF=${MEMPROF_BIN};PERF=perf;SHARED_DIR=${SHARED_DIR}")
add_test(NAME e2e_c2c_record COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/c2c_record.sh)
set_tests_properties(e2e_c2c_record PROPERTIES TIMEOUT 120
  ENVIRONMENT "MEMPROF=${MEMPROF_BIN};PERF=perf")
# the article's 9.3 under the simulator (needs mpsim: skipped, 77, without it)
add_test(NAME e2e_c2c_sim COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/c2c_sim.sh)
set_tests_properties(e2e_c2c_sim PROPERTIES LABELS "e2e;sim" TIMEOUT 300 SKIP_RETURN_CODE 77
  ENVIRONMENT "MEMPROF=${MEMPROF_BIN};KERNELS=${KERNELS_DIR};KERNELS_SRC=${PROJECT_SOURCE_DIR}/kernels;MEMPROF_VGTOOL=${MP_VGTOOL_BIN};PERF=perf")
