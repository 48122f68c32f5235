/* tui_chains.h - the views with call trees (tui_chains.c): the children list (the symbol
 * list of a recording with call chains, its entries unfolding into their call trees) and
 * the callers and callees of one function. */
#ifndef TUI_CHAINS_H
#define TUI_CHAINS_H

#include "tui_render.h"

extern const struct tui_view_ops tui_children_ops, tui_calls_ops;

/* The children list, the first view of data with children counts. 0 or -ENOMEM. */
int tui_push_children(tui_model *m);

/* What row i of a view with call trees (v a children list or a caller/callee view) is: an
 * entry, the head of a run of tree nodes (with the fold sign and the count) or a node of
 * the run under its head. For tests. */
enum tui_crow_kind { TUI_CROW_ENTRY, TUI_CROW_HEAD, TUI_CROW_RUN };
enum tui_crow_kind tui_chain_row_kind(const struct tui_view *v, size_t i);

/* Key actions of the views with call trees. */
unsigned tui_chain_plus(tui_model *m, struct tui_view *v, int key);     /* + */
unsigned tui_chain_entry(tui_model *m, struct tui_view *v, int key);    /* e */
unsigned tui_chain_all(tui_model *m, struct tui_view *v, int key);      /* E, C */
unsigned tui_chain_annotate(tui_model *m, struct tui_view *v, int key); /* ENTER */
unsigned tui_chain_calls(tui_model *m, struct tui_view *v, int key);    /* c */

#endif
