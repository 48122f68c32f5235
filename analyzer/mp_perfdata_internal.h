/* mp_perfdata_internal.h - perf.data layout constants shared by the reader and its tests.
 * Values from perf's tools/perf/util/event.h and header.h (stable ABI of the file format).
 */
#ifndef MP_PERFDATA_INTERNAL_H
#define MP_PERFDATA_INTERNAL_H

#include <stdint.h>

#define MP_PD_MAGIC2 0x32454c4946524550ULL      /* "PERFILE2" little-endian */
#define MP_PD_MAGIC2_SWAPPED 0x50455246494c4532ULL
#define MP_PD_FILE_HEADER_SIZE 104
#define MP_PD_PIPE_HEADER_SIZE 16

/* perf's user record types (not written by the kernel). */
enum {
	MP_PD_REC_USER_START = 64,
	MP_PD_REC_HEADER_ATTR = 64,
	MP_PD_REC_HEADER_EVENT_TYPE = 65,
	MP_PD_REC_HEADER_TRACING_DATA = 66,
	MP_PD_REC_HEADER_BUILD_ID = 67,
	MP_PD_REC_FINISHED_ROUND = 68,
	MP_PD_REC_ID_INDEX = 69,
	MP_PD_REC_AUXTRACE_INFO = 70,
	MP_PD_REC_AUXTRACE = 71,
	MP_PD_REC_AUXTRACE_ERROR = 72,
	MP_PD_REC_THREAD_MAP = 73,
	MP_PD_REC_CPU_MAP = 74,
	MP_PD_REC_STAT_CONFIG = 75,
	MP_PD_REC_STAT = 76,
	MP_PD_REC_STAT_ROUND = 77,
	MP_PD_REC_EVENT_UPDATE = 78,
	MP_PD_REC_TIME_CONV = 79,
	MP_PD_REC_HEADER_FEATURE = 80,
	MP_PD_REC_COMPRESSED = 81,
	MP_PD_REC_FINISHED_INIT = 82,
	MP_PD_REC_COMPRESSED2 = 83,
};

/* Header feature bits (HEADER_* in perf's header.h). */
enum {
	MP_PD_FEAT_TRACING_DATA = 1,
	MP_PD_FEAT_BUILD_ID = 2,
	MP_PD_FEAT_HOSTNAME = 3,
	MP_PD_FEAT_OSRELEASE = 4,
	MP_PD_FEAT_VERSION = 5,
	MP_PD_FEAT_ARCH = 6,
	MP_PD_FEAT_NRCPUS = 7,
	MP_PD_FEAT_CPUDESC = 8,
	MP_PD_FEAT_CPUID = 9,
	MP_PD_FEAT_TOTAL_MEM = 10,
	MP_PD_FEAT_CMDLINE = 11,
	MP_PD_FEAT_EVENT_DESC = 12,
	MP_PD_FEAT_GROUP_DESC = 17,
	MP_PD_FEAT_COMPRESSED = 27,
	/* memprof's own feature (key=value lines, see collector/README.md); far above perf's
	 * last feature so that perf never assigns it. */
	MP_PD_FEAT_MEMPROF = 200,
	MP_PD_FEAT_BITS = 256,
};

#define MP_PD_EVENT_UPDATE_NAME 2
#define MP_PD_MISC_BUILD_ID_SIZE (1u << 15)

#endif
