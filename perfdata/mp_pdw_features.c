/* mp_pdw_features.c - perf.data writer: the header features: what callers set (strings,
 * command line, build-ids, group, raw payloads, memprof's metadata), the host's (uname,
 * cpuinfo, meminfo), the build-ids of the objects the samples hit, event descriptions, and
 * their payloads in perf's layout at close. Below mp_pdw.c; calls only mp_pdw_track.c and
 * mp_pdw_bytes.c. */
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

/* ---- what callers set ---- */

int mp_pdw_set_feature(mp_pdw *w, int feature, const void *data, size_t len)
{
	if (feature != MP_HEADER_CPU_TOPOLOGY && feature != MP_HEADER_NUMA_TOPOLOGY &&
	    feature != MP_HEADER_CACHE && feature != MP_HEADER_MEM_TOPOLOGY &&
	    feature != MP_HEADER_TRACING_DATA)
		return -EINVAL;
	w->raw[feature].len = 0;
	return mp_buf_append(&w->raw[feature], data, len) ? -ENOMEM : 0;
}

int mp_pdw_set_string(mp_pdw *w, int feature, const char *value)
{
	if (feature < 0 || feature >= 16 || feature == MP_HEADER_BUILD_ID || feature == MP_HEADER_NRCPUS ||
	    feature == MP_HEADER_CMDLINE || feature == MP_HEADER_EVENT_DESC || feature == MP_HEADER_TOTAL_MEM)
		return -EINVAL;
	char *s = strdup(value ? value : "");
	if (!s)
		return -ENOMEM;
	free(w->str[feature]);
	w->str[feature] = s;
	return 0;
}

int mp_pdw_set_cmdline(mp_pdw *w, int argc, char *const argv[])
{
	char **v = calloc((size_t)(argc > 0 ? argc : 1), sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (int i = 0; i < argc; i++)
		if (!(v[i] = strdup(argv[i] ? argv[i] : ""))) {
			while (i--)
				free(v[i]);
			free(v);
			return -ENOMEM;
		}
	for (int i = 0; i < w->ncmdline; i++)
		free(w->cmdline[i]);
	free(w->cmdline);
	w->cmdline = v;
	w->ncmdline = argc;
	return 0;
}

int mp_pdw_set_nrcpus(mp_pdw *w, uint32_t online, uint32_t avail)
{
	w->cpus_online = online;
	w->cpus_avail = avail;
	w->have_nrcpus = 1;
	return 0;
}

int mp_pdw_add_build_id(mp_pdw *w, pid_t pid, int cpumode, const uint8_t *id, size_t id_len,
			const char *filename)
{
	if (id_len == 0 || id_len > 20)
		return -EINVAL;
	for (size_t i = 0; i < w->nbids; i++)
		if (w->bids[i].cpumode == cpumode && !strcmp(w->bids[i].file, filename))
			return 0;
	if (MP_GROW(w->bids, caps_of(w)->bids, w->nbids + 1))
		return -ENOMEM;
	struct pdw_bid *b = &w->bids[w->nbids];
	memset(b, 0, sizeof(*b));
	b->pid = pid;
	b->cpumode = cpumode;
	memcpy(b->id, id, id_len);
	b->len = id_len;
	if (!(b->file = strdup(filename)))
		return -ENOMEM;
	w->nbids++;
	return 0;
}

void mp_pdw_set_group(mp_pdw *w, size_t leader, size_t nr)
{
	w->group_leader = leader;
	w->group_nr = nr;
}

void mp_pdw_set_auto_build_ids(mp_pdw *w, int on)
{
	w->auto_bids = on;
}

int mp_pdw_set_meta(mp_pdw *w, const char *key, const char *value)
{
	for (size_t i = 0; i < w->nmeta; i++)
		if (!strcmp(w->meta[i].key, key)) {
			char *v = strdup(value);
			if (!v)
				return -ENOMEM;
			free(w->meta[i].value);
			w->meta[i].value = v;
			return 0;
		}
	if (MP_GROW(w->meta, caps_of(w)->meta, w->nmeta + 1))
		return -ENOMEM;
	w->meta[w->nmeta].key = strdup(key);
	w->meta[w->nmeta].value = strdup(value);
	if (!w->meta[w->nmeta].key || !w->meta[w->nmeta].value) {
		free(w->meta[w->nmeta].key);
		free(w->meta[w->nmeta].value);
		return -ENOMEM;
	}
	w->nmeta++;
	return 0;
}

/* ---- the host ---- */

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
			rc = mp_note_build_id(d->d_buf, d->d_size, out, 20, outlen);
	}
	elf_end(e);
	close(fd);
	return rc;
}

static void feat_collect_build_ids(mp_pdw *w)
{
	uint8_t id[20];
	size_t len;

	for (size_t i = 0; i < w->npending; i++)
		mp_pdw_mark_hit(w, w->pending[i].pid, w->pending[i].page << 12);

	for (size_t i = 0; i < w->nfiles; i++) {
		if (!w->files[i].hit)
			continue;
		if (!strcmp(w->files[i].name, "[vdso]")) {
			/* the image the kernel maps into every process: the running one (perf
			 * record keeps its build-id too, and a copy in its build-id cache) */
			size_t vlen;
			if (mp_note_vdso(&vlen, id, &len) && len)
				mp_pdw_add_build_id(w, -1, PERF_RECORD_MISC_USER, id, len, "[vdso]");
			continue;
		}
		if (elf_build_id(w->files[i].name, id, &len) == 0)
			mp_pdw_add_build_id(w, -1, PERF_RECORD_MISC_USER, id, len, w->files[i].name);
	}
	if (w->kernel_hit) {
		size_t n = 0;
		char *notes = mp_read_file("/sys/kernel/notes", &n, NULL);
		if (notes && mp_note_build_id(notes, n, id, sizeof(id), &len) == 0)
			mp_pdw_add_build_id(w, -1, PERF_RECORD_MISC_KERNEL, id, len,
					    "[kernel.kallsyms]");
		free(notes);
	}
}

static int feat_build_id(mp_pdw *w, struct mp_buf *b)
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

static int feat_event_desc(mp_pdw *w, struct mp_buf *b)
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

static int feat_cmdline(mp_pdw *w, struct mp_buf *b)
{
	uint32_t nr = (uint32_t)w->ncmdline;
	if (mp_buf_append(b, &nr, 4))
		return -ENOMEM;
	for (int i = 0; i < w->ncmdline; i++)
		if (mp_pdw_put_string(b, w->cmdline[i]))
			return -ENOMEM;
	return 0;
}

/* memprof's own metadata, as key=value lines (documented in perfdata/README.md). */
static int feat_meta_text(mp_pdw *w, struct mp_buf *b)
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

/* Every feature's payload in perf's layout into feat[bit] (memprof's own into feat[15],
 * a slot perf leaves unused here) and its bit into flags; a feature that fails to build
 * (no memory) is left out. */
void mp_pdw_features_build(mp_pdw *w, struct mp_buf feat[32], uint64_t flags[4])
{
	if (w->auto_bids)
		feat_collect_build_ids(w);
	if (w->nbids && !feat_build_id(w, &feat[MP_HEADER_BUILD_ID]))
		flags[0] |= 1ull << MP_HEADER_BUILD_ID;
	for (int f = MP_HEADER_HOSTNAME; f <= MP_HEADER_CPUID; f++)
		if (w->str[f] && f != MP_HEADER_NRCPUS && !mp_pdw_put_string(&feat[f], w->str[f]))
			flags[0] |= 1ull << f;
	if (w->have_nrcpus) {
		uint32_t v[2] = { w->cpus_avail, w->cpus_online };
		if (!mp_buf_append(&feat[MP_HEADER_NRCPUS], v, sizeof(v)))
			flags[0] |= 1ull << MP_HEADER_NRCPUS;
	}
	if (w->total_mem_kb && !mp_buf_append(&feat[MP_HEADER_TOTAL_MEM], &w->total_mem_kb, 8))
		flags[0] |= 1ull << MP_HEADER_TOTAL_MEM;
	if (w->cmdline && !feat_cmdline(w, &feat[MP_HEADER_CMDLINE]))
		flags[0] |= 1ull << MP_HEADER_CMDLINE;
	if (w->nattrs && !feat_event_desc(w, &feat[MP_HEADER_EVENT_DESC]))
		flags[0] |= 1ull << MP_HEADER_EVENT_DESC;
	for (int f = 0; f < 32; f++)
		if (w->raw[f].len && !mp_buf_append(&feat[f], w->raw[f].data, w->raw[f].len))
			flags[0] |= 1ull << f;
	if (w->group_nr > 1 && w->group_leader + w->group_nr <= w->nattrs) {
		/* perf's layout: nr_groups, then per group its name ("{anon_group}" when it has
		 * none), the leader's attr index and the number of members with the leader */
		uint32_t v[2] = { (uint32_t)w->group_leader, (uint32_t)w->group_nr }, one = 1;
		if (!mp_buf_append(&feat[MP_HEADER_GROUP_DESC], &one, 4) &&
		    !mp_pdw_put_string(&feat[MP_HEADER_GROUP_DESC], "{anon_group}") &&
		    !mp_buf_append(&feat[MP_HEADER_GROUP_DESC], v, sizeof(v)))
			flags[0] |= 1ull << MP_HEADER_GROUP_DESC;
	}
	if (w->mp_feature && !feat_meta_text(w, &feat[15]))
		flags[MP_HEADER_MEMPROF / 64] |= 1ull << (MP_HEADER_MEMPROF % 64);
}
