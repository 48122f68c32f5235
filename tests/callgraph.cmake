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
