/* Placeholder until the record command lands; replaced by its owner. */
#include <stdio.h>
#include "cli.h"
int cmd_record(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "memprof record: not built yet\n");
	return 1;
}
