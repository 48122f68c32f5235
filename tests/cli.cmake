mp_add_cmocka_test(test_cli SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_cli.c
                   ${PROJECT_SOURCE_DIR}/cli/cli_opts.c LIBS mp_analyzer mp_util)
target_include_directories(test_cli PRIVATE ${PROJECT_SOURCE_DIR}/cli)
add_test(NAME cli_usage_errors COMMAND bash -c "
  m=$<TARGET_FILE:memprof>
  $m >/dev/null 2>&1; [ $? -eq 2 ] || exit 1
  $m frobnicate 2>&1 | grep -q \"'frobnicate' is not a memprof command\" || exit 1
  $m --help | grep -q '^  record' || exit 1
  $m --version | grep -q '^memprof ' || exit 1
  for c in record stat report annotate diff archive ratios tui list topology script predict mem c2c inject; do
    $m $c --help >/dev/null || { echo \"memprof $c --help failed\"; exit 1; }
    [ -f ${PROJECT_SOURCE_DIR}/docs/memprof-$c.1 ] || { echo \"no man page for $c\"; exit 1; }
  done")
