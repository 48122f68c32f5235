/* Placeholder until the tui command lands; replaced by its owner. */
#include <stdio.h>
#include "cli.h"
int cmd_tui(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "memprof tui: not built yet\n");
	return 1;
}
