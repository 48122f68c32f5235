# Empty compiler generated dependencies file for memprof.
# This may be replaced when dependencies are built.
