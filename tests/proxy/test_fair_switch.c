/* The policy switch itself: under --policy fifo nothing is rewritten or launched elastically, and
 * an unknown policy stops the daemon before it serves anyone. */
#include <stdlib.h>
#include <string.h>

#include "daemon_status.h"
#include "clients.h"
#include "harness.h"

START_TEST(test_fifo_runs_natively)
{
    char text[16384];
    aos_test_status_text(text, sizeof(text));
    ck_assert_msg(strstr(text, "\npolicy fifo\n") != NULL, "status:\n%s", text);
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    cl_program p = aos_test_build(ctx, "kernel void w(global int *x) { x[get_global_id(0)] = (int)get_group_id(0); }",
                                  NULL);
    cl_int err;
    cl_kernel k = clCreateKernel(p, "w", &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 256 * sizeof(int), NULL, &err);
    ck_assert_int_eq(clSetKernelArg(k, 0, sizeof(m), &m), CL_SUCCESS);
    size_t global = 256, local = 16;
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL), CL_SUCCESS);
    int out[256];
    ck_assert_int_eq(clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL), CL_SUCCESS);
    for (int i = 0; i < 256; i++)
        ck_assert_int_eq(out[i], i / 16);
    long long kernels, launches;
    aos_test_status_elastic(getpid(), &kernels, &launches);
    ck_assert_int_eq(kernels, 0);
    ck_assert_int_eq(launches, 0);
    clReleaseMemObject(m);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

START_TEST(test_unknown_policy_is_refused)
{
    static const char *const args[] = {"--socket", "/nonexistent/accelos-never.sock", "--policy", "lottery", NULL};
    ck_assert_int_eq(aos_test_daemon_exit_code(args), 2);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fair_switch");
    TCase *tc = tcase_create("fair_switch");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_fifo_runs_natively);
    tcase_add_test(tc, test_unknown_policy_is_refused);
    suite_add_tcase(s, tc);
    static const char *const args[] = {"--policy", "fifo", NULL};
    return aos_test_run_suite_with_args(s, args);
}
