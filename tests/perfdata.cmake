# perfdata: the ABI (sample layout), the reader against the 18 shared fixtures and perf's own
# outputs, hostile input, the writer's files (read back raw and by perf script), writer ->
# reader round trips.
mp_add_cmocka_test(test_perfabi SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_perfabi.c
  LIBS mp_perfdata)
# the tracing data (tracepoint formats) and the tracepoint printer: formats built in the test
mp_add_cmocka_test(test_tracedata SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_tracedata.c
  LIBS mp_perfdata)
mp_add_cmocka_test(test_perfdata SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_perfdata.c
  LIBS mp_perfdata)
target_include_directories(test_perfdata PRIVATE ${PROJECT_SOURCE_DIR}/perfdata) # internal
# pdinfo: what the reader sees in a file (a debugging aid for the reader, not installed)
add_executable(pdinfo ${CMAKE_CURRENT_SOURCE_DIR}/tools/pdinfo.c)
target_link_libraries(pdinfo PRIVATE mp_perfdata)
# the DATA_SRC decoder and perf's words for it (mp_datasrc.c)
mp_add_cmocka_test(test_datasrc SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_datasrc.c
  LIBS mp_perfdata)
# the sample queue alone: records with given times pushed, rounds and flushes checked
mp_add_cmocka_test(test_pd_queue SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_pd_queue.c
  LIBS mp_perfdata)
target_include_directories(test_pd_queue PRIVATE ${PROJECT_SOURCE_DIR}/perfdata) # internal
# the allocation records (record --alloc, the simulator): round trips in files and pipes,
# hostile payloads
mp_add_cmocka_test(test_pd_alloc SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_pd_alloc.c
  LIBS mp_perfdata)
