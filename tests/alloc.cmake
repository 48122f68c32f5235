# alloc (record --alloc, issue 26): programs with known allocations (built like a user's:
find_package(Threads REQUIRED)
# -O2 -g with frame pointers, no sanitizers: the preload library replaces malloc), the spool
# parser, the resolution end to end.
add_executable(alloc_prog ${CMAKE_CURRENT_SOURCE_DIR}/alloc_prog.c)
# no identical code folding: alloc_block and alloc_again are two sites
target_compile_options(alloc_prog PRIVATE -O2 -g -fno-omit-frame-pointer -fno-ipa-icf -fno-sanitize=all)
target_link_options(alloc_prog PRIVATE -fno-sanitize=all)
target_link_libraries(alloc_prog PRIVATE Threads::Threads)
# the same unoptimized: a heap object's type from its variable's declaration line alone
add_executable(alloc_prog_O0 ${CMAKE_CURRENT_SOURCE_DIR}/alloc_prog.c)
target_compile_options(alloc_prog_O0 PRIVATE -O0 -g -fno-omit-frame-pointer -fno-sanitize=all)
target_link_options(alloc_prog_O0 PRIVATE -fno-sanitize=all)
target_link_libraries(alloc_prog_O0 PRIVATE Threads::Threads)

add_test(NAME e2e_alloc_record COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/alloc_record.sh)
set_tests_properties(e2e_alloc_record PROPERTIES TIMEOUT 300 ENVIRONMENT
  "MEMPROF=${MEMPROF_BIN};KERNELS=${KERNELS_DIR};PROG=$<TARGET_FILE:alloc_prog>;PROG_O0=$<TARGET_FILE:alloc_prog_O0>")

mp_add_cmocka_test(test_alloc SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_alloc.c
  LIBS mp_alloc mp_analyzer mp_perfdata)
