# perf.data reader tests: the 18 shared fixtures against perf's own outputs, and hostile input.
mp_add_cmocka_test(test_perfdata SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_perfdata.c
  LIBS mp_analyzer mp_collector)
# pdinfo: what the reader sees in a file (a debugging aid for the reader, not installed)
add_executable(pdinfo ${CMAKE_CURRENT_SOURCE_DIR}/tools/pdinfo.c)
target_link_libraries(pdinfo PRIVATE mp_analyzer)
