/*
 * Probe, built as accelos-spir-probe and run by hand: does the path a rewritten kernel takes to
 * the device cost anything by itself? The same source is built natively (clBuildProgram) and
 * through the JIT without the rewrite (aos_jit_options.no_rewrite, SPIR bitcode through
 * clCreateProgramWithBinary), and the two kernels alternate launch by launch on the same
 * buffers. Prints the median over REPS pairs (default 41) of native over SPIR kernel time.
 *
 *   REPS=61 accelos-spir-probe FILE.cl --kernel NAME --global ... [diff options] [-- OPTIONS]
 */
#include "clrun.h"
#include "launch_spec.h"
#include "text_file.h"

#include "accelos/jit.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* One launch of p; its kernel time in ms, or a negative value on failure. */
static double timed_launch(struct aos_clenv *env, struct aos_clrun_prepared *p)
{
	cl_event first = NULL, last = NULL;
	if (aos_clrun_enqueue(env, p, &first, &last) != CL_SUCCESS || clFinish(env->queue) != CL_SUCCESS)
		return -1;
	double ms = aos_clrun_span_ms(first, last);
	clReleaseEvent(first);
	clReleaseEvent(last);
	return ms;
}

int main(int argc, char **argv)
{
	struct aos_launch_spec spec;
	struct aos_clenv env;
	size_t len = 0;
	char *src, *log = NULL;
	if (argc < 3 || aos_launch_spec_parse(argc, argv, &spec)) {
		fprintf(stderr, "usage: REPS=N accelos-spir-probe FILE.cl --kernel NAME --global ... [-- OPTIONS]\n");
		return 2;
	}
	if (!(src = aos_read_text(spec.file, &len)) || aos_clenv_open(&env)) {
		fprintf(stderr, "accelos-spir-probe: cannot read %s or open a device\n", spec.file);
		return 2;
	}
	const char *opts = spec.build_options ? spec.build_options : "";
	struct aos_jit_options jo = { .target = AOS_JIT_TARGET_SPIR64, .build_options = opts,
				      .no_rewrite = 1, .no_cache = 1 };
	struct aos_jit_result *res = NULL;
	cl_program native = aos_clrun_build_source(&env, src, opts, &log);
	cl_program spir = NULL;
	if (native && aos_jit_compile(src, len, &jo, &res) == 0)
		spir = aos_clrun_build_jit(&env, AOS_JIT_TARGET_SPIR64, res->binary, res->binary_size, &log);
	struct aos_clrun_args *set = NULL;
	struct aos_clrun_prepared *pn = NULL, *ps = NULL;
	if (!spir || aos_clrun_args_create(&env, spec.args, spec.nargs, 1, &set) ||
	    aos_clrun_prepare(&env, native, spec.kernel, &spec.launch, set, NULL, &pn) ||
	    aos_clrun_prepare(&env, spir, spec.kernel, &spec.launch, set, NULL, &ps)) {
		fprintf(stderr, "accelos-spir-probe: build or set-up failed\n%s\n", log ? log : "");
		return 1;
	}
	int reps = getenv("REPS") ? atoi(getenv("REPS")) : 41;
	reps = reps > 0 ? reps : 41;
	double *ratio = calloc((size_t)reps, sizeof(*ratio));
	for (int i = -3; i < reps && ratio; i++) { /* three warm-up pairs */
		bool spir_first = i & 1;
		double a = timed_launch(&env, spir_first ? ps : pn), b = timed_launch(&env, spir_first ? pn : ps);
		double n = spir_first ? b : a, s = spir_first ? a : b;
		if (n <= 0 || s <= 0) {
			fprintf(stderr, "accelos-spir-probe: a launch failed\n");
			return 1;
		}
		if (i >= 0)
			ratio[i] = n / s;
	}
	if (!ratio)
		return 1;
	qsort(ratio, (size_t)reps, sizeof(*ratio), by_value);
	printf("%s: native / unrewritten SPIR, paired: median %.3f (quartiles %.3f %.3f, %d pairs)\n", spec.kernel,
	       ratio[reps / 2], ratio[reps / 4], ratio[3 * reps / 4], reps);
	free(ratio);
	aos_clrun_prepared_destroy(pn);
	aos_clrun_prepared_destroy(ps);
	aos_clrun_args_destroy(set);
	clReleaseProgram(native);
	clReleaseProgram(spir);
	aos_jit_result_destroy(res);
	aos_launch_spec_free(&spec);
	aos_clenv_close(&env);
	free(log);
	free(src);
	return 0;
}
