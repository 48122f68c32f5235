# record --sim (the simulated PMU): unit tests for the callgrind parser, the event table
# and the perf.data conversion, and end-to-end runs of the kernels under valgrind
# (tests/e2e/sim_*.sh; they need valgrind, callgrind_annotate and perf).
mp_add_cmocka_test(test_sim SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_sim.c
                   LIBS mp_sim mp_collector mp_analyzer mp_util)

foreach(t sim_errors sim_cachebench sim_matmul sim_callgraph)
  add_test(NAME e2e_${t} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/${t}.sh)
  set_tests_properties(e2e_${t} PROPERTIES LABELS "e2e;sim" TIMEOUT 300
    ENVIRONMENT "MEMPROF=${MEMPROF_BIN};KERNELS=${KERNELS_DIR};KERNELS_SRC=${PROJECT_SOURCE_DIR}/kernels;SHARED_DIR=${SHARED_DIR};PERF=perf")
endforeach()

# mpsim (memprof's valgrind tool, sim/vgtool/) against callgrind on the same kernels
# (sim_vgtool.sh) and false sharing between simulated cores (sim_falseshare.sh); skipped,
# 77, when the tool was not built.
foreach(t sim_vgtool sim_falseshare sim_model sim_mem sim_alloc sim_reuse sim_joined sim_l3 sim_simd sim_turns
          sim_freed sim_coherent_l1)
  add_test(NAME e2e_${t} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/${t}.sh)
  set_tests_properties(e2e_${t} PROPERTIES LABELS "e2e;sim" TIMEOUT 300 SKIP_RETURN_CODE 77
    ENVIRONMENT "MEMPROF=${MEMPROF_BIN};KERNELS=${KERNELS_DIR};KERNELS_SRC=${PROJECT_SOURCE_DIR}/kernels;MEMPROF_VGTOOL=${MP_VGTOOL_BIN};PERF=perf;PDINFO=$<TARGET_FILE:pdinfo>;STANDINS=${CMAKE_CURRENT_SOURCE_DIR}/standins")
endforeach()
target_include_directories(test_sim PRIVATE ${PROJECT_SOURCE_DIR}/sim) # internal
