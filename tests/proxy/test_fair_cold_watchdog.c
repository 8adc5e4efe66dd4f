/* The runaway watchdog and the device's compile: on PoCL the first wave of a new kernel object
 * also times the device's compile of its code (tens to hundreds of ms, more under a sanitizer).
 * With a virtual-group limit far below that, such a first launch must still complete, not be
 * aborted as a runaway; a later launch whose virtual group runs past the limit still is. */
#include <stdint.h>
#include <stdio.h>

#include "harness.h"
#include "spin_kernel.h"
#include "trace_read.h"

static char trace_path[64] = "/tmp/accelos-cold-trace-XXXXXX";

enum { LOCAL = 16, GROUPS = 4, N = LOCAL * GROUPS, COLD_KERNELS = 6 };

static cl_event enqueue_spin(cl_command_queue q, cl_kernel k, cl_mem out, cl_uint rounds, cl_uint slow_group,
                             cl_uint slow_rounds)
{
    cl_event ev = aos_spin_slow_group_enqueue(q, k, out, N, LOCAL, rounds, slow_group, slow_rounds);
    ck_assert_ptr_nonnull(ev);
    return ev;
}

/* Four new kernels launched at once on four queues: on PoCL the first waves also time the
 * device's compiles of their code, one after another (seen in a sanitizer build: four cold first
 * waves of 300-400 ms against a 200 ms limit). Each launch must complete, not be aborted. Then,
 * warm, a virtual group spinning far past the limit still aborts its launch. */
START_TEST(test_first_launches_compiling_are_not_runaways)
{
    cl_context ctx;
    cl_command_queue q[COLD_KERNELS];
    aos_test_context(&ctx, &q[0]);
    for (int i = 1; i < COLD_KERNELS; i++)
        q[i] = aos_test_queue(ctx, CL_QUEUE_PROFILING_ENABLE);
    char src[COLD_KERNELS * 512] = "", one[512];
    for (int i = 0; i < COLD_KERNELS; i++) {
        char name[16];
        snprintf(name, sizeof(name), "cold_%d", i);
        aos_spin_cold_source(one, sizeof(one), name);
        strcat(src, one);
    }
    cl_program p = aos_test_build(ctx, src, NULL);
    cl_kernel k[COLD_KERNELS];
    cl_mem out[COLD_KERNELS];
    cl_event ev[COLD_KERNELS];
    for (int i = 0; i < COLD_KERNELS; i++) {
        char name[16];
        snprintf(name, sizeof(name), "cold_%d", i);
        k[i] = aos_test_kernel(p, name);
        out[i] = aos_test_buffer(ctx, N * sizeof(uint32_t), NULL);
        ev[i] = enqueue_spin(q[i], k[i], out[i], 100, UINT32_MAX, 0);
    }
    for (int i = 0; i < COLD_KERNELS; i++) {
        clWaitForEvents(1, &ev[i]);
        ck_assert_msg(aos_test_event_status(ev[i]) == CL_COMPLETE, "cold_%d: status %d", i,
                      aos_test_event_status(ev[i]));
        clReleaseEvent(ev[i]);
        uint32_t got[N];
        ck_assert_int_eq(clEnqueueReadBuffer(q[i], out[i], CL_TRUE, 0, sizeof(got), got, 0, NULL, NULL),
                         CL_SUCCESS);
        for (uint32_t j = 0; j < N; j++)
            ck_assert_uint_eq(got[j], aos_spin_expect(j, 100));
    }

    cl_event runaway = enqueue_spin(q[0], k[0], out[0], 100, 1, 400000000u); /* about a second */
    clWaitForEvents(1, &runaway);
    ck_assert_int_eq(aos_test_event_status(runaway), CL_OUT_OF_RESOURCES);
    clReleaseEvent(runaway);
    char line[2048];
    ck_assert(trace_find(trace_path, "\"status\":\"failed\"", line, sizeof(line)));
    ck_assert_ptr_nonnull(strstr(line, "\"kernel\":\"cold_0\""));
    ck_assert_uint_eq(trace_find_nth(trace_path, "\"status\":\"failed\"", 2, line, sizeof(line)), false);

    for (int i = 0; i < COLD_KERNELS; i++) {
        clReleaseMemObject(out[i]);
        clReleaseKernel(k[i]);
        clReleaseCommandQueue(q[i]);
    }
    clReleaseProgram(p);
    clReleaseContext(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fair_cold_watchdog");
    TCase *tc = tcase_create("fair_cold_watchdog");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_first_launches_compiling_are_not_runaways);
    suite_add_tcase(s, tc);
    /* A limit well below any compile of PoCL's, well above the launches' own virtual groups. */
    return aos_test_run_suite_fair_traced(s, trace_path,
                                          "vgroup_timeout_ms = 20\nmax_inflight_per_client = 0\nsolo_native_us = 0\n"
                                          "wave_shape = loop\n");
}
