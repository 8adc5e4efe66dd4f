/*
 * accelos-jit diff: differential tester. Runs the original kernel natively
 * and the rewritten kernel under several physical group counts and chunk
 * sizes (plus a stop-and-resume split), and on SPIR targets the direct kernel
 * in waves of several sizes, all from the same seeded inputs, and compares
 * every output buffer byte for byte.
 */
#include "cli.h"
#include "text_file.h"
#include "clrun.h"
#include "launch_spec.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the rewritten runs are compared with, and its name in a mismatch line. */
struct reference {
	struct aos_outputs out;
	const char *name;
};

/* Returns 0 when identical; prints the first difference otherwise. */
static int compare_named(const struct aos_launch_spec *o, const struct aos_outputs *ref,
			 const char *ref_name, const struct aos_outputs *got, const char *got_name,
			 const char *what)
{
	for (int i = 0; i < ref->n; i++) {
		if (!ref->data[i])
			continue;
		const struct aos_argspec *a = &o->args[i];
		for (size_t b = 0; b < ref->bytes[i]; b++) {
			if (ref->data[i][b] == got->data[i][b])
				continue;
			size_t esz = (size_t)a->elem_size * a->lanes;
			size_t el = b / esz;
			printf("mismatch [%s]: arg %d element %zu (byte %zu): %s", what, i, el, b, ref_name);
			for (size_t k = 0; k < esz; k++)
				printf(" %02x", ref->data[i][el * esz + k]);
			printf(" %s", got_name);
			for (size_t k = 0; k < esz; k++)
				printf(" %02x", got->data[i][el * esz + k]);
			printf("\n");
			return 1;
		}
	}
	return 0;
}

static int compare(const struct aos_launch_spec *o, const struct reference *ref,
		   const struct aos_outputs *got, const char *what)
{
	return compare_named(o, &ref->out, ref->name, got, "rewritten", what);
}

static size_t pick_odd(size_t total, size_t cus)
{
	for (size_t c = 3; c < total; c += 2)
		if (c != cus)
			return c;
	return 1;
}

/* A candidate group count, clamped to 1..total. */
static size_t clamp_count(size_t want, size_t total)
{
	return want > total ? total : (want ? want : 1);
}

/* Whether an earlier candidate than counts[i] clamps to the same count. */
static bool tried_before(const size_t *counts, size_t i, size_t total)
{
	for (size_t d = 0; d < i; d++)
		if (clamp_count(counts[d], total) == clamp_count(counts[i], total))
			return true;
	return false;
}

/* One rewritten run against the reference outputs: 0 identical, 1 differs, 2 error. */
static int run_one(struct aos_launch_spec *o, struct aos_clenv *env, cl_program prog,
		   const struct reference *ref, const struct aos_sched_cfg *cfg, const char *what)
{
	struct aos_outputs got;
	char err[512];
	double ms;
	if (aos_clrun_launch(env, prog, o->kernel, &o->launch, o->args, o->nargs, o->seed, cfg, &got,
			     &ms, err, sizeof(err))) {
		printf("error [%s]: %s\n", what, err);
		return 2;
	}
	int bad = compare(o, ref, &got, what);
	aos_outputs_free(&got);
	if (!bad && o->verbose)
		fprintf(stderr, "  %s: identical\n", what);
	return bad;
}

/* The direct kernel in waves of `counts` groups each (cut: its cuttable twin, cut before every
 * other wave), each count once. */
static int run_wave_counts(struct aos_launch_spec *o, struct aos_clenv *env, cl_program prog,
			   const struct reference *ref, const size_t *counts, size_t n_counts, int cut, int *runs)
{
	size_t total = aos_launch_groups(&o->launch);
	char what[128];
	for (size_t w = 0; w < n_counts; w++) {
		if (tried_before(counts, w, total))
			continue;
		size_t n = clamp_count(counts[w], total);
		struct aos_sched_cfg cfg = { .direct_wave = n, .cut = cut };
		snprintf(what, sizeof(what), "%s waves of %zu", cut ? "cut" : "direct", n);
		int rc = run_one(o, env, prog, ref, &cfg, what);
		if (rc)
			return rc;
		(*runs)++;
	}
	return 0;
}

/* The direct kernel in one wave, in waves of 1, of the compute units and of an odd count; then
 * the cuttable one in waves of all groups and of the odd count, cut before every other wave. */
static int run_direct_configs(struct aos_launch_spec *o, struct aos_clenv *env, cl_program prog,
			      const struct reference *ref, int *runs)
{
	size_t total = aos_launch_groups(&o->launch);
	size_t odd = pick_odd(total, env->compute_units);
	const size_t direct[] = { total, 1, env->compute_units, odd }, cut[] = { total, odd };
	int rc = run_wave_counts(o, env, prog, ref, direct, sizeof(direct) / sizeof(direct[0]), 0, runs);
	return rc ? rc : run_wave_counts(o, env, prog, ref, cut, sizeof(cut) / sizeof(cut[0]), 1, runs);
}

static int run_configs(struct aos_launch_spec *o, struct aos_clenv *env, cl_program prog,
		       const struct reference *ref, int rewritten, int direct)
{
	size_t total = aos_launch_groups(&o->launch);
	size_t cands[] = { 1, 2, env->compute_units, pick_odd(total, env->compute_units), total };
	/* Per physical group count: chunks dequeued, then one chunk with static first chunks
	 * (covering the range once groups x chunk reach it); on 2 groups also a stop and resume,
	 * with dequeued and with static first chunks. */
	const struct { unsigned chunk; int static_first, split; } runs_per_count[] = {
		{ 0, 0, 0 }, { 1, 0, 0 }, { 3, 0, 0 }, { 8, 0, 0 }, { 3, 1, 0 }, { 0, 0, 1 }, { 3, 1, 1 },
	};
	char what[128];
	int runs = 0;
	if (!rewritten)
		return run_one(o, env, prog, ref, NULL, "unrewritten");
	for (size_t c = 0; c < sizeof(cands) / sizeof(cands[0]); c++) {
		if (tried_before(cands, c, total))
			continue;
		size_t p = clamp_count(cands[c], total);
		for (size_t r = 0; r < sizeof(runs_per_count) / sizeof(runs_per_count[0]); r++) {
			int split = runs_per_count[r].split;
			if (split && (p != 2 || total < 2))
				continue;
			struct aos_sched_cfg cfg = { .phys_groups = p, .chunk = runs_per_count[r].chunk, .split = split,
						     .static_first = runs_per_count[r].static_first };
			snprintf(what, sizeof(what), "groups=%zu chunk=%u%s%s", p, cfg.chunk,
				 cfg.static_first ? " static-first" : "", split ? " stop+resume" : "");
			int rc = run_one(o, env, prog, ref, &cfg, what);
			if (rc)
				return rc;
			runs++;
		}
	}
	if (direct) {
		int rc = run_direct_configs(o, env, prog, ref, &runs);
		if (rc)
			return rc;
	}
	if (o->verbose)
		fprintf(stderr, "%d rewritten configurations over %zu virtual groups\n", runs, total);
	return 0;
}

/*
 * Where the native compiler is not LLVM (NVIDIA's), native and rewritten results may differ in
 * the last bits of floating-point values for reasons that have nothing to do with the rewrite
 * (another libm, other contractions). There the reference is the same source compiled by the
 * JIT without the rewrite, built through the same path; how it compares with native is a note.
 * Returns 0 with *ref filled, 1 when no such reference can be built (then native stays it).
 */
static int same_compiler_reference(struct aos_launch_spec *o, struct aos_clenv *env, const char *src,
				   size_t len, const struct aos_jit_options *jo, const struct reference *native,
				   struct reference *ref)
{
	struct aos_jit_options plain = *jo;
	struct aos_jit_result *res = NULL;
	char *log = NULL, err[512];
	double ms;
	int rc = 1;
	plain.no_rewrite = 1;
	if (aos_jit_compile(src, len, &plain, &res) || !res->binary_size)
		goto out;
	cl_program prog = aos_clrun_build_jit(env, (int)jo->target, res->binary, res->binary_size, &log);
	if (!prog)
		goto out;
	if (aos_clrun_launch(env, prog, o->kernel, &o->launch, o->args, o->nargs, o->seed, NULL, &ref->out,
			     &ms, err, sizeof(err)) == 0) {
		ref->name = "unrewritten";
		rc = 0;
		printf("note: compared with the kernel compiled by the JIT unrewritten (the native compiler "
		       "is another)\n");
		if (compare_named(o, &native->out, "native", &ref->out, "unrewritten", "native compiler"))
			printf("note: the native compiler's results differ from LLVM's (above)\n");
	}
	clReleaseProgram(prog);
out:
	if (rc)
		printf("note: no unrewritten build through the JIT: compared with native\n");
	aos_jit_result_destroy(res);
	free(log);
	return rc;
}

static int diff_main(struct aos_launch_spec *o, struct aos_clenv *env)
{
	size_t len;
	char *src = aos_read_text(o->file, &len), *log = NULL, err[512];
	const char *opts = o->build_options ? o->build_options : "";
	struct aos_jit_result *res = NULL;
	struct reference native_ref = { { 0 }, "native" }, chain_ref = { { 0 }, NULL };
	const struct reference *ref = &native_ref;
	cl_program native = NULL, rewritten = NULL;
	double ms;
	int rc = 2;
	if (!src) {
		fprintf(stderr, "accelos-jit: cannot read %s\n", o->file);
		return 2;
	}
	native = aos_clrun_build_source(env, src, opts, &log);
	if (!native) {
		printf("error: native build failed:\n%s\n", log ? log : "");
		goto out;
	}
	unsigned nv_sm = 0;
	struct aos_jit_options jo = { .target = aos_clenv_jit_target(env, &nv_sm),
				      .build_options = opts, .nv_sm = nv_sm };
	if (jo.target == AOS_JIT_TARGET_NONE) {
		printf("error: the device matches no JIT target (see jit/target.c)\n");
		goto out;
	}
	if (o->against) {
		free(src);
		src = aos_read_text(o->against, &len);
		if (!src) {
			printf("error: cannot read %s\n", o->against);
			goto out;
		}
	}
	int jrc = aos_jit_compile(src, len, &jo, &res);
	if (jrc) {
		printf("error: accelOS JIT failed (%s):\n%s\n", strerror(-jrc),
		       res && res->build_log ? res->build_log : "");
		goto out;
	}
	const struct aos_jit_kernel *k = aos_jit_result_kernel(res, o->kernel);
	if (!k) {
		printf("error: kernel %s not found in the JIT result\n", o->kernel);
		goto out;
	}
	if (!res->binary_size) { /* the whole program stays native on this device */
		printf("note: %s not rewritten: %s\nnative only: nothing to compare\n", k->name, k->reason);
		rc = 0;
		goto out;
	}
	free(log);
	rewritten = aos_clrun_build_jit(env, (int)jo.target, res->binary, res->binary_size, &log);
	if (!rewritten) {
		printf("error: building the rewritten module failed:\n%s\n", log ? log : "");
		goto out;
	}
	if (aos_clrun_launch(env, native, o->kernel, &o->launch, o->args, o->nargs, o->seed, NULL,
			     &native_ref.out, &ms, err, sizeof(err))) {
		printf("error [native]: %s\n", err);
		goto out;
	}
	if (jo.target == AOS_JIT_TARGET_NVPTX64 && !o->against &&
	    same_compiler_reference(o, env, src, len, &jo, &native_ref, &chain_ref) == 0)
		ref = &chain_ref;
	if (!k->rewritten)
		printf("note: %s not rewritten: %s\n", k->name, k->reason);
	rc = run_configs(o, env, rewritten, ref, k->rewritten, aos_jit_target_has_direct(jo.target));
	if (rc == 0)
		printf("identical\n");
out:
	aos_outputs_free(&native_ref.out);
	aos_outputs_free(&chain_ref.out);
	if (native)
		clReleaseProgram(native);
	if (rewritten)
		clReleaseProgram(rewritten);
	aos_jit_result_destroy(res);
	free(log);
	free(src);
	return rc;
}

int aos_cli_diff(int argc, char **argv)
{
	struct aos_launch_spec o;
	struct aos_clenv env;
	if (aos_launch_spec_parse(argc, argv, &o)) {
		aos_launch_spec_free(&o);
		return 2;
	}
	if (aos_clenv_open(&env)) {
		fprintf(stderr, "accelos-jit diff: no OpenCL device\n");
		aos_launch_spec_free(&o);
		return 2;
	}
	int rc = diff_main(&o, &env);
	aos_clenv_close(&env);
	aos_launch_spec_free(&o);
	return rc;
}
