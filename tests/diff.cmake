# memprof diff, memprof archive and reports over several recordings (issue 14):
# e2e scripts on the kernels, cross-checked with perf diff / perf report where perf sees
# the same thing.
foreach(t diff_sim diff_sim_practical diff_perf report_many archive)
  add_test(NAME e2e_${t} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/${t}.sh)
  set_tests_properties(e2e_${t} PROPERTIES LABELS "e2e" TIMEOUT 300 SKIP_RETURN_CODE 77
    ENVIRONMENT "MEMPROF=${MEMPROF_BIN};KERNELS=${KERNELS_DIR};SHARED_DIR=${SHARED_DIR};PERF=perf")
endforeach()
mp_add_cmocka_test(test_diff SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_diff.c
                   LIBS mp_analyzer mp_ratios)
