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
/* The kernel symbol holding ip (core kernel or a loaded module's), or NULL; valid until
 * the next call. */
const struct mp_esym *mp_kallsyms_find(mp_sym *s, uint64_t ip);
/* All the kernel symbols as one table (the mapped copy parsed if it was not yet). */
const struct mp_symtab *mp_kallsyms_table(mp_sym *s);
void mp_kallsyms_fini(mp_sym *s);
/* Bytes of the running kernel's code at addr: bytes read, or <0 (-ENOENT when the kernel
 * symbols are not this kernel's or kcore does not hold addr). */
long mp_kcore_read(mp_sym *s, uint64_t addr, void *buf, size_t len);

#endif
