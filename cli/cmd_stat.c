/* Placeholder until the stat command lands; replaced by its owner. */
#include <stdio.h>
#include "cli.h"
int cmd_stat(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "memprof stat: not built yet\n");
	return 1;
}
