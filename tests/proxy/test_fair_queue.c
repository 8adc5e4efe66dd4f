/* Queue semantics under the fair policy: an elastic launch is one command to the application, so
 * wait lists, user events, markers, callbacks, out-of-order queues and clFinish behave as native. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon_status.h"
#include "harness.h"
#include "clients.h" /* after harness.h: it includes CL/cl.h with the deprecated APIs */

static const char *src =
    "kernel void fill(global int *x, int v) { x[get_global_id(0)] = v + (int)get_global_id(0); }\n"
    "kernel void twice(global const int *x, global int *y) { size_t i = get_global_id(0); y[i] = 2 * x[i]; }\n";

enum { N = 4096 };

static void sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void CL_CALLBACK on_complete(cl_event ev, cl_int status, void *data)
{
    (void)ev;
    *(volatile cl_int *)data = status == CL_COMPLETE ? 1 : -1;
}

/* The fill kernel of src over a new buffer of N ints (*m), its arguments set to (*m, v). */
static cl_kernel fill_kernel(cl_context ctx, int v, cl_program *p, cl_mem *m)
{
    *p = aos_test_build(ctx, src, NULL);
    cl_kernel k = aos_test_kernel(*p, "fill");
    *m = aos_test_buffer(ctx, N * sizeof(int), NULL);
    ck_assert_int_eq(clSetKernelArg(k, 0, sizeof(*m), m), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 1, sizeof(v), &v), CL_SUCCESS);
    return k;
}

/* m holds what fill with value v writes: v + i at i. */
static void expect_filled(cl_command_queue q, cl_mem m, int v)
{
    int *out = malloc(N * sizeof(int));
    ck_assert_int_eq(clEnqueueReadBuffer(q, m, CL_TRUE, 0, N * sizeof(int), out, 0, NULL, NULL), CL_SUCCESS);
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(out[i], v + i);
    free(out);
}

START_TEST(test_user_event_gates_elastic_launch)
{
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    cl_program p;
    cl_mem m;
    cl_kernel k = fill_kernel(ctx, 1000, &p, &m);
    cl_int err;
    cl_event gate = clCreateUserEvent(ctx, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    size_t global = N, local = 64;
    cl_event ev, marker;
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 1, &gate, &ev), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueMarkerWithWaitList(q, 0, NULL, &marker), CL_SUCCESS);
    volatile cl_int called = 0;
    ck_assert_int_eq(clSetEventCallback(ev, CL_COMPLETE, on_complete, (void *)&called), CL_SUCCESS);
    ck_assert_int_eq(clFlush(q), CL_SUCCESS);
    sleep_ms(100);
    ck_assert_int_gt(aos_test_event_status(ev), CL_COMPLETE);
    ck_assert_int_gt(aos_test_event_status(marker), CL_COMPLETE);
    ck_assert_int_eq(called, 0);
    ck_assert_int_eq(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    ck_assert_int_eq(clWaitForEvents(1, &marker), CL_SUCCESS);
    ck_assert_int_eq(aos_test_event_status(ev), CL_COMPLETE);
    for (int i = 0; i < 5000 && !called; i++) /* the callback thread may lag on a loaded machine */
        sleep_ms(2);
    ck_assert_int_eq(called, 1);
    expect_filled(q, m, 1000);

    /* A failed dependency fails the launch, as it does natively. */
    cl_event bad = clCreateUserEvent(ctx, &err);
    cl_event ev2;
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 1, &bad, &ev2), CL_SUCCESS);
    ck_assert_int_eq(clSetUserEventStatus(bad, -1), CL_SUCCESS);
    clWaitForEvents(1, &ev2);
    ck_assert_int_lt(aos_test_event_status(ev2), 0);

    long long kernels, launches;
    aos_test_status_elastic(getpid(), &kernels, &launches);
    ck_assert_int_eq(launches, 2);
    clReleaseEvent(ev2);
    clReleaseEvent(bad);
    clReleaseEvent(ev);
    clReleaseEvent(marker);
    clReleaseEvent(gate);
    clReleaseMemObject(m);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

/* A client that launches behind a user event it fails, with a marker behind the launch, and
 * leaves at once: its session ends before the scheduler sees the failed gate. On an in-order
 * queue the launch waits on the user event itself; with arg (non-NULL), on an out-of-order queue,
 * behind a barrier on it, and the marker is a barrier too. */
static int failed_gate_client(int index, void *arg)
{
    (void)index;
    bool barrier = arg != NULL;
    cl_context ctx;
    cl_command_queue q;
    cl_kernel k = aos_test_client_kernel(src, "fill", &ctx, &q);
    if (!k)
        return 2;
    cl_int err;
    if (barrier) {
        clReleaseCommandQueue(q);
        q = clCreateCommandQueueWithProperties(
            ctx, aos_test_device(),
            (cl_queue_properties[]){CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0}, &err);
        if (err != CL_SUCCESS)
            return 2;
    }
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof(int), NULL, &err);
    int v = 3;
    size_t global = N, local = 64;
    clSetKernelArg(k, 0, sizeof(m), &m);
    clSetKernelArg(k, 1, sizeof(v), &v);
    clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL);
    clFinish(q); /* measured code: the next launch is a logical one */
    cl_event bad = clCreateUserEvent(ctx, &err), ev, marker;
    if (barrier) {
        clEnqueueBarrierWithWaitList(q, 1, &bad, NULL);
        clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, &ev);
        clEnqueueBarrierWithWaitList(q, 0, NULL, &marker);
    } else {
        clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 1, &bad, &ev);
        clEnqueueMarkerWithWaitList(q, 0, NULL, &marker);
    }
    clSetUserEventStatus(bad, -5);
    return clWaitForEvents(1, &marker) == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST ? 0 : 3;
}

START_TEST(test_failed_dependency_then_client_leaves)
{
    /* PoCL fails the application's event behind the failed gate. The session's teardown drops
     * the daemon's last reference to it while it still waits on the launch's user event, and
     * until session 36 the scheduler then set that user event and aborted the daemon (found by
     * test_fuzz). */
    for (int round = 0; round < 4; round++) {
        ck_assert_int_eq(aos_test_reap(aos_test_fork_client(failed_gate_client, round, NULL)), 0);
        ck_assert_int_eq(aos_test_reap(aos_test_fork_client(failed_gate_client, round, &(int){1})), 0);
        sleep_ms(50); /* the watcher polls the gate every 5 ms */
        ck_assert_msg(aos_test_daemon_alive(), "the daemon died in round %d", round);
    }
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    cl_program p;
    cl_mem m;
    cl_kernel k = fill_kernel(ctx, 7, &p, &m);
    size_t global = N, local = 64;
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL), CL_SUCCESS);
    expect_filled(q, m, 7);
    clReleaseMemObject(m);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

START_TEST(test_out_of_order_queue_dependencies)
{
    cl_int err;
    cl_device_id d = aos_test_device();
    cl_context ctx = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_command_queue q = aos_test_queue(ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    cl_program p = aos_test_build(ctx, src, NULL);
    cl_kernel fill = aos_test_kernel(p, "fill"), twice = aos_test_kernel(p, "twice");
    cl_mem x = aos_test_buffer(ctx, N * sizeof(int), NULL), y = aos_test_buffer(ctx, N * sizeof(int), NULL);
    int *out = malloc(N * sizeof(int));
    ck_assert_int_eq(clSetKernelArg(fill, 0, sizeof(x), &x), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(twice, 0, sizeof(x), &x), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(twice, 1, sizeof(y), &y), CL_SUCCESS);
    size_t global = N, local = 32;
    for (int round = 0; round < 20; round++) {
        int v = round * 10;
        ck_assert_int_eq(clSetKernelArg(fill, 1, sizeof(v), &v), CL_SUCCESS);
        cl_event a, b;
        ck_assert_int_eq(clEnqueueNDRangeKernel(q, fill, 1, NULL, &global, &local, 0, NULL, &a), CL_SUCCESS);
        ck_assert_int_eq(clEnqueueNDRangeKernel(q, twice, 1, NULL, &global, NULL, 1, &a, &b), CL_SUCCESS);
        ck_assert_int_eq(clEnqueueReadBuffer(q, y, CL_TRUE, 0, N * sizeof(int), out, 1, &b, NULL), CL_SUCCESS);
        for (int i = 0; i < N; i++)
            ck_assert_int_eq(out[i], 2 * (v + i));
        clReleaseEvent(a);
        clReleaseEvent(b);
    }
    /* A barrier then clFinish cover every earlier command, record writes included. */
    int v = 7;
    ck_assert_int_eq(clSetKernelArg(fill, 1, sizeof(v), &v), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, fill, 1, NULL, &global, &local, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueBarrierWithWaitList(q, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, twice, 1, NULL, &global, &local, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clFinish(q), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(q, y, CL_TRUE, 0, N * sizeof(int), out, 0, NULL, NULL), CL_SUCCESS);
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(out[i], 2 * (7 + i));
    long long kernels, launches;
    aos_test_status_elastic(getpid(), &kernels, &launches);
    ck_assert_int_eq(kernels, 2);
    ck_assert_int_eq(launches, 42);
    free(out);
    clReleaseMemObject(x);
    clReleaseMemObject(y);
    clReleaseKernel(fill);
    clReleaseKernel(twice);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

START_TEST(test_back_to_back_launches_and_task)
{
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    cl_program p = aos_test_build(ctx, src, NULL);
    cl_kernel fill = aos_test_kernel(p, "fill");
    cl_mem x = aos_test_buffer(ctx, N * sizeof(int), NULL);
    ck_assert_int_eq(clSetKernelArg(fill, 0, sizeof(x), &x), CL_SUCCESS);
    size_t global = N, local = 16;
    /* Many launches in flight at once on one queue, each with its own record. */
    for (int v = 0; v < 300; v++) {
        ck_assert_int_eq(clSetKernelArg(fill, 1, sizeof(v), &v), CL_SUCCESS);
        ck_assert_int_eq(clEnqueueNDRangeKernel(q, fill, 1, NULL, &global, &local, 0, NULL, NULL), CL_SUCCESS);
    }
    int v = -5;
    ck_assert_int_eq(clSetKernelArg(fill, 1, sizeof(v), &v), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueTask(q, fill, 0, NULL, NULL), CL_SUCCESS);
    int *out = malloc(N * sizeof(int));
    ck_assert_int_eq(clEnqueueReadBuffer(q, x, CL_TRUE, 0, N * sizeof(int), out, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(out[0], -5);
    for (int i = 1; i < N; i++)
        ck_assert_int_eq(out[i], 299 + i);
    long long kernels, launches;
    aos_test_status_elastic(getpid(), &kernels, &launches);
    ck_assert_int_eq(launches, 301);
    free(out);
    clReleaseMemObject(x);
    clReleaseKernel(fill);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

/* A launch retains its buffers only while it may still run: once it has ended, a buffer the
 * application released is freed, even while the application keeps the launch's event. */
START_TEST(test_ended_launch_lets_go_of_its_buffers)
{
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    cl_program p = aos_test_build(ctx, src, NULL);
    cl_kernel k = aos_test_kernel(p, "fill");
    cl_mem m = aos_test_buffer(ctx, N * sizeof(int), NULL);
    int v = 7;
    ck_assert_int_eq(clSetKernelArg(k, 0, sizeof(m), &m), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 1, sizeof(v), &v), CL_SUCCESS);
    cl_int err;
    cl_event gate = clCreateUserEvent(ctx, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    size_t global = N, local = 64;
    cl_event ev;
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 1, &gate, &ev), CL_SUCCESS);
    /* Released by the application while the launch waits: the launch still holds it. */
    ck_assert_int_eq(clReleaseMemObject(m), CL_SUCCESS);
    /* A call answered by the daemon: it has taken the launch by then. */
    ck_assert_int_eq(aos_test_event_status(ev), CL_QUEUED);
    ck_assert_int_eq(aos_test_status_count(getpid(), "held-objects"), 1);
    ck_assert_int_eq(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    ck_assert_int_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
    long long held = 1;
    for (int tries = 0; tries < 100 && held; tries++) {
        held = aos_test_status_count(getpid(), "held-objects");
        if (held)
            sleep_ms(10);
    }
    ck_assert_msg(held == 0, "the ended launch still holds %lld objects while its event is alive", held);
    clReleaseEvent(ev);
    clReleaseEvent(gate);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fair_queue");
    TCase *tc = tcase_create("fair_queue");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_user_event_gates_elastic_launch);
    tcase_add_test(tc, test_failed_dependency_then_client_leaves);
    tcase_add_test(tc, test_out_of_order_queue_dependencies);
    tcase_add_test(tc, test_back_to_back_launches_and_task);
    tcase_add_test(tc, test_ended_launch_lets_go_of_its_buffers);
    suite_add_tcase(s, tc);
    return aos_test_run_suite_logical(s);
}
