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
# The arm64 alias rows: libpfm4's arm models exist only in its arm64 build, so the events
# module is cross-built for aarch64 and run under qemu-user (CI installs
# gcc-aarch64-linux-gnu, libpfm4-dev:arm64 and qemu-user-static, as tests/pmulab does).
find_program(MP_CC_AARCH64 aarch64-linux-gnu-gcc)
find_program(MP_QEMU_AARCH64 NAMES qemu-aarch64-static qemu-aarch64)
if(MP_CC_AARCH64 AND MP_QEMU_AARCH64 AND EXISTS /usr/lib/aarch64-linux-gnu/libpfm.a)
  add_test(NAME events_arm_aliases COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/events_arm_aliases.sh)
  set_tests_properties(events_arm_aliases PROPERTIES ENVIRONMENT
    "SRC=${PROJECT_SOURCE_DIR};ALIASES_C=${PROJECT_BINARY_DIR}/events/mp_aliases_tsv.c;PMU_MODELS_C=${PROJECT_BINARY_DIR}/events/mp_pmu_models_tsv.c;SIM_EVENTS_C=${PROJECT_BINARY_DIR}/events/mp_sim_events_tsv.c;CC_AARCH64=${MP_CC_AARCH64};QEMU_AARCH64=${MP_QEMU_AARCH64};TESTS_DATA=${CMAKE_CURRENT_SOURCE_DIR}/data/events")
else()
  message(STATUS "events_arm_aliases: needs aarch64-linux-gnu-gcc, qemu-aarch64-static and libpfm4-dev:arm64")
endif()
