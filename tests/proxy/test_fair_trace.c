/* --trace: every elastic launch leaves one JSON line with the client, kernel, times and group
 * counts, in the schema accelos-report reads. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "trace_read.h"

static char trace_path[64] = "/tmp/accelos-trace-XXXXXX";

static bool read_line_with(const char *needle, char *line, size_t size)
{
    return trace_find(trace_path, needle, line, size);
}

START_TEST(test_launch_is_traced)
{
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    cl_program p = aos_test_build(
        ctx, "kernel void traced_kernel(global int *x) { x[get_global_id(0)] = (int)get_group_id(0); }", NULL);
    cl_int err;
    cl_kernel k = clCreateKernel(p, "traced_kernel", &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 256 * sizeof(int), NULL, &err);
    ck_assert_int_eq(clSetKernelArg(k, 0, sizeof(m), &m), CL_SUCCESS);
    size_t global = 256, local = 16;
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clFinish(q), CL_SUCCESS);

    char line[1024], want[64];
    snprintf(want, sizeof(want), "\"pid\":%d,", (int)getpid());
    ck_assert_msg(read_line_with("\"kernel\":\"traced_kernel\"", line, sizeof(line)), "no trace line");
    ck_assert_ptr_nonnull(strstr(line, want));
    ck_assert_ptr_nonnull(strstr(line, "\"type\":\"trace\""));
    ck_assert_ptr_nonnull(strstr(line, "\"config\":\"accelosd-fair\""));
    ck_assert_ptr_nonnull(strstr(line, "\"status\":\"ok\""));
    ck_assert_uint_eq(trace_field(line, "virtual_groups"), 16);
    unsigned long long phys = trace_field(line, "physical_groups");
    ck_assert_uint_ge(phys, 1);
    ck_assert_uint_le(phys, 16);
    unsigned long long queued = trace_field(line, "arrival_ns"), start = trace_field(line, "start_ns"), end = trace_field(line, "end_ns");
    ck_assert_uint_gt(queued, 0);
    ck_assert_uint_le(queued, start);
    ck_assert_uint_le(start, end);
    /* Device time sums the waves (host clock), which run between admission and end. */
    ck_assert_uint_gt(trace_field(line, "device_ns"), 0);
    ck_assert_uint_le(trace_field(line, "device_ns"), trace_field(line, "ended_host_ns") - trace_field(line, "admitted_host_ns"));
    ck_assert_uint_ge(trace_field(line, "waves"), 1);
    ck_assert_uint_eq(trace_field(line, "virtual_groups_done"), 16);
    ck_assert_uint_eq(trace_field(line, "error"), 0);
    ck_assert_uint_le(trace_field(line, "admitted_host_ns"), trace_field(line, "ended_host_ns"));
    ck_assert_ptr_nonnull(strstr(line, "\"groups_over_time\":[["));
    clReleaseMemObject(m);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

/* A queue without profiling still gets a trace line, with host enqueue and completion times. */
START_TEST(test_launch_without_profiling_is_traced)
{
    cl_context ctx;
    cl_command_queue profiled_q;
    aos_test_context(&ctx, &profiled_q);
    cl_int err;
    cl_command_queue q = aos_test_queue(ctx, 0);
    cl_program p = aos_test_build(
        ctx, "kernel void plain_kernel(global int *x) { x[get_global_id(0)] = (int)get_local_id(0); }", NULL);
    cl_kernel k = clCreateKernel(p, "plain_kernel", &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64 * sizeof(int), NULL, &err);
    ck_assert_int_eq(clSetKernelArg(k, 0, sizeof(m), &m), CL_SUCCESS);
    size_t global = 64, local = 8;
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clFinish(q), CL_SUCCESS);

    char line[1024];
    ck_assert_msg(read_line_with("\"kernel\":\"plain_kernel\"", line, sizeof(line)), "no trace line");
    ck_assert_ptr_nonnull(strstr(line, "\"status\":\"ok\""));
    ck_assert_uint_eq(trace_field(line, "virtual_groups"), 8);
    unsigned long long queued = trace_field(line, "arrival_ns"), start = trace_field(line, "start_ns"), end = trace_field(line, "end_ns");
    ck_assert_uint_gt(queued, 0);
    ck_assert_uint_le(queued, start); /* host times: admission, then the first wave */
    ck_assert_uint_le(start, end);
    clReleaseMemObject(m);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseCommandQueue(profiled_q);
    clReleaseContext(ctx);
}
END_TEST

/* Builds `source`, launches remembered_kernel once over 4096 groups of 16 and checks every group ran;
 * releases everything. */
static void launch_remembered_kernel(cl_context ctx, cl_command_queue q, const char *source)
{
    enum { GROUPS = 4096, LOCAL = 16 };
    cl_program p = aos_test_build(ctx, source, NULL);
    cl_int err;
    cl_kernel k = clCreateKernel(p, "remembered_kernel", &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, GROUPS * sizeof(int), NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 0, sizeof(m), &m), CL_SUCCESS);
    size_t global = GROUPS * LOCAL, local = LOCAL;
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL), CL_SUCCESS);
    static int got[GROUPS];
    ck_assert_int_eq(clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof(got), got, 0, NULL, NULL), CL_SUCCESS);
    for (int g = 0; g < GROUPS; g++)
        ck_assert_int_eq(got[g], g);
    clReleaseMemObject(m);
    clReleaseKernel(k);
    clReleaseProgram(p);
}

/*
 * The time per virtual group the scheduler measured outlives the program: the same code launched
 * again from a new program (as a new process of the same application would) starts from it.
 * The first launch probes: one virtual group per compute unit, then at most 4x more per wave
 * (7 waves at least for 4096 groups on 2 compute units). The second is sized by slice from its
 * first wave, so it takes fewer waves than any probe could.
 */
START_TEST(test_estimate_outlives_the_program)
{
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    const char *source = "kernel void remembered_kernel(global int *x)"
                         "{ if (get_local_id(0) == 0) x[get_group_id(0)] = (int)get_group_id(0); }";
    launch_remembered_kernel(ctx, q, source);
    launch_remembered_kernel(ctx, q, source);

    char first[1024], second[1024];
    const char *needle = "\"kernel\":\"remembered_kernel\"";
    ck_assert_msg(trace_find_nth(trace_path, needle, 1, first, sizeof(first)), "no trace line");
    ck_assert_msg(trace_find_nth(trace_path, needle, 2, second, sizeof(second)), "no second trace line");
    ck_assert_uint_eq(trace_field(first, "virtual_groups_done"), 4096);
    ck_assert_uint_eq(trace_field(second, "virtual_groups_done"), 4096);
    /* Probing, wave n hands out at most width * 4^(n-1) groups. */
    unsigned long long width = trace_field(first, "physical_groups"), probe_waves = 0, covered = 0;
    ck_assert_uint_ge(width, 1);
    for (unsigned long long most = width; covered < 4096; most *= 4, probe_waves++)
        covered += most;
    unsigned long long probed = trace_field(first, "waves"), remembered = trace_field(second, "waves");
    ck_assert_uint_ge(probed, probe_waves);
    ck_assert_msg(remembered < probe_waves,
                  "second program's launch took %llu waves, a probe at least %llu (the first took %llu): not remembered",
                  remembered, probe_waves, probed);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fair_trace");
    TCase *tc = tcase_create("fair_trace");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_launch_is_traced);
    tcase_add_test(tc, test_launch_without_profiling_is_traced);
    tcase_add_test(tc, test_estimate_outlives_the_program);
    suite_add_tcase(s, tc);
    return aos_test_run_suite_fair_traced(s, trace_path, NULL);
}
