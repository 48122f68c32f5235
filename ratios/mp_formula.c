/* mp_formula.c - tokenizer, parser and evaluator of the ratio formula language (grammar
 * and tokenizing rule in mp_ratios.h). */
#include "mp_ratios.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Limits that keep hostile input (the fuzzer) from exhausting stack or memory. */
#define FORMULA_MAX_LEN 4096
#define FORMULA_MAX_DEPTH 64
#define FORMULA_MAX_NODES 1024

enum node_kind { N_NUM, N_EV, N_ADD, N_SUB, N_MUL, N_DIV, N_NEG };

struct node {
	enum node_kind kind;
	double num;
	int ev;        /* N_EV: event index */
	int a, b;      /* operand node indices (< this node's index) */
	unsigned col;  /* column in the file */
};

struct mp_formula {
	char *text;
	char src[256];
	unsigned line;
	struct node *nodes;
	int nn, root;
	size_t cap; /* nodes allocated: grown by doubling (a formula costs its size, not the max) */
	char **ev;
	unsigned *ev_col;
	size_t nev, cap_ev;
	int has_minus;
};

enum tok_kind { T_END, T_LP, T_RP, T_OP, T_NUM, T_NAME };

struct parser {
	mp_formula *f;
	const char *s;
	size_t pos;       /* scan position */
	unsigned col0;    /* file column of s[0] */
	/* current token */
	enum tok_kind tk;
	char op;
	double num;
	char *name;       /* malloc'd for T_NAME */
	size_t tpos;      /* token start */
	int depth;
	struct mp_err *err;
	int failed;
};

static int perr(struct parser *p, size_t at, const char *fmt, const char *arg)
{
	char msg[MP_ERR_MSG_MAX];
	if (p->failed)
		return -MP_EPARSE;
	snprintf(msg, sizeof(msg), fmt, arg ? arg : "");
	mp_err_set(p->err, -MP_EPARSE, "%s:%u:%u: %s", p->f->src, p->f->line,
		   p->col0 + (unsigned)at, msg);
	p->failed = 1;
	return -MP_EPARSE;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static int next_token(struct parser *p)
{
	const char *s = p->s;
	size_t i = p->pos, st;

	free(p->name);
	p->name = NULL;
	while (s[i] && is_space(s[i]))
		i++;
	p->tpos = i;
	if (!s[i]) {
		p->tk = T_END;
		p->pos = i;
		return 0;
	}
	if (s[i] == '(' || s[i] == ')') {
		p->tk = s[i] == '(' ? T_LP : T_RP;
		p->pos = i + 1;
		return 0;
	}
	if (s[i] == '`') {
		st = ++i;
		while (s[i] && s[i] != '`')
			i++;
		if (!s[i])
			return perr(p, p->tpos, "unterminated `quoted name`", NULL);
		if (i == st)
			return perr(p, p->tpos, "empty `quoted name`", NULL);
		p->name = strndup(s + st, i - st);
		if (!p->name)
			return mp_err_set(p->err, -ENOMEM, "out of memory"), p->failed = 1, -ENOMEM;
		p->tk = T_NAME;
		p->pos = i + 1;
		return 0;
	}
	st = i;
	while (s[i] && !is_space(s[i]) && s[i] != '(' && s[i] != ')' && s[i] != '`')
		i++;
	p->pos = i;
	if (i - st == 1 && strchr("+-*/", s[st])) {
		p->tk = T_OP;
		p->op = s[st];
		return 0;
	}
	char *w = strndup(s + st, i - st);
	if (!w)
		return mp_err_set(p->err, -ENOMEM, "out of memory"), p->failed = 1, -ENOMEM;
	if ((w[0] >= '0' && w[0] <= '9') || w[0] == '.') {
		char *end;
		errno = 0;
		double v = strtod(w, &end);
		if (*end || errno || !isfinite(v)) {
			int rc = perr(p, st, "bad number '%s' (binary operators need spaces around them)", w);
			free(w);
			return rc;
		}
		free(w);
		p->tk = T_NUM;
		p->num = v;
		return 0;
	}
	if (strchr("+-*/", w[0])) {
		char c[2] = { w[0], 0 };
		free(w);
		return perr(p, st, "operator '%s' needs a space after it", c);
	}
	p->tk = T_NAME;
	p->name = w;
	return 0;
}

static int add_node(struct parser *p, enum node_kind k, int a, int b, size_t at)
{
	mp_formula *f = p->f;
	if (f->nn >= FORMULA_MAX_NODES)
		return perr(p, at, "formula too long", NULL);
	if (MP_GROW(f->nodes, f->cap, (size_t)f->nn + 1))
		return mp_err_set(p->err, -ENOMEM, "out of memory"), p->failed = 1, -ENOMEM;
	struct node *n = &f->nodes[f->nn];
	memset(n, 0, sizeof(*n));
	n->kind = k;
	n->a = a;
	n->b = b;
	n->col = p->col0 + (unsigned)at;
	return f->nn++;
}

static int event_index(struct parser *p, const char *name, size_t at)
{
	mp_formula *f = p->f;
	for (size_t i = 0; i < f->nev; i++)
		if (!strcmp(f->ev[i], name))
			return (int)i;
	if (MP_GROW2(f->ev, f->ev_col, f->cap_ev, f->nev + 1))
		return mp_err_set(p->err, -ENOMEM, "out of memory"), p->failed = 1, -ENOMEM;
	f->ev[f->nev] = strdup(name);
	if (!f->ev[f->nev])
		return mp_err_set(p->err, -ENOMEM, "out of memory"), p->failed = 1, -ENOMEM;
	f->ev_col[f->nev] = p->col0 + (unsigned)at;
	return (int)f->nev++;
}

static int parse_sum(struct parser *p);

static int parse_unary(struct parser *p)
{
	size_t at = p->tpos;
	int r;

	if (++p->depth > FORMULA_MAX_DEPTH)
		return perr(p, at, "formula nested too deeply", NULL);
	if (p->tk == T_OP && p->op == '-') {
		if (next_token(p) < 0)
			return -MP_EPARSE;
		int a = parse_unary(p);
		if (a < 0)
			return a;
		p->f->has_minus = 1;
		r = add_node(p, N_NEG, a, -1, at);
	} else if (p->tk == T_NUM) {
		r = add_node(p, N_NUM, -1, -1, at);
		if (r >= 0)
			p->f->nodes[r].num = p->num;
		if (r >= 0 && next_token(p) < 0)
			r = -MP_EPARSE;
	} else if (p->tk == T_NAME) {
		int ev = event_index(p, p->name, at);
		if (ev < 0)
			return ev;
		r = add_node(p, N_EV, -1, -1, at);
		if (r >= 0)
			p->f->nodes[r].ev = ev;
		if (r >= 0 && next_token(p) < 0)
			r = -MP_EPARSE;
	} else if (p->tk == T_LP) {
		if (next_token(p) < 0)
			return -MP_EPARSE;
		r = parse_sum(p);
		if (r < 0)
			return r;
		if (p->tk != T_RP) {
			char c[16];
			snprintf(c, sizeof(c), "%u", p->col0 + (unsigned)at);
			return perr(p, p->tpos, "expected ')' to close the '(' at column %s", c);
		}
		if (next_token(p) < 0)
			return -MP_EPARSE;
	} else if (p->tk == T_END) {
		return perr(p, at, "unexpected end of formula: expected an event, a number or '('", NULL);
	} else if (p->tk == T_RP) {
		return perr(p, at, "unexpected ')': expected an event, a number or '('", NULL);
	} else {
		char c[2] = { p->op, 0 };
		return perr(p, at, "unexpected operator '%s': expected an event, a number or '('", c);
	}
	p->depth--;
	return r;
}

static int parse_product(struct parser *p)
{
	int a = parse_unary(p);
	while (a >= 0 && p->tk == T_OP && (p->op == '*' || p->op == '/')) {
		size_t at = p->tpos;
		enum node_kind k = p->op == '*' ? N_MUL : N_DIV;
		if (next_token(p) < 0)
			return -MP_EPARSE;
		int b = parse_unary(p);
		if (b < 0)
			return b;
		a = add_node(p, k, a, b, at);
	}
	return a;
}

static int parse_sum(struct parser *p)
{
	if (++p->depth > FORMULA_MAX_DEPTH)
		return perr(p, p->tpos, "formula nested too deeply", NULL);
	int a = parse_product(p);
	while (a >= 0 && p->tk == T_OP && (p->op == '+' || p->op == '-')) {
		size_t at = p->tpos;
		enum node_kind k = p->op == '+' ? N_ADD : N_SUB;
		if (k == N_SUB)
			p->f->has_minus = 1;
		if (next_token(p) < 0)
			return -MP_EPARSE;
		int b = parse_product(p);
		if (b < 0)
			return b;
		a = add_node(p, k, a, b, at);
	}
	p->depth--;
	return a;
}

mp_formula *mp_formula_parse(const char *text, const char *src, unsigned line, unsigned col,
			     struct mp_err *err)
{
	struct parser p;
	mp_formula *f;

	if (!text)
		text = "";
	f = calloc(1, sizeof(*f));
	if (!f) {
		mp_err_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	snprintf(f->src, sizeof(f->src), "%s", src ? src : "formula");
	f->line = line ? line : 1;
	memset(&p, 0, sizeof(p));
	p.f = f;
	p.s = text;
	p.col0 = col ? col : 1;
	p.err = err;
	if (strlen(text) > FORMULA_MAX_LEN) {
		perr(&p, 0, "formula longer than 4096 characters", NULL);
		goto fail;
	}
	f->text = strdup(text);
	if (!f->text) {
		mp_err_set(err, -ENOMEM, "out of memory");
		goto fail;
	}
	if (next_token(&p) < 0)
		goto fail;
	if (p.tk == T_END) {
		perr(&p, 0, "empty formula", NULL);
		goto fail;
	}
	f->root = parse_sum(&p);
	if (f->root < 0)
		goto fail;
	if (p.tk != T_END) {
		if (p.tk == T_RP)
			perr(&p, p.tpos, "unbalanced ')'", NULL);
		else if (p.tk == T_NAME || p.tk == T_NUM || p.tk == T_LP)
			perr(&p, p.tpos, "expected an operator (+ - * /, with spaces around it)", NULL);
		else
			perr(&p, p.tpos, "unexpected token", NULL);
		goto fail;
	}
	free(p.name);
	return f;
fail:
	free(p.name);
	mp_formula_free(f);
	return NULL;
}

void mp_formula_free(mp_formula *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nev; i++)
		free(f->ev[i]);
	free(f->ev);
	free(f->ev_col);
	free(f->nodes);
	free(f->text);
	free(f);
}

size_t mp_formula_nevents(const mp_formula *f)
{
	return f ? f->nev : 0;
}

const char *mp_formula_event(const mp_formula *f, size_t i)
{
	return f && i < f->nev ? f->ev[i] : NULL;
}

unsigned mp_formula_event_col(const mp_formula *f, size_t i)
{
	return f && i < f->nev ? f->ev_col[i] : 0;
}

const char *mp_formula_src(const mp_formula *f)
{
	return f ? f->text : "";
}

int mp_formula_has_minus(const mp_formula *f)
{
	return f ? f->has_minus : 0;
}

int mp_formula_check(const mp_formula *f, int (*known)(void *ctx, const char *name),
		     void *ctx, struct mp_err *err)
{
	for (size_t i = 0; i < f->nev; i++) {
		if (known(ctx, f->ev[i]))
			continue;
		const char *hint = strpbrk(f->ev[i], "+*/") ?
			" (binary operators need spaces around them)" : "";
		return mp_err_set(err, -MP_EPARSE, "%s:%u:%u: unknown event '%s'%s", f->src,
				  f->line, f->ev_col[i], f->ev[i], hint);
	}
	return 0;
}

int mp_formula_eval(const mp_formula *f, const double *values, double *out, double *grad,
		    struct mp_err *err)
{
	size_t ne = f->nev, nn = (size_t)f->nn;
	double *val = calloc(nn, sizeof(*val));
	double *g = grad ? calloc(nn * (ne ? ne : 1), sizeof(*g)) : NULL;
	int rc = 0;

	if (!val || (grad && !g)) {
		free(val);
		free(g);
		return mp_err_set(err, -ENOMEM, "out of memory");
	}
	/* Nodes are stored children first, so one pass in order evaluates the tree; the
	 * gradient is carried along (forward-mode differentiation). */
	for (size_t i = 0; i < nn; i++) {
		const struct node *n = &f->nodes[i];
		double a = n->a >= 0 ? val[n->a] : 0, b = n->b >= 0 ? val[n->b] : 0;
		double *gi = g ? g + i * ne : NULL;
		const double *ga = g && n->a >= 0 ? g + (size_t)n->a * ne : NULL;
		const double *gb = g && n->b >= 0 ? g + (size_t)n->b * ne : NULL;
		switch (n->kind) {
		case N_NUM:
			val[i] = n->num;
			break;
		case N_EV:
			val[i] = values[n->ev];
			if (gi)
				gi[n->ev] = 1;
			break;
		case N_NEG:
			val[i] = -a;
			for (size_t k = 0; gi && k < ne; k++)
				gi[k] = -ga[k];
			break;
		case N_ADD:
		case N_SUB: {
			double s = n->kind == N_ADD ? 1 : -1;
			val[i] = a + s * b;
			for (size_t k = 0; gi && k < ne; k++)
				gi[k] = ga[k] + s * gb[k];
			break;
		}
		case N_MUL:
			val[i] = a * b;
			for (size_t k = 0; gi && k < ne; k++)
				gi[k] = ga[k] * b + a * gb[k];
			break;
		case N_DIV:
			if (b == 0) {
				rc = mp_err_set(err, -EDOM, "%s:%u:%u: division by zero", f->src,
						f->line, n->col);
				goto out;
			}
			val[i] = a / b;
			for (size_t k = 0; gi && k < ne; k++)
				gi[k] = (ga[k] * b - a * gb[k]) / (b * b);
			break;
		}
	}
	if (!isfinite(val[f->root])) {
		rc = mp_err_set(err, -ERANGE, "%s:%u: result is not a finite number", f->src,
				f->line);
		goto out;
	}
	*out = val[f->root];
	if (grad)
		memcpy(grad, g + (size_t)f->root * ne, ne * sizeof(*grad));
out:
	free(val);
	free(g);
	return rc;
}

size_t mp_formula_sum_groups(const mp_formula *f, unsigned *group_of)
{
	unsigned *uses = calloc(f->nev ? f->nev : 1, sizeof(*uses));
	/* pure[i]: node i is an event or a '+' of pure nodes */
	char *pure = calloc((size_t)f->nn ? (size_t)f->nn : 1, 1);
	unsigned ng = 0;

	for (size_t i = 0; i < f->nev; i++)
		group_of[i] = 0;
	if (!uses || !pure) {
		free(uses);
		free(pure);
		return 0;
	}
	for (int i = 0; i < f->nn; i++) {
		const struct node *n = &f->nodes[i];
		if (n->kind == N_EV)
			uses[n->ev]++;
		pure[i] = n->kind == N_EV || (n->kind == N_ADD && pure[n->a] && pure[n->b]);
	}
	/* a maximal pure '+' node: pure, a sum, and not the operand of a pure parent */
	for (int i = 0; i < f->nn; i++) {
		const struct node *n = &f->nodes[i];
		int parent_pure = 0;
		if (!pure[i] || n->kind != N_ADD)
			continue;
		for (int k = i + 1; k < f->nn; k++)
			if ((f->nodes[k].a == i || f->nodes[k].b == i) && pure[k])
				parent_pure = 1;
		if (parent_pure)
			continue;
		/* collect the leaves: every node below i in the pure subtree */
		int stack[FORMULA_MAX_NODES], sp = 0, ok = 1;
		unsigned id = ++ng;
		stack[sp++] = i;
		while (sp) {
			const struct node *m = &f->nodes[stack[--sp]];
			if (m->kind == N_EV) {
				if (uses[m->ev] != 1)
					ok = 0;
				group_of[m->ev] = id;
			} else {
				stack[sp++] = m->a;
				stack[sp++] = m->b;
			}
		}
		if (!ok) { /* an event used elsewhere too: cannot be folded */
			for (size_t e = 0; e < f->nev; e++)
				if (group_of[e] == id)
					group_of[e] = 0;
			ng--;
		}
	}
	free(uses);
	free(pure);
	return ng;
}

/* Mark the events below node i with mark (events already marked keep theirs). */
static void mark_events(const mp_formula *f, int i, int mark, int *side)
{
	int stack[FORMULA_MAX_NODES], sp = 0;
	stack[sp++] = i;
	while (sp) {
		const struct node *m = &f->nodes[stack[--sp]];
		if (m->kind == N_EV) {
			if (!side[m->ev])
				side[m->ev] = mark;
		} else if (m->kind != N_NUM && sp + 2 <= FORMULA_MAX_NODES) {
			stack[sp++] = m->a;
			if (m->kind != N_NEG)
				stack[sp++] = m->b;
		}
	}
}

static int has_events(const mp_formula *f, int i)
{
	int stack[FORMULA_MAX_NODES], sp = 0;
	stack[sp++] = i;
	while (sp) {
		const struct node *m = &f->nodes[stack[--sp]];
		if (m->kind == N_EV)
			return 1;
		if (m->kind != N_NUM && sp + 2 <= FORMULA_MAX_NODES) {
			stack[sp++] = m->a;
			if (m->kind != N_NEG)
				stack[sp++] = m->b;
		}
	}
	return 0;
}

int mp_formula_sides(const mp_formula *f, int *side)
{
	int i = f->root;

	for (size_t e = 0; e < f->nev; e++)
		side[e] = 0;
	/* through scale factors ("100 * a / b", "a / b * 6") and signs to the main '/' */
	for (;;) {
		const struct node *n = &f->nodes[i];
		if (n->kind == N_NEG) {
			i = n->a;
		} else if (n->kind == N_MUL && !has_events(f, n->a)) {
			i = n->b;
		} else if (n->kind == N_MUL && !has_events(f, n->b)) {
			i = n->a;
		} else {
			break;
		}
	}
	if (f->nodes[i].kind == N_DIV) {
		mark_events(f, f->nodes[i].a, 1, side);
		mark_events(f, f->nodes[i].b, -1, side);
		return 1;
	}
	mark_events(f, f->root, 1, side);
	return 0;
}
