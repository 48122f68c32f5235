/* mp_debugfile.h - where an object's separate debug information is: perf's build-id cache
 * (~/.debug/.build-id), <symfs>/usr/lib/debug/.build-id, .gnu_debuglink next to the
 * object, in its .debug folder and under /usr/lib/debug, and /usr/lib/debug/<path>.debug
 * (internal to the analyzer). */
#ifndef MP_DEBUGFILE_H
#define MP_DEBUGFILE_H

#include <stddef.h>
#include <stdint.h>

#include "mp_dso.h"

/* Lower-case hex of a build-id into out (2 * n + 1 bytes). */
void mp_hex_id(const uint8_t *id, size_t n, char *out);
/* Set d->dwelf/dwfd/debug_file to a debug file with lines or symbols that matches bid
 * (when bid_len), if one is found. */
void mp_debugfile_find(mp_sym *s, struct mp_dso *d, const uint8_t *bid, size_t bid_len);
/* perf's build-id cache: on success d->elf/fd/file are set and 1 is returned. */
int mp_debugfile_buildid_cache(mp_sym *s, struct mp_dso *d);
/* The debug file of the recorded build-id alone, opened as the object itself (d->elf,
 * d->fd, d->file): 1 when found. */
int mp_debugfile_as_object(mp_sym *s, struct mp_dso *d);

#endif
