/* Subcommands of accelos-jit. Each returns the process exit status. */
#ifndef AOS_CLI_H
#define AOS_CLI_H

#include "accelos/jit.h"
#include <stddef.h>

int aos_cli_transform(int argc, char **argv);
int aos_cli_diff(int argc, char **argv);

/* Reads a whole text file (NUL-terminated, malloc'd); NULL on error. */
char *aos_cli_read_text(const char *path, size_t *len);
/* Joins argv[from..argc) with spaces (malloc'd). */
char *aos_cli_join(int argc, char **argv, int from);

#endif
