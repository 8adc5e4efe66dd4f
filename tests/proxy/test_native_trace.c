/* --trace under the fifo policy: launches that run natively leave one JSON line each too (one wave
 * over all their groups), with profiling times when the queue has them and host times otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "trace_read.h"

static char trace_path[64] = "/tmp/accelos-native-trace-XXXXXX";

static const char *src =
    "kernel void native_profiled(global int *x) { x[get_global_id(0)] = (int)get_group_id(0); }\n"
    "kernel void native_plain(global int *x) { x[get_global_id(0)] = 7; }\n"
    "kernel void native_any_local(global int *x) { x[get_global_id(0)] = 9; }\n";

static void run(cl_context ctx, cl_command_queue q, cl_program p, const char *name, size_t global,
                const size_t *local)
{
    cl_int err;
    cl_kernel k = clCreateKernel(p, name, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, global * sizeof(int), NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 0, sizeof(m), &m), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, local, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clFinish(q), CL_SUCCESS);
    clReleaseMemObject(m);
    clReleaseKernel(k);
}

static void line_of(const char *kernel, char *line, size_t size)
{
    char needle[64];
    snprintf(needle, sizeof(needle), "\"kernel\":\"%s\"", kernel);
    ck_assert_msg(trace_find(trace_path, needle, line, size), "no trace line for %s", kernel);
}

START_TEST(test_native_launches_are_traced)
{
    cl_context ctx;
    cl_command_queue profiled;
    aos_test_context(&ctx, &profiled); /* profiling enabled */
    cl_command_queue plain = aos_test_queue(ctx, 0);
    cl_program p = aos_test_build(ctx, src, NULL);
    size_t local = 16;
    run(ctx, profiled, p, "native_profiled", 256, &local);
    run(ctx, plain, p, "native_plain", 128, &local);
    run(ctx, profiled, p, "native_any_local", 64, NULL);

    char line[2048], pid[32];
    snprintf(pid, sizeof(pid), "\"pid\":%d,", (int)getpid());
    line_of("native_profiled", line, sizeof(line));
    ck_assert_ptr_nonnull(strstr(line, "\"config\":\"accelosd-fifo\""));
    ck_assert_ptr_nonnull(strstr(line, pid));
    ck_assert_ptr_nonnull(strstr(line, "\"status\":\"ok\""));
    ck_assert_uint_eq(trace_field(line, "waves"), 1);
    ck_assert_uint_eq(trace_field(line, "physical_groups"), 16);
    ck_assert_uint_eq(trace_field(line, "virtual_groups"), 16);
    ck_assert_uint_eq(trace_field(line, "virtual_groups_done"), 16);
    unsigned long long arrival = trace_field(line, "arrival_ns"), start = trace_field(line, "start_ns"),
                       end = trace_field(line, "end_ns");
    ck_assert_uint_gt(arrival, 0);
    ck_assert_uint_le(arrival, start);
    ck_assert_uint_le(start, end);
    ck_assert_uint_eq(trace_field(line, "device_ns"), end - start);
    unsigned groups[4];
    ck_assert_uint_eq(trace_groups(line, groups, 4), 1);
    ck_assert_uint_eq(groups[0], 16);

    line_of("native_plain", line, sizeof(line)); /* no profiling: host times */
    ck_assert_ptr_nonnull(strstr(line, "\"status\":\"ok\""));
    ck_assert_uint_eq(trace_field(line, "virtual_groups_done"), 8);
    ck_assert_uint_le(trace_field(line, "arrival_ns"), trace_field(line, "end_ns"));
    ck_assert_uint_le(trace_field(line, "admitted_host_ns"), trace_field(line, "ended_host_ns"));

    line_of("native_any_local", line, sizeof(line)); /* the driver chose the groups: 0 */
    ck_assert_uint_eq(trace_field(line, "physical_groups"), 0);

    clReleaseProgram(p);
    clReleaseCommandQueue(plain);
    clReleaseCommandQueue(profiled);
    clReleaseContext(ctx);
}
END_TEST

int main(void)
{
    if (!aos_test_write_temp(trace_path, "")) {
        perror("accelos test: temporary file");
        return 1;
    }
    Suite *s = suite_create("native_trace");
    TCase *tc = tcase_create("native_trace");
    tcase_add_test(tc, test_native_launches_are_traced);
    suite_add_tcase(s, tc);
    const char *const args[] = {"--policy", "fifo", "--trace", trace_path, NULL};
    int rc = aos_test_run_suite_with_args(s, args);
    unlink(trace_path);
    return rc;
}
