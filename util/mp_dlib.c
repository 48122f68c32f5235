/* mp_dlib.c - libraries loaded on first use (libpfm4, capstone), so that commands that
 * never need them (report above all) do not pay their relocations at every start. */
#include <dlfcn.h>
#include <string.h>

#include "mp_util.h"

void *mp_dlib_open(const char *soname, const char *what, const struct mp_dlib_sym *syms,
		   size_t nsyms, void *table, struct mp_err *err)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *why = dlerror();
		mp_err_set(err, -MP_ENOTSUP, "cannot load %s (%s): %s", soname, what,
			   why ? why : "dlopen failed");
		return NULL;
	}
	for (size_t i = 0; i < nsyms; i++) {
		void *p = dlsym(h, syms[i].name);
		if (!p) {
			mp_err_set(err, -MP_ENOTSUP, "cannot load %s (%s): no symbol %s", soname,
				   what, syms[i].name);
			dlclose(h);
			return NULL;
		}
		/* POSIX: a function's address fits a void * */
		memcpy((char *)table + syms[i].off, &p, sizeof(p));
	}
	return h;
}
