# events/: the spec parser, libpfm4 encodings, aliases, sysfs, explanations, memprof list.
mp_add_cmocka_test(test_events SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_events.c LIBS mp_events)
target_include_directories(test_events PRIVATE ${PROJECT_SOURCE_DIR}/events)
# libpfm4 reads LIBPFM_FORCE_PMU once, in pfm_initialize(): one process per forced model.
foreach(model core skl amd64_fam19h_zen4 nhm snb icl spr amd64_fam17h_zen2 amd64_fam19h_zen3)
  add_test(NAME test_events_force_${model} COMMAND test_events)
  set_tests_properties(test_events_force_${model} PROPERTIES ENVIRONMENT
    "LIBPFM_FORCE_PMU=${model};TESTS_DATA=${CMAKE_CURRENT_SOURCE_DIR}/data")
endforeach()
add_test(NAME events_list_e2e COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/events_list.sh)
set_tests_properties(events_list_e2e PROPERTIES ENVIRONMENT
  "MEMPROF=${MEMPROF_BIN};TESTS_DATA=${CMAKE_CURRENT_SOURCE_DIR}/data")
add_test(NAME events_generic_vs_perf COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/events_vs_perf.sh)
set_tests_properties(events_generic_vs_perf PROPERTIES ENVIRONMENT "MEMPROF=${MEMPROF_BIN};PERF=perf")
