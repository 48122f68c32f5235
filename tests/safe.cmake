# Issues 18 and 29 (safe files, archives and outputs, honest failures): option checks, outputs that cannot be
# written, special files as outputs and inputs, privilege fallbacks.
foreach(t safe_options safe_inputs safe_output safe_privilege safe_truncate safe_ratios_big safe_archive safe_cache safe_outfile safe_owner safe_escape safe_hang safe_spool
    safe_pipe safe_features safe_zstd)
  add_test(NAME e2e_${t} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/${t}.sh)
  set_tests_properties(e2e_${t} PROPERTIES
    ENVIRONMENT "MEMPROF=${MEMPROF_BIN};KERNELS=${KERNELS_DIR};SHARED_DIR=${SHARED_DIR};PERF=perf;MEMPROF_SANITIZE=${MEMPROF_SANITIZE}"
    TIMEOUT 300)
endforeach()
# e2e_safe_privilege changes kernel.perf_event_paranoid for the whole machine while it runs:
# alone, so that no other test records meanwhile.
set_tests_properties(e2e_safe_privilege PROPERTIES RUN_SERIAL TRUE)
# issue 29: the debugpred runtime and memprof predict's output
add_test(NAME e2e_safe_predict COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/safe_predict.sh)
set_tests_properties(e2e_safe_predict PROPERTIES
  ENVIRONMENT "MEMPROF=${MEMPROF_BIN};PREDICT_SRC=${CMAKE_CURRENT_SOURCE_DIR}/data/predict;PREDICT_INC=${PROJECT_SOURCE_DIR}/include"
  TIMEOUT 300 SKIP_RETURN_CODE 77)
