/* --arg SPEC parsing and seeded buffer filling (see argspec.h). */
#include "argspec.h"

#include <CL/cl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct scalar_type {
	const char *name;
	unsigned size;
	int is_float, is_signed;
};

static const struct scalar_type scalar_types[] = {
	{ "char", 1, 0, 1 },  { "uchar", 1, 0, 0 }, { "short", 2, 0, 1 }, { "ushort", 2, 0, 0 },
	{ "int", 4, 0, 1 },   { "uint", 4, 0, 0 },  { "long", 8, 0, 1 },  { "ulong", 8, 0, 0 },
	{ "float", 4, 1, 1 }, { "double", 8, 1, 1 }, { "size_t", 8, 0, 0 },
};

/* "float4" -> float, 4 lanes (3 lanes stored as 4, as OpenCL does). */
static int parse_type(const char *s, size_t n, struct aos_argspec *a)
{
	for (size_t i = 0; i < sizeof(scalar_types) / sizeof(scalar_types[0]); i++) {
		const struct scalar_type *t = &scalar_types[i];
		size_t tn = strlen(t->name);
		if (n < tn || strncmp(s, t->name, tn) != 0)
			continue;
		unsigned lanes = 1;
		if (n > tn) {
			char digits[8] = { 0 };
			if (n - tn > 2)
				continue;
			memcpy(digits, s + tn, n - tn);
			lanes = (unsigned)atoi(digits);
			if (lanes != 2 && lanes != 3 && lanes != 4 && lanes != 8 && lanes != 16)
				continue;
		}
		a->elem_size = t->size;
		a->lanes = lanes == 3 ? 4 : lanes;
		a->is_float = t->is_float;
		a->is_signed = t->is_signed;
		return 0;
	}
	return -EINVAL;
}

static void store_scalar(uint8_t *dst, const struct aos_argspec *a, const char *text)
{
	if (a->is_float && a->elem_size == 4) {
		float f = strtof(text, NULL);
		memcpy(dst, &f, 4);
	} else if (a->is_float) {
		double d = strtod(text, NULL);
		memcpy(dst, &d, 8);
	} else {
		uint64_t v = a->is_signed ? (uint64_t)strtoll(text, NULL, 0) : strtoull(text, NULL, 0);
		memcpy(dst, &v, a->elem_size); /* little-endian host */
	}
}

static int parse_values(const char *list, struct aos_argspec *a, char *err, size_t len)
{
	char *copy = strdup(list), *save = NULL;
	unsigned lane = 0;
	for (char *v = strtok_r(copy, ",", &save); v; v = strtok_r(NULL, ",", &save)) {
		if ((lane + 1) * a->elem_size > sizeof(a->value) || lane >= a->lanes) {
			snprintf(err, len, "too many values in '%s'", list);
			free(copy);
			return -EINVAL;
		}
		store_scalar(a->value + lane++ * a->elem_size, a, v);
	}
	free(copy);
	if (lane != 1 && lane != a->lanes) {
		snprintf(err, len, "'%s' needs 1 or %u values", list, a->lanes);
		return -EINVAL;
	}
	for (; lane < a->lanes; lane++) /* one value splats */
		memcpy(a->value + lane * a->elem_size, a->value, a->elem_size);
	a->bytes = (size_t)a->elem_size * a->lanes;
	return 0;
}

static int parse_raw(const char *fields, struct aos_argspec *a, char *err, size_t len)
{
	char *copy = strdup(fields), *save = NULL;
	size_t off = 0;
	for (char *f = strtok_r(copy, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(f, '=');
		struct aos_argspec t = { 0 };
		if (!eq || parse_type(f, (size_t)(eq - f), &t) || t.lanes != 1 ||
		    off + t.elem_size > sizeof(a->value)) {
			snprintf(err, len, "bad raw field '%s'", f);
			free(copy);
			return -EINVAL;
		}
		store_scalar(a->value + off, &t, eq + 1);
		off += t.elem_size;
	}
	free(copy);
	a->bytes = off;
	return off ? 0 : -EINVAL;
}

static int parse_fill(const char *s, struct aos_argspec *a)
{
	if (!s || strcmp(s, "rand") == 0)
		a->fill = a->is_float ? AOS_FILL_UNIT : AOS_FILL_RAND;
	else if (strcmp(s, "unit") == 0)
		a->fill = AOS_FILL_UNIT;
	else if (strcmp(s, "zero") == 0)
		a->fill = AOS_FILL_ZERO;
	else if (strcmp(s, "iota") == 0)
		a->fill = AOS_FILL_IOTA;
	else if (strncmp(s, "mod", 3) == 0 && atoll(s + 3) > 0) {
		a->fill = AOS_FILL_MOD;
		a->fill_mod = (uint64_t)atoll(s + 3);
	} else
		return -EINVAL;
	return 0;
}

static int parse_sampler(const char *s, struct aos_argspec *a)
{
	char addr[32] = "", filt[32] = "", norm[32] = "";
	if (sscanf(s, "%31[^:]:%31[^:]:%31s", addr, filt, norm) != 3)
		return -EINVAL;
	a->addressing = strcmp(addr, "clamp") == 0 ? CL_ADDRESS_CLAMP
		      : strcmp(addr, "edge") == 0 ? CL_ADDRESS_CLAMP_TO_EDGE
		      : strcmp(addr, "repeat") == 0 ? CL_ADDRESS_REPEAT
						     : CL_ADDRESS_NONE;
	a->filter = strcmp(filt, "linear") == 0 ? CL_FILTER_LINEAR : CL_FILTER_NEAREST;
	a->normalized = strcmp(norm, "norm") == 0;
	return 0;
}

int aos_argspec_parse(const char *spec, struct aos_argspec *a, char *err, size_t len)
{
	memset(a, 0, sizeof(*a));
	const char *colon = strchr(spec, ':');
	if (!colon) {
		snprintf(err, len, "arg spec '%s' has no ':'", spec);
		return -EINVAL;
	}
	size_t head = (size_t)(colon - spec);
	const char *rest = colon + 1;
	if (strncmp(spec, "buf", head) == 0 && head == 3) {
		char type[32] = "", fill[32] = "";
		size_t count = 0;
		int n = sscanf(rest, "%31[^:]:%zu:%31s", type, &count, fill);
		if (n < 2 || parse_type(type, strlen(type), a) || count == 0 ||
		    parse_fill(n == 3 ? fill : NULL, a)) {
			snprintf(err, len, "bad buffer spec '%s'", spec);
			return -EINVAL;
		}
		a->kind = AOS_ARG_BUFFER;
		a->count = count;
		a->bytes = count * a->elem_size * a->lanes;
		return 0;
	}
	if (head == 5 && strncmp(spec, "local", 5) == 0) {
		a->kind = AOS_ARG_LOCAL;
		a->bytes = strtoull(rest, NULL, 0);
		return a->bytes ? 0 : -EINVAL;
	}
	if (head == 3 && strncmp(spec, "raw", 3) == 0) {
		a->kind = AOS_ARG_VALUE;
		if (parse_raw(rest, a, err, len) == 0)
			return 0;
		snprintf(err, len, "bad raw spec '%s'", spec);
		return -EINVAL;
	}
	if ((head == 7 && strncmp(spec, "image2d", 7) == 0) ||
	    (head == 8 && strncmp(spec, "wimage2d", 8) == 0)) {
		a->kind = spec[0] == 'w' ? AOS_ARG_IMAGE_OUT : AOS_ARG_IMAGE_IN;
		if (sscanf(rest, "%zu:%zu", &a->width, &a->height) != 2 || !a->width || !a->height) {
			snprintf(err, len, "bad image spec '%s'", spec);
			return -EINVAL;
		}
		a->elem_size = 4;
		a->lanes = 4;
		a->is_float = 1;
		a->fill = AOS_FILL_UNIT;
		a->count = a->width * a->height;
		a->bytes = a->count * 16;
		return 0;
	}
	if (head == 7 && strncmp(spec, "sampler", 7) == 0) {
		a->kind = AOS_ARG_SAMPLER;
		if (parse_sampler(rest, a) == 0)
			return 0;
		snprintf(err, len, "bad sampler spec '%s'", spec);
		return -EINVAL;
	}
	if (parse_type(spec, head, a) == 0) {
		a->kind = AOS_ARG_VALUE;
		return parse_values(rest, a, err, len);
	}
	snprintf(err, len, "unknown arg spec '%s'", spec);
	return -EINVAL;
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void aos_argspec_fill(const struct aos_argspec *a, unsigned index, uint64_t seed, void *buf)
{
	uint64_t state = seed * 1000003u + index;
	uint8_t *p = buf;
	size_t comps = a->bytes / a->elem_size;
	for (size_t i = 0; i < comps; i++, p += a->elem_size) {
		uint64_t r = splitmix(&state);
		uint64_t v;
		switch (a->fill) {
		case AOS_FILL_ZERO:
			v = 0;
			break;
		case AOS_FILL_IOTA:
			v = i;
			break;
		case AOS_FILL_MOD:
			v = r % a->fill_mod;
			break;
		default:
			v = r;
		}
		if (a->is_float && a->fill == AOS_FILL_UNIT) {
			double u = (double)(r >> 11) / 9007199254740992.0;
			if (a->elem_size == 4) {
				float f = (float)u;
				memcpy(p, &f, 4);
			} else {
				memcpy(p, &u, 8);
			}
		} else if (a->is_float && a->fill != AOS_FILL_RAND) {
			if (a->elem_size == 4) {
				float f = (float)v;
				memcpy(p, &f, 4);
			} else {
				double d = (double)v;
				memcpy(p, &d, 8);
			}
		} else {
			memcpy(p, &v, a->elem_size);
		}
	}
}
