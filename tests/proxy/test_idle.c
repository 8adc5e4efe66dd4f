/*
 * An idle daemon sleeps. With no client, and with a client connected that ran work and still
 * holds its objects but sends nothing, the daemon's threads (the client's service thread, the
 * device's scheduler, the event threads, the device's own workers) use next to no CPU. A service
 * thread that never stopped polling its ring, or a scheduler thread stepping on a timer already
 * past, would show here as a core's worth: on a shared machine an idle system service must not.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

/* Allowed in one idle second: a few of the kernel's 10 ms ticks. */
#define IDLE_CPU_MAX_NS 50000000ull

static void check_idle_second(const char *when)
{
    usleep(200000); /* anticipation holds, cut checks and service spins of the last calls end */
    uint64_t before = aos_test_daemon_cpu_ns();
    usleep(1000000);
    uint64_t used = aos_test_daemon_cpu_ns() - before;
    fprintf(stderr, "idle %s: the daemon used %.1f ms of CPU in 1 s\n", when, (double)used / 1e6);
    ck_assert_msg(used <= IDLE_CPU_MAX_NS, "idle %s, the daemon used %.1f ms of CPU in 1 s", when,
                  (double)used / 1e6);
}

START_TEST(test_idle_without_clients)
{
    check_idle_second("without clients");
}
END_TEST

static const char *square_src =
    "kernel void square(global uint *v) { size_t i = get_global_id(0); v[i] = v[i] * v[i]; }\n";

START_TEST(test_idle_with_a_client_that_ran_work)
{
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    enum { N = 4096 };
    static cl_uint data[N];
    for (cl_uint i = 0; i < N; i++)
        data[i] = i;
    cl_mem buf = aos_test_buffer(ctx, sizeof(data), data);
    cl_program p = aos_test_build(ctx, square_src, NULL);
    cl_kernel k = aos_test_kernel(p, "square");
    ck_assert_int_eq(clSetKernelArg(k, 0, sizeof(buf), &buf), CL_SUCCESS);
    size_t global = N;
    for (int round = 0; round < 3; round++) /* a few launches: the scheduler's estimates, holds */
        ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL), CL_SUCCESS);
    cl_uint back[N];
    ck_assert_int_eq(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof(back), back, 0, NULL, NULL), CL_SUCCESS);
    for (cl_uint i = 0; i < N; i++) { /* i^8, modulo 2^32 */
        cl_uint x = i * i;
        x *= x;
        x *= x;
        ck_assert_uint_eq(back[i], x);
    }
    /* The objects stay alive and the connection open while the daemon idles. */
    check_idle_second("with a client holding its objects");
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseMemObject(buf);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("idle");
    TCase *tc = tcase_create("idle");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_idle_without_clients);
    tcase_add_test(tc, test_idle_with_a_client_that_ran_work);
    suite_add_tcase(s, tc);
    return aos_test_run_suite(s);
}
