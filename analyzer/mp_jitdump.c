/* mp_jitdump.c - perf's jitdump files (jit-PID.dump, tools/perf/Documentation's jitdump
 * specification): what a JIT compiler says it loaded, moved and where its lines are, read
 * record by record from untrusted bytes (every size checked against the buffer). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mp_analyzer.h"

#define JIT_MAGIC 0x4A695444u /* "JiTD" as this machine writes it */
#define JIT_MAGIC_SWAPPED 0x4454694Au
#define JIT_HEADER_SIZE 40
#define JIT_REC_HEADER 16

enum { JIT_CODE_LOAD = 0, JIT_CODE_MOVE = 1, JIT_CODE_DEBUG_INFO = 2, JIT_CODE_CLOSE = 3,
       JIT_CODE_UNWINDING_INFO = 4 };

/* The length of the string at p (at most n bytes, NUL included), 0 when unterminated. */
static size_t str_len(const uint8_t *p, size_t n)
{
	const uint8_t *z = memchr(p, 0, n);
	return z ? (size_t)(z - p) + 1 : 0;
}

/* A DEBUG_INFO record's lines (for the LOAD of its code_addr that follows it). */
struct dbg {
	uint64_t addr;
	struct mp_jit_line *v;
	size_t n, cap;
	int set;
};

static int read_debug(struct dbg *d, const uint8_t *r, size_t len, uint64_t off,
		      const char *name, struct mp_err *err)
{
	if (len < JIT_REC_HEADER + 16)
		return mp_err_set(err, -MP_EFORMAT, "%s: DEBUG_INFO record at offset %llu too short",
				  name, (unsigned long long)off);
	d->addr = mp_ld64(r + JIT_REC_HEADER);
	uint64_t nr = mp_ld64(r + JIT_REC_HEADER + 8);
	size_t pos = JIT_REC_HEADER + 16;
	const char *prev = "";
	d->n = 0;
	/* each entry takes at least 17 bytes: a count past that is a lie */
	if (nr > (len - pos) / 17)
		return mp_err_set(err, -MP_EFORMAT, "%s: DEBUG_INFO record at offset %llu: %llu "
				  "entries in %zu bytes", name, (unsigned long long)off,
				  (unsigned long long)nr, len - pos);
	if (nr > d->cap) {
		void *v = realloc(d->v, (size_t)nr * sizeof(*d->v));
		if (!v)
			return mp_err_set(err, -ENOMEM, "%s: out of memory", name);
		d->v = v;
		d->cap = (size_t)nr;
	}
	for (uint64_t i = 0; i < nr; i++) {
		size_t sl = len - pos >= 16 ? str_len(r + pos + 16, len - pos - 16) : 0;
		if (!sl)
			return mp_err_set(err, -MP_EFORMAT, "%s: DEBUG_INFO record at offset %llu: "
					  "entry %llu cut short", name, (unsigned long long)off,
					  (unsigned long long)i);
		const char *f = (const char *)r + pos + 16;
		if ((unsigned char)f[0] == 0xff && f[1] == 0) /* the file of the entry before */
			f = prev;
		d->v[d->n++] = (struct mp_jit_line){ .addr = mp_ld64(r + pos), .line = mp_ld32(r + pos + 8),
						     .discrim = mp_ld32(r + pos + 12), .file = f };
		prev = f;
		pos += 16 + sl;
	}
	d->set = 1;
	return 0;
}

int mp_jitdump_parse(const void *buf, size_t len, const char *name,
		     const struct mp_jitdump_ops *ops, void *ctx, struct mp_err *err)
{
	const uint8_t *b = buf;
	if (len < JIT_HEADER_SIZE)
		return mp_err_set(err, -MP_EFORMAT, "%s: not a jitdump file (%zu bytes)", name, len);
	uint32_t magic = mp_ld32(b);
	if (magic == JIT_MAGIC_SWAPPED)
		return mp_err_set(err, -ENOTSUP, "%s: a jitdump of the other byte order", name);
	if (magic != JIT_MAGIC)
		return mp_err_set(err, -MP_EFORMAT, "%s: not a jitdump file (magic %#x)", name, magic);
	struct mp_jitdump_info h = { .version = mp_ld32(b + 4), .elf_mach = mp_ld32(b + 12),
				     .pid = mp_ld32(b + 20), .time = mp_ld64(b + 24), .flags = mp_ld64(b + 32) };
	uint32_t hsize = mp_ld32(b + 8);
	if (h.version != 1)
		return mp_err_set(err, -ENOTSUP, "%s: jitdump version %u (1 is known)", name, h.version);
	if (hsize < JIT_HEADER_SIZE || hsize > len)
		return mp_err_set(err, -MP_EFORMAT, "%s: bad header size %u", name, hsize);
	struct dbg d = { 0 };
	int rc = 0;
	for (size_t pos = hsize; !rc && pos < len;) {
		const uint8_t *r = b + pos;
		if (len - pos < JIT_REC_HEADER) {
			rc = mp_err_set(err, -MP_EFORMAT, "%s: record at offset %zu cut short", name, pos);
			break;
		}
		uint32_t id = mp_ld32(r), size = mp_ld32(r + 4);
		if (size < JIT_REC_HEADER || size > len - pos) {
			/* a JIT still writing leaves its last record unfinished: stop there */
			if (size >= JIT_REC_HEADER)
				break;
			rc = mp_err_set(err, -MP_EFORMAT, "%s: bad record size %u at offset %zu", name,
					size, pos);
			break;
		}
		struct mp_jit_code c = { .time = mp_ld64(r + 8) };
		if (id == JIT_CODE_LOAD || id == JIT_CODE_MOVE) {
			if (size < JIT_REC_HEADER + 40) {
				rc = mp_err_set(err, -MP_EFORMAT, "%s: %s record at offset %zu too short",
						name, id ? "MOVE" : "LOAD", pos);
				break;
			}
			const uint8_t *p = r + JIT_REC_HEADER;
			c.pid = mp_ld32(p);
			c.tid = mp_ld32(p + 4);
			c.vma = mp_ld64(p + 8);
			if (id == JIT_CODE_LOAD) {
				c.addr = mp_ld64(p + 16);
				c.size = mp_ld64(p + 24);
				c.index = mp_ld64(p + 32);
				size_t rest = size - JIT_REC_HEADER - 40;
				size_t nl = str_len(p + 40, rest);
				if (!nl || c.size > rest - nl) {
					rc = mp_err_set(err, -MP_EFORMAT, "%s: LOAD record at offset %zu: "
							"name or code cut short", name, pos);
					break;
				}
				c.name = (const char *)p + 40;
				c.code = p + 40 + nl;
				if (d.set && d.addr == c.addr) {
					c.lines = d.v;
					c.nlines = d.n;
				}
				d.set = 0;
				rc = ops->load ? ops->load(ctx, &h, &c) : 0;
			} else {
				c.old_addr = mp_ld64(p + 16);
				c.addr = mp_ld64(p + 24);
				c.size = mp_ld64(p + 32);
				c.index = size >= JIT_REC_HEADER + 48 ? mp_ld64(p + 40) : 0;
				rc = ops->move ? ops->move(ctx, &h, &c) : 0;
			}
		} else if (id == JIT_CODE_DEBUG_INFO) {
			rc = read_debug(&d, r, size, pos, name, err);
		} else if (id == JIT_CODE_CLOSE) {
			break;
		} else if (id == JIT_CODE_UNWINDING_INFO) {
			/* the .eh_frame of the next code: memprof unwinds JIT code by frame pointers */
			if (size < JIT_REC_HEADER + 24)
				rc = mp_err_set(err, -MP_EFORMAT, "%s: UNWINDING_INFO record at offset "
						"%zu too short", name, pos);
		}
		/* unknown ids: later versions' records, skipped by their size */
		pos += size;
	}
	free(d.v);
	return rc;
}
