# memprof predict: the header include/memprof/debugpred.h, the predict-file reader
# (mp_predict), the command, and the programs with known counts in tests/data/predict/.
mp_add_cmocka_test(test_predict SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_predict.c LIBS mp_predict)

set(MP_PREDICT_ENV "MEMPROF=${MEMPROF_BIN};KERNELS=${KERNELS_DIR};PREDICT_SRC=${CMAKE_CURRENT_SOURCE_DIR}/data/predict;PREDICT_INC=${PROJECT_SOURCE_DIR}/include")
foreach(t predict_known predict_objects predict_macro predict_objcode predict_errors predict_kernels predict_annotate predict_exec)
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/e2e/${t}.sh)
    add_test(NAME ${t} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/${t}.sh)
    set_tests_properties(${t} PROPERTIES ENVIRONMENT "${MP_PREDICT_ENV}" TIMEOUT 300 SKIP_RETURN_CODE 77)
  endif()
endforeach()
foreach(arch aarch64 i386)
  add_test(NAME predict_cross_${arch} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/predict_cross.sh ${arch})
  set_tests_properties(predict_cross_${arch} PROPERTIES ENVIRONMENT "${MP_PREDICT_ENV}" TIMEOUT 300 SKIP_RETURN_CODE 77)
endforeach()
# the header and memprof-debugpred.pc installed by cmake --install into a fresh prefix build
# the known-count program through pkg-config
add_test(NAME predict_install COMMAND bash -c "
  set -e
  d=$(mktemp -d); trap 'rm -rf \$d' EXIT
  cmake --install ${CMAKE_BINARY_DIR} --prefix \$d >/dev/null
  test -f \$d/include/memprof/debugpred.h
  flags=$(PKG_CONFIG_PATH=\$d/${CMAKE_INSTALL_LIBDIR}/pkgconfig pkg-config --cflags memprof-debugpred)
  cc -O2 -DDEBUGPRED \$flags ${CMAKE_CURRENT_SOURCE_DIR}/data/predict/known.c -o \$d/k
  \$d/k 2>\$d/err >/dev/null
  grep -q 'incorrect=700, correct=300   <==== WARNING' \$d/err")
