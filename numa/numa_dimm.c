/* Memory modules from SMBIOS type 17 (memory device) entries, and EDAC memory controllers,
 * as the article's section 11 describes them: type, registered or not, ECC check bits. */
#include "numa_internal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

static unsigned rd16(const unsigned char *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}
static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* SMBIOS 3.7, 7.18.2: memory device type (offset 0x12). */
static const char *mem_type_name(unsigned t)
{
	static const char *const names[] = {
		[0x01] = "Other",  [0x02] = "Unknown", [0x03] = "DRAM",	  [0x04] = "EDRAM",
		[0x05] = "VRAM",   [0x06] = "SRAM",    [0x07] = "RAM",	  [0x08] = "ROM",
		[0x09] = "Flash",  [0x0A] = "EEPROM",  [0x0B] = "FEPROM", [0x0C] = "EPROM",
		[0x0D] = "CDRAM",  [0x0E] = "3DRAM",   [0x0F] = "SDRAM",  [0x10] = "SGRAM",
		[0x11] = "RDRAM",  [0x12] = "DDR",     [0x13] = "DDR2",	  [0x14] = "DDR2 FB",
		[0x18] = "DDR3",   [0x19] = "FBD2",    [0x1A] = "DDR4",	  [0x1B] = "LPDDR",
		[0x1C] = "LPDDR2", [0x1D] = "LPDDR3",  [0x1E] = "LPDDR4", [0x1F] = "NVDIMM",
		[0x20] = "HBM",	   [0x21] = "HBM2",    [0x22] = "DDR5",	  [0x23] = "LPDDR5",
		[0x24] = "HBM3",
	};
	if (t < sizeof names / sizeof *names && names[t])
		return names[t];
	return "Unknown";
}

/* String number `n` (1-based) of the structure's string area, "" if absent. */
static void smbios_string(const unsigned char *raw, size_t len, size_t fmtlen, unsigned n,
			  char *out, size_t outlen)
{
	out[0] = 0;
	if (n == 0)
		return;
	size_t i = fmtlen;
	for (unsigned k = 1; i < len; k++) {
		size_t s = i;
		while (i < len && raw[i])
			i++;
		if (i == s) /* the empty string that ends the area */
			return;
		if (k == n) {
			size_t l = i - s;
			while (l > 0 && raw[s + l - 1] == ' ')
				l--;
			if (l >= outlen)
				l = outlen - 1;
			memcpy(out, raw + s, l);
			out[l] = 0;
			return;
		}
		i++;
	}
}

int NUMA_ecc_bits(unsigned data_bits, unsigned *sec, unsigned *secded)
{
	if (data_bits == 0) {
		errno = EINVAL;
		return -1;
	}
	/* Table 11.1: SEC needs the least E with 2^E >= W + E + 1; SEC/DED one bit more. */
	unsigned e = 1;
	while ((1ull << e) < (unsigned long long)data_bits + e + 1)
		e++;
	*sec = e;
	*secded = e + 1;
	return 0;
}

const char *NUMA_ecc_kind(unsigned data_bits, int check_bits)
{
	unsigned sec, secded;

	if (check_bits == 0)
		return "none";
	if (check_bits < 0 || NUMA_ecc_bits(data_bits, &sec, &secded))
		return "unknown";
	if ((unsigned)check_bits == secded)
		return "SEC/DED";
	if ((unsigned)check_bits == sec)
		return "SEC";
	if ((unsigned)check_bits > secded)
		return "beyond SEC/DED";
	return "unknown";
}

int NUMA_dimm_decode(const unsigned char *raw, size_t len, struct NUMA_dimm *d)
{
	memset(d, 0, sizeof *d);
	d->registered = -1;
	d->check_bits = -1;
	d->ecc = "unknown";
	if (len < 0x15 || raw[0] != 17 || raw[1] < 0x15 || raw[1] > len) {
		errno = EINVAL;
		return -1;
	}
	size_t fl = raw[1];
	unsigned tw = rd16(raw + 0x08), dw = rd16(raw + 0x0A), size = rd16(raw + 0x0C);
	d->total_width = tw == 0xFFFF ? 0 : tw;
	d->data_width = dw == 0xFFFF ? 0 : dw;
	if (d->total_width && d->data_width && d->total_width >= d->data_width) {
		d->check_bits = (int)(d->total_width - d->data_width);
		d->ecc = NUMA_ecc_kind(d->data_width, d->check_bits);
	}
	if (size == 0x7FFF && fl >= 0x20)
		d->size_mb = rd32(raw + 0x1C) & 0x7FFFFFFF;
	else if (size != 0xFFFF)
		d->size_mb = size & 0x8000 ? (size & 0x7FFF) / 1024 : size;
	smbios_string(raw, len, fl, raw[0x10], d->locator, sizeof d->locator);
	smbios_string(raw, len, fl, raw[0x11], d->bank, sizeof d->bank);
	snprintf(d->type, sizeof d->type, "%s", mem_type_name(raw[0x12]));
	unsigned detail = rd16(raw + 0x13);
	if (detail & (1u << 13))
		d->registered = 1;
	else if (detail & (1u << 14))
		d->registered = 0;
	if (fl >= 0x17) {
		unsigned sp = rd16(raw + 0x15);
		d->speed_mts = sp == 0xFFFF && fl >= 0x58 ? rd32(raw + 0x54) : sp;
	}
	if (fl >= 0x22) {
		unsigned sp = rd16(raw + 0x20);
		d->configured_mts = sp == 0xFFFF && fl >= 0x5C ? rd32(raw + 0x58) : sp;
	}
	return 0;
}

static char *path_of(char *buf, size_t len, const char *fsroot, const char *rel)
{
	const char *r = fsroot && *fsroot ? fsroot : "";
	size_t rl = strlen(r);
	snprintf(buf, len, "%.*s/%s", (int)(rl && r[rl - 1] == '/' ? rl - 1 : rl), r, rel);
	return buf;
}

static int entry_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* The entries PREFIX<N> of DIR (17-0, 17-1, ... or mc0, mc1, ...): their numbers, sorted, in
 * idx (at most cap); -1 with errno when DIR cannot be read or holds none (ENOENT). */
static int numbered_entries(const char *dir, const char *prefix, int *idx, int cap)
{
	size_t plen = strlen(prefix);
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < cap) {
		char *end;
		if (strncmp(e->d_name, prefix, plen) == 0 && isdigit((unsigned char)e->d_name[plen])) {
			long v = strtol(e->d_name + plen, &end, 10);
			if (!*end)
				idx[n++] = (int)v;
		}
	}
	closedir(d);
	if (n == 0) {
		errno = ENOENT;
		return -1;
	}
	qsort(idx, (size_t)n, sizeof *idx, entry_cmp);
	return n;
}

int NUMA_dimm_read(const char *fsroot, struct NUMA_dimm *out, int max)
{
	char dir[4096], file[4200];
	path_of(dir, sizeof dir, fsroot, "sys/firmware/dmi/entries");
	int idx[4096];
	int n = numbered_entries(dir, "17-", idx, 4096);
	if (n < 0)
		return -1;
	int got = 0;
	for (int i = 0; i < n; i++) {
		snprintf(file, sizeof file, "%s/17-%d/raw", dir, idx[i]);
		int fd = open(file, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -1; /* EACCES when not root */
		unsigned char raw[4096];
		ssize_t len = read(fd, raw, sizeof raw);
		int err = errno;
		close(fd);
		if (len < 0) {
			errno = err;
			return -1;
		}
		if (got < max && NUMA_dimm_decode(raw, (size_t)len, &out[got]) == 0)
			got++;
		else if (got >= max)
			got++;
	}
	return got;
}

/* First line of a small sysfs file, without its newline; -1 if unreadable. */
static int read_line(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t r = read(fd, buf, len - 1);
	close(fd);
	if (r < 0)
		return -1;
	buf[r] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static uint64_t read_u64(const char *path)
{
	char b[64];
	return read_line(path, b, sizeof b) ? 0 : strtoull(b, NULL, 10);
}

/* ECC mode and memory type of a controller: from its first dimmN or rankN folder (kernels
 * since 3.6), else from its first csrowN folder (the older layout, still present). */
static void mc_modes(const char *mcdir, struct NUMA_edac_mc *m)
{
	static const struct {
		const char *prefix, *mode, *type;
	} layouts[] = {
		{ "dimm", "dimm_edac_mode", "dimm_mem_type" },
		{ "rank", "dimm_edac_mode", "dimm_mem_type" },
		{ "csrow", "edac_mode", "mem_type" },
	};
	DIR *d = opendir(mcdir);
	if (!d)
		return;
	for (size_t l = 0; l < sizeof layouts / sizeof *layouts && !m->edac_mode[0]; l++) {
		long best = -1;
		struct dirent *e;
		rewinddir(d);
		size_t pl = strlen(layouts[l].prefix);
		while ((e = readdir(d))) {
			char *end;
			if (strncmp(e->d_name, layouts[l].prefix, pl) ||
			    !isdigit((unsigned char)e->d_name[pl]))
				continue;
			long v = strtol(e->d_name + pl, &end, 10);
			if (!*end && (best < 0 || v < best))
				best = v;
		}
		if (best < 0)
			continue;
		char p[4600];
		snprintf(p, sizeof p, "%s/%s%ld/%s", mcdir, layouts[l].prefix, best,
			 layouts[l].mode);
		read_line(p, m->edac_mode, sizeof m->edac_mode);
		snprintf(p, sizeof p, "%s/%s%ld/%s", mcdir, layouts[l].prefix, best,
			 layouts[l].type);
		read_line(p, m->mem_type, sizeof m->mem_type);
	}
	closedir(d);
}

int NUMA_edac_read(const char *fsroot, struct NUMA_edac_mc *out, int max)
{
	char dir[4096];
	path_of(dir, sizeof dir, fsroot, "sys/devices/system/edac/mc");
	int idx[1024];
	int n = numbered_entries(dir, "mc", idx, 1024);
	if (n < 0)
		return -1;
	for (int i = 0; i < n && i < max; i++) {
		struct NUMA_edac_mc *m = &out[i];
		char mc[4200], p[4300];
		memset(m, 0, sizeof *m);
		m->index = idx[i];
		snprintf(mc, sizeof mc, "%s/mc%d", dir, idx[i]);
		snprintf(p, sizeof p, "%s/mc_name", mc);
		read_line(p, m->name, sizeof m->name);
		snprintf(p, sizeof p, "%s/size_mb", mc);
		m->size_mb = read_u64(p);
		snprintf(p, sizeof p, "%s/ce_count", mc);
		m->ce_count = read_u64(p);
		snprintf(p, sizeof p, "%s/ue_count", mc);
		m->ue_count = read_u64(p);
		mc_modes(mc, m);
	}
	return n;
}
