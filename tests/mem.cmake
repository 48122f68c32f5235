# Data addresses (issue 25): record -d/-W, the DATA_SRC words, report --mem-mode, script -F,
# checked against perf on memprof's files and on the shared fixtures.
set(MP_MEM_ENV "MEMPROF=${MEMPROF_BIN};KERNELS=${KERNELS_DIR};SHARED_DIR=${SHARED_DIR};PERF=perf")
foreach(t mem_record mem_report mem_cmd mem_stack mem_pprof)
  add_test(NAME e2e_${t} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/${t}.sh)
  set_tests_properties(e2e_${t} PROPERTIES ENVIRONMENT "${MP_MEM_ENV}" TIMEOUT 300)
endforeach()
# a file whose memory fields are present for one event and absent for another, written with
# the tests' perf.data writer: report --mem-mode, script -F and mem report on it
mp_add_cmocka_test(test_mem_mixed SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_mem_mixed.c
  LIBS mp_perfdata)
set_tests_properties(test_mem_mixed PROPERTIES ENVIRONMENT "MEMPROF=${MEMPROF_BIN}")
