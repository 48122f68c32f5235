/* mp_vgsim_instr.c - mpsim's instrumentation: each guest block gets calls to the helpers
 * of mp_vgsim.c for its instructions' fetches, loads, stores, software prefetches and
 * branches, in callgrind's order (the counts equal callgrind's). */
#include "pub_tool_basics.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "libvex_guest_amd64.h"
#include "pub_tool_xarray.h"

#include "mp_vgsim.h"

/* ---- instrumentation ------------------------------------------------------------------ */
/* Events of the instructions seen since the last flush, as callgrind queues them: an
 * instruction's fetch and its data accesses, in order; a write to what the same
 * instruction just read (same address and size) is one access, counted as a write. */
enum { P_IR, P_DR, P_DW };
struct pend {
	Int tag;
	struct ins *ii;
	IRExpr *ea;
	Int size;
};
#define N_PEND 16
struct ist {
	IRSB *out;
	struct pend p[N_PEND];
	Int n;
	struct ins *bc0; /* a retry exit of a lock-prefixed instruction since the last batch */
};

static void emit(struct ist *s, const HChar *name, void *fn, Int regparms, IRExpr **args,
		 IRExpr *guard)
{
	IRDirty *di = unsafeIRDirty_0_N(regparms, name, VG_(fnptr_to_fnentry)(fn), args);
	if (guard)
		di->guard = guard;
	addStmtToIRSB(s->out, IRStmt_Dirty(di));
}

static IRExpr *ptr(const void *p)
{
	return mkIRExpr_HWord((HWord)p);
}

static IRExpr **args_vec(IRExpr **a, Int n)
{
	switch (n) {
	case 1: return mkIRExprVec_1(a[0]);
	case 2: return mkIRExprVec_2(a[0], a[1]);
	case 3: return mkIRExprVec_3(a[0], a[1], a[2]);
	case 4: return mkIRExprVec_4(a[0], a[1], a[2], a[3]);
	case 5: return mkIRExprVec_5(a[0], a[1], a[2], a[3], a[4]);
	default: return mkIRExprVec_6(a[0], a[1], a[2], a[3], a[4], a[5]);
	}
}

/* A fetch of c that surely hits when p (fetched just before on the same core) did: both
 * lie in one I1 line and one page. */
static Bool same_line(const struct ins *p, const struct ins *c)
{
	Addr g = (Addr)(clo_i1.line < clo_page ? clo_i1.line : clo_page);
	Addr l = p->addr / g;
	return (p->addr + p->size - 1) / g == l && c->addr / g == l &&
	       (c->addr + c->size - 1) / g == l;
}

/* The one copy of batch b's contents (b is the caller's): valgrind discards translations
 * and makes them again (its translation cache recycles sectors, code is unmapped), and
 * their batches must not pile up meanwhile. */
#define BATCH_HASH (1u << 16)
static struct batch **table;

void mps_batch_fold(Bool keep)
{
	for (UInt k = 0; table && k < BATCH_HASH; k++)
		for (struct batch *b = table[k]; b; b = b->next) {
			for (UInt j = 0; keep && b->execs && j < b->n; j++)
				if (b->e[j].kind == EV_IR)
					b->e[j].ii->v[Q_IR] += b->execs;
			b->execs = 0;
		}
}

static struct batch *batch_intern(const struct batch *b)
{
	SizeT es = (SizeT)(b->n + b->nop) * sizeof(b->e[0]);
	ULong h = (ULong)(UWord)b->bc ^ (ULong)(UWord)b->bc0 ^ b->n;
	for (UInt k = 0; k < b->n; k++)
		h = (h ^ (ULong)(UWord)b->e[k].ii ^ (ULong)b->e[k].kind << 48 ^
		     (ULong)b->e[k].size << 32) * 0x9e3779b97f4a7c15ULL;
	UInt slot = (UInt)(h >> 48) & (BATCH_HASH - 1);
	if (!table)
		table = VG_(calloc)("mpsim.batches", BATCH_HASH, sizeof(*table));
	for (struct batch *o = table[slot]; o; o = o->next)
		if (o->bc == b->bc && o->bc0 == b->bc0 && o->n == b->n &&
		    !VG_(memcmp)(o->e, b->e, es))
			return o;
	struct batch *c = VG_(malloc)("mpsim.batch", sizeof(*c) + es);
	/* its buffer records keep 16 bits above the pointer's 48 (REC_FOLD_SHIFT) */
	tl_assert2(((Addr)c >> 48) == 0, "mpsim: a batch at %#lx, above 48 bits", (Addr)c);
	VG_(memcpy)(c, b, sizeof(*c) + es);
	c->next = table[slot];
	table[slot] = c;
	return c;
}

/* The pending events as batches (struct batch, one helper call each, BATCH_ARGS data
 * addresses at most), the last one with the conditional branch of bc (taken: its guard as
 * a word) when bc is set, and the retry exit seen since the last batch (s->bc0). */
static void pend_flush_bc(struct ist *s, struct ins *bc, IRExpr *taken)
{
	static void *const fns[BATCH_ARGS + 1] = { h_batch0, h_batch1, h_batch2,
						   h_batch3, h_batch4, h_batch5 };
	for (Int i = 0; i < s->n || bc || s->bc0;) {
		IRExpr *arg[BATCH_ARGS + 1];
		Int j = i, nx = 0;
		while (j < s->n && (s->p[j].tag == P_IR || nx < BATCH_ARGS)) {
			if (s->p[j].tag != P_IR)
				arg[1 + nx++] = s->p[j].ea;
			j++;
		}
		union {
			struct batch b;
			UChar bytes[sizeof(struct batch) + 2 * N_PEND * sizeof(struct bev)];
		} tmp;
		struct batch *b = &tmp.b;
		VG_(memset)(&tmp, 0, sizeof(tmp)); /* padding too: batches compare as bytes */
		b->n = (UInt)(j - i);
		b->bc = NULL;
		const struct ins *prev = NULL;
		for (Int k = i; k < j; k++) {
			const struct pend *p = &s->p[k];
			struct bev *e = &b->e[k - i];
			e->ii = p->ii;
			if (p->tag == P_IR) {
				e->kind = EV_IR;
				e->size = prev && same_line(prev, p->ii);
				prev = p->ii;
				b->nir++;
				e->dt = b->nir;
				b->fm |= mps_set_bit(p->ii->addr / (Addr)clo_i1.line) |
					 mps_set_bit((p->ii->addr + p->ii->size - 1) / (Addr)clo_i1.line);
			} else {
				e->kind = p->tag == P_DW ? EV_DW : EV_DR;
				e->size = (UShort)p->size;
				e->dt = b->nir;
				b->dsize[b->nd++] = (UChar)(p->size & 0xff);
			}
		}
		for (UInt k = 0; k < b->n; k++)
			if (b->e[k].kind != EV_IR || !b->e[k].size)
				b->e[b->n + b->nop++] = b->e[k];
		if (j == s->n) {
			b->bc0 = s->bc0;
			s->bc0 = NULL;
		}
		if (bc && j == s->n && nx < BATCH_ARGS) {
			b->bc = bc;
			arg[1 + nx++] = taken;
			bc = NULL;
		}
		arg[0] = ptr(batch_intern(b));
		emit(s, "h_batch", fns[nx], 0, args_vec(arg, nx + 1), NULL);
		i = j;
	}
	s->n = 0;
}

static void pend_flush(struct ist *s)
{
	pend_flush_bc(s, NULL, NULL);
}

static void pend_add(struct ist *s, Int tag, struct ins *ii, IRExpr *ea, Int size)
{
	if (tag == P_DW && s->n > 0) {
		struct pend *l = &s->p[s->n - 1];
		if (l->tag == P_DR && l->ii == ii && l->size == size && eqIRAtom(l->ea, ea)) {
			l->tag = P_DW;
			return;
		}
	}
	if (s->n == N_PEND)
		pend_flush(s);
	s->p[s->n].tag = tag;
	s->p[s->n].ii = ii;
	s->p[s->n].ea = ea;
	s->p[s->n].size = size;
	s->n++;
}

Int mps_min_line;

/* The guest register r (0 RAX .. 15 R15) as a temporary of sb. */
static IRExpr *get_reg(IRSB *sb, Int r)
{
	IRTemp t = newIRTemp(sb->tyenv, Ity_I64);
	addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Get(offsetof(VexGuestAMD64State, guest_RAX) +
						      8 * r, Ity_I64)));
	return IRExpr_RdTmp(t);
}

static IRExpr *add64(IRSB *sb, IRExpr *x, IRExpr *y)
{
	IRTemp t = newIRTemp(sb->tyenv, Ity_I64);
	addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Binop(Iop_Add64, x, y)));
	return IRExpr_RdTmp(t);
}

/* VEX turns software prefetches into nothing, so they are decoded here: when the len
 * bytes at a are prefetchnta/t0/t1/t2 (0F 18 /0-3) or prefetchw (0F 0D /0-1), the IR
 * computing their address is added to sb and returned (*hint: 0 nta, 1-3 t0-t2, 4 w);
 * else NULL. 32-bit addressing (0x67) is not decoded. */
static IRExpr *prefetch_ea(IRSB *sb, Addr a, UInt len, UWord *hint)
{
	const UChar *p = (const UChar *)a, *end = p + len;
	UInt rex = 0;
	while (p < end && (*p == 0x66 || *p == 0xF2 || *p == 0xF3 || *p == 0x2E || *p == 0x3E ||
			   *p == 0x26 || *p == 0x36 || *p == 0x64 || *p == 0x65))
		p++;
	if (p < end && (*p & 0xF0) == 0x40)
		rex = *p++;
	if (end - p < 3 || p[0] != 0x0F || (p[1] != 0x18 && p[1] != 0x0D))
		return NULL;
	UInt mod = p[2] >> 6, reg = (p[2] >> 3) & 7, rm = p[2] & 7;
	Bool w = p[1] == 0x0D;
	p += 3;
	if (mod == 3 || (!w && reg > 3) || (w && reg > 1))
		return NULL;
	*hint = w ? 4 : reg;
	Int base = -1, index = -1, scale = 0;
	Bool rip = False, d32 = mod == 2;
	if (rm == 4) {
		if (p >= end)
			return NULL;
		UInt sib = *p++;
		scale = (Int)(sib >> 6);
		index = (Int)(((sib >> 3) & 7) | (rex & 2 ? 8 : 0));
		if (index == 4)
			index = -1;
		base = (Int)((sib & 7) | (rex & 1 ? 8 : 0));
		if ((sib & 7) == 5 && mod == 0) {
			base = -1;
			d32 = True;
		}
	} else if (rm == 5 && mod == 0) {
		rip = d32 = True;
	} else {
		base = (Int)(rm | (rex & 1 ? 8 : 0));
	}
	Long disp = 0;
	if (mod == 1) {
		if (p >= end)
			return NULL;
		disp = (Char)*p++;
	} else if (d32) {
		if (end - p < 4)
			return NULL;
		disp = (Int)((UInt)p[0] | (UInt)p[1] << 8 | (UInt)p[2] << 16 | (UInt)p[3] << 24);
		p += 4;
	}
	IRExpr *e = mkIRExpr_HWord((HWord)(disp + (rip ? (Long)(a + len) : 0)));
	if (base >= 0)
		e = add64(sb, get_reg(sb, base), e);
	if (index >= 0) {
		IRTemp t = newIRTemp(sb->tyenv, Ity_I64);
		addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Binop(Iop_Shl64, get_reg(sb, index),
							       IRExpr_Const(IRConst_U8((UChar)scale)))));
		e = add64(sb, e, IRExpr_RdTmp(t));
	}
	return e;
}

static Addr const_addr(const IRConst *c)
{
	return c->tag == Ico_U64 ? (Addr)c->Ico.U64 : (Addr)c->Ico.U32;
}

IRSB *mps_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
			    const VexGuestExtents *vge, const VexArchInfo *archinfo_host,
			    IRType gWordTy, IRType hWordTy)
{
	struct ist s;
	struct ins *ci = NULL;
	Addr ci_at = 0;  /* the guest address of ci's IMark */
	Bool locked = False; /* ci has a compare-and-swap (it is lock-prefixed) */
	Int i = 0;

	(void)closure, (void)layout, (void)vge, (void)archinfo_host, (void)gWordTy;
	s.out = deepCopyIRSBExceptStmts(in);
	s.n = 0;
	s.bc0 = NULL;
	while (i < in->stmts_used && in->stmts[i]->tag != Ist_IMark)
		addStmtToIRSB(s.out, in->stmts[i++]);

	/* VEX may invert the block's last conditional exit, the one that jumps to the next
	 * instruction: its guard is then the branch's "not taken" (callgrind's heuristic) */
	Int nexits = 0, last_exit = -1;
	Bool inverted = False;
	{
		Addr ia = 0;
		UInt il = 0;
		for (Int k = i; k < in->stmts_used; k++) {
			IRStmt *st = in->stmts[k];
			if (st->tag == Ist_IMark) {
				ia = st->Ist.IMark.addr;
				il = st->Ist.IMark.len;
			} else if (st->tag == Ist_Exit) {
				inverted = const_addr(st->Ist.Exit.dst) == ia + il;
				last_exit = nexits++;
			}
		}
	}
	Int exit_no = 0;

	for (; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];
		switch (st->tag) {
		case Ist_IMark: {
			UInt len = st->Ist.IMark.len;
			if (len == 0)
				len = VG_MIN_INSTR_SZB;
			ci = mps_ins_get(st->Ist.IMark.addr + (Addr)st->Ist.IMark.delta, len);
			ci_at = st->Ist.IMark.addr;
			locked = False;
			pend_add(&s, P_IR, ci, NULL, 0);
			UWord hint;
			IRExpr *ea = prefetch_ea(s.out, ci->addr, len, &hint);
			if (ea) {
				pend_flush(&s);
				emit(&s, "h_pf", h_pf, 3,
				     mkIRExprVec_3(ptr(ci), ea, mkIRExpr_HWord(hint)), NULL);
			}
			break;
		}
		case Ist_WrTmp: {
			IRExpr *d = st->Ist.WrTmp.data;
			if (d->tag == Iex_Load)
				pend_add(&s, P_DR, ci, d->Iex.Load.addr, sizeofIRType(d->Iex.Load.ty));
			break;
		}
		case Ist_Store:
			pend_add(&s, P_DW, ci, st->Ist.Store.addr,
				 sizeofIRType(typeOfIRExpr(in->tyenv, st->Ist.Store.data)));
			break;
		case Ist_StoreG: {
			IRStoreG *sg = st->Ist.StoreG.details;
			pend_flush(&s);
			emit(&s, "h_dw", h_dw, 3,
			     mkIRExprVec_3(ptr(ci), sg->addr,
					   mkIRExpr_HWord((HWord)sizeofIRType(
						   typeOfIRExpr(in->tyenv, sg->data)))),
			     sg->guard);
			break;
		}
		case Ist_LoadG: {
			IRLoadG *lg = st->Ist.LoadG.details;
			IRType ty = Ity_INVALID, wide = Ity_INVALID;
			typeOfIRLoadGOp(lg->cvt, &wide, &ty);
			pend_flush(&s);
			emit(&s, "h_dr", h_dr, 3,
			     mkIRExprVec_3(ptr(ci), lg->addr, mkIRExpr_HWord((HWord)sizeofIRType(ty))),
			     lg->guard);
			break;
		}
		case Ist_Dirty: {
			IRDirty *d = st->Ist.Dirty.details;
			if (d->mFx != Ifx_None) {
				Int sz = d->mSize > mps_min_line ? mps_min_line : d->mSize;
				if (sz > 128) /* the size field has 8 bits */
					sz = 128;
				if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
					pend_add(&s, P_DR, ci, d->mAddr, sz);
				if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
					pend_add(&s, P_DW, ci, d->mAddr, sz);
			}
			break;
		}
		case Ist_CAS: {
			IRCAS *cas = st->Ist.CAS.details;
			Int sz = sizeofIRType(typeOfIRExpr(in->tyenv, cas->dataLo));
			if (cas->dataHi)
				sz *= 2;
			/* lock-prefixed instructions come as CAS */
			pend_add(&s, P_DR, ci, cas->addr, sz | SZ_LOCKED);
			pend_add(&s, P_DW, ci, cas->addr, sz | SZ_LOCKED);
			locked = True;
			break;
		}
		case Ist_LLSC:
			if (!st->Ist.LLSC.storedata) {
				pend_add(&s, P_DR, ci, st->Ist.LLSC.addr,
					 sizeofIRType(typeOfIRTemp(in->tyenv, st->Ist.LLSC.result)));
				pend_flush(&s);
			} else {
				pend_add(&s, P_DW, ci, st->Ist.LLSC.addr,
					 sizeofIRType(typeOfIRExpr(in->tyenv, st->Ist.LLSC.storedata)));
			}
			break;
		case Ist_Exit: {
			IRJumpKind jk = st->Ist.Exit.jk;
			if (jk == Ijk_Boring && locked && const_addr(st->Ist.Exit.dst) == ci_at) {
				/* the retry of a lock-prefixed instruction whose compare-and-swap
				 * failed: valgrind runs one thread at a time, so it never is, and the
				 * events after it stay in the batch; the branch is counted not taken
				 * (callgrind counts it) */
				if (s.bc0)
					pend_flush(&s);
				s.bc0 = ci;
				exit_no++;
				break;
			}
			if (jk == Ijk_Boring || jk == Ijk_Call || jk == Ijk_Ret) {
				/* the guard as a word, inverted when VEX inverted the branch */
				IRTemp g1 = newIRTemp(s.out->tyenv, Ity_I1);
				IRTemp gw = newIRTemp(s.out->tyenv, hWordTy);
				addStmtToIRSB(s.out, IRStmt_WrTmp(g1, st->Ist.Exit.guard));
				addStmtToIRSB(s.out, IRStmt_WrTmp(gw, IRExpr_Unop(Iop_1Uto64,
										 IRExpr_RdTmp(g1))));
				IRExpr *g = IRExpr_RdTmp(gw);
				if (exit_no == last_exit && inverted) {
					IRTemp gi = newIRTemp(s.out->tyenv, hWordTy);
					addStmtToIRSB(s.out,
						      IRStmt_WrTmp(gi, IRExpr_Binop(Iop_Xor64, g,
										    IRExpr_Const(IRConst_U64(1)))));
					g = IRExpr_RdTmp(gi);
				}
				pend_flush_bc(&s, ci, g);
			}
			pend_flush(&s);
			exit_no++;
			break;
		}
		default:
			break;
		}
		addStmtToIRSB(s.out, st);
	}
	/* an indirect jump or call (returns are taken as always predicted) */
	if ((in->jumpkind == Ijk_Boring || in->jumpkind == Ijk_Call) && in->next->tag == Iex_RdTmp) {
		pend_flush(&s);
		emit(&s, "h_bi", h_bi, 2, mkIRExprVec_2(ptr(ci), in->next), NULL);
	}
	pend_flush(&s);
	return s.out;
}

