# Stand-ins for programs a new user meets (issue 19): a C++ template-heavy program, a program
# with its own shared library, a shell wrapper around a kernel; e2e runs on them checked
# against perf.
set(MP_STANDIN_ENV "MEMPROF=${MEMPROF_BIN};KERNELS=${KERNELS_DIR};SHARED_DIR=${SHARED_DIR};PERF=perf")
foreach(t record_swperiod report_filters annotate_cxx sim_manyevents annotate_agree annotate_inline_span sim_children
          plt_vdso stat_repeat habits_children habits_exec habits_vdso habits_rust habits_jit
          habits_tracepoint habits_fields habits_tpfields habits_offcpu
          habits_jitdump habits_names)
  add_test(NAME e2e_${t} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/${t}.sh)
  set_tests_properties(e2e_${t} PROPERTIES ENVIRONMENT "${MP_STANDIN_ENV}" TIMEOUT 300)
endforeach()
