file(REMOVE_RECURSE
  "../memprof"
  "../memprof.pdb"
  "CMakeFiles/memprof.dir/cli_opts.c.o"
  "CMakeFiles/memprof.dir/cli_opts.c.o.d"
  "CMakeFiles/memprof.dir/cmd_annotate.c.o"
  "CMakeFiles/memprof.dir/cmd_annotate.c.o.d"
  "CMakeFiles/memprof.dir/cmd_list.c.o"
  "CMakeFiles/memprof.dir/cmd_list.c.o.d"
  "CMakeFiles/memprof.dir/cmd_ratios.c.o"
  "CMakeFiles/memprof.dir/cmd_ratios.c.o.d"
  "CMakeFiles/memprof.dir/cmd_record.c.o"
  "CMakeFiles/memprof.dir/cmd_record.c.o.d"
  "CMakeFiles/memprof.dir/cmd_report.c.o"
  "CMakeFiles/memprof.dir/cmd_report.c.o.d"
  "CMakeFiles/memprof.dir/cmd_stat.c.o"
  "CMakeFiles/memprof.dir/cmd_stat.c.o.d"
  "CMakeFiles/memprof.dir/cmd_tui.c.o"
  "CMakeFiles/memprof.dir/cmd_tui.c.o.d"
  "CMakeFiles/memprof.dir/main.c.o"
  "CMakeFiles/memprof.dir/main.c.o.d"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/memprof.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
