/* Launch description parsing (see launch_spec.h). */
#include "launch_spec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *join_words(int argc, char **argv, int from)
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


static int parse_sizes(const char *s, size_t out[3], cl_uint *dims)
{
	cl_uint n = 0;
	char *end;
	while (n < 3) {
		out[n++] = strtoull(s, &end, 0);
		if (*end != ',')
			break;
		s = end + 1;
	}
	if (*end)
		return -EINVAL;
	if (dims)
		*dims = n;
	return 0;
}

/* Largest power of two <= cap dividing n. */
static size_t default_local(size_t n, size_t cap)
{
	size_t l = 1;
	while (l * 2 <= cap && n % (l * 2) == 0)
		l *= 2;
	return l;
}

int aos_launch_spec_parse(int argc, char **argv, struct aos_launch_spec *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = 1;
	size_t local[3] = { 0 }, offset[3] = { 0 };
	cl_uint ldims = 0, odims = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		char err[256];
		if (strcmp(a, "--") == 0) {
			o->build_options = join_words(argc, argv, i + 1);
			break;
		} else if (strcmp(a, "-v") == 0) {
			o->verbose = 1;
		} else if (!v && a[0] == '-') {
			fprintf(stderr, "accelos-jit: %s needs a value\n", a);
			return -EINVAL;
		} else if (strcmp(a, "--kernel") == 0) {
			o->kernel = argv[++i];
		} else if (strcmp(a, "--global") == 0) {
			if (parse_sizes(argv[++i], o->launch.global, &o->launch.dims))
				return -EINVAL;
		} else if (strcmp(a, "--local") == 0) {
			if (parse_sizes(argv[++i], local, &ldims))
				return -EINVAL;
			o->have_local = 1;
		} else if (strcmp(a, "--offset") == 0) {
			if (parse_sizes(argv[++i], offset, &odims))
				return -EINVAL;
		} else if (strcmp(a, "--against") == 0) {
			o->against = argv[++i];
		} else if (strcmp(a, "--seed") == 0) {
			o->seed = strtoull(argv[++i], NULL, 0);
		} else if (strcmp(a, "--arg") == 0) {
			if (o->nargs == AOS_LAUNCH_MAX_ARGS)
				return -E2BIG;
			if (aos_argspec_parse(argv[++i], &o->args[o->nargs++], err, sizeof(err))) {
				fprintf(stderr, "accelos-jit: %s\n", err);
				return -EINVAL;
			}
		} else if (!o->file && a[0] != '-') {
			o->file = a;
		} else {
			fprintf(stderr, "accelos-jit: unexpected '%s'\n", a);
			return -EINVAL;
		}
	}
	struct aos_launch *l = &o->launch;
	if (!o->file || !o->kernel || !l->dims) {
		fprintf(stderr, "accelos-jit: FILE, --kernel and --global are required\n");
		return -EINVAL;
	}
	if ((o->have_local && ldims != l->dims) || (odims && odims != l->dims)) {
		fprintf(stderr, "accelos-jit: --local/--offset need %u dimensions\n", l->dims);
		return -EINVAL;
	}
	for (cl_uint d = 0; d < l->dims; d++) {
		l->local[d] = o->have_local ? local[d] : default_local(l->global[d], d ? 4 : 64);
		l->offset[d] = offset[d];
		if (!l->local[d] || l->global[d] % l->local[d]) {
			fprintf(stderr, "accelos-jit: global size must be a multiple of local\n");
			return -EINVAL;
		}
	}
	for (cl_uint d = l->dims; d < 3; d++) {
		l->global[d] = l->local[d] = 1;
		l->offset[d] = 0;
	}
	return 0;
}

void aos_launch_spec_free(struct aos_launch_spec *o)
{
	free(o->build_options);
	o->build_options = NULL;
}
