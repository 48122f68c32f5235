# record --sim (the simulated PMU): unit tests for the callgrind parser, the event table
# and the perf.data conversion, and end-to-end runs of the kernels under valgrind.
if(TARGET mp_collector AND TARGET mp_analyzer)
  mp_add_cmocka_test(test_sim SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_sim.c
                     LIBS mp_collector mp_analyzer mp_util)
endif()
