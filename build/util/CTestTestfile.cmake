# CMake generated Testfile for 
# Source directory: /work/main/util
# Build directory: /work/main/build/util
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
