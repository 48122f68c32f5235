# perfabi: the shared perf.data ABI module (sample layout).
mp_add_cmocka_test(test_perfabi SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_perfabi.c
  LIBS mp_perfabi)
