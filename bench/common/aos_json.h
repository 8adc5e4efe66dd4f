#ifndef AOS_JSON_H
#define AOS_JSON_H
#include <stddef.h>
#include <stdio.h>

/* A strict RFC 8259 parser for one JSON value per line (JSON lines).
 * Strict means: no trailing commas, no comments, no NaN, no bare words,
 * nothing after the value but whitespace. Nesting is capped so hostile
 * input cannot blow the stack. */
enum aos_json_type {
	AOS_JSON_NULL, AOS_JSON_BOOL, AOS_JSON_NUMBER,
	AOS_JSON_STRING, AOS_JSON_ARRAY, AOS_JSON_OBJECT,
};

struct aos_json {
	enum aos_json_type type;
	int boolean;
	double number;
	char *string;           /* STRING: decoded, NUL-terminated */
	size_t count;           /* ARRAY/OBJECT: number of items */
	struct aos_json *items; /* ARRAY/OBJECT values */
	char **keys;            /* OBJECT keys, parallel to items */
};

/* Parses text into *out (caller frees with aos_json_free). Returns 0, or
 * -EINVAL with err naming the column and what was wrong. */
int aos_json_parse(const char *text, struct aos_json **out, char *err, size_t errlen);
void aos_json_free(struct aos_json *v);
/* Member of an object, or NULL when absent or v is not an object. */
const struct aos_json *aos_json_get(const struct aos_json *v, const char *key);
/* Writes s as a JSON string literal with escapes. */
void aos_json_put_string(FILE *f, const char *s);
#endif
