#include "aos_isocache.h"
#include "aos_json.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	char key[320];
	double ns;
};

struct aos_isocache {
	char *path;
	struct entry *items;
	size_t count, cap;
};

static void make_key(char *key, size_t len, const char *config, const char *size, const char *spec)
{
	snprintf(key, len, "%s|%s|%s", config, size, spec);
}

static int add(struct aos_isocache *c, const char *key, double ns)
{
	for (size_t i = 0; i < c->count; i++)
		if (strcmp(c->items[i].key, key) == 0) {
			c->items[i].ns = ns;
			return 0;
		}
	if (c->count == c->cap) {
		size_t ncap = c->cap ? 2 * c->cap : 32;
		struct entry *n = realloc(c->items, ncap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		c->items = n;
		c->cap = ncap;
	}
	snprintf(c->items[c->count].key, sizeof(c->items[0].key), "%s", key);
	c->items[c->count++].ns = ns;
	return 0;
}

struct aos_isocache *aos_isocache_open(const char *path)
{
	struct aos_isocache *c = calloc(1, sizeof(*c));
	char *line = NULL, err[128], key[320];
	size_t cap = 0;
	if (!c || !(c->path = strdup(path))) {
		free(c);
		return NULL;
	}
	FILE *f = fopen(path, "r");
	if (!f)
		return c;
	/* Entries that do not parse are skipped: the cache only saves time. */
	while (getline(&line, &cap, f) >= 0) {
		struct aos_json *v;
		if (aos_json_parse(line, &v, err, sizeof(err)))
			continue;
		const struct aos_json *cf = aos_json_get(v, "config"), *sz = aos_json_get(v, "size");
		const struct aos_json *sp = aos_json_get(v, "kernel"), *ns = aos_json_get(v, "iso_ns");
		if (cf && sz && sp && ns && cf->type == AOS_JSON_STRING && sz->type == AOS_JSON_STRING &&
		    sp->type == AOS_JSON_STRING && ns->type == AOS_JSON_NUMBER && ns->number > 0) {
			make_key(key, sizeof(key), cf->string, sz->string, sp->string);
			add(c, key, ns->number);
		}
		aos_json_free(v);
	}
	free(line);
	fclose(f);
	return c;
}

double aos_isocache_get(const struct aos_isocache *c, const char *config, const char *size, const char *spec)
{
	char key[320];
	make_key(key, sizeof(key), config, size, spec);
	for (size_t i = 0; i < c->count; i++)
		if (strcmp(c->items[i].key, key) == 0)
			return c->items[i].ns;
	return 0;
}

int aos_isocache_put(struct aos_isocache *c, const char *config, const char *size, const char *spec, double ns)
{
	char key[320];
	make_key(key, sizeof(key), config, size, spec);
	int rc = add(c, key, ns);
	FILE *f = fopen(c->path, "a");
	if (!f)
		return rc ? rc : -errno;
	fputs("{\"config\":", f);
	aos_json_put_string(f, config);
	fputs(",\"size\":", f);
	aos_json_put_string(f, size);
	fputs(",\"kernel\":", f);
	aos_json_put_string(f, spec);
	fprintf(f, ",\"iso_ns\":%.0f}\n", ns);
	fclose(f);
	return rc;
}

void aos_isocache_close(struct aos_isocache *c)
{
	if (!c)
		return;
	free(c->items);
	free(c->path);
	free(c);
}
