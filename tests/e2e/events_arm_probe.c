/* events_arm_probe.c - memprof's event resolution built for aarch64 (libpfm4's arm
 * models exist only in the arm64 build of libpfm4), run under qemu-aarch64 by
 * events_arm_aliases.sh. Each argument is an event list; one line per event:
 *   OK <spec> type=<t> config=0x<c> alias=<a|-> approx=<0|1> resolved=<name>
 * or one line for a list that does not parse:
 *   ERR <list> <message>
 * With --explain ERRNO LIST: the line mp_event_explain_open_error() gives for the first
 * event of LIST (as the collector prints it when the kernel refuses the open). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_events.h"

int main(int argc, char **argv)
{
	struct mp_evopts o;
	int explain = 0, errno_val = 0;

	memset(&o, 0, sizeof(o));
	if (argc > 2 && !strcmp(argv[1], "--explain")) {
		explain = 1;
		errno_val = atoi(argv[2]);
		argv += 2;
		argc -= 2;
	}
	for (int i = 1; i < argc; i++) {
		struct mp_event *ev = NULL;
		size_t n = 0;
		struct mp_err err = { 0, "" };
		if (mp_events_parse(argv[i], &o, &ev, &n, &err)) {
			printf("ERR %s %s\n", argv[i], err.msg);
			continue;
		}
		if (explain) {
			mp_event_explain_open_error(&ev[0], errno_val, &o, &err);
			printf("EXPLAIN %s %s\n", argv[i], err.msg);
		} else {
			for (size_t k = 0; k < n; k++)
				printf("OK %s type=%u config=0x%llx alias=%s approx=%d resolved=%s\n",
				       ev[k].spec, ev[k].attr.type, (unsigned long long)ev[k].attr.config,
				       ev[k].alias[0] ? ev[k].alias : "-", ev[k].approx, ev[k].resolved);
		}
		free(ev);
	}
	return 0;
}
