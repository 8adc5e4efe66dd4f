/* Subcommands of accelos-jit. Each returns the process exit status. */
#ifndef AOS_CLI_H
#define AOS_CLI_H

#include "accelos/jit.h"
#include <stddef.h>

int aos_cli_transform(int argc, char **argv);
int aos_cli_diff(int argc, char **argv);

/* Joins argv[from..argc) with spaces (malloc'd). */
char *aos_cli_join(int argc, char **argv, int from);

#endif
