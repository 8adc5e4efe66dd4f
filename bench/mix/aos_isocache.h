#ifndef AOS_ISOCACHE_H
#define AOS_ISOCACHE_H
/* Isolated execution times, measured by the mix runner itself under the
 * same configuration and cached per configuration label, size and tenant
 * spec in a JSON-lines file, so slowdowns compare like with like. */
#include <stddef.h>

struct aos_isocache;

struct aos_isocache *aos_isocache_open(const char *path); /* missing file = empty */
double aos_isocache_get(const struct aos_isocache *c, const char *config, const char *size, const char *spec);
int aos_isocache_put(struct aos_isocache *c, const char *config, const char *size, const char *spec, double ns);
void aos_isocache_close(struct aos_isocache *c);
#endif
