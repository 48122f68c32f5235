# Fuzz harnesses: every tests/fuzz/fuzz_<name>.c (LLVMFuzzerTestOneInput) gets
#  - fuzz_replay_<name>: the harness + fuzz/fuzz_replay.c built with the normal compiler,
#    registered in ctest to replay tests/fuzz/corpus/<name>/ (seeds and past crashers);
#  - with -DMEMPROF_FUZZ=ON (clang): fuzz_<name>, a real libFuzzer binary.
# tests/fuzz/run.sh makes a clang build with coverage on every library
# (-fsanitize=fuzzer-no-link plus MEMPROF_SANITIZE) and runs each fuzzer for a bounded time.
# Harnesses link every module library, so a new harness needs no edit here.
file(GLOB MP_FUZZ_HARNESSES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_*.c)
list(FILTER MP_FUZZ_HARNESSES EXCLUDE REGEX "/fuzz_replay\\.c$")
# the modules whose internal parsers a harness reaches (their private headers)
set(MP_FUZZ_INTERNAL ${PROJECT_SOURCE_DIR}/events ${PROJECT_SOURCE_DIR}/collector
  ${PROJECT_SOURCE_DIR}/analyzer)
set(MP_FUZZ_LIBS mp_predict mp_analyzer mp_ratios mp_events mp_sim mp_collector mp_alloc mp_perfdata mp_tui mp_util)
if(MEMPROF_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "MEMPROF_FUZZ needs clang (libFuzzer): -DCMAKE_C_COMPILER=clang")
  endif()
  if(NOT CMAKE_C_FLAGS MATCHES "fuzzer-no-link")
    message(WARNING "MEMPROF_FUZZ without -fsanitize=fuzzer-no-link in CMAKE_C_FLAGS: the libraries "
                    "get no coverage feedback (tests/fuzz/run.sh sets it)")
  endif()
endif()
foreach(h ${MP_FUZZ_HARNESSES})
  get_filename_component(base ${h} NAME_WE)
  string(REGEX REPLACE "^fuzz_" "" name ${base})
  add_executable(fuzz_replay_${name} ${h} ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_replay.c)
  target_link_libraries(fuzz_replay_${name} PRIVATE ${MP_FUZZ_LIBS})
  target_include_directories(fuzz_replay_${name} PRIVATE ${MP_FUZZ_INTERNAL})
  set(corpus ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/${name})
  if(NOT IS_DIRECTORY ${corpus})
    message(FATAL_ERROR "fuzz harness ${h} has no seed corpus ${corpus}")
  endif()
  add_test(NAME fuzz_replay_${name} COMMAND fuzz_replay_${name} ${corpus})
  if(MEMPROF_FUZZ)
    add_executable(fuzz_${name} ${h})
    target_compile_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
    target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
    target_link_libraries(fuzz_${name} PRIVATE ${MP_FUZZ_LIBS})
    target_include_directories(fuzz_${name} PRIVATE ${MP_FUZZ_INTERNAL})
  endif()
endforeach()
