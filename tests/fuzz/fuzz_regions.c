/* fuzz_regions.c - the collector's side of the markers' control protocol (marker.h): any
 * byte stream, cut into reads of any size, through mp_regions_feed() as the run feeds it
 * (no events: transitions only), then the table built and its names printed. The first
 * byte chooses the read size. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mp_collector_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char buf[4096];
	size_t len = 0, chunk, off = 1;
	char name[128];

	if (!size)
		return 0;
	chunk = (size_t)data[0] % 97 + 1;
	mp_regions *r = mp_regions_new(NULL, 0);
	if (!r)
		return 0;
	/* as run_control(): append what a read gives, feed, keep what is not complete */
	while (off < size && !mp_regions_broken(r)) {
		size_t n = size - off < chunk ? size - off : chunk;
		if (n > sizeof(buf) - len)
			n = sizeof(buf) - len;
		memcpy(buf + len, data + off, n);
		off += n;
		len += n;
		size_t used = 0;
		int acks = mp_regions_feed(r, buf, len, &used);
		if (used > len)
			__builtin_trap();
		(void)acks;
		memmove(buf, buf + used, len - used);
		len -= used;
		if (len == sizeof(buf)) /* a complete message is always shorter than the buffer */
			__builtin_trap();
	}
	mp_regions_finish(r);
	for (size_t i = 0; i < mp_regions_nrows(r); i++) {
		const struct mp_region_stat *s = mp_regions_row(r, i);
		mp_region_name_str(s->name, s->len, name, sizeof(name));
	}
	for (size_t i = 0; mp_regions_note(r, i); i++)
		(void)strlen(mp_regions_note(r, i));
	mp_regions_free(r);
	return 0;
}
