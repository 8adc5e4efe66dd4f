/*
 * A user event that fails while other work completes (accelosd/fail_gate.h). PoCL 3.1 can end a
 * command twice when one event of its wait list fails while another completes on a worker thread:
 * natively the command then runs despite the failure, or PoCL aborts or hangs. A client that
 * fails its user events at such moments must neither crash the daemon nor see its commands run:
 * every command behind the failed event fails, in order, on in-order and out-of-order queues, and
 * a well-behaved client is served as before. Runs under the default policy, and under the one its
 * argument names (test_event_failure_race_fifo).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon_status.h"
#include "harness.h"
#include "vadd_fixture.h"

/* Each work-item runs a chain of n multiply-adds, so the launch takes a time the test can aim at. */
static const char *spin_src =
    "kernel void spin(global uint *a, int n)\n"
    "{\n"
    "    uint x = a[get_global_id(0)];\n"
    "    for (int i = 0; i < n; i++)\n"
    "        x = x * 1664525u + 1013904223u;\n"
    "    a[get_global_id(0)] = x;\n"
    "}\n";

enum { ITEMS = 256, ROUNDS = 1000 };

static cl_context ctx;
static cl_command_queue q1, q2;
static cl_kernel spin;
static cl_mem work, data;
static double spin_us;

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static cl_event launch_spin(cl_command_queue q)
{
    size_t global = ITEMS;
    cl_event ev;
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, spin, 1, NULL, &global, NULL, 0, NULL, &ev), CL_SUCCESS);
    return ev;
}

static void setup(void)
{
    aos_test_context(&ctx, &q1);
    q2 = aos_test_queue(ctx, 0);
    cl_program p = aos_test_build(ctx, spin_src, NULL);
    spin = aos_test_kernel(p, "spin");
    clReleaseProgram(p);
    work = aos_test_buffer(ctx, ITEMS * sizeof(cl_uint), NULL);
    uint32_t init[64];
    for (int i = 0; i < 64; i++)
        init[i] = 1000u + (uint32_t)i;
    data = aos_test_buffer(ctx, sizeof(init), init);
    int n = 4000;
    ck_assert_int_eq(clSetKernelArg(spin, 0, sizeof(work), &work), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(spin, 1, sizeof(n), &n), CL_SUCCESS);
    /* Twice: the first launch also compiles. */
    for (int i = 0; i < 2; i++) {
        double t0 = now_us();
        cl_event ev = launch_spin(q2);
        ck_assert_int_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
        spin_us = now_us() - t0;
        clReleaseEvent(ev);
    }
}

static void teardown(void)
{
    clReleaseMemObject(data);
    clReleaseMemObject(work);
    clReleaseKernel(spin);
    clReleaseCommandQueue(q2);
    clReleaseCommandQueue(q1);
    clReleaseContext(ctx);
}

static void spin_until(double t)
{
    while (now_us() < t)
        ;
}

/* The daemon is up and serves a well-behaved client correctly. */
static void assert_daemon_serves(void)
{
    ck_assert(aos_test_daemon_alive());
    struct aos_test_vadd v;
    aos_test_vadd_setup(&v, 1024);
    size_t global = 1024;
    ck_assert_int_eq(clEnqueueNDRangeKernel(v.q, v.k, 1, NULL, &global, NULL, 0, NULL, NULL), CL_SUCCESS);
    aos_test_vadd_check(&v, v.mc);
    aos_test_vadd_teardown(&v);
}

/* A read waits for a user event and for a kernel on another queue; the user event fails at moments
 * spread around the kernel's end, where natively the read sometimes ran and PoCL sometimes aborted. */
START_TEST(test_failure_beside_a_completion)
{
    long long failed_before = aos_test_status_count(getpid(), "gates-failed");
    uint32_t host[64];
    int ran = 0, open = 0;
    for (int round = 0; round < ROUNDS; round++) {
        cl_int err;
        cl_event user = clCreateUserEvent(ctx, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        cl_event kernel = launch_spin(q2);
        ck_assert_int_eq(clFlush(q2), CL_SUCCESS);
        double start = now_us();
        cl_event wait[2] = {user, kernel}, read;
        memset(host, 0, sizeof(host));
        ck_assert_int_eq(clEnqueueReadBuffer(q1, data, CL_FALSE, 0, sizeof(host), host, 2, wait, &read), CL_SUCCESS);
        if (aos_test_event_status(kernel) > CL_COMPLETE)
            open++; /* both events were still open at the read's enqueue */
        spin_until(start + spin_us * (0.5 + (round % 10) / 10.0));
        ck_assert_int_eq(clSetUserEventStatus(user, -5), CL_SUCCESS);
        ck_assert_int_eq(clFinish(q1), CL_SUCCESS);
        ck_assert_int_eq(clFinish(q2), CL_SUCCESS);
        if (aos_test_event_status(read) >= 0 || host[0] != 0)
            ran++;
        ck_assert_int_eq(aos_test_event_status(kernel), CL_COMPLETE);
        clReleaseEvent(read);
        clReleaseEvent(kernel);
        clReleaseEvent(user);
    }
    ck_assert_msg(ran == 0, "%d of %d reads ran although their user event failed", ran, ROUNDS);
    /* A read enqueued while the kernel ran waited on a gate, which failed; one whose kernel had
     * already ended waited on the user event alone. */
    ck_assert_int_gt(open, 0);
    ck_assert_int_ge(aos_test_status_count(getpid(), "gates-failed") - failed_before, open);
    assert_daemon_serves();
}
END_TEST

/* On an in-order queue, everything behind the failed command fails too, however it waits: with no
 * wait list, and with a wait list of a completing kernel on another queue. */
START_TEST(test_failure_spreads_along_the_queue)
{
    for (int round = 0; round < 50; round++) {
        cl_int err;
        cl_event user = clCreateUserEvent(ctx, &err);
        cl_event kernel = launch_spin(q2);
        ck_assert_int_eq(clFlush(q2), CL_SUCCESS);
        uint32_t a[64], b[64], c[64];
        memset(a, 0, sizeof(a)), memset(b, 0, sizeof(b)), memset(c, 0, sizeof(c));
        cl_event r1, r2, r3;
        ck_assert_int_eq(clEnqueueReadBuffer(q1, data, CL_FALSE, 0, sizeof(a), a, 1, &user, &r1), CL_SUCCESS);
        ck_assert_int_eq(clEnqueueReadBuffer(q1, data, CL_FALSE, 0, sizeof(b), b, 0, NULL, &r2), CL_SUCCESS);
        ck_assert_int_eq(clEnqueueReadBuffer(q1, data, CL_FALSE, 0, sizeof(c), c, 1, &kernel, &r3), CL_SUCCESS);
        spin_until(now_us() + spin_us * (round % 10) / 10.0);
        ck_assert_int_eq(clSetUserEventStatus(user, -7), CL_SUCCESS);
        ck_assert_int_eq(clFinish(q1), CL_SUCCESS);
        ck_assert_int_eq(clFinish(q2), CL_SUCCESS);
        ck_assert_int_lt(aos_test_event_status(r1), 0);
        ck_assert_int_lt(aos_test_event_status(r2), 0);
        ck_assert_int_lt(aos_test_event_status(r3), 0);
        ck_assert_uint_eq(a[0] | b[0] | c[0], 0);
        clReleaseEvent(r1), clReleaseEvent(r2), clReleaseEvent(r3);
        clReleaseEvent(kernel);
        clReleaseEvent(user);
    }
    assert_daemon_serves();
}
END_TEST

/* The same chain behind a user event that completes runs in order, with the data. */
START_TEST(test_gated_chain_runs_when_the_event_completes)
{
    long long failed_before = aos_test_status_count(getpid(), "gates-failed");
    long long set_before = aos_test_status_count(getpid(), "gates");
    cl_int err;
    cl_event user = clCreateUserEvent(ctx, &err);
    /* A kernel a hundred times as long, still running when the last read is enqueued. */
    int n_long = 400000, n = 4000;
    ck_assert_int_eq(clSetKernelArg(spin, 1, sizeof(n_long), &n_long), CL_SUCCESS);
    cl_event kernel = launch_spin(q2);
    ck_assert_int_eq(clSetKernelArg(spin, 1, sizeof(n), &n), CL_SUCCESS);
    uint32_t a[64], c[64], zero[64] = {0};
    cl_event w, r1, r3;
    /* The write waits for the user event; the reads after it must see what it wrote. */
    uint32_t seven[64];
    for (int i = 0; i < 64; i++)
        seven[i] = 7u * (uint32_t)i;
    ck_assert_int_eq(clEnqueueWriteBuffer(q1, data, CL_FALSE, 0, sizeof(seven), seven, 1, &user, &w), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(q1, data, CL_FALSE, 0, sizeof(a), a, 0, NULL, &r1), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(q1, data, CL_FALSE, 0, sizeof(c), c, 1, &kernel, &r3), CL_SUCCESS);
    usleep(20000);
    ck_assert_int_eq(aos_test_event_status(r1) > CL_COMPLETE, 1); /* still waiting */
    ck_assert_int_eq(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
    ck_assert_int_eq(clFinish(q1), CL_SUCCESS);
    ck_assert_int_eq(aos_test_event_status(w), CL_COMPLETE);
    ck_assert_int_eq(aos_test_event_status(r1), CL_COMPLETE);
    ck_assert_int_eq(aos_test_event_status(r3), CL_COMPLETE);
    for (int i = 0; i < 64; i++) {
        ck_assert_uint_eq(a[i], 7u * (uint32_t)i);
        ck_assert_uint_eq(c[i], 7u * (uint32_t)i);
    }
    /* Only the last read waits for two unfinished events, the first read and the kernel: gated.
     * The write and the first read wait for one each, and wait on it. */
    ck_assert_int_eq(aos_test_status_count(getpid(), "gates-failed"), failed_before);
    ck_assert_int_ge(aos_test_status_count(getpid(), "gates") - set_before, 1);
    ck_assert_int_eq(clEnqueueWriteBuffer(q1, data, CL_TRUE, 0, sizeof(zero), zero, 0, NULL, NULL), CL_SUCCESS);
    clReleaseEvent(w), clReleaseEvent(r1), clReleaseEvent(r3);
    clReleaseEvent(kernel);
    clReleaseEvent(user);
}
END_TEST

/* An out-of-order queue: a kernel runs, a read waits for a user event, a barrier follows without a
 * wait list (it waits for both), and a read after the barrier. The user event fails while the
 * kernel may be completing: the kernel completes, the read, the barrier and the read after it fail. */
START_TEST(test_out_of_order_barrier_beside_a_completion)
{
    cl_command_queue q = aos_test_queue(ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    for (int round = 0; round < 100; round++) {
        cl_int err;
        cl_event user = clCreateUserEvent(ctx, &err);
        cl_event kernel = launch_spin(q);
        uint32_t a[64], b[64];
        memset(a, 0, sizeof(a)), memset(b, 0, sizeof(b));
        cl_event r1, barrier, r2;
        double start = now_us();
        ck_assert_int_eq(clEnqueueReadBuffer(q, data, CL_FALSE, 0, sizeof(a), a, 1, &user, &r1), CL_SUCCESS);
        ck_assert_int_eq(clEnqueueBarrierWithWaitList(q, 0, NULL, &barrier), CL_SUCCESS);
        ck_assert_int_eq(clEnqueueReadBuffer(q, data, CL_FALSE, 0, sizeof(b), b, 0, NULL, &r2), CL_SUCCESS);
        ck_assert_int_eq(clFlush(q), CL_SUCCESS);
        spin_until(start + spin_us * (0.5 + (round % 10) / 10.0));
        ck_assert_int_eq(clSetUserEventStatus(user, -9), CL_SUCCESS);
        ck_assert_int_eq(clFinish(q), CL_SUCCESS);
        ck_assert_int_eq(aos_test_event_status(kernel), CL_COMPLETE);
        ck_assert_int_lt(aos_test_event_status(r1), 0);
        ck_assert_int_lt(aos_test_event_status(barrier), 0);
        ck_assert_int_lt(aos_test_event_status(r2), 0);
        ck_assert_uint_eq(a[0] | b[0], 0);
        clReleaseEvent(r1), clReleaseEvent(barrier), clReleaseEvent(r2);
        clReleaseEvent(kernel);
        clReleaseEvent(user);
    }
    clReleaseCommandQueue(q);
    assert_daemon_serves();
}
END_TEST

int main(int argc, char **argv)
{
    Suite *s = suite_create("event_failure_race");
    TCase *tc = tcase_create("event_failure_race");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_failure_beside_a_completion);
    tcase_add_test(tc, test_failure_spreads_along_the_queue);
    tcase_add_test(tc, test_gated_chain_runs_when_the_event_completes);
    tcase_add_test(tc, test_out_of_order_barrier_beside_a_completion);
    suite_add_tcase(s, tc);
    /* No argument: the daemon's default policy (fair where the JIT is built in). */
    const char *const args[] = {"--policy", argc > 1 ? argv[1] : "fair", NULL};
    return aos_test_run_suite_with_args(s, argc > 1 ? args : NULL);
}
