/*
 * Launch description shared by `accelos-jit diff` and the JIT benchmarks:
 * FILE --kernel NAME --global X[,Y[,Z]] [--local ...] [--offset ...]
 * [--seed N] [--arg SPEC]... [-- BUILD-OPTIONS]. Missing local sizes default
 * to the largest power of two (<= 64 in x, <= 4 otherwise) dividing global.
 */
#ifndef AOS_LAUNCH_SPEC_H
#define AOS_LAUNCH_SPEC_H

#include "clrun.h"

#define AOS_LAUNCH_MAX_ARGS 64

struct aos_launch_spec {
	const char *file, *kernel;
	const char *against; /* test knob: rewrite this source instead of file */
	struct aos_launch launch;
	int have_local;
	struct aos_argspec args[AOS_LAUNCH_MAX_ARGS];
	int nargs;
	uint64_t seed;
	char *build_options; /* malloc'd, NULL if none */
	int verbose;
};

/* argv[0] is the subcommand name and is skipped. Returns 0 or -EINVAL after
 * printing why to stderr. Free with aos_launch_spec_free() either way. */
int aos_launch_spec_parse(int argc, char **argv, struct aos_launch_spec *o);
void aos_launch_spec_free(struct aos_launch_spec *o);

#endif
