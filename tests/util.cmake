# util/: libraries loaded on first use (libpfm4 and capstone: tests/e2e/lazy_libs.sh).
mp_add_cmocka_test(test_util SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_util.c LIBS mp_util)
if(MEMPROF_DLOPEN)
  add_test(NAME e2e_lazy_libs COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/lazy_libs.sh)
  set_tests_properties(e2e_lazy_libs PROPERTIES ENVIRONMENT
    "MEMPROF=${MEMPROF_BIN};SHARED_DIR=${SHARED_DIR};PFM_SONAME=${PFM_SONAME};CAPSTONE_SONAME=${CAPSTONE_SONAME}")
endif()
