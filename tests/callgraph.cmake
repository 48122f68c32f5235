# callgraph: stacks by distinct chain, children/self, caller/callee trees (mp_cg_*), and
# memprof report's call-graph outputs checked against perf.
mp_add_cmocka_test(test_callgraph SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_callgraph.c
  LIBS mp_callgraph)
target_include_directories(test_callgraph PRIVATE ${PROJECT_SOURCE_DIR}/callgraph) # mp_cg_int.h
set(MP_CG_ENV "MEMPROF=${MEMPROF_BIN};KERNELS=${KERNELS_DIR};SHARED_DIR=${SHARED_DIR};PERF=perf")
foreach(t callgraph_perf callgraph_pprof callgraph_deep)
  add_test(NAME ${t} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/${t}.sh)
  set_tests_properties(${t} PROPERTIES ENVIRONMENT "${MP_CG_ENV}" TIMEOUT 300)
endforeach()
# report --html's data-objects section (issue 26): globals and fields, a heap object, the
# shared line of falseshare under the simulator (when mpsim is built), in headless chromium
add_test(NAME e2e_report_html_data COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/report_html_data.sh)
set_tests_properties(e2e_report_html_data PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77
  ENVIRONMENT "MEMPROF=${MEMPROF_BIN};KERNELS=${KERNELS_DIR};PROG=$<TARGET_FILE:alloc_prog>;MEMPROF_VGTOOL=${MP_VGTOOL_BIN}")
