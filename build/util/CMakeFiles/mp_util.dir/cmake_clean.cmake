file(REMOVE_RECURSE
  "CMakeFiles/mp_util.dir/mp_util.c.o"
  "CMakeFiles/mp_util.dir/mp_util.c.o.d"
  "libmp_util.a"
  "libmp_util.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/mp_util.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
