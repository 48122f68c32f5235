# tui: the model's unit tests (no terminal) and the end-to-end drive of `memprof tui` in tmux.
mp_add_cmocka_test(test_tui SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_tui.c LIBS mp_tui)
find_program(TMUX_BIN tmux)
add_test(NAME tui_tmux COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/tui_tmux.sh)
set_tests_properties(tui_tmux PROPERTIES
  ENVIRONMENT "MEMPROF=${MEMPROF_BIN};KERNELS=${KERNELS_DIR};SHARED_DIR=${SHARED_DIR};PERF=perf;SRCDIR=${PROJECT_SOURCE_DIR};TMUX_BIN=${TMUX_BIN}"
  TIMEOUT 300)
# Children/Self, call trees and the callers/callees view on -g recordings, against memprof
# report --children -g and perf report --children.
add_test(NAME tui_chains COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/tui_chains.sh)
set_tests_properties(tui_chains PROPERTIES
  ENVIRONMENT "MEMPROF=${MEMPROF_BIN};KERNELS=${KERNELS_DIR};PERF=perf" TIMEOUT 300)
# The tui module's layers: calls and includes go downwards only, curses only in tui_draw.c.
add_test(NAME tui_layers COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/tui_layers.sh)
set_tests_properties(tui_layers PROPERTIES
  ENVIRONMENT "TUI_LIB=$<TARGET_FILE:mp_tui>;SRCDIR=${PROJECT_SOURCE_DIR}")
target_include_directories(test_tui PRIVATE ${PROJECT_SOURCE_DIR}/tui) # internal
# The data view on a page-fault recording with data addresses and on the Skylake perf mem
# fixture (issue 25); its allocation sites and fields on alloc_prog's (issue 26).
add_test(NAME tui_data COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/tui_data.sh)
set_tests_properties(tui_data PROPERTIES
  ENVIRONMENT "MEMPROF=${MEMPROF_BIN};KERNELS=${KERNELS_DIR};SHARED_DIR=${SHARED_DIR};PROG=$<TARGET_FILE:alloc_prog>"
  TIMEOUT 300)
# memprof c2c report's browser (issue 26): the cache-line table and a line's offsets, by
# --batch screens against the text report and in a tmux pane (needs mpsim: 77 without it)
add_test(NAME tui_c2c COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/tui_c2c.sh)
set_tests_properties(tui_c2c PROPERTIES LABELS "e2e;sim" TIMEOUT 300 SKIP_RETURN_CODE 77
  ENVIRONMENT "MEMPROF=${MEMPROF_BIN};KERNELS=${KERNELS_DIR};MEMPROF_VGTOOL=${MP_VGTOOL_BIN};TMUX_BIN=${TMUX_BIN}")
# Several processes: the pid:command column, perf's t and d zooms, P (issue 28).
add_test(NAME tui_zoom COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/e2e/tui_zoom.sh)
set_tests_properties(tui_zoom PROPERTIES
  ENVIRONMENT "MEMPROF=${MEMPROF_BIN};KERNELS=${KERNELS_DIR};PERF=perf" TIMEOUT 300)
