/* mp_pdw_features.c - perf.data writer: the header features: the host's (uname, cpuinfo,
 * meminfo), build-ids, event descriptions, the command line, the counts and memprof's
 * metadata. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "mp_pdw_int.h"

static void cpuinfo_field(const char *info, const char *key, char *out, size_t len)
{
	const char *p = info;
	size_t kl = strlen(key);

	out[0] = 0;
	while (p && *p) {
		if (!strncmp(p, key, kl) && (p[kl] == ' ' || p[kl] == '\t' || p[kl] == ':')) {
			const char *c = strchr(p, ':');
			const char *e = strchr(p, '\n');
			if (!c || (e && c > e))
				return;
			c++;
			while (*c == ' ' || *c == '\t')
				c++;
			size_t n = e ? (size_t)(e - c) : strlen(c);
			if (n >= len)
				n = len - 1;
			memcpy(out, c, n);
			out[n] = 0;
			return;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
}

int mp_pdw_set_host_features(mp_pdw *w)
{
	struct utsname u;
	char *info = mp_read_file("/proc/cpuinfo", NULL, NULL);
	char *mem = mp_read_file("/proc/meminfo", NULL, NULL);
	char desc[256], vendor[64], fam[32], model[32], step[32], cpuid[256];
	int rc = 0;

	if (uname(&u) == 0) {
		rc |= mp_pdw_set_string(w, MP_HEADER_HOSTNAME, u.nodename);
		rc |= mp_pdw_set_string(w, MP_HEADER_OSRELEASE, u.release);
		rc |= mp_pdw_set_string(w, MP_HEADER_ARCH, u.machine);
	}
	rc |= mp_pdw_set_string(w, MP_HEADER_VERSION, "memprof " MP_VERSION);
	cpuinfo_field(info, "model name", desc, sizeof(desc));
	if (!desc[0])
		cpuinfo_field(info, "Processor", desc, sizeof(desc));
	if (desc[0])
		rc |= mp_pdw_set_string(w, MP_HEADER_CPUDESC, desc);
	cpuinfo_field(info, "vendor_id", vendor, sizeof(vendor));
	cpuinfo_field(info, "cpu family", fam, sizeof(fam));
	cpuinfo_field(info, "model", model, sizeof(model));
	cpuinfo_field(info, "stepping", step, sizeof(step));
	if (vendor[0]) {
		snprintf(cpuid, sizeof(cpuid), "%s,%s,%s,%s", vendor, fam, model, step);
		rc |= mp_pdw_set_string(w, MP_HEADER_CPUID, cpuid);
	} else {
		char impl[32], part[32], var[32], rev[32];
		cpuinfo_field(info, "CPU implementer", impl, sizeof(impl));
		cpuinfo_field(info, "CPU part", part, sizeof(part));
		cpuinfo_field(info, "CPU variant", var, sizeof(var));
		cpuinfo_field(info, "CPU revision", rev, sizeof(rev));
		if (impl[0]) {
			/* perf's arm64 MIDR form: 0x00000000IIVPPPPR */
			unsigned long i = strtoul(impl, NULL, 0), p = strtoul(part, NULL, 0),
				      v = strtoul(var, NULL, 0), r = strtoul(rev, NULL, 0);
			snprintf(cpuid, sizeof(cpuid), "0x%016lx",
				 (i << 24) | (v << 20) | (0xfUL << 16) | (p << 4) | r);
			rc |= mp_pdw_set_string(w, MP_HEADER_CPUID, cpuid);
		}
	}
	if (mem) {
		const char *m = strstr(mem, "MemTotal:");
		if (m)
			w->total_mem_kb = strtoull(m + 9, NULL, 10);
	}
	long on = sysconf(_SC_NPROCESSORS_ONLN), conf = sysconf(_SC_NPROCESSORS_CONF);
	if (on > 0)
		rc |= mp_pdw_set_nrcpus(w, (uint32_t)on, (uint32_t)(conf > on ? conf : on));
	free(info);
	free(mem);
	return rc ? -ENOMEM : 0;
}

/* ---- features ---- */

int mp_pdw_put_string(struct mp_buf *b, const char *s)
{
	uint32_t len = (uint32_t)strlen(s) + 1;
	uint32_t padded = (len + PDW_NAME_ALIGN - 1) / PDW_NAME_ALIGN * PDW_NAME_ALIGN;
	static const char zeros[PDW_NAME_ALIGN];
	if (mp_buf_append(b, &padded, 4) || mp_buf_append(b, s, len) ||
	    mp_buf_append(b, zeros, padded - len))
		return -ENOMEM;
	return 0;
}

static int elf_build_id(const char *path, uint8_t *out, size_t *outlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int rc = -ENOENT;
	Elf *e;
	Elf_Scn *scn = NULL;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e) {
		close(fd);
		return -EINVAL;
	}
	while (rc && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (d && d->d_buf)
			rc = mp_perfabi_note_build_id(d->d_buf, d->d_size, out, 20, outlen);
	}
	elf_end(e);
	close(fd);
	return rc;
}

void mp_pdw_collect_build_ids(mp_pdw *w)
{
	uint8_t id[20];
	size_t len;

	for (size_t i = 0; i < w->npending; i++)
		mp_pdw_mark_hit(w, w->pending[i].pid, w->pending[i].page << 12);

	for (size_t i = 0; i < w->nfiles; i++) {
		if (!w->files[i].hit)
			continue;
		if (elf_build_id(w->files[i].name, id, &len) == 0)
			mp_pdw_add_build_id(w, -1, PERF_RECORD_MISC_USER, id, len, w->files[i].name);
	}
	if (w->kernel_hit) {
		size_t n = 0;
		char *notes = mp_read_file("/sys/kernel/notes", &n, NULL);
		if (notes && mp_perfabi_note_build_id(notes, n, id, sizeof(id), &len) == 0)
			mp_pdw_add_build_id(w, -1, PERF_RECORD_MISC_KERNEL, id, len,
					    "[kernel.kallsyms]");
		free(notes);
	}
}

int mp_pdw_feat_build_id(mp_pdw *w, struct mp_buf *b)
{
	for (size_t i = 0; i < w->nbids; i++) {
		struct pdw_bid *bi = &w->bids[i];
		struct {
			struct perf_event_header h;
			int32_t pid;
			uint8_t id[24];
		} __attribute__((packed)) e;
		uint32_t len = (uint32_t)strlen(bi->file) + 1;
		uint32_t padded = (len + PDW_NAME_ALIGN - 1) / PDW_NAME_ALIGN * PDW_NAME_ALIGN;
		static const char zeros[PDW_NAME_ALIGN];
		memset(&e, 0, sizeof(e));
		e.h.type = 0;
		/* PERF_RECORD_MISC_BUILD_ID_SIZE: id[20] holds the length */
		e.h.misc = (uint16_t)(bi->cpumode | (1 << 15));
		e.h.size = (uint16_t)(sizeof(e) + padded);
		e.pid = bi->pid;
		memcpy(e.id, bi->id, bi->len);
		e.id[20] = (uint8_t)bi->len;
		if (mp_buf_append(b, &e, sizeof(e)) || mp_buf_append(b, bi->file, len) ||
		    mp_buf_append(b, zeros, padded - len))
			return -ENOMEM;
	}
	return 0;
}

int mp_pdw_feat_event_desc(mp_pdw *w, struct mp_buf *b)
{
	uint32_t nr = (uint32_t)w->nattrs, sz = PDW_ATTR_SIZE;
	if (mp_buf_append(b, &nr, 4) || mp_buf_append(b, &sz, 4))
		return -ENOMEM;
	for (size_t i = 0; i < w->nattrs; i++) {
		uint32_t nids = (uint32_t)w->attrs[i].nids;
		if (mp_buf_append(b, &w->attrs[i].attr, PDW_ATTR_SIZE) ||
		    mp_buf_append(b, &nids, 4) || mp_pdw_put_string(b, w->attrs[i].name) ||
		    (nids && mp_buf_append(b, w->attrs[i].ids, nids * 8)))
			return -ENOMEM;
	}
	return 0;
}

int mp_pdw_feat_cmdline(mp_pdw *w, struct mp_buf *b)
{
	uint32_t nr = (uint32_t)w->ncmdline;
	if (mp_buf_append(b, &nr, 4))
		return -ENOMEM;
	for (int i = 0; i < w->ncmdline; i++)
		if (mp_pdw_put_string(b, w->cmdline[i]))
			return -ENOMEM;
	return 0;
}

/* PERF_RECORD_READ per event id with the exact final counts. */
int mp_pdw_write_counts(mp_pdw *w)
{
	for (size_t i = 0; i < w->ncounts; i++) {
		struct pdw_count *c = &w->counts[i];
		struct pdw_attr *a = &w->attrs[c->attr];
		uint64_t rec[64];
		struct perf_event_header *h = (void *)rec;
		uint32_t *pt = (uint32_t *)(rec + 1);
		size_t n = 2;
		uint64_t rf = a->attr.read_format;
		int32_t pid = w->read_pid;
		pt[0] = (uint32_t)pid;
		pt[1] = (uint32_t)pid;
		if (rf & PERF_FORMAT_GROUP) {
			/* Leader sampling: the group layout, as the kernel writes it, with this
			 * one counter: nr = 1, times, {value, id[, lost]}. */
			rec[n++] = 1;
			if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
				rec[n++] = c->ena;
			if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
				rec[n++] = c->run;
			rec[n++] = c->value;
			if (rf & PERF_FORMAT_ID)
				rec[n++] = c->id;
		} else {
			rec[n++] = c->value;
			if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
				rec[n++] = c->ena;
			if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
				rec[n++] = c->run;
			if (rf & PERF_FORMAT_ID)
				rec[n++] = c->id;
		}
		if (rf & PERF_FORMAT_LOST)
			rec[n++] = 0;
		/* The trailer names this id, so perf and memprof's reader find the event. */
		size_t tl = mp_pdw_id_trailer(w, c->attr, (uint32_t)pid, (uint32_t)pid, 0, 0,
					      rec + n);
		n += tl / 8;
		if (tl && a->lay.tr_identifier)
			rec[n - a->lay.tr_identifier / 8] = c->id;
		h->type = PERF_RECORD_READ;
		h->misc = 0;
		h->size = (uint16_t)(n * 8);
		int rc = mp_pdw_write(w, rec, n * 8);
		if (rc)
			return rc;
	}
	return 0;
}

/* memprof's own metadata, as key=value lines (documented in perfdata/README.md). */
int mp_pdw_meta_text(mp_pdw *w, struct mp_buf *b)
{
	for (size_t i = 0; i < w->nattrs; i++)
		if (mp_buf_printf(b, MP_META_EVENT "%zu.spec=%s\n" MP_META_EVENT "%zu.name=%s\n", i, w->attrs[i].spec,
				  i, w->attrs[i].name))
			return -ENOMEM;
	for (size_t i = 0; i < w->nmeta; i++)
		if (mp_buf_printf(b, "%s=%s\n", w->meta[i].key, w->meta[i].value))
			return -ENOMEM;
	return 0;
}
