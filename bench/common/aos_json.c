#include "aos_json.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define AOS_JSON_MAX_DEPTH 32

struct parser {
	const char *p;
	const char *start;
	char *err;
	size_t errlen;
	int failed;
};

static void fail(struct parser *ps, const char *what)
{
	if (!ps->failed)
		snprintf(ps->err, ps->errlen, "column %ld: %s", (long)(ps->p - ps->start) + 1, what);
	ps->failed = 1;
}

static void skip_ws(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\r' || *ps->p == '\n')
		ps->p++;
}

static int parse_value(struct parser *ps, struct aos_json *v, int depth);

static int hexval(char c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) { o[0] = (char)cp; return 1; }
	if (cp < 0x800) { o[0] = (char)(0xc0 | (cp >> 6)); o[1] = (char)(0x80 | (cp & 0x3f)); return 2; }
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12)); o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f)); return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18)); o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f)); o[3] = (char)(0x80 | (cp & 0x3f)); return 4;
}

static int read_hex4(struct parser *ps, unsigned *cp)
{
	*cp = 0;
	for (int i = 0; i < 4; i++) {
		int h = hexval(ps->p[i]);
		if (h < 0) { fail(ps, "bad \\u escape"); return -1; }
		*cp = *cp * 16 + (unsigned)h;
	}
	ps->p += 4;
	return 0;
}

static char *parse_string(struct parser *ps)
{
	/* Decoded text is never longer than the escaped source. */
	const char *q = ps->p + 1;
	size_t cap = 1;
	while (*q && *q != '"') { if (*q == '\\' && q[1]) q++; q++; cap++; }
	cap += (size_t)(q - ps->p);
	char *out = malloc(cap), *o = out;
	if (!out) { fail(ps, "out of memory"); return NULL; }
	ps->p++;
	for (;;) {
		unsigned char c = (unsigned char)*ps->p;
		if (c == '"') { ps->p++; break; }
		if (c == 0) { fail(ps, "unterminated string"); goto bad; }
		if (c < 0x20) { fail(ps, "control character in string"); goto bad; }
		if (c != '\\') { *o++ = (char)c; ps->p++; continue; }
		ps->p++;
		switch (*ps->p++) {
		case '"': *o++ = '"'; break;
		case '\\': *o++ = '\\'; break;
		case '/': *o++ = '/'; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u': {
			unsigned cp, lo;
			if (read_hex4(ps, &cp)) goto bad;
			if (cp >= 0xd800 && cp < 0xdc00) {
				if (ps->p[0] != '\\' || ps->p[1] != 'u') { fail(ps, "lone surrogate"); goto bad; }
				ps->p += 2;
				if (read_hex4(ps, &lo)) goto bad;
				if (lo < 0xdc00 || lo > 0xdfff) { fail(ps, "bad surrogate pair"); goto bad; }
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			} else if (cp >= 0xdc00 && cp < 0xe000) {
				fail(ps, "lone surrogate"); goto bad;
			}
			o += put_utf8(o, cp);
			break;
		}
		default:
			ps->p--;
			fail(ps, "bad escape in string");
			goto bad;
		}
	}
	*o = 0;
	return out;
bad:
	free(out);
	return NULL;
}

static int parse_number(struct parser *ps, struct aos_json *v)
{
	/* Validate the RFC grammar first; strtod alone accepts hex, inf, etc. */
	const char *q = ps->p;
	if (*q == '-') q++;
	if (*q == '0') q++;
	else if (*q >= '1' && *q <= '9') while (*q >= '0' && *q <= '9') q++;
	else { fail(ps, "bad number"); return -1; }
	if (*q == '.') {
		q++;
		if (!(*q >= '0' && *q <= '9')) { fail(ps, "bad number fraction"); return -1; }
		while (*q >= '0' && *q <= '9') q++;
	}
	if (*q == 'e' || *q == 'E') {
		q++;
		if (*q == '+' || *q == '-') q++;
		if (!(*q >= '0' && *q <= '9')) { fail(ps, "bad number exponent"); return -1; }
		while (*q >= '0' && *q <= '9') q++;
	}
	v->type = AOS_JSON_NUMBER;
	v->number = strtod(ps->p, NULL);
	if (!isfinite(v->number)) { fail(ps, "number out of range"); return -1; }
	ps->p = q;
	return 0;
}

static int push_item(struct parser *ps, struct aos_json *v, size_t *cap)
{
	if (v->count == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		struct aos_json *ni = realloc(v->items, ncap * sizeof(*ni));
		if (!ni) { fail(ps, "out of memory"); return -1; }
		v->items = ni;
		if (v->type == AOS_JSON_OBJECT) {
			char **nk = realloc(v->keys, ncap * sizeof(*nk));
			if (!nk) { fail(ps, "out of memory"); return -1; }
			v->keys = nk;
		}
		*cap = ncap;
	}
	memset(&v->items[v->count], 0, sizeof(v->items[0]));
	if (v->type == AOS_JSON_OBJECT)
		v->keys[v->count] = NULL;
	v->count++;
	return 0;
}

static int parse_container(struct parser *ps, struct aos_json *v, int depth, char close)
{
	size_t cap = 0;
	ps->p++;
	skip_ws(ps);
	if (*ps->p == close) { ps->p++; return 0; }
	for (;;) {
		skip_ws(ps);
		if (push_item(ps, v, &cap)) return -1;
		if (close == '}') {
			if (*ps->p != '"') { fail(ps, "expected string key"); return -1; }
			char *k = parse_string(ps);
			if (!k) return -1;
			v->keys[v->count - 1] = k;
			skip_ws(ps);
			if (*ps->p != ':') { fail(ps, "expected ':'"); return -1; }
			ps->p++;
		}
		if (parse_value(ps, &v->items[v->count - 1], depth + 1)) return -1;
		skip_ws(ps);
		if (*ps->p == ',') { ps->p++; continue; }
		if (*ps->p == close) { ps->p++; return 0; }
		fail(ps, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
		return -1;
	}
}

static int parse_literal(struct parser *ps, const char *word)
{
	size_t n = strlen(word);
	if (strncmp(ps->p, word, n) != 0) { fail(ps, "unexpected character"); return -1; }
	ps->p += n;
	return 0;
}

static int parse_value(struct parser *ps, struct aos_json *v, int depth)
{
	if (depth > AOS_JSON_MAX_DEPTH) { fail(ps, "nesting too deep"); return -1; }
	skip_ws(ps);
	switch (*ps->p) {
	case '{': v->type = AOS_JSON_OBJECT; return parse_container(ps, v, depth, '}');
	case '[': v->type = AOS_JSON_ARRAY; return parse_container(ps, v, depth, ']');
	case '"': v->type = AOS_JSON_STRING; v->string = parse_string(ps); return v->string ? 0 : -1;
	case 't': v->type = AOS_JSON_BOOL; v->boolean = 1; return parse_literal(ps, "true");
	case 'f': v->type = AOS_JSON_BOOL; v->boolean = 0; return parse_literal(ps, "false");
	case 'n': v->type = AOS_JSON_NULL; return parse_literal(ps, "null");
	case 0: fail(ps, "unexpected end of input"); return -1;
	default:
		if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
			return parse_number(ps, v);
		fail(ps, "unexpected character");
		return -1;
	}
}

static void free_inner(struct aos_json *v)
{
	free(v->string);
	for (size_t i = 0; i < v->count; i++) {
		free_inner(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
}

void aos_json_free(struct aos_json *v)
{
	if (!v)
		return;
	free_inner(v);
	free(v);
}

int aos_json_parse(const char *text, struct aos_json **out, char *err, size_t errlen)
{
	struct parser ps = { .p = text, .start = text, .err = err, .errlen = errlen };
	struct aos_json *v = calloc(1, sizeof(*v));
	*out = NULL;
	if (!v) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (parse_value(&ps, v, 0) == 0) {
		skip_ws(&ps);
		if (*ps.p)
			fail(&ps, "trailing characters after value");
	}
	if (ps.failed) {
		aos_json_free(v);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

const struct aos_json *aos_json_get(const struct aos_json *v, const char *key)
{
	if (!v || v->type != AOS_JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < v->count; i++)
		if (strcmp(v->keys[i], key) == 0)
			return &v->items[i];
	return NULL;
}

void aos_json_put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}
