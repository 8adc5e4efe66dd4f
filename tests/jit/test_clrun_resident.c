/*
 * The physical groups a rewritten loop launch gets when it runs alone (aos_clrun_resident_groups)
 * and the device facts behind them (aos_sched_device_query), on the first OpenCL device: the
 * JIT benchmark sizes its loop launches by them as the daemon's scheduler does.
 */
#include "clrun.h"

#include "accelos/jit.h"
#include "accelos/sched_query.h"
#include "check_run.h"

#include <check.h>
#include <string.h>

static const char *source = "kernel void scale(global float *c) { c[get_global_id(0)] *= 2.0f; }\n"
			    "kernel void tiled(global float *c, local float *t)\n"
			    "{ t[get_local_id(0)] = c[get_global_id(0)]; barrier(CLK_LOCAL_MEM_FENCE);\n"
			    "  c[get_global_id(0)] = t[get_local_size(0) - 1 - get_local_id(0)]; }\n";

static struct aos_clenv env;
static cl_program rewritten;

static void setup(void)
{
	char *log = NULL;
	ck_assert_int_eq(aos_clenv_open(&env), 0);
	unsigned nv_sm = 0;
	struct aos_jit_options jo = { .target = aos_clenv_jit_target(&env, &nv_sm), .no_cache = 1,
				      .nv_sm = nv_sm };
	struct aos_jit_result *res = NULL;
	ck_assert_int_eq(aos_jit_compile(source, strlen(source), &jo, &res), 0);
	rewritten = aos_clrun_build_jit(&env, (int)jo.target, res->binary, res->binary_size, &log);
	aos_jit_result_destroy(res);
	ck_assert_ptr_nonnull(rewritten);
}

static void teardown(void)
{
	clReleaseProgram(rewritten);
	aos_clenv_close(&env);
}

START_TEST(device_query_reads_what_the_device_reports)
{
	struct aos_sched_device_info info;
	char vendor[AOS_SCHED_VENDOR_MAX];
	aos_sched_device_query(clGetDeviceInfo, env.device, &info, vendor);
	cl_device_type type = 0;
	size_t wg = 0;
	clGetDeviceInfo(env.device, CL_DEVICE_TYPE, sizeof(type), &type, NULL);
	clGetDeviceInfo(env.device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(wg), &wg, NULL);
	ck_assert_uint_eq(info.compute_units, env.compute_units);
	ck_assert_uint_eq(info.type, (uint64_t)type);
	ck_assert_uint_eq(info.max_work_group_size, wg);
	ck_assert_ptr_eq(info.vendor, vendor);
	ck_assert_uint_gt(strlen(vendor), 0);
	ck_assert_uint_gt(info.local_mem_size, 0);
	if (!strstr(vendor, "NVIDIA"))
		ck_assert_uint_eq(info.nv_cc_major, 0);
}
END_TEST

START_TEST(resident_groups_follow_the_resource_model)
{
	struct aos_launch l = { 1, { 4096, 1, 1 }, { 64, 1, 1 }, { 0, 0, 0 } };
	size_t resident = aos_clrun_resident_groups(&env, rewritten, "scale", &l);
	cl_device_type type = 0;
	clGetDeviceInfo(env.device, CL_DEVICE_TYPE, sizeof(type), &type, NULL);
	if (type & CL_DEVICE_TYPE_CPU) /* the CPU model: one work-group per compute unit */
		ck_assert_uint_eq(resident, env.compute_units);
	else
		ck_assert_uint_ge(resident, env.compute_units);
	/* Local memory counts: a kernel using it holds no more groups, never fewer than one per unit. */
	size_t tiled = aos_clrun_resident_groups(&env, rewritten, "tiled", &l);
	ck_assert_uint_le(tiled, resident);
	ck_assert_uint_ge(tiled, env.compute_units);
	/* A work-group larger than the device allows fits nowhere. */
	size_t wg = 0;
	clGetDeviceInfo(env.device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(wg), &wg, NULL);
	struct aos_launch too_big = { 1, { 2 * wg * 2, 1, 1 }, { 2 * wg, 1, 1 }, { 0, 0, 0 } };
	ck_assert_uint_eq(aos_clrun_resident_groups(&env, rewritten, "scale", &too_big), 0);
	ck_assert_uint_eq(aos_clrun_resident_groups(&env, rewritten, "no_such_kernel", &l), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("clrun_resident");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, device_query_reads_what_the_device_reports);
	tcase_add_test(tc, resident_groups_follow_the_resource_model);
	suite_add_tcase(s, tc);
	return aos_check_run(s);
}
