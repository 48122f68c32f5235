# Empty dependencies file for mp_util.
# This may be replaced when dependencies are built.
