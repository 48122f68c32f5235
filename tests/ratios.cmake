# ratios module: unit tests, end-to-end tests of `memprof ratios`.
mp_add_cmocka_test(test_ratios SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_ratios.c LIBS mp_ratios)
add_executable(ratios_mkdata ${CMAKE_CURRENT_SOURCE_DIR}/ratios_mkdata.c)
target_link_libraries(ratios_mkdata PRIVATE mp_collector)
set(MP_RATIOS_ENV "MEMPROF=${MEMPROF_BIN};KERNELS=${KERNELS_DIR};SHARED_DIR=${SHARED_DIR};PERF=perf;TESTS_DATA=${CMAKE_CURRENT_SOURCE_DIR}/data;MKDATA=$<TARGET_FILE:ratios_mkdata>;XDG_CONFIG_HOME=/nonexistent")
foreach(t ratios_perfdata ratios_written ratios_sim ratios_sim_ux ratios_arm ratios_skew ratios_thread ratios_baseline)
  add_test(NAME ${t} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/${t}.sh)
  set_tests_properties(${t} PROPERTIES ENVIRONMENT "${MP_RATIOS_ENV};KERNELS_SRC=${PROJECT_SOURCE_DIR}/kernels" TIMEOUT 300)
endforeach()
# every shipped formula's events resolve for their model (through the events module)
add_test(NAME ratios_check COMMAND ${MEMPROF_BIN} ratios --check)
set_tests_properties(ratios_check PROPERTIES ENVIRONMENT "XDG_CONFIG_HOME=/nonexistent")
# memprof stat --ratios on software events only (this machine may have no PMU): the
# table says that no ratio can be computed; the computation itself is in test_ratios
add_test(NAME ratios_stat COMMAND bash -c "${MEMPROF_BIN} stat --ratios -e task-clock -- true 2>&1 | grep -q 'no ratio can be computed from these events'")
set_tests_properties(ratios_stat PROPERTIES ENVIRONMENT "XDG_CONFIG_HOME=/nonexistent")
