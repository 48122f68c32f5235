/* Placeholder until the list command lands; replaced by its owner. */
#include <stdio.h>
#include "cli.h"
int cmd_list(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "memprof list: not built yet\n");
	return 1;
}
