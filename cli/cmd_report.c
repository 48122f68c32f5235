/* Placeholder until the report command lands; replaced by its owner. */
#include <stdio.h>
#include "cli.h"
int cmd_report(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "memprof report: not built yet\n");
	return 1;
}
