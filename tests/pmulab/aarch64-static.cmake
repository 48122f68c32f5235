# Included after project() by aarch64-toolchain.cmake (CMAKE_PROJECT_INCLUDE) when
# MEMPROF_STATIC is on: find only static archives, so that pkg-config's libraries
# (libdw, libelf, ...) resolve to their .a files.
set(CMAKE_FIND_LIBRARY_SUFFIXES .a)
