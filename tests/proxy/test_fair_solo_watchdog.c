/* Solo launches and the application's event (docs/scheduler.md §6, *Solo launches*): a solo
 * launch's event reports its kernel's status and profiling and completes waits and wait lists as
 * any launch's; and the runaway rule covers it: when a virtual group runs past vgroup_timeout_ms,
 * the event fails with CL_OUT_OF_RESOURCES while the kernel still runs, as a logical launch's
 * does, and the code runs in waves from then on. */
#include <stdint.h>
#include <unistd.h>

#include "daemon_status.h"
#include "harness.h"
#include "solo_train.h"
#include "spin_kernel.h"

enum { N = AOS_SOLO_GROUPS * AOS_SOLO_LOCAL, SLOW_ROUNDS = 100000000u /* seconds: far past the limit */ };

/* The spin kernel, whose group slow_group runs slow_rounds instead of rounds. */
static const char src[] = "kernel void spin" AOS_SPIN_SLOW_GROUP_PARAMS AOS_SPIN_SLOW_GROUP_BODY;

static cl_event launch(cl_command_queue q, cl_kernel k, cl_mem out, cl_uint slow_group, cl_uint slow_rounds)
{
    cl_event ev = aos_spin_slow_group_enqueue(q, k, out, N, AOS_SOLO_LOCAL, AOS_SOLO_ROUNDS, slow_group, slow_rounds);
    ck_assert_ptr_nonnull(ev);
    return ev;
}

/* Launches k until one runs solo (its slow group as fast as the others). */
static void train(cl_command_queue q, cl_kernel k, cl_mem out)
{
    long long solo0 = aos_test_status_solo(getpid());
    for (int i = 0; i < AOS_SOLO_TRAIN_MAX && aos_test_status_solo(getpid()) == solo0; i++) {
        cl_event ev = launch(q, k, out, UINT32_MAX, 0);
        ck_assert_int_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
        clReleaseEvent(ev);
    }
    ck_assert_int_gt(aos_test_status_solo(getpid()), solo0);
}

static void check_results(cl_command_queue q, cl_mem out)
{
    uint32_t got[N];
    ck_assert_int_eq(clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof(got), got, 0, NULL, NULL), CL_SUCCESS);
    for (uint32_t i = 0; i < N; i++)
        ck_assert_uint_eq(got[i], aos_spin_expect(i, AOS_SOLO_ROUNDS));
}

START_TEST(test_solo_event_reports_its_kernel)
{
    cl_context ctx;
    cl_command_queue q;
    cl_kernel k = aos_test_app_kernel(src, "spin", &ctx, &q);
    cl_command_queue other = aos_test_queue(ctx, 0);
    cl_mem out = aos_test_buffer(ctx, N * sizeof(uint32_t), NULL);
    train(q, k, out);

    /* Right after clFinish, its status is final, and it has its kernel's profiling times. */
    long long solo0 = aos_test_status_solo(getpid());
    cl_event ev = launch(q, k, out, UINT32_MAX, 0);
    ck_assert_int_eq(clFinish(q), CL_SUCCESS);
    ck_assert_int_eq(aos_test_event_status(ev), CL_COMPLETE);
    cl_ulong start = 0, end = 0;
    ck_assert_int_eq(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof(start), &start, NULL), CL_SUCCESS);
    ck_assert_int_eq(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof(end), &end, NULL), CL_SUCCESS);
    ck_assert_uint_gt(start, 0);
    ck_assert_uint_ge(end, start);
    ck_assert_int_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
    clReleaseEvent(ev);

    /* Another queue's read waits for it through its wait list, and sees its results. */
    cl_mem fresh = aos_test_buffer(ctx, N * sizeof(uint32_t), NULL);
    ev = launch(q, k, fresh, UINT32_MAX, 0);
    uint32_t got[N];
    ck_assert_int_eq(clEnqueueReadBuffer(other, fresh, CL_TRUE, 0, sizeof(got), got, 1, &ev, NULL), CL_SUCCESS);
    for (uint32_t i = 0; i < N; i++)
        ck_assert_uint_eq(got[i], aos_spin_expect(i, AOS_SOLO_ROUNDS));
    ck_assert_int_eq(aos_test_event_status(ev), CL_COMPLETE);
    clReleaseEvent(ev);
    ck_assert_int_eq(aos_test_status_solo(getpid()) - solo0, 2);

    clReleaseMemObject(fresh);
    clReleaseMemObject(out);
    clReleaseCommandQueue(other);
    aos_test_app_release(ctx, q, k);
}
END_TEST

START_TEST(test_runaway_solo_launch_is_aborted)
{
    cl_context ctx;
    cl_command_queue q;
    cl_kernel k = aos_test_app_kernel(src, "spin", &ctx, &q);
    cl_mem out = aos_test_buffer(ctx, N * sizeof(uint32_t), NULL);
    train(q, k, out);

    /* Measured short, it runs solo; its group 1 then spins far past the limit. */
    long long solo0 = aos_test_status_solo(getpid()), kernels, launches0, launches1;
    cl_event ev = launch(q, k, out, 1, SLOW_ROUNDS);
    ck_assert_int_eq(clWaitForEvents(1, &ev), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    ck_assert_int_eq(aos_test_event_status(ev), CL_OUT_OF_RESOURCES);
    ck_assert_int_eq(aos_test_status_solo(getpid()) - solo0, 1);
    /* The kernel itself runs its groups out; the queue goes on behind it. */
    ck_assert_int_eq(clFinish(q), CL_SUCCESS);
    ck_assert_int_eq(aos_test_event_status(ev), CL_OUT_OF_RESOURCES);
    clReleaseEvent(ev);

    /* Its code runs in waves from now on, where the watchdog can end a launch between them. */
    aos_test_status_elastic(getpid(), &kernels, &launches0);
    ev = launch(q, k, out, UINT32_MAX, 0);
    ck_assert_int_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
    clReleaseEvent(ev);
    check_results(q, out);
    aos_test_status_elastic(getpid(), &kernels, &launches1);
    ck_assert_int_eq(launches1 - launches0, 1);
    ck_assert_int_eq(aos_test_status_solo(getpid()) - solo0, 1);

    clReleaseMemObject(out);
    aos_test_app_release(ctx, q, k);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fair_solo_watchdog");
    TCase *tc = tcase_create("fair_solo_watchdog");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_solo_event_reports_its_kernel);
    tcase_add_test(tc, test_runaway_solo_launch_is_aborted);
    suite_add_tcase(s, tc);
    /* A limit far above the short launches' groups (microseconds), far below the slow one's. */
    static char trace_path[64] = "/tmp/accelos-solo-watchdog-trace-XXXXXX";
    return aos_test_run_suite_fair_traced(s, trace_path, "solo_native_us = 2000\nvgroup_timeout_ms = 100\n");
}
