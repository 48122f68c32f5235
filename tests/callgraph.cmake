# callgraph: stacks by distinct chain, children/self, caller/callee trees (mp_cg_*), and
# memprof report's call-graph outputs checked against perf.
mp_add_cmocka_test(test_callgraph SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_callgraph.c
  LIBS mp_callgraph)
