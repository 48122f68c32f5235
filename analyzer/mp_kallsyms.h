/* mp_kallsyms.h - kernel symbols from a kallsyms file (default /proc/kallsyms when the
 * recording was made on this kernel) and kernel code from /proc/kcore (internal to the
 * analyzer). */
#ifndef MP_KALLSYMS_H
#define MP_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

#include "mp_dso.h"

/* Load the kernel symbols on first need; flag d (a kernel object) when they are known. */
void mp_kallsyms_load_kernel(mp_sym *s, struct mp_dso *d);
/* Bytes of the running kernel's code at addr: bytes read, or <0 (-ENOENT when the kernel
 * symbols are not this kernel's or kcore does not hold addr). */
long mp_kcore_read(mp_sym *s, uint64_t addr, void *buf, size_t len);

#endif
