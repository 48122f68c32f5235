# regions (issue 15): the markers' workload, stat --regions end to end.
add_executable(regions_prog ${CMAKE_CURRENT_SOURCE_DIR}/regions_prog.c)
target_link_libraries(regions_prog PRIVATE mp_marker)
target_compile_options(regions_prog PRIVATE -O2 -fno-sanitize=all)
target_link_options(regions_prog PRIVATE -fno-sanitize=all)

add_test(NAME e2e_stat_regions COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/stat_regions.sh)
set_tests_properties(e2e_stat_regions PROPERTIES TIMEOUT 300 ENVIRONMENT
  "MEMPROF=${MEMPROF_BIN};KERNELS=${KERNELS_DIR};PROG=$<TARGET_FILE:regions_prog>")

add_test(NAME e2e_marker_pkgconfig COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/marker_pkgconfig.sh)
set_tests_properties(e2e_marker_pkgconfig PROPERTIES TIMEOUT 120 ENVIRONMENT
  "MEMPROF=${MEMPROF_BIN};BUILD_DIR=${CMAKE_BINARY_DIR};SRC_DIR=${PROJECT_SOURCE_DIR}")

add_test(NAME e2e_record_regions COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/record_regions.sh)
set_tests_properties(e2e_record_regions PROPERTIES TIMEOUT 300 ENVIRONMENT
  "MEMPROF=${MEMPROF_BIN};KERNELS=${KERNELS_DIR}")
