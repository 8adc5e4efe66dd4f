/*
 * accelos-jit-time: the JIT's own cost, in process and without a device: each source compiled
 * REPS times (no cache) for one target, the median per source and their geometric mean. It
 * needs no OpenCL device, so a CPU-only machine measures the PTX transform the GPU's JIT cost
 * includes (bench/RESULTS.md §3, session 23).
 *   accelos-jit-time [--target spir64|nvptx64] [--reps N] FILE.cl...
 */
#include "accelos/jit.h"
#include "text_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int usage(void)
{
	fprintf(stderr, "usage: accelos-jit-time [--target spir64|nvptx64] [--reps N] FILE.cl...\n");
	return 2;
}

int main(int argc, char **argv)
{
	enum aos_jit_target target = AOS_JIT_TARGET_SPIR64;
	int reps = 9, first = 1;
	for (; first < argc && strncmp(argv[first], "--", 2) == 0; first += 2) {
		if (first + 1 >= argc)
			return usage();
		if (strcmp(argv[first], "--target") == 0)
			target = aos_jit_target_parse(argv[first + 1]);
		else if (strcmp(argv[first], "--reps") == 0)
			reps = atoi(argv[first + 1]);
		else
			return usage();
	}
	if (target == AOS_JIT_TARGET_NONE || reps < 1 || reps > 1000 || first >= argc)
		return usage();
	double *t = calloc((size_t)reps, sizeof(*t)), log_sum = 0;
	if (!t)
		return 1;
	for (int f = first; f < argc; f++) {
		size_t len;
		char *src = aos_read_text(argv[f], &len);
		if (!src) {
			fprintf(stderr, "accelos-jit-time: cannot read %s\n", argv[f]);
			return 1;
		}
		for (int r = 0; r < reps; r++) {
			struct aos_jit_options o = { .target = target, .no_cache = 1 };
			struct aos_jit_result *res;
			double t0 = now_ms();
			int rc = aos_jit_compile(src, len, &o, &res);
			t[r] = now_ms() - t0;
			if (rc) {
				fprintf(stderr, "accelos-jit-time: %s: %s\n%s", argv[f], aos_jit_cl_error_name(rc),
					res && res->build_log ? res->build_log : "");
				return 1;
			}
			aos_jit_result_destroy(res);
		}
		qsort(t, (size_t)reps, sizeof(*t), cmp_double);
		printf("%-48s %8.1f ms\n", argv[f], t[reps / 2]);
		log_sum += log(t[reps / 2]);
		free(src);
	}
	printf("geomean (%d files, %s, median of %d): %.1f ms\n", argc - first,
	       aos_jit_target_name(target), reps, exp(log_sum / (argc - first)));
	free(t);
	return 0;
}
