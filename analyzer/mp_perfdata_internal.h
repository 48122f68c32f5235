/* mp_perfdata_internal.h - shared by the reader's files and its tests. The perf.data layout
 * constants live in perfabi/mp_perfabi.h. */
#ifndef MP_PERFDATA_INTERNAL_H
#define MP_PERFDATA_INTERNAL_H

#include <stdint.h>

#include "mp_perfabi.h"

#endif
