/* Placeholder until the annotate command lands; replaced by its owner. */
#include <stdio.h>
#include "cli.h"
int cmd_annotate(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "memprof annotate: not built yet\n");
	return 1;
}
