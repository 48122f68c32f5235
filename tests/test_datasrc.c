/* test_datasrc.c - the DATA_SRC decoder (perfdata/mp_datasrc.c): fields split and put
 * back, and perf 6.1's words for every value of every field. The table's strings are
 * perf script -F data_src's output (perf 6.1) on files whose samples carry these data_src
 * words (the numatop Ivy Bridge fixture with its data_src rewritten), padding removed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "mp_perfdata.h"

struct script_case {
	uint64_t v;
	const char *perf;
};

static const struct script_case script_cases[] = {
	{ 0x42ULL, "              42 |OP LOAD|LVL N/A hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x200000042ULL, "       200000042 |OP LOAD|LVL L1 hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x400000042ULL, "       400000042 |OP LOAD|LVL L2 hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x600000042ULL, "       600000042 |OP LOAD|LVL L3 hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x800000042ULL, "       800000042 |OP LOAD|LVL L4 hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0xa00000042ULL, "       a00000042 |OP LOAD|LVL L5 hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0xc00000042ULL, "       c00000042 |OP LOAD|LVL L6 hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0xe00000042ULL, "       e00000042 |OP LOAD|LVL L7 hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x1000000042ULL, "      1000000042 |OP LOAD|LVL L8 hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x1200000042ULL, "      1200000042 |OP LOAD|LVL CXL hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x1400000042ULL, "      1400000042 |OP LOAD|LVL I/O hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x1600000042ULL, "      1600000042 |OP LOAD|LVL Any cache hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x1800000042ULL, "      1800000042 |OP LOAD|LVL LFB/MAB hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x1a00000042ULL, "      1a00000042 |OP LOAD|LVL RAM hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x1c00000042ULL, "      1c00000042 |OP LOAD|LVL PMEM hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x1e00000042ULL, "      1e00000042 |OP LOAD|LVL N/A hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x2600000042ULL, "      2600000042 |OP LOAD|LVL Remote L3 hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x83a00000042ULL, "     83a00000042 |OP LOAD|LVL Remote core, same node RAM hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x103a00000042ULL, "    103a00000042 |OP LOAD|LVL Remote node, same socket RAM hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x183a00000042ULL, "    183a00000042 |OP LOAD|LVL Remote socket, same board RAM hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x203a00000042ULL, "    203a00000042 |OP LOAD|LVL Remote board RAM hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x283a00000042ULL, "    283a00000042 |OP LOAD|LVL Remote (null) RAM hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x303a00000042ULL, "    303a00000042 |OP LOAD|LVL Remote (null) RAM hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x383a00000042ULL, "    383a00000042 |OP LOAD|LVL Remote (null) RAM hit|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x2ULL, "               2 |OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x80002ULL, "           80002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x100002ULL, "          100002 |OP LOAD|LVL N/A|SNP None|TLB N/A|LCK No|BLK  N/A" },
	{ 0x180002ULL, "          180002 |OP LOAD|LVL N/A|SNP N/A or None|TLB N/A|LCK No|BLK  N/A" },
	{ 0x200002ULL, "          200002 |OP LOAD|LVL N/A|SNP Hit|TLB N/A|LCK No|BLK  N/A" },
	{ 0x280002ULL, "          280002 |OP LOAD|LVL N/A|SNP N/A or Hit|TLB N/A|LCK No|BLK  N/A" },
	{ 0x300002ULL, "          300002 |OP LOAD|LVL N/A|SNP None or Hit|TLB N/A|LCK No|BLK  N/A" },
	{ 0x380002ULL, "          380002 |OP LOAD|LVL N/A|SNP N/A or None or Hit|TLB N/A|LCK No|BLK  N/A" },
	{ 0x400002ULL, "          400002 |OP LOAD|LVL N/A|SNP Miss|TLB N/A|LCK No|BLK  N/A" },
	{ 0x480002ULL, "          480002 |OP LOAD|LVL N/A|SNP N/A or Miss|TLB N/A|LCK No|BLK  N/A" },
	{ 0x500002ULL, "          500002 |OP LOAD|LVL N/A|SNP None or Miss|TLB N/A|LCK No|BLK  N/A" },
	{ 0x580002ULL, "          580002 |OP LOAD|LVL N/A|SNP N/A or None or Miss|TLB N/A|LCK No|BLK  N/A" },
	{ 0x600002ULL, "          600002 |OP LOAD|LVL N/A|SNP Hit or Miss|TLB N/A|LCK No|BLK  N/A" },
	{ 0x680002ULL, "          680002 |OP LOAD|LVL N/A|SNP N/A or Hit or Miss|TLB N/A|LCK No|BLK  N/A" },
	{ 0x700002ULL, "          700002 |OP LOAD|LVL N/A|SNP None or Hit or Miss|TLB N/A|LCK No|BLK  N/A" },
	{ 0x780002ULL, "          780002 |OP LOAD|LVL N/A|SNP N/A or None or Hit or Miss|TLB N/A|LCK No|BLK  N/A" },
	{ 0x800002ULL, "          800002 |OP LOAD|LVL N/A|SNP HitM|TLB N/A|LCK No|BLK  N/A" },
	{ 0x880002ULL, "          880002 |OP LOAD|LVL N/A|SNP N/A or HitM|TLB N/A|LCK No|BLK  N/A" },
	{ 0x900002ULL, "          900002 |OP LOAD|LVL N/A|SNP None or HitM|TLB N/A|LCK No|BLK  N/A" },
	{ 0x980002ULL, "          980002 |OP LOAD|LVL N/A|SNP N/A or None or HitM|TLB N/A|LCK No|BLK  N/A" },
	{ 0xa00002ULL, "          a00002 |OP LOAD|LVL N/A|SNP Hit or HitM|TLB N/A|LCK No|BLK  N/A" },
	{ 0xa80002ULL, "          a80002 |OP LOAD|LVL N/A|SNP N/A or Hit or HitM|TLB N/A|LCK No|BLK  N/A" },
	{ 0xb00002ULL, "          b00002 |OP LOAD|LVL N/A|SNP None or Hit or HitM|TLB N/A|LCK No|BLK  N/A" },
	{ 0xb80002ULL, "          b80002 |OP LOAD|LVL N/A|SNP N/A or None or Hit or HitM|TLB N/A|LCK No|BLK  N/A" },
	{ 0xc00002ULL, "          c00002 |OP LOAD|LVL N/A|SNP Miss or HitM|TLB N/A|LCK No|BLK  N/A" },
	{ 0xc80002ULL, "          c80002 |OP LOAD|LVL N/A|SNP N/A or Miss or HitM|TLB N/A|LCK No|BLK  N/A" },
	{ 0xd00002ULL, "          d00002 |OP LOAD|LVL N/A|SNP None or Miss or HitM|TLB N/A|LCK No|BLK  N/A" },
	{ 0xd80002ULL, "          d80002 |OP LOAD|LVL N/A|SNP N/A or None or Miss or HitM|TLB N/A|LCK No|BLK  N/A" },
	{ 0xe00002ULL, "          e00002 |OP LOAD|LVL N/A|SNP Hit or Miss or HitM|TLB N/A|LCK No|BLK  N/A" },
	{ 0xe80002ULL, "          e80002 |OP LOAD|LVL N/A|SNP N/A or Hit or Miss or HitM|TLB N/A|LCK No|BLK  N/A" },
	{ 0xf00002ULL, "          f00002 |OP LOAD|LVL N/A|SNP None or Hit or Miss or HitM|TLB N/A|LCK No|BLK  N/A" },
	{ 0xf80002ULL, "          f80002 |OP LOAD|LVL N/A|SNP N/A or None or Hit or Miss or HitM|TLB N/A|LCK No|BLK  N/A" },
	{ 0x4000800002ULL, "      4000800002 |OP LOAD|LVL N/A|SNP HitM or Fwd|TLB N/A|LCK No|BLK  N/A" },
	{ 0x8000800002ULL, "      8000800002 |OP LOAD|LVL N/A|SNP HitM or Peer|TLB N/A|LCK No|BLK  N/A" },
	{ 0xc000800002ULL, "      c000800002 |OP LOAD|LVL N/A|SNP HitM or Fwd or Peer|TLB N/A|LCK No|BLK  N/A" },
	{ 0x4000002ULL, "         4000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x8000002ULL, "         8000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A hit|LCK No|BLK  N/A" },
	{ 0xc000002ULL, "         c000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A hit|LCK No|BLK  N/A" },
	{ 0x10000002ULL, "        10000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A miss|LCK No|BLK  N/A" },
	{ 0x14000002ULL, "        14000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A miss|LCK No|BLK  N/A" },
	{ 0x18000002ULL, "        18000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A hit miss|LCK No|BLK  N/A" },
	{ 0x1c000002ULL, "        1c000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A hit miss|LCK No|BLK  N/A" },
	{ 0x20000002ULL, "        20000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1|LCK No|BLK  N/A" },
	{ 0x24000002ULL, "        24000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1|LCK No|BLK  N/A" },
	{ 0x28000002ULL, "        28000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1 hit|LCK No|BLK  N/A" },
	{ 0x2c000002ULL, "        2c000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 hit|LCK No|BLK  N/A" },
	{ 0x30000002ULL, "        30000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1 miss|LCK No|BLK  N/A" },
	{ 0x34000002ULL, "        34000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 miss|LCK No|BLK  N/A" },
	{ 0x38000002ULL, "        38000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1 hit miss|LCK No|BLK  N/A" },
	{ 0x3c000002ULL, "        3c000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 hit miss|LCK No|BLK  N/A" },
	{ 0x40000002ULL, "        40000002 |OP LOAD|LVL N/A|SNP N/A|TLB L2|LCK No|BLK  N/A" },
	{ 0x44000002ULL, "        44000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L2|LCK No|BLK  N/A" },
	{ 0x48000002ULL, "        48000002 |OP LOAD|LVL N/A|SNP N/A|TLB L2 hit|LCK No|BLK  N/A" },
	{ 0x4c000002ULL, "        4c000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L2 hit|LCK No|BLK  N/A" },
	{ 0x50000002ULL, "        50000002 |OP LOAD|LVL N/A|SNP N/A|TLB L2 miss|LCK No|BLK  N/A" },
	{ 0x54000002ULL, "        54000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L2 miss|LCK No|BLK  N/A" },
	{ 0x58000002ULL, "        58000002 |OP LOAD|LVL N/A|SNP N/A|TLB L2 hit miss|LCK No|BLK  N/A" },
	{ 0x5c000002ULL, "        5c000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L2 hit miss|LCK No|BLK  N/A" },
	{ 0x60000002ULL, "        60000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1 or L2|LCK No|BLK  N/A" },
	{ 0x64000002ULL, "        64000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 or L2|LCK No|BLK  N/A" },
	{ 0x68000002ULL, "        68000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1 or L2 hit|LCK No|BLK  N/A" },
	{ 0x6c000002ULL, "        6c000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 or L2 hit|LCK No|BLK  N/A" },
	{ 0x70000002ULL, "        70000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1 or L2 miss|LCK No|BLK  N/A" },
	{ 0x74000002ULL, "        74000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 or L2 miss|LCK No|BLK  N/A" },
	{ 0x78000002ULL, "        78000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1 or L2 hit miss|LCK No|BLK  N/A" },
	{ 0x7c000002ULL, "        7c000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 or L2 hit miss|LCK No|BLK  N/A" },
	{ 0x80000002ULL, "        80000002 |OP LOAD|LVL N/A|SNP N/A|TLB Walker|LCK No|BLK  N/A" },
	{ 0x84000002ULL, "        84000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or Walker|LCK No|BLK  N/A" },
	{ 0x88000002ULL, "        88000002 |OP LOAD|LVL N/A|SNP N/A|TLB Walker hit|LCK No|BLK  N/A" },
	{ 0x8c000002ULL, "        8c000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or Walker hit|LCK No|BLK  N/A" },
	{ 0x90000002ULL, "        90000002 |OP LOAD|LVL N/A|SNP N/A|TLB Walker miss|LCK No|BLK  N/A" },
	{ 0x94000002ULL, "        94000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or Walker miss|LCK No|BLK  N/A" },
	{ 0x98000002ULL, "        98000002 |OP LOAD|LVL N/A|SNP N/A|TLB Walker hit miss|LCK No|BLK  N/A" },
	{ 0x9c000002ULL, "        9c000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or Walker hit miss|LCK No|BLK  N/A" },
	{ 0xa0000002ULL, "        a0000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1 or Walker|LCK No|BLK  N/A" },
	{ 0xa4000002ULL, "        a4000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 or Walker|LCK No|BLK  N/A" },
	{ 0xa8000002ULL, "        a8000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1 or Walker hit|LCK No|BLK  N/A" },
	{ 0xac000002ULL, "        ac000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 or Walker hit|LCK No|BLK  N/A" },
	{ 0xb0000002ULL, "        b0000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1 or Walker miss|LCK No|BLK  N/A" },
	{ 0xb4000002ULL, "        b4000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 or Walker miss|LCK No|BLK  N/A" },
	{ 0xb8000002ULL, "        b8000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1 or Walker hit miss|LCK No|BLK  N/A" },
	{ 0xbc000002ULL, "        bc000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 or Walker hit miss|LCK No|BLK  N/A" },
	{ 0xc0000002ULL, "        c0000002 |OP LOAD|LVL N/A|SNP N/A|TLB L2 or Walker|LCK No|BLK  N/A" },
	{ 0xc4000002ULL, "        c4000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L2 or Walker|LCK No|BLK  N/A" },
	{ 0xc8000002ULL, "        c8000002 |OP LOAD|LVL N/A|SNP N/A|TLB L2 or Walker hit|LCK No|BLK  N/A" },
	{ 0xcc000002ULL, "        cc000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L2 or Walker hit|LCK No|BLK  N/A" },
	{ 0xd0000002ULL, "        d0000002 |OP LOAD|LVL N/A|SNP N/A|TLB L2 or Walker miss|LCK No|BLK  N/A" },
	{ 0xd4000002ULL, "        d4000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L2 or Walker miss|LCK No|BLK  N/A" },
	{ 0xd8000002ULL, "        d8000002 |OP LOAD|LVL N/A|SNP N/A|TLB L2 or Walker hit miss|LCK No|BLK  N/A" },
	{ 0xdc000002ULL, "        dc000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L2 or Walker hit miss|LCK No|BLK  N/A" },
	{ 0xe0000002ULL, "        e0000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1 or L2 or Walker|LCK No|BLK  N/A" },
	{ 0xe4000002ULL, "        e4000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 or L2 or Walker|LCK No|BLK  N/A" },
	{ 0xe8000002ULL, "        e8000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1 or L2 or Walker hit|LCK No|BLK  N/A" },
	{ 0xec000002ULL, "        ec000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 or L2 or Walker hit|LCK No|BLK  N/A" },
	{ 0xf0000002ULL, "        f0000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1 or L2 or Walker miss|LCK No|BLK  N/A" },
	{ 0xf4000002ULL, "        f4000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 or L2 or Walker miss|LCK No|BLK  N/A" },
	{ 0xf8000002ULL, "        f8000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1 or L2 or Walker hit miss|LCK No|BLK  N/A" },
	{ 0xfc000002ULL, "        fc000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 or L2 or Walker hit miss|LCK No|BLK  N/A" },
	{ 0x100000002ULL, "       100000002 |OP LOAD|LVL N/A|SNP N/A|TLB Fault|LCK No|BLK  N/A" },
	{ 0x104000002ULL, "       104000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or Fault|LCK No|BLK  N/A" },
	{ 0x108000002ULL, "       108000002 |OP LOAD|LVL N/A|SNP N/A|TLB Fault hit|LCK No|BLK  N/A" },
	{ 0x10c000002ULL, "       10c000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or Fault hit|LCK No|BLK  N/A" },
	{ 0x110000002ULL, "       110000002 |OP LOAD|LVL N/A|SNP N/A|TLB Fault miss|LCK No|BLK  N/A" },
	{ 0x114000002ULL, "       114000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or Fault miss|LCK No|BLK  N/A" },
	{ 0x118000002ULL, "       118000002 |OP LOAD|LVL N/A|SNP N/A|TLB Fault hit miss|LCK No|BLK  N/A" },
	{ 0x11c000002ULL, "       11c000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or Fault hit miss|LCK No|BLK  N/A" },
	{ 0x120000002ULL, "       120000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1 or Fault|LCK No|BLK  N/A" },
	{ 0x124000002ULL, "       124000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 or Fault|LCK No|BLK  N/A" },
	{ 0x128000002ULL, "       128000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1 or Fault hit|LCK No|BLK  N/A" },
	{ 0x12c000002ULL, "       12c000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 or Fault hit|LCK No|BLK  N/A" },
	{ 0x130000002ULL, "       130000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1 or Fault miss|LCK No|BLK  N/A" },
	{ 0x134000002ULL, "       134000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 or Fault miss|LCK No|BLK  N/A" },
	{ 0x138000002ULL, "       138000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1 or Fault hit miss|LCK No|BLK  N/A" },
	{ 0x13c000002ULL, "       13c000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 or Fault hit miss|LCK No|BLK  N/A" },
	{ 0x140000002ULL, "       140000002 |OP LOAD|LVL N/A|SNP N/A|TLB L2 or Fault|LCK No|BLK  N/A" },
	{ 0x144000002ULL, "       144000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L2 or Fault|LCK No|BLK  N/A" },
	{ 0x148000002ULL, "       148000002 |OP LOAD|LVL N/A|SNP N/A|TLB L2 or Fault hit|LCK No|BLK  N/A" },
	{ 0x14c000002ULL, "       14c000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L2 or Fault hit|LCK No|BLK  N/A" },
	{ 0x150000002ULL, "       150000002 |OP LOAD|LVL N/A|SNP N/A|TLB L2 or Fault miss|LCK No|BLK  N/A" },
	{ 0x154000002ULL, "       154000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L2 or Fault miss|LCK No|BLK  N/A" },
	{ 0x158000002ULL, "       158000002 |OP LOAD|LVL N/A|SNP N/A|TLB L2 or Fault hit miss|LCK No|BLK  N/A" },
	{ 0x15c000002ULL, "       15c000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L2 or Fault hit miss|LCK No|BLK  N/A" },
	{ 0x160000002ULL, "       160000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1 or L2 or Fault|LCK No|BLK  N/A" },
	{ 0x164000002ULL, "       164000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 or L2 or Fault|LCK No|BLK  N/A" },
	{ 0x168000002ULL, "       168000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1 or L2 or Fault hit|LCK No|BLK  N/A" },
	{ 0x16c000002ULL, "       16c000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 or L2 or Fault hit|LCK No|BLK  N/A" },
	{ 0x170000002ULL, "       170000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1 or L2 or Fault miss|LCK No|BLK  N/A" },
	{ 0x174000002ULL, "       174000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 or L2 or Fault miss|LCK No|BLK  N/A" },
	{ 0x178000002ULL, "       178000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1 or L2 or Fault hit miss|LCK No|BLK  N/A" },
	{ 0x17c000002ULL, "       17c000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 or L2 or Fault hit miss|LCK No|BLK  N/A" },
	{ 0x180000002ULL, "       180000002 |OP LOAD|LVL N/A|SNP N/A|TLB Walker or Fault|LCK No|BLK  N/A" },
	{ 0x184000002ULL, "       184000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or Walker or Fault|LCK No|BLK  N/A" },
	{ 0x188000002ULL, "       188000002 |OP LOAD|LVL N/A|SNP N/A|TLB Walker or Fault hit|LCK No|BLK  N/A" },
	{ 0x18c000002ULL, "       18c000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or Walker or Fault hit|LCK No|BLK  N/A" },
	{ 0x190000002ULL, "       190000002 |OP LOAD|LVL N/A|SNP N/A|TLB Walker or Fault miss|LCK No|BLK  N/A" },
	{ 0x194000002ULL, "       194000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or Walker or Fault miss|LCK No|BLK  N/A" },
	{ 0x198000002ULL, "       198000002 |OP LOAD|LVL N/A|SNP N/A|TLB Walker or Fault hit miss|LCK No|BLK  N/A" },
	{ 0x19c000002ULL, "       19c000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or Walker or Fault hit miss|LCK No|BLK  N/A" },
	{ 0x1a0000002ULL, "       1a0000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1 or Walker or Fault|LCK No|BLK  N/A" },
	{ 0x1a4000002ULL, "       1a4000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 or Walker or Fault|LCK No|BLK  N/A" },
	{ 0x1a8000002ULL, "       1a8000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1 or Walker or Fault hit|LCK No|BLK  N/A" },
	{ 0x1ac000002ULL, "       1ac000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 or Walker or Fault hit|LCK No|BLK  N/A" },
	{ 0x1b0000002ULL, "       1b0000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1 or Walker or Fault miss|LCK No|BLK  N/A" },
	{ 0x1b4000002ULL, "       1b4000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 or Walker or Fault miss|LCK No|BLK  N/A" },
	{ 0x1b8000002ULL, "       1b8000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1 or Walker or Fault hit miss|LCK No|BLK  N/A" },
	{ 0x1bc000002ULL, "       1bc000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 or Walker or Fault hit miss|LCK No|BLK  N/A" },
	{ 0x1c0000002ULL, "       1c0000002 |OP LOAD|LVL N/A|SNP N/A|TLB L2 or Walker or Fault|LCK No|BLK  N/A" },
	{ 0x1c4000002ULL, "       1c4000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L2 or Walker or Fault|LCK No|BLK  N/A" },
	{ 0x1c8000002ULL, "       1c8000002 |OP LOAD|LVL N/A|SNP N/A|TLB L2 or Walker or Fault hit|LCK No|BLK  N/A" },
	{ 0x1cc000002ULL, "       1cc000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L2 or Walker or Fault hit|LCK No|BLK  N/A" },
	{ 0x1d0000002ULL, "       1d0000002 |OP LOAD|LVL N/A|SNP N/A|TLB L2 or Walker or Fault miss|LCK No|BLK  N/A" },
	{ 0x1d4000002ULL, "       1d4000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L2 or Walker or Fault miss|LCK No|BLK  N/A" },
	{ 0x1d8000002ULL, "       1d8000002 |OP LOAD|LVL N/A|SNP N/A|TLB L2 or Walker or Fault hit miss|LCK No|BLK  N/A" },
	{ 0x1dc000002ULL, "       1dc000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L2 or Walker or Fault hit miss|LCK No|BLK  N/A" },
	{ 0x1e0000002ULL, "       1e0000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1 or L2 or Walker or Fault|LCK No|BLK  N/A" },
	{ 0x1e4000002ULL, "       1e4000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 or L2 or Walker or Fault|LCK No|BLK  N/A" },
	{ 0x1e8000002ULL, "       1e8000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1 or L2 or Walker or Fault hit|LCK No|BLK  N/A" },
	{ 0x1ec000002ULL, "       1ec000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 or L2 or Walker or Fault hit|LCK No|BLK  N/" },
	{ 0x1f0000002ULL, "       1f0000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1 or L2 or Walker or Fault miss|LCK No|BLK  N/A" },
	{ 0x1f4000002ULL, "       1f4000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 or L2 or Walker or Fault miss|LCK No|BLK  N" },
	{ 0x1f8000002ULL, "       1f8000002 |OP LOAD|LVL N/A|SNP N/A|TLB L1 or L2 or Walker or Fault hit miss|LCK No|BLK  N/A" },
	{ 0x1fc000002ULL, "       1fc000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A or L1 or L2 or Walker or Fault hit miss|LCK No|BL" },
	{ 0x1000002ULL, "         1000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK N/A|BLK  N/A" },
	{ 0x2000002ULL, "         2000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK Yes|BLK  N/A" },
	{ 0x3000002ULL, "         3000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK N/A|BLK  N/A" },
	{ 0x10000000002ULL, "     10000000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x20000000002ULL, "     20000000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  Data" },
	{ 0x30000000002ULL, "     30000000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x40000000002ULL, "     40000000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  Addr" },
	{ 0x50000000002ULL, "     50000000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x60000000002ULL, "     60000000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  Data Addr" },
	{ 0x70000000002ULL, "     70000000002 |OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x0ULL, "               0 |OP No|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x1ULL, "               1 |OP N/A|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x3ULL, "               3 |OP N/A|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x4ULL, "               4 |OP STORE|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x5ULL, "               5 |OP N/A|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x6ULL, "               6 |OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x7ULL, "               7 |OP N/A|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x8ULL, "               8 |OP PFETCH|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x9ULL, "               9 |OP N/A|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0xaULL, "               a |OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0xbULL, "               b |OP N/A|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0xcULL, "               c |OP STORE|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0xdULL, "               d |OP N/A|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0xeULL, "               e |OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0xfULL, "               f |OP N/A|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x10ULL, "              10 |OP EXEC|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x11ULL, "              11 |OP N/A|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x12ULL, "              12 |OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x13ULL, "              13 |OP N/A|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x14ULL, "              14 |OP STORE|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x15ULL, "              15 |OP N/A|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x16ULL, "              16 |OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x17ULL, "              17 |OP N/A|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x18ULL, "              18 |OP PFETCH|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x19ULL, "              19 |OP N/A|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x1aULL, "              1a |OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x1bULL, "              1b |OP N/A|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x1cULL, "              1c |OP STORE|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x1dULL, "              1d |OP N/A|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x1eULL, "              1e |OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0x1fULL, "              1f |OP N/A|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
	{ 0xffffffffffffffffULL, "ffffffffffffffff |OP N/A|LVL Remote (null) N/A hit miss|SNP N/A or None or Hit or Miss or HitM or F" },
	{ 0x400000000000ULL, "    400000000000 |OP No|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A" },
};

static void script_str__every_field_value__equals_perf(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(script_cases) / sizeof(script_cases[0]); i++) {
		char buf[256];
		size_t n = mp_datasrc_script_str(script_cases[i].v, buf, sizeof(buf));
		/* perf pads the field with spaces to the widest so far */
		while (n && buf[n - 1] == ' ')
			buf[--n] = '\0';
		if (strcmp(buf, script_cases[i].perf))
			fail_msg("data_src 0x%llx: got '%s', perf '%s'",
				 (unsigned long long)script_cases[i].v, buf, script_cases[i].perf);
	}
}

/* the report columns of real samples: Skylake-SP PEBS (pdc-mem-load-latency-skx) and Ivy
 * Bridge perf mem (numatop-perf-mem-ivb), as perf report --mem-mode prints them */
struct col_case {
	uint64_t v;
	const char *op, *lvl, *snoop, *tlb, *lock, *blk;
	int line;
};
static const struct col_case col_cases[] = {
	{ 0x11868100242ULL, "LOAD", "LFB/MAB or LFB/MAB hit", "None", "L1 or L2 hit", "No", " N/A",
	  __LINE__ },
	{ 0x10650100842ULL, "LOAD", "L3 or L3 hit", "None", "L2 miss", "No", " N/A", __LINE__ },
	{ 0x1026a100142ULL, "LOAD", "L1 or L1 hit", "None", "L1 or L2 hit", "Yes", " N/A", __LINE__ },
	{ 0x10468100442ULL, "LOAD", "L2 or L2 hit", "None", "L1 or L2 hit", "No", " N/A", __LINE__ },
	{ 0x68100142ULL, "LOAD", "L1 hit", "None", "L1 or L2 hit", "No", " N/A", __LINE__ },
	{ 0x6a100142ULL, "LOAD", "L1 hit", "None", "L1 or L2 hit", "Yes", " N/A", __LINE__ },
	/* page-fault samples: the kernel leaves data_src 0 */
	{ 0, "No", "N/A", "N/A", "N/A", "No", " N/A", __LINE__ },
};

static void column_strs__real_samples__equal_perf_report(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(col_cases) / sizeof(col_cases[0]); i++) {
		const struct col_case *c = &col_cases[i];
		char b[6][160];
		mp_datasrc_op_str(c->v, b[0], sizeof(b[0]));
		mp_datasrc_lvl_str(c->v, b[1], sizeof(b[1]));
		mp_datasrc_snoop_str(c->v, b[2], sizeof(b[2]));
		mp_datasrc_tlb_str(c->v, b[3], sizeof(b[3]));
		mp_datasrc_lock_str(c->v, b[4], sizeof(b[4]));
		mp_datasrc_blk_str(c->v, b[5], sizeof(b[5]));
		const char *want[6] = { c->op, c->lvl, c->snoop, c->tlb, c->lock, c->blk };
		for (int k = 0; k < 6; k++)
			if (strcmp(b[k], want[k]))
				fail_msg("line %d part %d: got '%s', want '%s'", c->line, k, b[k],
					 want[k]);
	}
}

static void decode__fields__land_in_their_bits(void **state)
{
	(void)state;
	struct mp_datasrc d;
	uint64_t v = PERF_MEM_S(OP, STORE) | PERF_MEM_S(LVL, HIT) | PERF_MEM_S(LVL, L3) |
		     PERF_MEM_S(SNOOP, HITM) | PERF_MEM_S(LOCK, LOCKED) | PERF_MEM_S(TLB, WK) |
		     PERF_MEM_S(LVLNUM, PMEM) | PERF_MEM_S(REMOTE, REMOTE) |
		     PERF_MEM_S(SNOOPX, PEER) | PERF_MEM_S(BLK, ADDR) | PERF_MEM_S(HOPS, 2); /* = 3 */
	mp_datasrc_decode(v, &d);
	assert_int_equal(d.op, PERF_MEM_OP_STORE);
	assert_int_equal(d.lvl, PERF_MEM_LVL_HIT | PERF_MEM_LVL_L3);
	assert_int_equal(d.snoop, PERF_MEM_SNOOP_HITM);
	assert_int_equal(d.lock, PERF_MEM_LOCK_LOCKED);
	assert_int_equal(d.dtlb, PERF_MEM_TLB_WK);
	assert_int_equal(d.lvl_num, PERF_MEM_LVLNUM_PMEM);
	assert_int_equal(d.remote, 1);
	assert_int_equal(d.snoopx, PERF_MEM_SNOOPX_PEER);
	assert_int_equal(d.blk, PERF_MEM_BLK_ADDR);
	assert_int_equal(d.hops, 3);
	assert_int_equal(d.rsvd, 0);
	assert_int_equal(mp_datasrc_encode(&d), v);
	/* reserved bits are kept, and printing ignores them */
	mp_datasrc_decode(v | 1ULL << 63 | 1ULL << 46, &d);
	assert_int_equal(d.rsvd, 1u << 17 | 1u);
	assert_int_equal(mp_datasrc_encode(&d), v | 1ULL << 63 | 1ULL << 46);
	char a[128], b[128];
	mp_datasrc_lvl_str(v, a, sizeof(a));
	mp_datasrc_lvl_str(v | 0xffffc00000000000ULL, b, sizeof(b));
	assert_string_equal(a, b);
	assert_string_equal(a, "Remote socket, same board PMEM hit");
	mp_datasrc_snoop_str(v, a, sizeof(a));
	assert_string_equal(a, "HitM or Peer");
}

static void decode__every_word__round_trips(void **state)
{
	(void)state;
	uint64_t v = 0x9e3779b97f4a7c15ULL;
	for (int i = 0; i < 100000; i++) {
		struct mp_datasrc d;
		v ^= v << 13;
		v ^= v >> 7;
		v ^= v << 17;
		mp_datasrc_decode(v, &d);
		if (mp_datasrc_encode(&d) != v)
			fail_msg("0x%llx does not round-trip", (unsigned long long)v);
	}
}

static void strs__small_buffers__cut_and_terminated(void **state)
{
	(void)state;
	char buf[8];
	memset(buf, 'x', sizeof(buf));
	size_t n = mp_datasrc_lvl_str(0x3ffe0, buf, sizeof(buf));
	assert_int_equal(n, 7);
	assert_string_equal(buf, "N/A or ");
	assert_int_equal(mp_datasrc_tlb_str(0, buf, 1), 0);
	assert_string_equal(buf, "");
	assert_int_equal(mp_datasrc_snoop_str(0, NULL, 0), 0);
	char big[256];
	/* perf cuts its field at 99 bytes */
	assert_int_equal(mp_datasrc_script_str(~0ULL, big, sizeof(big)), 99);
}

static void weight_struct__vars__split(void **state)
{
	(void)state;
	uint64_t w = 0x0003000200000001ULL;
	assert_int_equal(mp_weight_var1(w), 1);
	assert_int_equal(mp_weight_var2(w), 2);
	assert_int_equal(mp_weight_var3(w), 3);
	assert_int_equal(mp_weight_var1(0xffffffffULL), 0xffffffffu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(script_str__every_field_value__equals_perf),
		cmocka_unit_test(column_strs__real_samples__equal_perf_report),
		cmocka_unit_test(decode__fields__land_in_their_bits),
		cmocka_unit_test(decode__every_word__round_trips),
		cmocka_unit_test(strs__small_buffers__cut_and_terminated),
		cmocka_unit_test(weight_struct__vars__split),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
