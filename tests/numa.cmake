# numa: the library's unit tests (snapshots of 28 machines against hwloc's references,
# SMBIOS and EDAC decoding, this machine against sysfs), and the same tests built against
# the installed library with only pkg-config.
mp_add_cmocka_test(test_numa SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_numa.c LIBS mp_numa)
set_tests_properties(test_numa PROPERTIES TIMEOUT 600 ENVIRONMENT
  "SHARED_DIR=${SHARED_DIR};TESTS_DATA=${CMAKE_CURRENT_SOURCE_DIR}/data;SNAPSHOT_CACHE=${CMAKE_BINARY_DIR}/topology-snapshots")

add_test(NAME e2e_numa_pkgconfig COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/numa_pkgconfig.sh)
set_tests_properties(e2e_numa_pkgconfig PROPERTIES
  ENVIRONMENT "SAN_FLAGS=${MP_TEST_SAN_FLAGS};BUILD_DIR=${CMAKE_BINARY_DIR};SRC_DIR=${PROJECT_SOURCE_DIR};SHARED_DIR=${SHARED_DIR};TESTS_DATA=${CMAKE_CURRENT_SOURCE_DIR}/data;SNAPSHOT_CACHE=${CMAKE_BINARY_DIR}/topology-snapshots"
  TIMEOUT 300)

add_test(NAME e2e_topology COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/topology.sh)
set_tests_properties(e2e_topology PROPERTIES
  ENVIRONMENT "MEMPROF=${MEMPROF_BIN};SHARED_DIR=${SHARED_DIR};TESTS_DATA=${CMAKE_CURRENT_SOURCE_DIR}/data"
  TIMEOUT 300)

add_test(NAME e2e_kernels_numa COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/kernels_numa.sh)
set_tests_properties(e2e_kernels_numa PROPERTIES ENVIRONMENT "KERNELS=${KERNELS_DIR}" TIMEOUT 120)

add_test(NAME e2e_record_topology COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/record_topology.sh)
set_tests_properties(e2e_record_topology PROPERTIES
  ENVIRONMENT "MEMPROF=${MEMPROF_BIN};KERNELS=${KERNELS_DIR};PERF=perf" TIMEOUT 300)

add_test(NAME e2e_record_edac COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/record_edac.sh)
set_tests_properties(e2e_record_edac PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120
  ENVIRONMENT "MEMPROF=${MEMPROF_BIN};TESTS_DATA=${CMAKE_CURRENT_SOURCE_DIR}/data")
