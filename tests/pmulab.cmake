# The hardware-event tests in an emulated arm64 guest (tests/pmulab, docs/pmulab.md).
# Registered only when MEMPROF_PMULAB=1 is in the environment at configure time: the
# test installs packages (root), cross-builds memprof and boots qemu. Label: pmulab.
if("$ENV{MEMPROF_PMULAB}" STREQUAL "1")
  add_test(NAME pmulab COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/pmulab/ci.sh)
  set_tests_properties(pmulab PROPERTIES
    LABELS pmulab
    TIMEOUT 900
    ENVIRONMENT "MEMPROF=${MEMPROF_BIN};PERF=perf;PMULAB_BUILD=${CMAKE_BINARY_DIR}/pmulab-aarch64")
endif()
