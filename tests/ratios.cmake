# ratios module: unit tests, end-to-end tests of `memprof ratios`.
if(TARGET mp_ratios)
  mp_add_cmocka_test(test_ratios SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_ratios.c LIBS mp_ratios)
endif()
