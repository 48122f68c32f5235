# Cache-line sharing (issue 26): memprof c2c record/report on synthetic recordings with
# known HITM lines (test_c2c writes them with perfdata's writer), compared with perf c2c.
mp_add_cmocka_test(test_c2c SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_c2c.c LIBS mp_perfdata)
target_compile_options(test_c2c PRIVATE -O1 -g)
set_tests_properties(test_c2c PROPERTIES ENVIRONMENT "MEMPROF=${MEMPROF_BIN};PERF=perf;SHARED_DIR=${SHARED_DIR}")
