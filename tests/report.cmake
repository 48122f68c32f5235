# report/annotate: symbols, aggregation, memprof report and memprof annotate.
mp_add_cmocka_test(test_sym SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_sym.c LIBS mp_analyzer)
# mp_dwline's line tables against libdw's on real files
mp_add_cmocka_test(test_dwline SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_dwline.c LIBS mp_analyzer)
# mp_dwscopes' scope paths against libdw's dwarf_getscopes/_die on real files
mp_add_cmocka_test(test_dwscope SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_dwscope.c LIBS mp_analyzer)
target_include_directories(test_dwscope PRIVATE ${PROJECT_SOURCE_DIR}/analyzer) # internal
# test_sym checks the analyzer never calls qsort() with a NULL array (see __wrap_qsort)
target_link_options(test_sym PRIVATE -Wl,--wrap=qsort)
mp_add_cmocka_test(test_hist SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_hist.c LIBS mp_analyzer)
target_include_directories(test_hist PRIVATE ${PROJECT_SOURCE_DIR}/analyzer) # internal

set(MP_REPORT_ENV "MEMPROF=${MEMPROF_BIN};KERNELS=${KERNELS_DIR};SHARED_DIR=${SHARED_DIR};PERF=perf")
foreach(t report_perfdata report_badfiles report_formats report_perfdiff annotate_cachebench)
  add_test(NAME ${t} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/${t}.sh)
  set_tests_properties(${t} PROPERTIES ENVIRONMENT "${MP_REPORT_ENV}" TIMEOUT 300)
endforeach()
# mp_session: chains unwound by the session, no-symbols and no-hist modes, errors
mp_add_cmocka_test(test_session SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_session.c LIBS mp_analyzer)
target_include_directories(test_dwline PRIVATE ${PROJECT_SOURCE_DIR}/analyzer) # internal
