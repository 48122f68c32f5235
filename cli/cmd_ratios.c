/* Placeholder until the ratios command lands; replaced by its owner. */
#include <stdio.h>
#include "cli.h"
int cmd_ratios(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "memprof ratios: not built yet\n");
	return 1;
}
