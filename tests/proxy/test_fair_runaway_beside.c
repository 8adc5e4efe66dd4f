/* The daemon's own failure of a launch beside a completion (accelosd/fail_gate.h). The runaway
 * watchdog fails a launch's event while commands wait on it and on a launch that completes: on
 * PoCL 3.1 a failure that meets a completion in one command can run the command anyway, or abort
 * the daemon. So the launch's event may fail like a client's user event: each such command waits
 * on a gate, which fails, and the command fails without running; the other launch completes with
 * its results. */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "daemon_status.h"
#include "harness.h"
#include "spin_kernel.h"

static char trace_path[64] = "/tmp/accelos-runaway-beside-XXXXXX";

enum { LOCAL = 16, GROUPS = 4, N = LOCAL * GROUPS, ROUNDS = 2, WORDS = 16 };

static cl_event enqueue_spin(cl_command_queue q, cl_kernel k, cl_mem out, cl_uint slow_group, cl_uint slow_rounds)
{
    cl_event ev = aos_spin_slow_group_enqueue(q, k, out, N, LOCAL, 100, slow_group, slow_rounds);
    ck_assert_ptr_nonnull(ev);
    return ev;
}

static void wait_complete(cl_event ev)
{
    ck_assert_int_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
    clReleaseEvent(ev);
}

/* Per round: a launch with one virtual group spinning far past the limit (the runaway), a short
 * launch on another queue, and two reads of a buffer that wait for both, one on a third queue
 * and one behind the runaway on its own in-order queue. */
START_TEST(test_runaway_failure_beside_a_completion)
{
    cl_context ctx;
    cl_command_queue q_run, q_short, q_read;
    aos_test_context(&ctx, &q_run);
    q_short = aos_test_queue(ctx, 0);
    q_read = aos_test_queue(ctx, 0);
    char src[1024];
    aos_spin_cold_source(src, sizeof(src), "spin_slow");
    cl_program p = aos_test_build(ctx, src, NULL);
    cl_kernel k_run = aos_test_kernel(p, "spin_slow"), k_short = aos_test_kernel(p, "spin_slow");
    cl_mem out_run = aos_test_buffer(ctx, N * sizeof(uint32_t), NULL);
    cl_mem out_short = aos_test_buffer(ctx, N * sizeof(uint32_t), NULL);
    uint32_t init[WORDS];
    for (uint32_t i = 0; i < WORDS; i++)
        init[i] = 500u + i;
    cl_mem data = aos_test_buffer(ctx, sizeof(init), init);
    /* Warm: a kernel object's first waves also time the device's compile, never a runaway. */
    wait_complete(enqueue_spin(q_run, k_run, out_run, UINT32_MAX, 0));
    wait_complete(enqueue_spin(q_short, k_short, out_short, UINT32_MAX, 0));

    long long failed_before = aos_test_status_count(getpid(), "gates-failed");
    for (int round = 0; round < ROUNDS; round++) {
        cl_event runaway = enqueue_spin(q_run, k_run, out_run, 1, 400000000u); /* about a second */
        cl_event done = enqueue_spin(q_short, k_short, out_short, 1, 400000u); /* about a millisecond */
        uint32_t beside[WORDS] = {0}, behind[WORDS] = {0};
        cl_event both[2] = {runaway, done}, read_beside, read_behind;
        ck_assert_int_eq(clEnqueueReadBuffer(q_read, data, CL_FALSE, 0, sizeof(beside), beside, 2, both, &read_beside),
                         CL_SUCCESS);
        ck_assert_int_eq(clEnqueueReadBuffer(q_run, data, CL_FALSE, 0, sizeof(behind), behind, 1, &done, &read_behind),
                         CL_SUCCESS);
        ck_assert_int_eq(clFlush(q_read), CL_SUCCESS);
        ck_assert_int_eq(clFlush(q_run), CL_SUCCESS);
        ck_assert_int_eq(clWaitForEvents(1, &runaway), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        ck_assert_int_eq(aos_test_event_status(runaway), CL_OUT_OF_RESOURCES);
        ck_assert_int_eq(clFinish(q_short), CL_SUCCESS);
        ck_assert_int_eq(clFinish(q_read), CL_SUCCESS);
        ck_assert_int_eq(clFinish(q_run), CL_SUCCESS);
        ck_assert_int_eq(aos_test_event_status(done), CL_COMPLETE);
        ck_assert_int_eq(aos_spin_check_sample(q_short, out_short, N, 100), 0);
        ck_assert_int_lt(aos_test_event_status(read_beside), 0);
        ck_assert_int_lt(aos_test_event_status(read_behind), 0);
        for (int i = 0; i < WORDS; i++)
            ck_assert_uint_eq(beside[i] | behind[i], 0);
        clReleaseEvent(read_beside), clReleaseEvent(read_behind);
        clReleaseEvent(done), clReleaseEvent(runaway);
        /* The runaway's group spins on after its abort, holding a core: beside the next round's,
         * the short launch would wait for a core while the watchdog times it. */
        usleep(1200000);
    }
    /* Each read waited for both launches through a gate, and the gate failed. */
    ck_assert_int_ge(aos_test_status_count(getpid(), "gates-failed") - failed_before, 2 * ROUNDS);

    /* The client's work goes on. */
    cl_event again = enqueue_spin(q_run, k_run, out_run, UINT32_MAX, 0);
    ck_assert_int_eq(clWaitForEvents(1, &again), CL_SUCCESS);
    clReleaseEvent(again);
    ck_assert_int_eq(aos_spin_check_sample(q_run, out_run, N, 100), 0);
    ck_assert(aos_test_daemon_alive());

    clReleaseMemObject(data);
    clReleaseMemObject(out_short);
    clReleaseMemObject(out_run);
    clReleaseKernel(k_short);
    clReleaseKernel(k_run);
    clReleaseProgram(p);
    clReleaseCommandQueue(q_read);
    clReleaseCommandQueue(q_short);
    clReleaseCommandQueue(q_run);
    clReleaseContext(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fair_runaway_beside");
    TCase *tc = tcase_create("fair_runaway_beside");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_runaway_failure_beside_a_completion);
    suite_add_tcase(s, tc);
    /* A limit 100 times the short launch's virtual groups, a tenth of the runaway's. */
    return aos_test_run_suite_fair_traced(s, trace_path,
                                          "vgroup_timeout_ms = 100\nmax_inflight_per_client = 0\nsolo_native_us = 0\n"
                                          "wave_shape = loop\n");
}
