/*
 * Probe, built as accelos-spir-probe and run by hand: does the path a rewritten kernel takes to
 * the device cost anything by itself? The same source is built natively (clBuildProgram) and
 * through the JIT without the rewrite (aos_jit_options.no_rewrite: SPIR bitcode, or PTX on
 * NVIDIA, through clCreateProgramWithBinary), and the two kernels alternate launch by launch on
 * the same buffers. Prints the median over REPS pairs (default 41) of native over JIT kernel
 * time. On NVIDIA that compares the compilers (NVIDIA's against clang + libclc) with no loop.
 *
 *   REPS=61 accelos-spir-probe FILE.cl --kernel NAME --global ... [diff options] [-- OPTIONS]
 */
#include "clrun.h"
#include "launch_spec.h"
#include "text_file.h"

#include "accelos/jit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	unsigned nv_sm = 0;
	struct aos_jit_options jo = { .target = aos_clenv_jit_target(&env, &nv_sm), .build_options = opts,
				      .nv_sm = nv_sm, .no_rewrite = 1, .no_cache = 1 };
	struct aos_jit_result *res = NULL;
	cl_program native = aos_clrun_build_source(&env, src, opts, &log);
	cl_program spir = NULL;
	if (native && aos_jit_compile(src, len, &jo, &res) == 0)
		spir = aos_clrun_build_jit(&env, (int)jo.target, res->binary, res->binary_size, &log);
	struct aos_clrun_args *set = NULL;
	if (!spir || aos_clrun_args_create(&env, spec.args, spec.nargs, 1, &set)) {
		fprintf(stderr, "accelos-spir-probe: build or set-up failed\n%s\n", log ? log : "");
		return 1;
	}
	int reps = getenv("REPS") ? atoi(getenv("REPS")) : 41;
	reps = reps > 0 ? reps : 41;
	double ratio = 0;
	/* Three warm-up pairs first: each program's first launch also times its compile. */
	if (aos_clrun_time_paired(&env, native, NULL, spir, NULL, spec.kernel, &spec.launch, set, 3, &ratio) ||
	    aos_clrun_time_paired(&env, native, NULL, spir, NULL, spec.kernel, &spec.launch, set, reps, &ratio)) {
		fprintf(stderr, "accelos-spir-probe: a launch failed\n");
		return 1;
	}
	printf("%s: native / unrewritten %s, paired: median %.3f over %d pairs\n", spec.kernel,
	       aos_jit_target_name(jo.target), ratio, reps);
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
