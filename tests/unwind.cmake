# call chains of samples (analyzer/mp_unwind*.c): memprof script against perf script on
# fp, dwarf and LBR recordings.
foreach(t script_callchains report_html)
  add_test(NAME e2e_${t} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/${t}.sh)
  set_tests_properties(e2e_${t} PROPERTIES
    ENVIRONMENT "MEMPROF=${MEMPROF_BIN};KERNELS=${KERNELS_DIR};SHARED_DIR=${SHARED_DIR};PERF=perf"
    TIMEOUT 300)
endforeach()
