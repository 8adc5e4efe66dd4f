/* accelos-jit: command-line front end of the accelOS JIT. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(void)
{
	fputs("usage: accelos-jit transform FILE.cl [-o OUT] [--target spir64|nvptx64|spirv]\n"
	      "                   [--sm NN] [--no-cache] [-- BUILD-OPTIONS]\n"
	      "       accelos-jit diff FILE.cl --kernel NAME --global X[,Y[,Z]] [--local ...]\n"
	      "                   [--offset ...] [--seed N] [--arg SPEC]... [-v] [-- BUILD-OPTIONS]\n"
	      "(arg specs: see docs/jit.md)\n",
	      stderr);
}

char *aos_cli_join(int argc, char **argv, int from)
{
	size_t n = 1;
	for (int i = from; i < argc; i++)
		n += strlen(argv[i]) + 1;
	char *s = calloc(1, n);
	for (int i = from; s && i < argc; i++) {
		if (i > from)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage();
		return 2;
	}
	if (strcmp(argv[1], "transform") == 0)
		return aos_cli_transform(argc - 1, argv + 1);
	if (strcmp(argv[1], "diff") == 0)
		return aos_cli_diff(argc - 1, argv + 1);
	usage();
	return 2;
}
