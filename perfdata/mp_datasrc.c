/* mp_datasrc.c - PERF_SAMPLE_DATA_SRC: the fields of the kernel's perf_mem_data_src and
 * the words perf 6.1 prints for them. The words and their joining were read off perf
 * 6.1's own output on files whose data_src took every value of each field (the table in
 * tests/test_datasrc.c), including its quirks: a level bit and a level number both
 * printed ("L1 or L1 hit"), N/A printed as one of the bits ("N/A or L1 hit miss"), hops
 * taking the place of the level bits. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mp_perfdata.h"

/* One field: its shift and width in the word. */
struct ds_field {
	unsigned shift, bits;
};
static const struct ds_field f_op = { PERF_MEM_OP_SHIFT, 5 }, f_lvl = { PERF_MEM_LVL_SHIFT, 14 },
			     f_snoop = { PERF_MEM_SNOOP_SHIFT, 5 },
			     f_lock = { PERF_MEM_LOCK_SHIFT, 2 }, f_dtlb = { PERF_MEM_TLB_SHIFT, 7 },
			     f_lvl_num = { PERF_MEM_LVLNUM_SHIFT, 4 },
			     f_remote = { PERF_MEM_REMOTE_SHIFT, 1 },
			     f_snoopx = { PERF_MEM_SNOOPX_SHIFT, 2 }, f_blk = { PERF_MEM_BLK_SHIFT, 3 },
			     f_hops = { PERF_MEM_HOPS_SHIFT, 3 }, f_rsvd = { MP_DATASRC_RSVD_SHIFT, 18 };

static uint64_t get(uint64_t v, struct ds_field f)
{
	return (v >> f.shift) & ((1ULL << f.bits) - 1);
}

static uint64_t put(uint64_t x, struct ds_field f)
{
	return (x & ((1ULL << f.bits) - 1)) << f.shift;
}

void mp_datasrc_decode(uint64_t v, struct mp_datasrc *d)
{
	d->op = (uint8_t)get(v, f_op);
	d->lvl = (uint16_t)get(v, f_lvl);
	d->snoop = (uint8_t)get(v, f_snoop);
	d->lock = (uint8_t)get(v, f_lock);
	d->dtlb = (uint8_t)get(v, f_dtlb);
	d->lvl_num = (uint8_t)get(v, f_lvl_num);
	d->remote = (uint8_t)get(v, f_remote);
	d->snoopx = (uint8_t)get(v, f_snoopx);
	d->blk = (uint8_t)get(v, f_blk);
	d->hops = (uint8_t)get(v, f_hops);
	d->rsvd = (uint32_t)get(v, f_rsvd);
}

uint64_t mp_datasrc_encode(const struct mp_datasrc *d)
{
	return put(d->op, f_op) | put(d->lvl, f_lvl) | put(d->snoop, f_snoop) |
	       put(d->lock, f_lock) | put(d->dtlb, f_dtlb) | put(d->lvl_num, f_lvl_num) |
	       put(d->remote, f_remote) | put(d->snoopx, f_snoopx) | put(d->blk, f_blk) |
	       put(d->hops, f_hops) | put(d->rsvd, f_rsvd);
}

/* A string being built into a caller's buffer: appends are cut at the end and the
 * buffer always stays terminated. */
struct sb {
	char *buf;
	size_t n, len;
};

static void sb_add(struct sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(struct sb *b, const char *fmt, ...)
{
	va_list ap;

	if (!b->n || b->len + 1 >= b->n)
		return;
	va_start(ap, fmt);
	int k = vsnprintf(b->buf + b->len, b->n - b->len, fmt, ap);
	va_end(ap);
	if (k > 0)
		b->len += (size_t)k < b->n - b->len ? (size_t)k : b->n - b->len - 1;
}

static struct sb sb_init(char *buf, size_t n)
{
	if (n)
		buf[0] = '\0';
	return (struct sb){ buf, n, 0 };
}

/* The names of the bits set in m (names[i] for bit i), joined with " or "; the number
 * printed. */
/* The end of a level or TLB string as perf writes it: "N/A" when nothing was printed, then
 * " hit" and " miss" for the bits that are set; the length. */
static size_t sb_hit_miss(struct sb *b, int none, int hit, int miss)
{
	if (none)
		sb_add(b, "N/A");
	if (hit)
		sb_add(b, " hit");
	if (miss)
		sb_add(b, " miss");
	return b->len;
}

static int sb_bits(struct sb *b, uint64_t m, const char *const *names, size_t nnames,
		   int printed)
{
	for (size_t i = 0; i < nnames; i++)
		if (m >> i & 1)
			sb_add(b, "%s%s", printed++ ? " or " : "", names[i]);
	return printed;
}

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

size_t mp_datasrc_op_str(uint64_t v, char *buf, size_t n)
{
	static const char *const names[] = { "N/A", "LOAD", "STORE", "PFETCH", "EXEC" };
	struct sb b = sb_init(buf, n);
	uint64_t op = get(v, f_op);
	const char *w = "No";

	for (size_t i = 0; i < NELEM(names); i++)
		if (op >> i & 1) {
			w = names[i];
			break;
		}
	sb_add(&b, "%s", w);
	return b.len;
}

size_t mp_datasrc_lvl_str(uint64_t v, char *buf, size_t n)
{
	static const char *const lvl_names[] = {
		"N/A", "HIT", "MISS", "L1", "LFB/MAB", "L2", "L3", "Local RAM",
		"Remote RAM (1 hop)", "Remote RAM (2 hops)", "Remote Cache (1 hop)",
		"Remote Cache (2 hops)", "I/O", "Uncached",
	};
	/* level numbers without a name print as "L<n>" */
	static const char *const num_names[16] = {
		[PERF_MEM_LVLNUM_CXL] = "CXL",     [PERF_MEM_LVLNUM_IO] = "I/O",
		[PERF_MEM_LVLNUM_ANY_CACHE] = "Any cache", [PERF_MEM_LVLNUM_LFB] = "LFB/MAB",
		[PERF_MEM_LVLNUM_RAM] = "RAM",     [PERF_MEM_LVLNUM_PMEM] = "PMEM",
		[PERF_MEM_LVLNUM_NA] = "N/A",
	};
	/* perf 6.1 reads past its table for hops 5..7 and prints glibc's "(null)" */
	static const char *const hop_names[8] = {
		"N/A", "core, same node", "node, same socket", "socket, same board", "board",
		"(null)", "(null)", "(null)",
	};
	struct sb b = sb_init(buf, n);
	uint64_t lvl = get(v, f_lvl), num = get(v, f_lvl_num), hops = get(v, f_hops);
	int printed = 0;

	if (get(v, f_remote))
		sb_add(&b, "Remote ");
	if (hops)
		sb_add(&b, "%s ", hop_names[hops]);
	else
		printed = sb_bits(&b, lvl & ~(uint64_t)(PERF_MEM_LVL_HIT | PERF_MEM_LVL_MISS),
				  lvl_names, NELEM(lvl_names), 0);
	if (num) {
		if (printed++)
			sb_add(&b, " or ");
		if (num_names[num])
			sb_add(&b, "%s", num_names[num]);
		else
			sb_add(&b, "L%u", (unsigned)num);
	}
	return sb_hit_miss(&b, !b.len, !!(lvl & PERF_MEM_LVL_HIT), !!(lvl & PERF_MEM_LVL_MISS));
}

size_t mp_datasrc_snoop_str(uint64_t v, char *buf, size_t n)
{
	static const char *const names[] = { "N/A", "None", "Hit", "Miss", "HitM" };
	static const char *const xnames[] = { "Fwd", "Peer" };
	struct sb b = sb_init(buf, n);
	int printed = sb_bits(&b, get(v, f_snoop), names, NELEM(names), 0);

	printed = sb_bits(&b, get(v, f_snoopx), xnames, NELEM(xnames), printed);
	if (!printed)
		sb_add(&b, "N/A");
	return b.len;
}

size_t mp_datasrc_tlb_str(uint64_t v, char *buf, size_t n)
{
	static const char *const names[] = { "N/A", "HIT", "MISS", "L1", "L2", "Walker", "Fault" };
	struct sb b = sb_init(buf, n);
	uint64_t m = get(v, f_dtlb);

	int printed = sb_bits(&b, m & ~(uint64_t)(PERF_MEM_TLB_HIT | PERF_MEM_TLB_MISS), names,
			      NELEM(names), 0);
	return sb_hit_miss(&b, !printed, !!(m & PERF_MEM_TLB_HIT), !!(m & PERF_MEM_TLB_MISS));
}

size_t mp_datasrc_lock_str(uint64_t v, char *buf, size_t n)
{
	struct sb b = sb_init(buf, n);
	uint64_t m = get(v, f_lock);

	sb_add(&b, "%s", m & PERF_MEM_LOCK_NA ? "N/A" : m & PERF_MEM_LOCK_LOCKED ? "Yes" : "No");
	return b.len;
}

size_t mp_datasrc_blk_str(uint64_t v, char *buf, size_t n)
{
	struct sb b = sb_init(buf, n);
	uint64_t m = get(v, f_blk);

	if (!m || (m & PERF_MEM_BLK_NA)) {
		sb_add(&b, " N/A");
		return b.len;
	}
	if (m & PERF_MEM_BLK_DATA)
		sb_add(&b, " Data");
	if (m & PERF_MEM_BLK_ADDR)
		sb_add(&b, " Addr");
	return b.len;
}

/* perf script prints the field into a 100-byte buffer */
#define SCRIPT_FIELD_MAX 99

size_t mp_datasrc_script_str(uint64_t v, char *buf, size_t n)
{
	char part[6][128];
	struct sb b = sb_init(buf, n < SCRIPT_FIELD_MAX + 1 ? n : SCRIPT_FIELD_MAX + 1);

	mp_datasrc_op_str(v, part[0], sizeof(part[0]));
	mp_datasrc_lvl_str(v, part[1], sizeof(part[1]));
	mp_datasrc_snoop_str(v, part[2], sizeof(part[2]));
	mp_datasrc_tlb_str(v, part[3], sizeof(part[3]));
	mp_datasrc_lock_str(v, part[4], sizeof(part[4]));
	mp_datasrc_blk_str(v, part[5], sizeof(part[5]));
	sb_add(&b, "%16llx |OP %s|LVL %s|SNP %s|TLB %s|LCK %s|BLK %s", (unsigned long long)v,
	       part[0], part[1], part[2], part[3], part[4], part[5]);
	return b.len;
}

void mp_page_size_name(uint64_t sz, char *buf, size_t n)
{
	static const char units[] = "BKMGTPE";
	int u = 0;

	if (!sz) {
		snprintf(buf, n, "N/A");
		return;
	}
	while (u < 6 && sz >= 1024 && !(sz % 1024)) {
		sz /= 1024;
		u++;
	}
	snprintf(buf, n, "%" PRIu64 "%c", sz, units[u]);
}

int mp_c2c_count(struct mp_c2c_stats *st, uint64_t v, uint64_t addr)
{
	struct mp_datasrc d;

	mp_datasrc_decode(v, &d);
	/* remote without hops: a remote level the PMU could not name (Skylake); with hops
	 * (POWER) it is another core of the same node */
	int mrem = d.remote && !d.hops;
	st->records++;
	st->locks += !!(d.lock & PERF_MEM_LOCK_LOCKED);
	st->blk_data += !!(d.blk & PERF_MEM_BLK_DATA);
	st->blk_addr += !!(d.blk & PERF_MEM_BLK_ADDR);
	if (d.op & PERF_MEM_OP_LOAD) {
		st->loads++;
		if (!addr) {
			st->ld_noadrs++;
			return 0;
		}
		if (d.lvl & PERF_MEM_LVL_HIT) {
			st->ld_uncache += !!(d.lvl & PERF_MEM_LVL_UNC);
			st->ld_io += !!(d.lvl & PERF_MEM_LVL_IO);
			st->ld_fbhit += !!(d.lvl & PERF_MEM_LVL_LFB);
			st->ld_l1hit += !!(d.lvl & PERF_MEM_LVL_L1);
			if (d.lvl & PERF_MEM_LVL_L2) {
				st->ld_l2hit++;
				st->lcl_peer += !!(d.snoopx & PERF_MEM_SNOOPX_PEER);
			}
			if (d.lvl & PERF_MEM_LVL_L3) {
				if (d.snoop & PERF_MEM_SNOOP_HITM)
					st->lcl_hitm++;
				else
					st->ld_llchit++;
				st->lcl_peer += !!(d.snoopx & PERF_MEM_SNOOPX_PEER);
			}
			int dram = 0;
			if (d.lvl & PERF_MEM_LVL_LOC_RAM)
				st->lcl_dram++, dram++;
			if ((d.lvl & (PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_REM_RAM2)) || mrem)
				st->rmt_dram++, dram++;
			for (; dram; dram--) {
				if (d.snoop & PERF_MEM_SNOOP_HIT)
					st->ld_shared++;
				else
					st->ld_excl++;
			}
		}
		if ((d.lvl & (PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_REM_CCE2)) || mrem) {
			if (d.snoop & PERF_MEM_SNOOP_HIT) {
				st->rmt_hit++;
			} else if (d.snoop & PERF_MEM_SNOOP_HITM) {
				st->rmt_hitm++;
			} else if (d.snoopx & PERF_MEM_SNOOPX_PEER) {
				st->rmt_hit++;
				st->rmt_peer++;
			}
		}
		st->ld_miss += !!(d.lvl & PERF_MEM_LVL_MISS);
		return 1;
	}
	if (d.op & PERF_MEM_OP_STORE) {
		st->stores++;
		if (!addr) {
			st->st_noadrs++;
			return 0;
		}
		if (d.lvl & PERF_MEM_LVL_HIT) {
			st->st_uncache += !!(d.lvl & PERF_MEM_LVL_UNC);
			st->st_l1hit += !!(d.lvl & PERF_MEM_LVL_L1);
		}
		if ((d.lvl & PERF_MEM_LVL_MISS) && (d.lvl & PERF_MEM_LVL_L1))
			st->st_l1miss++;
		st->st_na += !!(d.lvl & PERF_MEM_LVL_NA);
		return 1;
	}
	st->noparse++;
	return 0;
}

void mp_c2c_stats_add(struct mp_c2c_stats *to, const struct mp_c2c_stats *from)
{
	uint64_t *t = (uint64_t *)to;
	const uint64_t *f = (const uint64_t *)from;

	for (size_t i = 0; i < sizeof(*to) / sizeof(uint64_t); i++)
		t[i] += f[i];
}
