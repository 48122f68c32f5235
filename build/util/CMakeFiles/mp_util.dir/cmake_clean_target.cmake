file(REMOVE_RECURSE
  "libmp_util.a"
)
