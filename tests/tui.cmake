# tui: the model's unit tests (no terminal) and the end-to-end drive of `memprof tui` in tmux.
if(TARGET mp_tui)
  mp_add_cmocka_test(test_tui SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_tui.c LIBS mp_tui)
endif()
