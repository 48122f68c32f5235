# mp_embed(OUT_C SYMBOL FILE...): generate a C file that defines
#   const char SYMBOL[]   (the concatenated contents of FILE..., NUL-terminated)
# so that data files (alias tables, ratio definitions) ship inside the binary.
# The files are also installed to share/memprof by the module that owns them.
function(mp_embed out_c symbol)
  set(files ${ARGN})
  add_custom_command(OUTPUT ${out_c}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out_c} -DSYMBOL=${symbol} "-DFILES=${files}"
            -P ${PROJECT_SOURCE_DIR}/cmake/mp_embed_run.cmake
    DEPENDS ${files} ${PROJECT_SOURCE_DIR}/cmake/mp_embed_run.cmake
    COMMENT "Embedding ${symbol}")
endfunction()
