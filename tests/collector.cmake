# collector: unit tests (ring, evlist with a fake perf_event_open, live record/stat runs)
# and end-to-end record/stat runs checked with perf. The writer's tests are perfdata's.
mp_add_cmocka_test(test_collector SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_collector.c
                   LIBS mp_collector)
target_link_options(test_collector PRIVATE -Wl,--wrap=mp_ev_sys_perf_event_open,--wrap=ioctl)
target_include_directories(test_collector PRIVATE ${PROJECT_SOURCE_DIR}/collector)

foreach(t record_basic record_two_events record_threads record_refused record_signals
          record_options record_syswide record_leader record_kallsyms record_group stat_basic
          record_callgraph)
  add_test(NAME e2e_${t} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/${t}.sh)
  set_tests_properties(e2e_${t} PROPERTIES
    ENVIRONMENT "MEMPROF=${MEMPROF_BIN};KERNELS=${KERNELS_DIR};SHARED_DIR=${SHARED_DIR};PERF=perf"
    TIMEOUT 300)
endforeach()
