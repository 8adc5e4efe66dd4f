/* Whole text files (see text_file.h). */
#include "text_file.h"

#include <stdio.h>
#include <stdlib.h>

char *aos_read_text(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0, got;
	char *buf = malloc(cap + 1);
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			char *g = realloc(buf, 2 * cap + 1);
			if (!g) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = g;
			cap *= 2;
		}
	}
	fclose(f);
	if (buf)
		buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}
