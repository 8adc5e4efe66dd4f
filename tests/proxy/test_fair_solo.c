/* Solo launches (docs/scheduler.md §6): a short launch of a client alone on the device runs
 * natively, without waves. While another client has a launch on the device, or is connected
 * after launching there, the same launches are logical launches again. Code whose solo launches ran
 * far past their estimate twice never runs solo again, so the scheduler's waves and watchdog cover it; and
 * a solo launch held back on its queue keeps other clients' waves waiting a moment at most. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "clients.h"
#include "daemon_status.h"
#include "harness.h"
#include "solo_train.h"
#include "spin_kernel.h"
#include "trace_read.h"

static char trace_path[64] = "/tmp/accelos-solo-trace-XXXXXX";

static const char *src = AOS_SPIN_KERNEL("short_solo") AOS_SPIN_KERNEL("long_other") AOS_SPIN_KERNEL("variable")
    AOS_SPIN_KERNEL("queued");

/* The long launch takes several whole-device slices (4 ms each). */
enum { SHORT_GROUPS = AOS_SOLO_GROUPS, SHORT_ROUNDS = AOS_SOLO_ROUNDS, LOCAL = AOS_SOLO_LOCAL, AFTER = 6,
       LONG_GROUPS_PER_CU = 200, LONG_ROUNDS = 200000 };

START_TEST(test_short_launches_alone_run_natively)
{
    cl_context ctx;
    cl_command_queue q;
    cl_kernel k = aos_test_app_kernel(src, "short_solo", &ctx, &q);
    /* The first launch measures the kernel in waves; once measured, the launches run solo. */
    ck_assert_int_eq(aos_test_train_until_solo(ctx, q, k), 0);
    long long kernels, launches0, launches1, solo0 = aos_test_status_solo(getpid());
    aos_test_status_elastic(getpid(), &kernels, &launches0);
    ck_assert_int_ge(launches0, 1);
    ck_assert_int_eq(aos_test_short_launches(ctx, q, k, AFTER, SHORT_ROUNDS), 0);
    aos_test_status_elastic(getpid(), &kernels, &launches1);
    ck_assert_int_eq(aos_test_status_solo(getpid()) - solo0, AFTER);
    ck_assert_int_eq(launches1, launches0);
    aos_test_app_release(ctx, q, k);
}
END_TEST

/* A solo launch runs the rewrite's direct kernel over the whole range: a 2-D range with a global
 * offset and its own work-group size must come out as natively. */
START_TEST(test_solo_launch_in_two_dimensions_with_an_offset)
{
    enum { W = 40, H = 16, RUNS = 10 };
    static const char grid_src[] =
        "kernel void grid2d(global int *out, int w)\n"
        "{ size_t x = get_global_id(0), y = get_global_id(1);\n"
        "  out[y * w + x] = (int)(x * 1000 + y * 10 + get_local_id(0) % 4); }\n";
    cl_context ctx;
    cl_command_queue q;
    cl_kernel k = aos_test_app_kernel(grid_src, "grid2d", &ctx, &q);
    cl_int err, w = W;
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, W * H * sizeof(cl_int), NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 0, sizeof(m), &m), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 1, sizeof(w), &w), CL_SUCCESS);
    const size_t offset[2] = {4, 3}, global[2] = {32, 12}, local[2] = {8, 2};
    static cl_int got[W * H];
    long long solo0 = aos_test_status_solo(getpid());
    for (int run = 0; run < RUNS; run++) {
        cl_int fill = -1;
        ck_assert_int_eq(clEnqueueFillBuffer(q, m, &fill, sizeof(fill), 0, sizeof(got), 0, NULL, NULL), CL_SUCCESS);
        ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 2, offset, global, local, 0, NULL, NULL), CL_SUCCESS);
        ck_assert_int_eq(clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof(got), got, 0, NULL, NULL), CL_SUCCESS);
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                bool inside = x >= 4 && x < 36 && y >= 3 && y < 15;
                cl_int want = inside ? x * 1000 + y * 10 + (x - 4) % 8 % 4 : -1;
                ck_assert_msg(got[y * W + x] == want, "run %d (%d, %d): %d != %d", run, x, y, got[y * W + x], want);
            }
    }
    ck_assert_int_ge(aos_test_status_solo(getpid()) - solo0, RUNS / 2);
    clReleaseMemObject(m);
    aos_test_app_release(ctx, q, k);
}
END_TEST

/* An application that queues many short launches at once (stencil's 20 per execution) runs them
 * all solo: together they may take a lone wave (60 ms here), more than one solo launch (2 ms) and
 * more than 16 launches. They are held behind a user event, so all are in flight at once. */
START_TEST(test_many_launches_queued_at_once_run_solo)
{
    enum { QUEUED = 24, QUEUED_ROUNDS = 1000 }; /* measured at about 0.5 ms each: 12 ms together */
    cl_context ctx;
    cl_command_queue q;
    cl_kernel k = aos_test_app_kernel(src, "queued", &ctx, &q);
    ck_assert_int_eq(aos_test_train_until_solo_at(ctx, q, k, QUEUED_ROUNDS), 0);
    cl_int err;
    cl_event hold = clCreateUserEvent(ctx, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_int_eq(clEnqueueBarrierWithWaitList(q, 1, &hold, NULL), CL_SUCCESS);
    long long solo0 = aos_test_status_solo(getpid());
    cl_mem out[QUEUED];
    for (int i = 0; i < QUEUED; i++)
        ck_assert_ptr_nonnull(out[i] = aos_spin_enqueue(ctx, q, k, AOS_SOLO_GROUPS, AOS_SOLO_LOCAL, QUEUED_ROUNDS));
    ck_assert_int_eq(clSetUserEventStatus(hold, CL_COMPLETE), CL_SUCCESS);
    ck_assert_int_eq(clFinish(q), CL_SUCCESS);
    long long solo = aos_test_status_solo(getpid()) - solo0;
    for (int i = 0; i < QUEUED; i++) {
        ck_assert_int_eq(aos_spin_check_sample(q, out[i], AOS_SOLO_GROUPS * AOS_SOLO_LOCAL, QUEUED_ROUNDS), 0);
        clReleaseMemObject(out[i]);
    }
    ck_assert_int_eq(solo, QUEUED);
    clReleaseEvent(hold);
    aos_test_app_release(ctx, q, k);
}
END_TEST

/* Every solo launch hands its end to the daemon's event watcher (ops_event.c), the poller that
 * catches what PoCL's callbacks miss. Polling already, it must not be woken for each: on a 2-core
 * device each wake-up took a core from the kernel's workers. 300 launches one after another wake
 * it about once per 5 ms poll, not once per launch. */
START_TEST(test_short_launches_do_not_wake_the_event_watcher_each)
{
    enum { LAUNCHES = 300 };
    cl_context ctx;
    cl_command_queue q;
    cl_kernel k = aos_test_app_kernel(src, "short_solo", &ctx, &q);
    ck_assert_int_eq(aos_test_train_until_solo(ctx, q, k), 0);
    long long sleeps0 = aos_test_daemon_thread_sleeps("aos-events"), solo0 = aos_test_status_solo(getpid());
    ck_assert_int_ge(sleeps0, 0);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ck_assert_int_eq(aos_test_short_launches(ctx, q, k, LAUNCHES, SHORT_ROUNDS), 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long long sleeps = aos_test_daemon_thread_sleeps("aos-events") - sleeps0;
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    ck_assert_int_ge(aos_test_status_solo(getpid()) - solo0, LAUNCHES / 2);
    /* A poll per 5 ms, twice that for slack, and never more than half the launches. */
    ck_assert_msg(sleeps <= (long long)(ms / 5.0) * 2 + 10 && sleeps < LAUNCHES / 2,
                  "the event watcher slept %lld times over %d launches in %.0f ms", sleeps, LAUNCHES, ms);
    aos_test_app_release(ctx, q, k);
}
END_TEST

START_TEST(test_code_that_overran_its_estimate_twice_runs_in_waves)
{
    cl_context ctx;
    cl_command_queue q;
    cl_kernel k = aos_test_app_kernel(src, "variable", &ctx, &q);
    ck_assert_int_eq(aos_test_train_until_solo(ctx, q, k), 0);
    long long solo0 = aos_test_status_solo(getpid()), kernels, launches0, launches1;
    /* The same code on an argument that makes it some thousand times longer: measured short, it
     * still runs solo. One overrun is a strike, as a host's hiccup can make one: the code still
     * runs solo after it. */
    ck_assert_int_eq(aos_test_short_launches(ctx, q, k, 1, SHORT_ROUNDS * 4000), 0);
    ck_assert_int_eq(aos_test_status_solo(getpid()), solo0 + 1);
    ck_assert_int_eq(aos_test_short_launches(ctx, q, k, AFTER, SHORT_ROUNDS), 0);
    long long solo1 = aos_test_status_solo(getpid());
    ck_assert_int_eq(solo1, solo0 + 1 + AFTER);
    /* The second overrun: waves from then on. */
    ck_assert_int_eq(aos_test_short_launches(ctx, q, k, 1, SHORT_ROUNDS * 4000), 0);
    long long solo2 = aos_test_status_solo(getpid());
    ck_assert_int_eq(solo2, solo1 + 1);
    aos_test_status_elastic(getpid(), &kernels, &launches0);
    ck_assert_int_eq(aos_test_short_launches(ctx, q, k, AFTER, SHORT_ROUNDS), 0);
    aos_test_status_elastic(getpid(), &kernels, &launches1);
    ck_assert_int_eq(aos_test_status_solo(getpid()), solo2);
    ck_assert_int_eq(launches1 - launches0, AFTER);
    aos_test_app_release(ctx, q, k);
}
END_TEST

/* Client 0 runs the long launch. Client 1 runs short launches alone first (some run solo), then,
 * once the long launch runs, more of them: none of those runs solo. 0, 1 wrong results, 3 setup,
 * 4 never solo alone, 5 solo beside the other client, 6 not logical beside it. */
static int client(int index, void *arg)
{
    struct aos_test_long_short *gates = arg;
    cl_context ctx;
    cl_command_queue q;
    cl_kernel k = aos_test_client_kernel(src, index == 0 ? "long_other" : "short_solo", &ctx, &q);
    if (!k)
        return 3;
    if (index == 0) {
        if (!aos_test_gate_sync(&gates->start))
            return 3;
        size_t groups = (size_t)aos_test_compute_units() * LONG_GROUPS_PER_CU;
        cl_mem out = aos_spin_enqueue(ctx, q, k, groups, LOCAL, LONG_ROUNDS);
        if (!out || clFlush(q) != CL_SUCCESS || !aos_test_gate_ready(&gates->launched))
            return 3;
        return aos_spin_check_sample(q, out, groups * LOCAL, LONG_ROUNDS);
    }
    int trained = aos_test_train_until_solo(ctx, q, k);
    long long solo0 = aos_test_status_solo(getpid()), kernels, launches0, launches1;
    aos_test_status_elastic(getpid(), &kernels, &launches0);
    /* Through the whole scene even when failing, so client 0 is not left waiting at a gate. */
    if (!aos_test_gate_sync(&gates->start) || !aos_test_gate_sync(&gates->go))
        return 3;
    if (trained)
        return trained;
    int rc = aos_test_short_launches(ctx, q, k, AFTER, SHORT_ROUNDS);
    if (rc)
        return rc;
    aos_test_status_elastic(getpid(), &kernels, &launches1);
    if (aos_test_status_solo(getpid()) != solo0)
        return 5;
    return launches1 - launches0 == AFTER ? 0 : 6;
}

START_TEST(test_another_client_makes_launches_logical)
{
    struct aos_test_long_short gates;
    aos_test_long_short_run(client, &gates, 20000);
    /* The long launch was still running when the short ones ended: they all had company. */
    char long_line[4096], line[4096];
    ck_assert(trace_find(trace_path, "\"kernel\":\"long_other\"", long_line, sizeof(long_line)));
    /* The long launch has ended (found above), long after the short ones: all are written. */
    ck_assert(trace_find_last(trace_path, "\"kernel\":\"short_solo\"", line, sizeof(line)));
    ck_assert_uint_lt(trace_field(line, "ended_host_ns"), trace_field(long_line, "ended_host_ns"));
}
END_TEST

/* Client 0 trains the kernel, then queues a solo launch behind a user event of its own that it
 * sets only after the parent's launch has ended. 0, 1 wrong results, 3 setup. */
static int held_back(int index, void *arg)
{
    (void)index;
    struct aos_test_gate *gate = arg;
    cl_context ctx;
    cl_command_queue q;
    cl_kernel k = aos_test_client_kernel(src, "short_solo", &ctx, &q);
    if (!k)
        return 3;
    int rc = aos_test_train_until_solo(ctx, q, k);
    cl_int err;
    cl_event user = clCreateUserEvent(ctx, &err);
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, SHORT_GROUPS * LOCAL * sizeof(uint32_t), NULL, &err);
    cl_uint rounds = SHORT_ROUNDS;
    size_t global = SHORT_GROUPS * LOCAL, local = LOCAL;
    if (rc || !user || !out || clSetKernelArg(k, 0, sizeof(out), &out) != CL_SUCCESS ||
        clSetKernelArg(k, 1, sizeof(rounds), &rounds) != CL_SUCCESS ||
        clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 1, &user, NULL) != CL_SUCCESS ||
        clFlush(q) != CL_SUCCESS)
        rc = rc ? rc : 3;
    /* Through the gate even when failing, so the parent is not left waiting. */
    if (!aos_test_gate_sync(gate))
        return 3;
    if (rc)
        return rc;
    if (clSetUserEventStatus(user, CL_COMPLETE) != CL_SUCCESS || clFinish(q) != CL_SUCCESS)
        return 3;
    return aos_spin_check_sample(q, out, global, rounds);
}

START_TEST(test_solo_launch_held_back_does_not_stop_others)
{
    struct aos_test_gate gate;
    aos_test_gate_open(&gate);
    pid_t kid = aos_test_fork_client(held_back, 0, &gate);
    aos_test_gate_await_ready(&gate, 1);
    /* The child's launch waits on its queue for a user event it sets only after this launch has
     * ended: the device is held for it a moment at most, not until then. */
    cl_context ctx;
    cl_command_queue q;
    cl_kernel k = aos_test_app_kernel(src, "long_other", &ctx, &q);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ck_assert_int_eq(aos_test_short_launches(ctx, q, k, 1, SHORT_ROUNDS), 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    fprintf(stderr, "fair_solo: a launch beside a held-back solo launch took %.1f ms\n", took * 1e3);
    aos_test_gate_go(&gate, 1);
    ck_assert_int_eq(aos_test_reap(kid), 0);
    ck_assert_msg(took < 2.0, "the launch took %.2f s", took);
    aos_test_app_release(ctx, q, k);
}
END_TEST

/* A client that launched once, then idles connected until told to go. 0, or 3 setup. */
static int idle_neighbour(int index, void *arg)
{
    (void)index;
    struct aos_test_gate *gate = arg;
    cl_context ctx;
    cl_command_queue q;
    cl_kernel k = aos_test_client_kernel(src, "short_solo", &ctx, &q);
    int rc = k ? aos_test_short_launches(ctx, q, k, 1, SHORT_ROUNDS) : 3;
    /* Through the gate even when failing, so the parent is not left waiting. */
    return aos_test_gate_sync(gate) ? rc : 3;
}

START_TEST(test_a_connected_neighbour_keeps_launches_logical)
{
    struct aos_test_gate gate;
    aos_test_gate_open(&gate);
    pid_t kid = aos_test_fork_client(idle_neighbour, 0, &gate);
    aos_test_gate_await_ready(&gate, 1);
    /* The neighbour launched and now idles, still connected: it may come back any moment. */
    cl_context ctx;
    cl_command_queue q;
    cl_kernel k = aos_test_app_kernel(src, "short_solo", &ctx, &q);
    ck_assert_int_eq(aos_test_short_launches(ctx, q, k, AFTER, SHORT_ROUNDS), 0);
    ck_assert_int_eq(aos_test_status_solo(getpid()), 0);
    aos_test_gate_go(&gate, 1);
    ck_assert_int_eq(aos_test_reap(kid), 0);
    /* Gone: alone now. (The daemon notices the end of a session a moment after its exit.) */
    long long solo = 0;
    for (int tries = 0; tries < 50 && solo == 0; tries++) {
        ck_assert_int_eq(aos_test_short_launches(ctx, q, k, 1, SHORT_ROUNDS), 0);
        solo = aos_test_status_solo(getpid());
        if (!solo)
            usleep(20000);
    }
    ck_assert_int_ge(solo, 1);
    aos_test_app_release(ctx, q, k);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fair_solo");
    TCase *tc = tcase_create("fair_solo");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_short_launches_alone_run_natively);
    tcase_add_test(tc, test_solo_launch_in_two_dimensions_with_an_offset);
    tcase_add_test(tc, test_many_launches_queued_at_once_run_solo);
    tcase_add_test(tc, test_short_launches_do_not_wake_the_event_watcher_each);
    tcase_add_test(tc, test_code_that_overran_its_estimate_twice_runs_in_waves);
    tcase_add_test(tc, test_another_client_makes_launches_logical);
    tcase_add_test(tc, test_solo_launch_held_back_does_not_stop_others);
    tcase_add_test(tc, test_a_connected_neighbour_keeps_launches_logical);
    suite_add_tcase(s, tc);
    /* Lone waves of 60 ms: room for the queued launches, measured with the hand-off of their waves
     * (about 0.5 ms each here, more under load): 2.5 ms each, above the 2 ms of solo_native_us. */
    /* No anticipation: while the device is held for a client, its short launches run solo beside
     * the others (held solo launches, test_fair_anticipate); here they must be logical. */
    return aos_test_run_suite_fair_traced(s, trace_path, "solo_native_us = 2000\nlone_slice_ms = 60\nanticipate_us = 0\n");
}
