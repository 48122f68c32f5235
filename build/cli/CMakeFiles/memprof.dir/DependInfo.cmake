
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/cli/cli_opts.c" "cli/CMakeFiles/memprof.dir/cli_opts.c.o" "gcc" "cli/CMakeFiles/memprof.dir/cli_opts.c.o.d"
  "/work/main/cli/cmd_annotate.c" "cli/CMakeFiles/memprof.dir/cmd_annotate.c.o" "gcc" "cli/CMakeFiles/memprof.dir/cmd_annotate.c.o.d"
  "/work/main/cli/cmd_list.c" "cli/CMakeFiles/memprof.dir/cmd_list.c.o" "gcc" "cli/CMakeFiles/memprof.dir/cmd_list.c.o.d"
  "/work/main/cli/cmd_ratios.c" "cli/CMakeFiles/memprof.dir/cmd_ratios.c.o" "gcc" "cli/CMakeFiles/memprof.dir/cmd_ratios.c.o.d"
  "/work/main/cli/cmd_record.c" "cli/CMakeFiles/memprof.dir/cmd_record.c.o" "gcc" "cli/CMakeFiles/memprof.dir/cmd_record.c.o.d"
  "/work/main/cli/cmd_report.c" "cli/CMakeFiles/memprof.dir/cmd_report.c.o" "gcc" "cli/CMakeFiles/memprof.dir/cmd_report.c.o.d"
  "/work/main/cli/cmd_stat.c" "cli/CMakeFiles/memprof.dir/cmd_stat.c.o" "gcc" "cli/CMakeFiles/memprof.dir/cmd_stat.c.o.d"
  "/work/main/cli/cmd_tui.c" "cli/CMakeFiles/memprof.dir/cmd_tui.c.o" "gcc" "cli/CMakeFiles/memprof.dir/cmd_tui.c.o.d"
  "/work/main/cli/main.c" "cli/CMakeFiles/memprof.dir/main.c.o" "gcc" "cli/CMakeFiles/memprof.dir/main.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build/util/CMakeFiles/mp_util.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
