# Cross-build memprof for aarch64 with Debian's cross compiler and the arm64 -dev
# packages installed multiarch (dpkg --add-architecture arm64; see setup.sh).
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=tests/pmulab/aarch64-toolchain.cmake
# MEMPROF_STATIC=ON links every program statically. It is OFF by default: the numa library
# needs hwloc, and Debian's libhwloc.a calls libudev, which has no static archive; so the
# programs are dynamic and build.sh puts the loader and their libraries into the guest.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

# pkg-config must see the arm64 .pc files only.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")

option(MEMPROF_STATIC "Link the programs statically" OFF)
if(MEMPROF_STATIC)
  # Prefer the .a archives, and append what the static archives themselves need
  # (libdw -> libelf, zlib, lzma, bzip2, zstd; ncursesw -> tinfo) at the end of
  # every link line, after the libraries the targets name.
  # CMake's platform files reset CMAKE_FIND_LIBRARY_SUFFIXES after this file is read:
  # aarch64-static.cmake sets it again right after project().
  set(CMAKE_PROJECT_INCLUDE ${CMAKE_CURRENT_LIST_DIR}/aarch64-static.cmake)
  set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
  set(CMAKE_C_STANDARD_LIBRARIES
      "-Wl,--start-group -ldw -lelf -lz -llzma -lbz2 -lzstd -ltinfo -lpthread -ldl -lm -Wl,--end-group")
endif()
