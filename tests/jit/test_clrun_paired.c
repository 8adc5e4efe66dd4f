/*
 * The benchmark runner's paired launches (jit/cli/clrun.h): one argument set shared by the
 * native kernel and its direct shape, launches alternating on one queue, and the profiled span
 * of a launch made of several waves. Runs on the first OpenCL device.
 */
#include "clrun.h"

#include "accelos/jit.h"
#include "accelos/vndrange.h"
#include "check_run.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#define N 4096
#define LOCAL 64

static const char *source =
	"kernel void scale(global const float *a, global float *c)\n"
	"{\n"
	"\tsize_t i = get_global_id(0);\n"
	"\tc[i] = 2.0f * a[i] + (float)get_group_id(0);\n"
	"}\n"
	"kernel void scale2d(global const float *a, global float *c)\n"
	"{\n"
	"\tsize_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);\n"
	"\tc[i] = 2.0f * a[i];\n"
	"}\n";

static struct aos_clenv env;
static cl_program native, rewritten;
static struct aos_argspec args[2];
static struct aos_launch launch = { 1, { N, 1, 1 }, { LOCAL, 1, 1 }, { 0, 0, 0 } };

static void setup(void)
{
	char err[128], *log = NULL;
	ck_assert_int_eq(aos_clenv_open(&env), 0);
	native = aos_clrun_build_source(&env, source, "", &log);
	ck_assert_ptr_nonnull(native);
	unsigned nv_sm = 0;
	struct aos_jit_options jo = { .target = aos_clenv_jit_target(&env, &nv_sm), .no_cache = 1,
				      .nv_sm = nv_sm };
	struct aos_jit_result *res = NULL;
	ck_assert_int_eq(aos_jit_compile(source, strlen(source), &jo, &res), 0);
	rewritten = aos_clrun_build_jit(&env, (int)jo.target, res->binary, res->binary_size, &log);
	aos_jit_result_destroy(res);
	ck_assert_ptr_nonnull(rewritten);
	ck_assert_int_eq(aos_argspec_parse("buf:float:4096", &args[0], err, sizeof(err)), 0);
	ck_assert_int_eq(aos_argspec_parse("buf:float:4096:zero", &args[1], err, sizeof(err)), 0);
}

static void teardown(void)
{
	clReleaseProgram(native);
	clReleaseProgram(rewritten);
	aos_clenv_close(&env);
}

/* Runs one launch of p and reads argument 1 into out. */
static void run_once(struct aos_clrun_prepared *p, const struct aos_clrun_args *set, float *out,
		     double *span_ms)
{
	cl_event first = NULL, last = NULL;
	ck_assert_int_eq(aos_clrun_enqueue(&env, p, &first, &last), CL_SUCCESS);
	ck_assert_int_eq(clFinish(env.queue), CL_SUCCESS);
	*span_ms = aos_clrun_span_ms(first, last);
	clReleaseEvent(first);
	clReleaseEvent(last);
	ck_assert_int_eq(clEnqueueReadBuffer(env.queue, aos_clrun_args_mem(set, 1), CL_TRUE, 0,
					     N * sizeof(float), out, 0, NULL, NULL),
			 CL_SUCCESS);
}

static void clear_output(const struct aos_clrun_args *set)
{
	float zero = 0;
	ck_assert_int_eq(clEnqueueFillBuffer(env.queue, aos_clrun_args_mem(set, 1), &zero,
					     sizeof(zero), 0, N * sizeof(float), 0, NULL, NULL),
			 CL_SUCCESS);
}

START_TEST(shapes_share_one_argument_set)
{
	struct aos_clrun_args *set = NULL;
	struct aos_clrun_prepared *nat = NULL, *dir = NULL;
	/* Three waves: the span must reach from the first wave's start to the last one's end. */
	struct aos_sched_cfg direct = { .direct_wave = N / LOCAL / 3 + 1 };
	static float a[N], by_native[N], by_direct[N];
	double span_native, span_direct;
	ck_assert_int_eq(aos_clrun_args_create(&env, args, 2, 7, &set), CL_SUCCESS);
	ck_assert_int_eq(clEnqueueReadBuffer(env.queue, aos_clrun_args_mem(set, 0), CL_TRUE, 0,
					     sizeof(a), a, 0, NULL, NULL),
			 CL_SUCCESS);
	ck_assert_int_eq(aos_clrun_prepare(&env, native, "scale", &launch, set, NULL, &nat), 0);
	ck_assert_int_eq(aos_clrun_prepare(&env, rewritten, "scale", &launch, set, &direct, &dir), 0);
	run_once(nat, set, by_native, &span_native);
	clear_output(set);
	run_once(dir, set, by_direct, &span_direct);
	for (int i = 0; i < N; i++)
		ck_assert_float_eq(by_native[i], 2.0f * a[i] + (float)(i / LOCAL));
	ck_assert_mem_eq(by_native, by_direct, sizeof(by_native));
	ck_assert(span_native > 0);
	ck_assert(span_direct > 0);
	aos_clrun_prepared_destroy(nat);
	aos_clrun_prepared_destroy(dir);
	aos_clrun_args_destroy(set);
}
END_TEST

START_TEST(span_covers_every_wave)
{
	struct aos_clrun_args *set = NULL;
	struct aos_clrun_prepared *dir = NULL;
	struct aos_sched_cfg direct = { .direct_wave = N / LOCAL / 4 };
	ck_assert_int_eq(aos_clrun_args_create(&env, args, 2, 7, &set), CL_SUCCESS);
	ck_assert_int_eq(aos_clrun_prepare(&env, rewritten, "scale", &launch, set, &direct, &dir), 0);
	cl_event first = NULL, last = NULL;
	ck_assert_int_eq(aos_clrun_enqueue(&env, dir, &first, &last), CL_SUCCESS);
	ck_assert_int_eq(clFinish(env.queue), CL_SUCCESS);
	ck_assert_ptr_ne(first, last);
	double span = aos_clrun_span_ms(first, last), first_alone = aos_clrun_span_ms(first, first),
	       last_alone = aos_clrun_span_ms(last, last);
	ck_assert(first_alone > 0 && last_alone > 0);
	ck_assert(span >= first_alone + last_alone);
	clReleaseEvent(first);
	clReleaseEvent(last);
	aos_clrun_prepared_destroy(dir);
	aos_clrun_args_destroy(set);
}
END_TEST

START_TEST(a_single_command_is_both_ends)
{
	struct aos_clrun_args *set = NULL;
	struct aos_clrun_prepared *nat = NULL;
	ck_assert_int_eq(aos_clrun_args_create(&env, args, 2, 7, &set), CL_SUCCESS);
	ck_assert_int_eq(aos_clrun_prepare(&env, native, "scale", &launch, set, NULL, &nat), 0);
	for (int i = 0; i < 4; i++) {
		cl_event first = NULL, last = NULL;
		ck_assert_int_eq(aos_clrun_enqueue(&env, nat, &first, &last), CL_SUCCESS);
		ck_assert_ptr_eq(first, last);
		ck_assert_int_eq(clWaitForEvents(1, &last), CL_SUCCESS);
		ck_assert(aos_clrun_span_ms(first, last) > 0);
		/* Two references: releasing both ends must not free it twice. */
		clReleaseEvent(first);
		clReleaseEvent(last);
	}
	aos_clrun_prepared_destroy(nat);
	aos_clrun_args_destroy(set);
}
END_TEST

/* A prepared loop launch of a 2D range runs on the physical groups asked for, along x, one
 * along y: each master ends on one empty grab, except the one whose grab reached the end, so
 * the record's next counts them. Like the daemon's, it leaves `done` alone. */
START_TEST(loop_launch_runs_the_physical_groups_asked_for)
{
	const struct aos_launch grid = { 2, { 64, 64, 1 }, { 16, 4, 1 }, { 0, 0, 0 } };
	const struct aos_sched_cfg loop = { .phys_groups = 3, .chunk = 2 };
	struct aos_clrun_args *set = NULL;
	struct aos_clrun_prepared *p = NULL;
	struct aos_vndrange rec;
	ck_assert_int_eq(aos_clrun_args_create(&env, args, 2, 7, &set), CL_SUCCESS);
	ck_assert_int_eq(aos_clrun_prepare(&env, rewritten, "scale2d", &grid, set, &loop, &p), 0);
	cl_event first = NULL, last = NULL;
	ck_assert_int_eq(aos_clrun_enqueue(&env, p, &first, &last), CL_SUCCESS);
	ck_assert_int_eq(clFinish(env.queue), CL_SUCCESS);
	clReleaseEvent(first);
	clReleaseEvent(last);
	ck_assert_int_eq(clEnqueueReadBuffer(env.queue, aos_clrun_prepared_record(p), CL_TRUE, 0,
					     sizeof(rec), &rec, 0, NULL, NULL),
			 CL_SUCCESS);
	ck_assert_uint_eq(rec.total_groups, 64);
	ck_assert_uint_eq(rec.flags, 0);
	ck_assert_uint_eq(rec.done, 0); /* the daemon's way: without COUNT_DONE no master adds */
	ck_assert_uint_eq(rec.next, 2 * (64 / 2 + 2)); /* 32 full grabs, then 2 empty ones */
	float out[N], in[N];
	ck_assert_int_eq(clEnqueueReadBuffer(env.queue, aos_clrun_args_mem(set, 1), CL_TRUE, 0,
					     sizeof(out), out, 0, NULL, NULL),
			 CL_SUCCESS);
	ck_assert_int_eq(clEnqueueReadBuffer(env.queue, aos_clrun_args_mem(set, 0), CL_TRUE, 0,
					     sizeof(in), in, 0, NULL, NULL),
			 CL_SUCCESS);
	for (int i = 0; i < N; i++)
		ck_assert_float_eq(out[i], 2.0f * in[i]);
	aos_clrun_prepared_destroy(p);
	aos_clrun_args_destroy(set);
}
END_TEST

START_TEST(args_mem_refuses_what_is_not_a_memory_object)
{
	struct aos_clrun_args *set = NULL;
	ck_assert_int_eq(aos_clrun_args_create(&env, args, 2, 7, &set), CL_SUCCESS);
	ck_assert_ptr_nonnull(aos_clrun_args_mem(set, 0));
	ck_assert_ptr_null(aos_clrun_args_mem(set, 2));
	ck_assert_ptr_null(aos_clrun_args_mem(set, -1));
	aos_clrun_args_destroy(set);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("clrun_paired");
	TCase *tc = tcase_create("paired");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, shapes_share_one_argument_set);
	tcase_add_test(tc, span_covers_every_wave);
	tcase_add_test(tc, a_single_command_is_both_ends);
	tcase_add_test(tc, loop_launch_runs_the_physical_groups_asked_for);
	tcase_add_test(tc, args_mem_refuses_what_is_not_a_memory_object);
	suite_add_tcase(s, tc);
	return aos_check_run(s);
}
