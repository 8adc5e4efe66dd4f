/* aos_jit_compile end to end: targets, diagnostics, limits, cache. */
#include "accelos/jit.h"
#include "jit_internal.h"
#include "accelos/vndrange.h"
#include "check_run.h"

#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *good =
	"int helper(void) { return (int)get_group_id(0); }\n"
	"kernel void k(global int *o, int n) { o[get_global_id(0)] = helper() + n; }\n";

static char cache_dir[256];

static void setup(void)
{
	ck_assert_int_eq(aos_scratch_make(cache_dir, sizeof(cache_dir)), 0);
}

static void teardown(void)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", cache_dir);
	ck_assert_int_eq(system(cmd), 0);
}

static int compile(const char *src, size_t len, enum aos_jit_target t, const char *opts,
		   struct aos_jit_result **res)
{
	struct aos_jit_options o = { .target = t, .build_options = opts, .no_cache = 1 };
	return aos_jit_compile(src, len, &o, res);
}

START_TEST(spir64_bitcode_and_kernel_info)
{
	struct aos_jit_result *r;
	ck_assert_int_eq(compile(good, strlen(good), AOS_JIT_TARGET_SPIR64, NULL, &r), 0);
	ck_assert_uint_ge(r->binary_size, 4);
	ck_assert_int_eq(r->binary[0], 'B');
	ck_assert_int_eq(r->binary[1], 'C');
	const struct aos_jit_kernel *k = aos_jit_result_kernel(r, "k");
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(k->rewritten, 1);
	ck_assert_uint_eq(k->runtime_args, 1);
	ck_assert_uint_ge(k->chunk, 1);
	ck_assert_uint_le(k->chunk, 8);
	ck_assert_ptr_null(aos_jit_result_kernel(r, "helper"));
	aos_jit_result_destroy(r);
}
END_TEST

/* The module of a spir64 result, parsed (the caller disposes of it and its context). */
static LLVMModuleRef parse_result(const struct aos_jit_result *r, LLVMContextRef ctx)
{
	LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(
		(const char *)r->binary, r->binary_size, "result");
	LLVMModuleRef m = NULL;
	ck_assert_int_eq(LLVMParseBitcodeInContext2(ctx, buf, &m), 0);
	LLVMDisposeMemoryBuffer(buf);
	return m;
}

/* The spir64 module compiled from src with options, as text (free() it). */
static char *compiled_text(const char *src, const char *options)
{
	struct aos_jit_result *r;
	ck_assert_int_eq(compile(src, strlen(src), AOS_JIT_TARGET_SPIR64, options, &r), 0);
	LLVMContextRef ctx = LLVMContextCreate();
	LLVMModuleRef m = parse_result(r, ctx);
	char *llvm_text = LLVMPrintModuleToString(m);
	char *text = strdup(llvm_text);
	ck_assert_ptr_nonnull(text);
	LLVMDisposeMessage(llvm_text);
	LLVMDisposeModule(m);
	LLVMContextDispose(ctx);
	aos_jit_result_destroy(r);
	return text;
}

/* SPIR targets get the direct shape beside the loop: K's arguments and the record, as the loop. */
START_TEST(spir64_has_direct_kernel)
{
	struct aos_jit_result *r;
	ck_assert_int_eq(compile(good, strlen(good), AOS_JIT_TARGET_SPIR64, NULL, &r), 0);
	LLVMContextRef ctx = LLVMContextCreate();
	LLVMModuleRef m = parse_result(r, ctx);
	LLVMValueRef loop = LLVMGetNamedFunction(m, "k");
	LLVMValueRef direct = LLVMGetNamedFunction(m, AOS_DIRECT_KERNEL_PREFIX "k");
	ck_assert_ptr_nonnull(loop);
	ck_assert_ptr_nonnull(direct);
	ck_assert_uint_eq(LLVMCountParams(loop), 3);
	ck_assert_uint_eq(LLVMCountParams(direct), 3); /* the same: the record is its only addition */
	ck_assert_ptr_null(LLVMGetNamedFunction(m, AOS_DIRECT_KERNEL_PREFIX "helper"));
	/* The cuttable twin: the direct kernel's arguments and its cut record, which it claims from. */
	LLVMValueRef cut = LLVMGetNamedFunction(m, AOS_CUT_KERNEL_PREFIX "k");
	ck_assert_ptr_nonnull(cut);
	ck_assert_uint_eq(LLVMCountParams(cut), 4);
	ck_assert_ptr_null(LLVMGetNamedFunction(m, AOS_CUT_KERNEL_PREFIX "helper"));
	LLVMDisposeModule(m);
	LLVMContextDispose(ctx);
	aos_jit_result_destroy(r);
}
END_TEST

/* no_direct (a device that runs the loop shape): the scheduling kernel alone, on either target,
 * and a cache entry of its own. */
START_TEST(no_direct_leaves_the_twin_out)
{
	static const char src[] = "kernel void k(global int *o) { o[get_global_id(0)] = 1; }\n";
	for (int t = 0; t < 2; t++) {
		enum aos_jit_target target = t ? AOS_JIT_TARGET_NVPTX64 : AOS_JIT_TARGET_SPIR64;
		struct aos_jit_options o = { .target = target, .cache_dir = cache_dir };
		struct aos_jit_result *with, *without;
		ck_assert_int_eq(aos_jit_compile(src, strlen(src), &o, &with), 0);
		o.no_direct = 1;
		ck_assert_int_eq(aos_jit_compile(src, strlen(src), &o, &without), 0);
		ck_assert_int_eq(without->from_cache, 0);
		ck_assert_uint_lt(without->binary_size, with->binary_size);
		ck_assert_int_eq(aos_jit_result_kernel(without, "k")->rewritten, 1);
		if (target == AOS_JIT_TARGET_NVPTX64) {
			ck_assert_ptr_null(strstr((const char *)without->binary, AOS_DIRECT_KERNEL_PREFIX));
			/* GPUs run the loop shape, whose waves stop at the record's `stop`: no cut twin. */
			ck_assert_ptr_null(strstr((const char *)with->binary, AOS_CUT_KERNEL_PREFIX));
			ck_assert_ptr_nonnull(strstr((const char *)with->binary, ".entry " AOS_DIRECT_KERNEL_PREFIX "k("));
		} else {
			LLVMContextRef ctx = LLVMContextCreate();
			LLVMModuleRef m = parse_result(without, ctx);
			ck_assert_ptr_nonnull(LLVMGetNamedFunction(m, "k"));
			ck_assert_ptr_null(LLVMGetNamedFunction(m, AOS_DIRECT_KERNEL_PREFIX "k"));
			ck_assert_ptr_null(LLVMGetNamedFunction(m, AOS_CUT_KERNEL_PREFIX "k"));
			LLVMDisposeModule(m);
			LLVMContextDispose(ctx);
		}
		aos_jit_result_destroy(with);
		aos_jit_result_destroy(without);
	}
}
END_TEST

/* Work-item code must reach the device compiler unvectorized: clang's SLP vectorizer at -O2 turns
 * these boundary compares (Parboil stencil's) into one vector compare, and PoCL then cannot vectorize the work-item loop.
 * The -O3 in the options must not turn it back on. */
START_TEST(front_end_leaves_vectorizing_to_the_device)
{
	const char *src =
		"kernel void k(global const float *a, global float *o, int nx, int ny, int nz) {\n"
		"  int i = get_global_id(0), j = get_global_id(1), k = get_global_id(2);\n"
		"  long idx = i + (long)nx * (j + (long)ny * k);\n"
		"  if (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1) {\n"
		"    o[idx] = a[idx]; return; }\n"
		"  o[idx] = a[idx - 1] + a[idx + 1]; }\n";
	char *text = compiled_text(src, "-O3");
	const char *vec = strstr(text, " x i32>");
	if (!vec)
		vec = strstr(text, " x i1>");
	const char *context = vec && vec - text > 40 ? vec - 40 : text;
	ck_assert_msg(!vec, "vector code in the module: ...%.80s", context);
	free(text);
}
END_TEST

/* On SPIR the front end leaves loops rolled, as PoCL's does (jit/frontend.c), even under -O3: a
 * loop calling a built-in keeps one clamp call per kernel shape (the loop, the direct and the cut
 * kernel), where clang's unrolling would give four each. */
START_TEST(front_end_leaves_unrolling_to_the_device)
{
	const char *src =
		"kernel void k(global const float *a, global float *o) {\n"
		"  size_t i = get_global_id(0); float acc = 0.0f;\n"
		"  for (int j = 0; j < 4; j++) acc += clamp(a[i * 4 + j], 0.0f, 1.0f);\n"
		"  o[i] = acc; }\n";
	char *text = compiled_text(src, "-O3");
	int calls = 0;
	for (const char *p = text; (p = strstr(p, "call spir_func float @_Z5clampfff(")); p++)
		calls++;
	ck_assert_int_eq(calls, 3);
	ck_assert_ptr_nonnull(strstr(text, "!\"llvm.loop.unroll.disable\""));
	free(text);
}
END_TEST

START_TEST(syntax_error_gives_native_looking_log)
{
	const char *bad = "kernel void k(global int *o) {\n  o[0] = nope;\n}\n";
	struct aos_jit_result *r;
	int rc = compile(bad, strlen(bad), AOS_JIT_TARGET_SPIR64, NULL, &r);
	ck_assert_int_eq(rc, -ENOEXEC);
	ck_assert_str_eq(aos_jit_cl_error_name(rc), "CL_BUILD_PROGRAM_FAILURE");
	ck_assert_ptr_nonnull(strstr(r->build_log, "program.cl:2:10: error: use of undeclared identifier 'nope'"));
	ck_assert_ptr_null(strstr(r->build_log, "accelos-jit-"));
	aos_jit_result_destroy(r);
}
END_TEST

START_TEST(build_options_reach_clang)
{
	const char *src = "kernel void k(global int *o) { o[0] = VALUE; }\n";
	struct aos_jit_result *r;
	ck_assert_int_eq(compile(src, strlen(src), AOS_JIT_TARGET_SPIR64, "-D VALUE=3", &r), 0);
	aos_jit_result_destroy(r);
	ck_assert_int_eq(compile(src, strlen(src), AOS_JIT_TARGET_SPIR64, "-Werror", &r), -ENOEXEC);
	aos_jit_result_destroy(r);
	ck_assert_int_eq(compile(src, strlen(src), AOS_JIT_TARGET_SPIR64, "-Xclang -load", &r), -EINVAL);
	ck_assert_str_eq(aos_jit_cl_error_name(-EINVAL), "CL_INVALID_BUILD_OPTIONS");
	aos_jit_result_destroy(r);
}
END_TEST

START_TEST(device_enqueue_left_native_with_reason)
{
	const char *src = "kernel void p(global int *o) {\n"
			  "  enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT,\n"
			  "    ndrange_1D(4), ^{ o[get_global_id(0)] = 1; });\n}\n"
			  "kernel void q(global int *o) { o[get_global_id(0)] = 2; }\n";
	struct aos_jit_result *r;
	ck_assert_int_eq(compile(src, strlen(src), AOS_JIT_TARGET_SPIR64, "-cl-std=CL2.0", &r), 0);
	const struct aos_jit_kernel *p = aos_jit_result_kernel(r, "p");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(p->rewritten, 0);
	ck_assert_uint_eq(p->runtime_args, 0);
	ck_assert_str_eq(p->reason, "device-side enqueue");
	ck_assert_int_eq(aos_jit_result_kernel(r, "q")->rewritten, 1);
	aos_jit_result_destroy(r);
}
END_TEST

START_TEST(ptx_for_nvidia)
{
	const char *src = "kernel void k(global float *o) {\n"
			  "  local float t[32];\n"
			  "  t[get_local_id(0)] = sin((float)get_global_id(0));\n"
			  "  barrier(CLK_LOCAL_MEM_FENCE);\n"
			  "  o[get_global_id(0)] = t[31 - get_local_id(0)];\n}\n";
	struct aos_jit_result *r;
	ck_assert_int_eq(compile(src, strlen(src), AOS_JIT_TARGET_NVPTX64, NULL, &r), 0);
	const char *ptx = (const char *)r->binary;
	ck_assert_ptr_nonnull(strstr(ptx, ".entry k("));
	ck_assert_ptr_nonnull(strstr(ptx, ".target sm_80"));
	/* One fetch-add per dequeue, on the word of next and stop: a CAS loop serialises hundreds of
	 * GPU masters. (The u32 add is the diff tester's `done`, under COUNT_DONE.) */
	ck_assert_ptr_nonnull(strstr(ptx, "atom.global.add.u64"));
	ck_assert_ptr_nonnull(strstr(ptx, "atom.global.add.u32"));
	ck_assert_ptr_null(strstr(ptx, "atom.global.cas"));
	ck_assert_ptr_nonnull(strstr(ptx, "bar.sync"));
	/* The direct twin: the grid by value (88 bytes), its own copy of t, no atomic. */
	const char *direct = strstr(ptx, ".entry " AOS_DIRECT_KERNEL_PREFIX "k(");
	ck_assert_ptr_nonnull(direct);
	ck_assert_ptr_nonnull(strstr(direct, ".param .align 8 .b8 " AOS_DIRECT_KERNEL_PREFIX "k_param_1[88]"));
	ck_assert_ptr_nonnull(strstr(ptx, AOS_DIRECT_KERNEL_PREFIX "k_$_t"));
	ck_assert_ptr_null(strstr(direct, "atom."));
	ck_assert_ptr_nonnull(strstr(direct, "bar.sync"));
#ifdef AOS_TEST_PTXAS
	char path[512], cmd[1200];
	snprintf(path, sizeof(path), "%s/k.ptx", cache_dir);
	ck_assert_int_eq(aos_file_write(path, r->binary, r->binary_size), 0);
	snprintf(cmd, sizeof(cmd), "%s -arch=sm_80 -o %s/k.cubin %s", AOS_TEST_PTXAS, cache_dir, path);
	ck_assert_int_eq(system(cmd), 0);
#endif
	aos_jit_result_destroy(r);
}
END_TEST

/* A GPU newer than LLVM 15 knows (an H100 reports sm_90) gets sm_80 PTX, which its driver
 * compiles for it; an older one keeps its own. */
START_TEST(ptx_sm_bounded_to_what_llvm_writes)
{
	const unsigned asked[] = { 90, 70 }, want[] = { 80, 70 };
	for (int i = 0; i < 2; i++) {
		struct aos_jit_options o = { .target = AOS_JIT_TARGET_NVPTX64, .nv_sm = asked[i],
					     .no_cache = 1 };
		struct aos_jit_result *r;
		char target[32];
		ck_assert_int_eq(aos_jit_compile(good, strlen(good), &o, &r), 0);
		snprintf(target, sizeof(target), ".target sm_%u,", want[i]);
		ck_assert_ptr_nonnull(strstr((const char *)r->binary, target));
		aos_jit_result_destroy(r);
	}
}
END_TEST

/* libclc is linked after the rewrite's optimisation; the module is optimised again, so its
 * work-item functions, atomics and barrier become special registers and instructions, not calls. */
START_TEST(ptx_inlines_libclc)
{
	struct aos_jit_result *r;
	ck_assert_int_eq(compile(good, strlen(good), AOS_JIT_TARGET_NVPTX64, NULL, &r), 0);
	const char *ptx = (const char *)r->binary;
	ck_assert_ptr_nonnull(strstr(ptx, "%tid.x"));
	ck_assert_ptr_null(strstr(ptx, "call.uni"));
	ck_assert_ptr_null(strstr(ptx, ".func"));
	aos_jit_result_destroy(r);
}
END_TEST

/* native_* math is the hardware's approximation on PTX (rtlib/nvptx_native_math.cl), not libclc's
 * precise sqrt + rcp, and the same in the unrewritten reference the diff tester compares with. */
START_TEST(ptx_native_math_is_approx_with_and_without_rewrite)
{
	static const char src[] = "kernel void k(global float4 *p) { size_t i = get_global_id(0);\n"
				  "  p[i].x = native_rsqrt(p[i].x); p[i] = native_divide(p[i], native_exp(p[i])); }\n";
	for (int no_rewrite = 0; no_rewrite <= 1; no_rewrite++) {
		struct aos_jit_options o = { .target = AOS_JIT_TARGET_NVPTX64, .no_rewrite = no_rewrite, .no_cache = 1 };
		struct aos_jit_result *r;
		ck_assert_int_eq(aos_jit_compile(src, strlen(src), &o, &r), 0);
		const char *ptx = (const char *)r->binary;
		ck_assert_ptr_nonnull(strstr(ptx, "rsqrt.approx.f32"));
		ck_assert_ptr_nonnull(strstr(ptx, "ex2.approx.f32"));
		ck_assert_ptr_nonnull(strstr(ptx, "div.approx.f32"));
		ck_assert_ptr_null(strstr(ptx, "sqrt.rn.f32"));
		ck_assert_ptr_null(strstr(ptx, ".func"));
		aos_jit_result_destroy(r);
	}
}
END_TEST

static int occurrences(const char *text, const char *needle)
{
	int n = 0;
	for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* The kernels a PTX text defines, checked against what the rewrite makes of one: itself, or its
 * scheduling kernel and its direct twin. */
static int entries(const char *ptx, int no_rewrite)
{
	int n = occurrences(ptx, ".entry ");
	ck_assert_int_eq(n, no_rewrite ? 1 : 2);
	return n;
}

/* PTX: a small inner loop with a constant trip count is unrolled by 4 (2 where only 2 divides the
 * count), as NVIDIA's compiler does (passes/nvptx_unroll.cpp); a loop with a trip count known only
 * at run time stays rolled. One native_rsqrt per copy shows the count. */
START_TEST(ptx_small_constant_trip_loops_unrolled)
{
	/* nbody_lite's inner loop; a smaller body the front end may unroll already. */
	static const char *loop =
		"kernel void k(global float4 *p, int n) { size_t i = get_global_id(0); float4 a = 0.0f;\n"
		"  for (int j = 0; j < %s; j++) { float4 d = p[j] - p[i];\n"
		"    float r2 = d.x * d.x + d.y * d.y + d.z * d.z + 0.01f;\n"
		"    a += d * (p[j].w * native_rsqrt(r2 * r2 * r2)); }\n"
		"  p[i] = a; }\n";
	static const struct {
		const char *trips;
		int copies;
	} cases[] = { { "32", 4 }, { "30", 2 }, { "n", 1 } };
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		for (int no_rewrite = 0; no_rewrite <= 1; no_rewrite++) {
			char src[512];
			snprintf(src, sizeof(src), loop, cases[c].trips);
			struct aos_jit_options o = { .target = AOS_JIT_TARGET_NVPTX64, .no_rewrite = no_rewrite,
						     .no_cache = 1 };
			struct aos_jit_result *r;
			ck_assert_int_eq(aos_jit_compile(src, strlen(src), &o, &r), 0);
			const char *ptx = (const char *)r->binary;
			ck_assert_int_eq(occurrences(ptx, "rsqrt.approx.f32"), cases[c].copies * entries(ptx, no_rewrite));
			aos_jit_result_destroy(r);
		}
}
END_TEST

/* PTX: sin(x) and cos(x) of one x share one reduction by pi/2 (passes/sincos_fuse.cpp; the fast
 * reduction's rint is one cvt.rni), as does the sincos built-in; of two arguments, two. */
START_TEST(ptx_sin_and_cos_of_one_argument_share_a_reduction)
{
	static const struct {
		const char *body;
		int reductions;
	} cases[] = {
		{ "p[i] = sin(p[i]) + cos(p[i]);", 1 },
		{ "float c; p[i] = sincos(p[i], &c) * c;", 1 },
		{ "p[i] = sin(p[i]) + cos(p[i] * 0.5f);", 2 },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		for (int no_rewrite = 0; no_rewrite <= 1; no_rewrite++) {
			char src[512];
			snprintf(src, sizeof(src), "kernel void k(global float *p) { size_t i = get_global_id(0); %s }\n",
				 cases[c].body);
			struct aos_jit_options o = { .target = AOS_JIT_TARGET_NVPTX64, .no_rewrite = no_rewrite,
						     .no_cache = 1 };
			struct aos_jit_result *r;
			ck_assert_int_eq(aos_jit_compile(src, strlen(src), &o, &r), 0);
			const char *ptx = (const char *)r->binary;
			ck_assert_msg(occurrences(ptx, "cvt.rni.f32.f32") == cases[c].reductions * entries(ptx, no_rewrite),
				      "%s: %d", cases[c].body, occurrences(ptx, "cvt.rni.f32.f32"));
			ck_assert_ptr_null(strstr(ptx, ".func"));
			aos_jit_result_destroy(r);
		}
}
END_TEST

/* PTX: a program's own sin (an overload it defines, kept a call) is its own, never rtlib's pair: x * 3 stays. */
START_TEST(ptx_programs_own_sin_is_not_fused)
{
	static const char src[] = "__attribute__((noinline, overloadable)) float sin(float x) { return x * 3.0f; }\n"
				  "kernel void k(global float *p) { size_t i = get_global_id(0);\n"
				  "  p[i] = sin(p[i]) + cos(p[i]); }\n";
	for (int no_rewrite = 0; no_rewrite <= 1; no_rewrite++) {
		struct aos_jit_options o = { .target = AOS_JIT_TARGET_NVPTX64, .no_rewrite = no_rewrite, .no_cache = 1 };
		struct aos_jit_result *r;
		ck_assert_int_eq(aos_jit_compile(src, strlen(src), &o, &r), 0);
		const char *ptx = (const char *)r->binary;
		ck_assert_ptr_nonnull(strstr(ptx, "0f40400000")); /* 3.0f */
		ck_assert_int_eq(occurrences(ptx, "cvt.rni.f32.f32"), entries(ptx, no_rewrite)); /* cos's reduction */
		aos_jit_result_destroy(r);
	}
}
END_TEST

/* libclc's math tables (log1p's here) are read from global memory through the read-only cache,
 * not from constant memory, which serialises a warp's different indices; the program's own
 * __constant table stays constant, as NVIDIA's compiler leaves it. */
START_TEST(ptx_library_tables_in_global_memory)
{
	static const char src[] = "constant float coef[4] = { 1.0f, 2.0f, 3.0f, 4.0f };\n"
				  "kernel void k(global float *p) { size_t i = get_global_id(0);\n"
				  "  p[i] = log1p(p[i]) * coef[i & 3]; }\n";
	for (int no_rewrite = 0; no_rewrite <= 1; no_rewrite++) {
		struct aos_jit_options o = { .target = AOS_JIT_TARGET_NVPTX64, .no_rewrite = no_rewrite, .no_cache = 1 };
		struct aos_jit_result *r;
		ck_assert_int_eq(aos_jit_compile(src, strlen(src), &o, &r), 0);
		const char *ptx = (const char *)r->binary;
		ck_assert_ptr_nonnull(strstr(ptx, ".global .align 4 .b8 LOG_INV_TBL["));
		ck_assert_ptr_null(strstr(ptx, ".const .align 4 .b8 LOG_INV_TBL["));
		ck_assert_ptr_nonnull(strstr(ptx, "ld.global.nc.f32"));
		ck_assert_ptr_nonnull(strstr(ptx, ".const .align 4 .b8 coef["));
		ck_assert_ptr_nonnull(strstr(ptx, "ld.const.f32"));
		aos_jit_result_destroy(r);
	}
}
END_TEST

/* Lines of a PTX text without comments, sorted: the sharded link may place the same globals and
 * functions in another order (the call sequences' numbers in comments follow that order). */
static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char **sorted_lines(char *text, size_t *n)
{
	size_t cap = 1;
	for (char *p = text; *p; p++)
		cap += *p == '\n';
	char **lines = calloc(cap, sizeof(*lines));
	ck_assert_ptr_nonnull(lines);
	*n = 0;
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *comment = strstr(l, "//");
		if (comment)
			*comment = '\0';
		lines[(*n)++] = l;
	}
	qsort(lines, *n, sizeof(*lines), line_cmp);
	return lines;
}

static char *ptx_with_libclc(const char *src, const char *libclc)
{
	if (libclc)
		setenv("ACCELOS_LIBCLC_NVPTX", libclc, 1);
	else
		unsetenv("ACCELOS_LIBCLC_NVPTX");
	struct aos_jit_result *r;
	ck_assert_int_eq(compile(src, strlen(src), AOS_JIT_TARGET_NVPTX64, NULL, &r), 0);
	char *ptx = strndup((const char *)r->binary, r->binary_size);
	aos_jit_result_destroy(r);
	unsetenv("ACCELOS_LIBCLC_NVPTX");
	return ptx;
}

/* The build splits libclc into shards (passes/clc_split.cpp) and a PTX compile links only those
 * it calls into: the same module as linking the whole library, line for line. */
START_TEST(ptx_libclc_shards_give_the_whole_librarys_module)
{
	char buf[4096];
	bool sharded;
	aos_libclc_path(AOS_JIT_TARGET_NVPTX64, buf, sizeof(buf), &sharded);
	ck_assert_msg(sharded, "the build tree has no libclc shards beside the runtime library");
	static const char *const srcs[] = {
		"kernel void k(global float *p, global int *c) { size_t i = get_global_id(0);\n"
		"  p[i] = log1p(p[i]) + sin(p[i]) * pown(p[i], 3) + atan2(p[i], 2.0f) + cbrt(p[i]);\n"
		"  atomic_add(c, (int)get_local_id(0)); barrier(CLK_LOCAL_MEM_FENCE);\n"
		"  p[i] += (float)max(c[0], 3) + fma(p[i], 2.0f, 1.0f) + native_rsqrt(p[i]); }\n",
		"kernel void k(global float4 *p) { size_t i = get_global_id(0);\n"
		"  p[i] = exp(p[i]) + cos(p[i]) + sqrt(p[i]) + clamp(p[i], 0.0f, 1.0f); }\n",
	};
	for (size_t s = 0; s < sizeof(srcs) / sizeof(srcs[0]); s++) {
		char *whole = ptx_with_libclc(srcs[s], AOS_TEST_LIBCLC_NVPTX);
		char *shards = ptx_with_libclc(srcs[s], NULL);
		size_t nw, ns;
		char **lw = sorted_lines(whole, &nw), **ls = sorted_lines(shards, &ns);
		ck_assert_uint_gt(nw, 100); /* the math is in, not called */
		ck_assert_uint_eq(nw, ns);
		for (size_t i = 0; i < nw; i++)
			ck_assert_str_eq(lw[i], ls[i]);
		free(lw);
		free(ls);
		free(whole);
		free(shards);
	}
}
END_TEST

/* A shard directory that lacks the shards is a clear build failure, not a crash. */
START_TEST(ptx_missing_libclc_shard_is_a_build_failure)
{
	setenv("ACCELOS_LIBCLC_NVPTX", cache_dir, 1); /* a directory, empty */
	struct aos_jit_result *r;
	const char *src = "kernel void k(global float *p) { p[get_global_id(0)] = sin(p[0]); }\n";
	int rc = compile(src, strlen(src), AOS_JIT_TARGET_NVPTX64, NULL, &r);
	unsetenv("ACCELOS_LIBCLC_NVPTX");
	ck_assert_int_ne(rc, 0);
	ck_assert_str_eq(aos_jit_cl_error_name(rc), "CL_BUILD_PROGRAM_FAILURE");
	ck_assert_ptr_nonnull(strstr(r->build_log, "cannot read runtime library"));
	ck_assert_ptr_nonnull(strstr(r->build_log, "/clc-"));
	aos_jit_result_destroy(r);
}
END_TEST

/* libclc has no get_work_dim, get_local_linear_id or get_enqueued_local_size for PTX: the
 * rewrite supplies them, so the module names no extern the driver would refuse. */
START_TEST(ptx_work_dim_and_local_linear_id_resolve)
{
	const char *src = "kernel void k(global uint *o) {\n"
			  "  o[get_global_id(0)] = get_work_dim() * 1000u + (uint)get_local_linear_id()\n"
			  "    + (uint)get_enqueued_local_size(0);\n}\n";
	struct aos_jit_result *r;
	ck_assert_int_eq(compile(src, strlen(src), AOS_JIT_TARGET_NVPTX64, "-cl-std=CL2.0", &r), 0);
	ck_assert_uint_gt(r->binary_size, 0);
	ck_assert_int_eq(aos_jit_result_kernel(r, "k")->rewritten, 1);
	const char *ptx = (const char *)r->binary;
	ck_assert_ptr_null(strstr(ptx, ".extern"));
	ck_assert_ptr_null(strstr(ptx, "get_work_dim"));
	ck_assert_ptr_null(strstr(ptx, "get_local_linear_id"));
	ck_assert_ptr_null(strstr(ptx, "get_enqueued_local_size"));
	aos_jit_result_destroy(r);
}
END_TEST

/* Images have no PTX in libclc: the whole program stays native, each kernel says why, and
 * nothing is cached (the cache holds modules). */
START_TEST(ptx_without_image_support_stays_native)
{
	const char *src = "kernel void k(read_only image2d_t im, sampler_t s, global float4 *o) {\n"
			  "  o[get_global_id(0)] = read_imagef(im, s, (int2)(get_global_id(0), 0));\n}\n"
			  "kernel void plain(global int *o) { o[get_global_id(0)] = 1; }\n";
	struct aos_jit_options o = { .target = AOS_JIT_TARGET_NVPTX64, .cache_dir = cache_dir };
	struct aos_jit_result *r;
	for (int round = 0; round < 2; round++) {
		ck_assert_int_eq(aos_jit_compile(src, strlen(src), &o, &r), 0);
		ck_assert_int_eq(r->from_cache, 0);
		ck_assert_uint_eq(r->binary_size, 0);
		ck_assert_uint_eq(r->num_kernels, 2);
		for (size_t i = 0; i < r->num_kernels; i++) {
			ck_assert_int_eq(r->kernels[i].rewritten, 0);
			ck_assert_uint_eq(r->kernels[i].runtime_args, 0);
			ck_assert_ptr_nonnull(strstr(r->kernels[i].reason, "read_image"));
		}
		aos_jit_result_destroy(r);
	}
}
END_TEST

/* The reference build the diff tester uses on NVIDIA: the same kernel, not rewritten. */
START_TEST(no_rewrite_keeps_kernels_as_written)
{
	struct aos_jit_options o = { .target = AOS_JIT_TARGET_NVPTX64, .no_rewrite = 1,
				     .cache_dir = cache_dir };
	struct aos_jit_result *r;
	ck_assert_int_eq(aos_jit_compile(good, strlen(good), &o, &r), 0);
	const char *ptx = (const char *)r->binary;
	ck_assert_ptr_nonnull(strstr(ptx, ".entry k("));
	ck_assert_ptr_null(strstr(ptx, "atom.global"));
	ck_assert_ptr_null(aos_jit_result_kernel(r, "k")); /* nothing rewritten, nothing reported */
	aos_jit_result_destroy(r);
	/* Cached apart from the rewritten module of the same source. */
	o.no_rewrite = 0;
	ck_assert_int_eq(aos_jit_compile(good, strlen(good), &o, &r), 0);
	ck_assert_int_eq(r->from_cache, 0);
	ck_assert_ptr_nonnull(strstr((const char *)r->binary, "atom.global.add"));
	aos_jit_result_destroy(r);
}
END_TEST

START_TEST(spirv_through_translator)
{
	struct aos_jit_result *r;
	ck_assert_int_eq(compile(good, strlen(good), AOS_JIT_TARGET_SPIRV, NULL, &r), 0);
	ck_assert_uint_ge(r->binary_size, 20);
	uint32_t magic;
	memcpy(&magic, r->binary, 4);
	ck_assert_uint_eq(magic, 0x07230203u);
	aos_jit_result_destroy(r);
}
END_TEST

START_TEST(cache_hit_returns_same_module)
{
	struct aos_jit_options o = { .target = AOS_JIT_TARGET_SPIR64, .cache_dir = cache_dir };
	struct aos_jit_result *a, *b;
	ck_assert_int_eq(aos_jit_compile(good, strlen(good), &o, &a), 0);
	ck_assert_int_eq(a->from_cache, 0);
	ck_assert_int_eq(aos_jit_compile(good, strlen(good), &o, &b), 0);
	ck_assert_int_eq(b->from_cache, 1);
	ck_assert_uint_eq(a->binary_size, b->binary_size);
	ck_assert_mem_eq(a->binary, b->binary, a->binary_size);
	ck_assert_uint_eq(b->num_kernels, a->num_kernels);
	ck_assert_uint_eq(b->kernels[0].chunk, a->kernels[0].chunk);
	aos_jit_result_destroy(a);
	aos_jit_result_destroy(b);
	/* different options: a miss */
	o.build_options = "-DOTHER";
	ck_assert_int_eq(aos_jit_compile(good, strlen(good), &o, &b), 0);
	ck_assert_int_eq(b->from_cache, 0);
	aos_jit_result_destroy(b);
}
END_TEST

START_TEST(worker_timeout_is_a_build_failure)
{
	struct aos_jit_options o = { .target = AOS_JIT_TARGET_SPIR64, .no_cache = 1, .wall_ms = 1 };
	struct aos_jit_result *r;
	int rc = aos_jit_compile(good, strlen(good), &o, &r);
	ck_assert_int_eq(rc, -ETIMEDOUT);
	ck_assert_str_eq(aos_jit_cl_error_name(rc), "CL_BUILD_PROGRAM_FAILURE");
	ck_assert_ptr_nonnull(strstr(r->build_log, "timed out"));
	aos_jit_result_destroy(r);
}
END_TEST

START_TEST(memory_limit_contains_the_worker)
{
	struct aos_jit_options o = { .target = AOS_JIT_TARGET_SPIR64, .no_cache = 1,
				     .address_space = 32u << 20 };
	struct aos_jit_result *r;
	int rc = aos_jit_compile(good, strlen(good), &o, &r);
	ck_assert_int_ne(rc, 0);
	ck_assert_str_eq(aos_jit_cl_error_name(rc), "CL_BUILD_PROGRAM_FAILURE");
	ck_assert_ptr_nonnull(r->build_log);
	aos_jit_result_destroy(r);
}
END_TEST

START_TEST(deeply_nested_source)
{
	size_t depth = 200000, n = 0;
	char *src = malloc(2 * depth + 200);
	n += (size_t)sprintf(src, "kernel void k(global int *o) { o[0] = ");
	for (size_t i = 0; i < depth; i++)
		src[n++] = '(';
	src[n++] = '1';
	for (size_t i = 0; i < depth; i++)
		src[n++] = ')';
	n += (size_t)sprintf(src + n, "; }\n");
	struct aos_jit_result *r;
	int rc = compile(src, n, AOS_JIT_TARGET_SPIR64, NULL, &r);
	ck_assert_int_ne(rc, 0);
	ck_assert_ptr_nonnull(strstr(r->build_log, "error"));
	aos_jit_result_destroy(r);
	free(src);
}
END_TEST

START_TEST(oversized_source)
{
	size_t n = (16u << 20) + 1;
	char *src = malloc(n);
	memset(src, ' ', n);
	struct aos_jit_result *r;
	ck_assert_int_eq(compile(src, n, AOS_JIT_TARGET_SPIR64, NULL, &r), -E2BIG);
	ck_assert_ptr_nonnull(strstr(r->build_log, "exceeds"));
	aos_jit_result_destroy(r);
	free(src);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("jit_compile");
	TCase *tc = tcase_create("compile");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, spir64_bitcode_and_kernel_info);
	tcase_add_test(tc, spir64_has_direct_kernel);
	tcase_add_test(tc, no_direct_leaves_the_twin_out);
	tcase_add_test(tc, front_end_leaves_vectorizing_to_the_device);
	tcase_add_test(tc, front_end_leaves_unrolling_to_the_device);
	tcase_add_test(tc, syntax_error_gives_native_looking_log);
	tcase_add_test(tc, build_options_reach_clang);
	tcase_add_test(tc, device_enqueue_left_native_with_reason);
	tcase_add_test(tc, ptx_for_nvidia);
	tcase_add_test(tc, ptx_sm_bounded_to_what_llvm_writes);
	tcase_add_test(tc, ptx_inlines_libclc);
	tcase_add_test(tc, ptx_native_math_is_approx_with_and_without_rewrite);
	tcase_add_test(tc, ptx_library_tables_in_global_memory);
	tcase_add_test(tc, ptx_small_constant_trip_loops_unrolled);
	tcase_add_test(tc, ptx_sin_and_cos_of_one_argument_share_a_reduction);
	tcase_add_test(tc, ptx_programs_own_sin_is_not_fused);
	tcase_add_test(tc, ptx_work_dim_and_local_linear_id_resolve);
	tcase_add_test(tc, ptx_libclc_shards_give_the_whole_librarys_module);
	tcase_add_test(tc, ptx_missing_libclc_shard_is_a_build_failure);
	tcase_add_test(tc, ptx_without_image_support_stays_native);
	tcase_add_test(tc, no_rewrite_keeps_kernels_as_written);
	tcase_add_test(tc, spirv_through_translator);
	tcase_add_test(tc, cache_hit_returns_same_module);
	tcase_add_test(tc, worker_timeout_is_a_build_failure);
	tcase_add_test(tc, memory_limit_contains_the_worker);
	tcase_add_test(tc, deeply_nested_source);
	tcase_add_test(tc, oversized_source);
	suite_add_tcase(s, tc);
	return aos_check_run(s);
}
