/* Whole text files: kernel sources and spec files, for the accelos-jit CLI and the JIT
 * benchmarks and probes. */
#ifndef AOS_TEXT_FILE_H
#define AOS_TEXT_FILE_H

#include <stddef.h>

/* Reads a whole file (NUL-terminated, malloc'd; any size, pipes too); NULL on error. *len, when
 * len is not NULL, is its length without the NUL. */
char *aos_read_text(const char *path, size_t *len);

#endif
