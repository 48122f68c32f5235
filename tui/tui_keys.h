/* tui_keys.h - the key table (tui_keys.c): one table of {key, views, action, help, status}
 * that the model dispatches on, that makes the help screen, --help's key list and every
 * view's status line. Above the views: its actions are theirs. */
#ifndef TUI_KEYS_H
#define TUI_KEYS_H

#include "tui_view.h"

/* A key binding: key in the views of the mask runs action. help is the binding's line on
 * the help screen ("keys\tmeaning", a second line after '\n'), NULL when an earlier
 * binding's line covers it; key 0 is a heading of the help screen. clamp: the view's
 * scroll is clamped after the action (keys of one view; global keys leave it to the next
 * render). status: what the status line of these views says of the key ("ENTER annotate",
 * starting with the key's name), NULL when no view names it there (each view's ops->status
 * lists the keys it names). */
typedef unsigned (*tui_action_fn)(tui_model *m, struct tui_view *v, int key);
struct tui_binding {
	int key;
	unsigned views;
	tui_action_fn action;
	const char *help;
	int clamp;
	const char *status;
};
extern const struct tui_binding tui_bindings[];
extern const size_t tui_nbindings;

/* The binding that key runs in the views of bit (TUI_V_*), NULL when none. */
const struct tui_binding *tui_find_binding(unsigned bit, int key);
/* The status line of a view of ops: the status texts of the bindings of the keys in
 * ops->status, two spaces apart, in buf (n bytes). */
void tui_status_line(const struct tui_view_ops *ops, char *buf, size_t n);

#endif
