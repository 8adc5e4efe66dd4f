/*
 * Events through the proxy: callbacks run in the client process with the right status, user
 * events gate queued work (and their failure propagates), markers and barriers honour wait
 * lists across queues, and profiling timestamps are ordered.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon_status.h"
#include "harness.h"

static const char *add_src =
    "kernel void add_one(global uint *v) { v[get_global_id(0)] += 1; }\n";

static cl_context ctx;
static cl_command_queue queue;

static void setup(void)
{
    aos_test_context(&ctx, &queue);
}

static void teardown(void)
{
    clReleaseCommandQueue(queue);
    clReleaseContext(ctx);
}

static cl_int status_of(cl_event ev)
{
    cl_int status = 12345;
    ck_assert_int_eq(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL),
                     CL_SUCCESS);
    return status;
}

/* ---- Callbacks ------------------------------------------------------------------------------ */

struct callback_record {
    _Atomic int calls;
    cl_event event;
    cl_int status;
    pid_t pid;
    pthread_t thread;
    int order; /* global sequence number of the call */
};

static _Atomic int callback_sequence;

static void CL_CALLBACK record_callback(cl_event ev, cl_int status, void *data)
{
    struct callback_record *r = data;
    r->event = ev;
    r->status = status;
    r->pid = getpid();
    r->thread = pthread_self();
    r->order = atomic_fetch_add(&callback_sequence, 1);
    atomic_fetch_add(&r->calls, 1);
}

static void wait_calls(struct callback_record *r, int n)
{
    for (int i = 0; i < 1000 && atomic_load(&r->calls) < n; i++)
        usleep(2000);
    ck_assert_int_eq(atomic_load(&r->calls), n);
}

START_TEST(test_callbacks_run_in_client)
{
    cl_int err;
    cl_event gate = clCreateUserEvent(ctx, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    uint8_t pattern = 7;
    cl_event fill;
    ck_assert_int_eq(clEnqueueFillBuffer(queue, m, &pattern, 1, 0, 4096, 1, &gate, &fill), CL_SUCCESS);
    struct callback_record submitted = {0}, running = {0}, complete = {0}, on_user = {0};
    ck_assert_int_eq(clSetEventCallback(fill, CL_COMPLETE, record_callback, &complete), CL_SUCCESS);
    ck_assert_int_eq(clSetEventCallback(fill, CL_RUNNING, record_callback, &running), CL_SUCCESS);
    ck_assert_int_eq(clSetEventCallback(fill, CL_SUBMITTED, record_callback, &submitted), CL_SUCCESS);
    ck_assert_int_eq(clSetEventCallback(gate, CL_COMPLETE, record_callback, &on_user), CL_SUCCESS);
    ck_assert_int_eq(clFlush(queue), CL_SUCCESS);
    usleep(50000);
    /* Gated: nothing may have completed yet. */
    ck_assert_int_eq(atomic_load(&complete.calls), 0);
    ck_assert_int_eq(atomic_load(&on_user.calls), 0);
    ck_assert_int_gt(status_of(fill), CL_COMPLETE);

    ck_assert_int_eq(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    ck_assert_int_eq(clWaitForEvents(1, &fill), CL_SUCCESS);
    wait_calls(&complete, 1);
    wait_calls(&running, 1);
    wait_calls(&submitted, 1);
    wait_calls(&on_user, 1);
    /* In this process, on a thread of the proxy (not the caller's), with the right arguments. */
    ck_assert_int_eq(complete.pid, getpid());
    ck_assert(!pthread_equal(complete.thread, pthread_self()));
    ck_assert_ptr_eq(complete.event, fill);
    ck_assert_int_eq(complete.status, CL_COMPLETE);
    ck_assert_ptr_eq(on_user.event, gate);
    ck_assert_int_eq(on_user.status, CL_COMPLETE);
    /* A callback may report a later state than it asked for, never an earlier one. */
    ck_assert_int_le(running.status, CL_RUNNING);
    ck_assert_int_ge(running.status, CL_COMPLETE);
    ck_assert_int_le(submitted.status, CL_SUBMITTED);
    ck_assert_int_ge(submitted.status, CL_COMPLETE);
    ck_assert_int_lt(submitted.order, complete.order);
    ck_assert_int_lt(running.order, complete.order);

    /* On an event that is already complete, the callback still comes, exactly once. */
    struct callback_record late = {0};
    ck_assert_int_eq(clSetEventCallback(fill, CL_COMPLETE, record_callback, &late), CL_SUCCESS);
    wait_calls(&late, 1);
    ck_assert_int_eq(late.status, CL_COMPLETE);
    ck_assert_int_eq(late.pid, getpid());
    usleep(20000);
    ck_assert_int_eq(atomic_load(&complete.calls), 1);

    ck_assert_int_eq(clSetEventCallback(fill, CL_QUEUED, record_callback, &late), CL_INVALID_VALUE);
    ck_assert_int_eq(clSetEventCallback(fill, CL_COMPLETE, NULL, NULL), CL_INVALID_VALUE);
    ck_assert_int_eq(clReleaseEvent(fill), CL_SUCCESS);
    ck_assert_int_eq(clReleaseEvent(gate), CL_SUCCESS);
    ck_assert_int_eq(clReleaseMemObject(m), CL_SUCCESS);
}
END_TEST

START_TEST(test_callback_may_release_its_event)
{
    /* The event must stay valid inside the callback even after the application's release. */
    cl_int err;
    cl_event gate = clCreateUserEvent(ctx, &err);
    cl_event marker;
    ck_assert_int_eq(clEnqueueMarkerWithWaitList(queue, 1, &gate, &marker), CL_SUCCESS);
    struct callback_record r = {0};
    ck_assert_int_eq(clSetEventCallback(marker, CL_COMPLETE, record_callback, &r), CL_SUCCESS);
    ck_assert_int_eq(clReleaseEvent(marker), CL_SUCCESS);
    ck_assert_int_eq(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    ck_assert_int_eq(clFinish(queue), CL_SUCCESS);
    wait_calls(&r, 1);
    ck_assert_ptr_eq(r.event, marker);
    ck_assert_int_eq(r.status, CL_COMPLETE);
    ck_assert_int_eq(clReleaseEvent(gate), CL_SUCCESS);
}
END_TEST

/* ---- User events gating work ------------------------------------------------------------- */

START_TEST(test_user_event_gates_queue)
{
    enum { N = 1024 };
    cl_int err;
    cl_program p = aos_test_build(ctx, add_src, NULL);
    cl_kernel k = clCreateKernel(p, "add_one", &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    uint32_t host[N], init[N];
    for (int i = 0; i < N; i++)
        init[i] = (uint32_t)i * 3;
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(init), init, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 0, sizeof(m), &m), CL_SUCCESS);
    cl_event gate = clCreateUserEvent(ctx, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_int status = 0;
    ck_assert_int_eq(clGetEventInfo(gate, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL),
                     CL_SUCCESS);
    ck_assert_int_eq(status, CL_SUBMITTED);
    cl_command_type type = 0;
    ck_assert_int_eq(clGetEventInfo(gate, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL), CL_SUCCESS);
    ck_assert_uint_eq(type, CL_COMMAND_USER);

    size_t global = N;
    cl_event run1, run2, read;
    ck_assert_int_eq(clEnqueueNDRangeKernel(queue, k, 1, NULL, &global, NULL, 1, &gate, &run1), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueNDRangeKernel(queue, k, 1, NULL, &global, NULL, 0, NULL, &run2), CL_SUCCESS);
    memset(host, 0, sizeof(host));
    ck_assert_int_eq(clEnqueueReadBuffer(queue, m, CL_FALSE, 0, sizeof(host), host, 0, NULL, &read), CL_SUCCESS);
    ck_assert_int_eq(clFlush(queue), CL_SUCCESS);
    usleep(100000);
    /* Nothing behind the gate ran: statuses say so and a second queue still sees the old data. */
    ck_assert_int_gt(status_of(run1), CL_COMPLETE);
    ck_assert_int_gt(status_of(run2), CL_COMPLETE);
    ck_assert_int_gt(status_of(read), CL_COMPLETE);
    cl_command_queue other = aos_test_queue(ctx, 0);
    uint32_t peek[N];
    ck_assert_int_eq(clEnqueueReadBuffer(other, m, CL_TRUE, 0, sizeof(peek), peek, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(memcmp(peek, init, sizeof(init)), 0);
    ck_assert_uint_eq(host[5], 0);

    ck_assert_int_eq(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    ck_assert_int_eq(clWaitForEvents(1, &read), CL_SUCCESS);
    for (int i = 0; i < N; i++)
        ck_assert_uint_eq(host[i], init[i] + 2);
    ck_assert_int_eq(status_of(run1), CL_COMPLETE);
    ck_assert_int_eq(status_of(gate), CL_COMPLETE);

    /* Invalid uses of user events. */
    ck_assert_int_eq(clSetUserEventStatus(gate, CL_COMPLETE), CL_INVALID_OPERATION);
    ck_assert_int_eq(clSetUserEventStatus(run1, CL_COMPLETE), CL_INVALID_EVENT);
    cl_event fresh = clCreateUserEvent(ctx, &err);
    ck_assert_int_eq(clSetUserEventStatus(fresh, CL_RUNNING), CL_INVALID_VALUE);
    ck_assert_int_eq(clSetUserEventStatus(fresh, CL_COMPLETE), CL_SUCCESS);
    ck_assert_ptr_null(clCreateUserEvent(NULL, &err));
    ck_assert_int_eq(err, CL_INVALID_CONTEXT);

    clReleaseEvent(fresh);
    clReleaseEvent(run1);
    clReleaseEvent(run2);
    clReleaseEvent(read);
    clReleaseEvent(gate);
    clReleaseCommandQueue(other);
    clReleaseMemObject(m);
    clReleaseKernel(k);
    clReleaseProgram(p);
}
END_TEST

START_TEST(test_failed_user_event_fails_dependents)
{
    cl_int err;
    cl_event gate = clCreateUserEvent(ctx, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
    uint32_t value = 42;
    cl_event write, marker;
    ck_assert_int_eq(clEnqueueWriteBuffer(queue, m, CL_FALSE, 0, 4, &value, 1, &gate, &write), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueMarkerWithWaitList(queue, 1, &write, &marker), CL_SUCCESS);
    struct callback_record r = {0};
    ck_assert_int_eq(clSetEventCallback(write, CL_COMPLETE, record_callback, &r), CL_SUCCESS);
    ck_assert_int_eq(clSetUserEventStatus(gate, -1234), CL_SUCCESS);
    ck_assert_int_eq(clWaitForEvents(1, &write), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    ck_assert_int_lt(status_of(write), 0);
    ck_assert_int_eq(clWaitForEvents(1, &marker), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    ck_assert_int_lt(status_of(marker), 0);
    ck_assert_int_eq(status_of(gate), -1234);
    /* The callback still runs, with the (negative) status. */
    wait_calls(&r, 1);
    ck_assert_int_lt(r.status, 0);
    clReleaseEvent(write);
    clReleaseEvent(marker);
    clReleaseEvent(gate);
    clReleaseMemObject(m);
}
END_TEST

START_TEST(test_failed_chain_released_early)
{
    /* A failure spreads to commands that still wait on other, pending events; the application
     * then releases them and ends those other events later. Natively PoCL aborts the process
     * here (it frees the failed command while a pending event still links to it); the daemon
     * must survive it and keep answering. */
    cl_int err;
    cl_event gate = clCreateUserEvent(ctx, &err), other = clCreateUserEvent(ctx, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
    uint32_t value = 42;
    cl_event write, marker, barrier;
    ck_assert_int_eq(clEnqueueWriteBuffer(queue, m, CL_FALSE, 0, 4, &value, 1, &gate, &write), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueMarkerWithWaitList(queue, 1, &other, &marker), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueBarrierWithWaitList(queue, 0, NULL, &barrier), CL_SUCCESS);
    ck_assert_int_eq(clFlush(queue), CL_SUCCESS);
    ck_assert_int_eq(clSetUserEventStatus(gate, -1234), CL_SUCCESS);
    ck_assert_int_eq(clWaitForEvents(1, &write), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    ck_assert_int_eq(clReleaseEvent(marker), CL_SUCCESS);
    ck_assert_int_eq(clReleaseEvent(barrier), CL_SUCCESS);
    ck_assert_int_eq(clReleaseEvent(write), CL_SUCCESS);
    ck_assert_int_eq(clReleaseEvent(gate), CL_SUCCESS);
    usleep(50000);
    ck_assert_int_eq(clSetUserEventStatus(other, -5), CL_SUCCESS);
    ck_assert_int_eq(clReleaseEvent(other), CL_SUCCESS);
    ck_assert_int_eq(clFinish(queue), CL_SUCCESS);
    /* Still served: a round trip on the same queue. */
    ck_assert_int_eq(clEnqueueWriteBuffer(queue, m, CL_TRUE, 4, 4, &value, 0, NULL, NULL), CL_SUCCESS);
    uint32_t back = 0;
    ck_assert_int_eq(clEnqueueReadBuffer(queue, m, CL_TRUE, 4, 4, &back, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_uint_eq(back, 42);
    ck_assert(aos_test_daemon_alive());
    clReleaseMemObject(m);
}
END_TEST

START_TEST(test_commands_behind_a_failed_event_fail)
{
    /* Commands enqueued once an event of their wait list has failed. PoCL 3.1 neither runs nor
     * fails them natively: clFinish never returns (found by test_fair_api_fuzz). The daemon fails
     * them without enqueuing them. */
    cl_int err;
    cl_event gate = clCreateUserEvent(ctx, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
    uint32_t value = 42, back = 7;
    cl_event first;
    ck_assert_int_eq(clEnqueueWriteBuffer(queue, m, CL_FALSE, 0, 4, &value, 1, &gate, &first), CL_SUCCESS);
    ck_assert_int_eq(clSetUserEventStatus(gate, -1234), CL_SUCCESS);
    ck_assert_int_eq(clWaitForEvents(1, &first), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    cl_event after[3], pair[2] = {gate, first};
    ck_assert_int_eq(clEnqueueReadBuffer(queue, m, CL_FALSE, 0, 4, &back, 1, &first, &after[0]), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueMarkerWithWaitList(queue, 2, pair, &after[1]), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueBarrierWithWaitList(queue, 1, &gate, &after[2]), CL_SUCCESS);
    ck_assert_int_eq(clFinish(queue), CL_SUCCESS);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(status_of(after[i]), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        clReleaseEvent(after[i]);
    }
    ck_assert_uint_eq(back, 7); /* the read never ran */
    /* A blocking read behind it: the spec's error at once. */
    ck_assert_int_eq(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, 4, &back, 1, &first, NULL),
                     CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    /* The queue still serves. */
    ck_assert_int_eq(clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, 4, &value, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, 4, &back, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_uint_eq(back, 42);
    clReleaseEvent(first);
    clReleaseEvent(gate);
    clReleaseMemObject(m);
}
END_TEST

/* ---- Markers and barriers ------------------------------------------------------------------ */

START_TEST(test_markers_and_barriers_with_wait_lists)
{
    cl_int err;
    cl_device_id d = aos_test_device();
    cl_command_queue q2 = aos_test_queue(ctx, 0);
    cl_command_queue ooo = aos_test_queue(ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    cl_event a = clCreateUserEvent(ctx, &err), b = clCreateUserEvent(ctx, &err);
    ck_assert_int_eq(err, CL_SUCCESS);

    /* A marker waits for every event of its list, from any queue of the context. */
    cl_event on_a, marker;
    ck_assert_int_eq(clEnqueueMarkerWithWaitList(queue, 1, &a, &on_a), CL_SUCCESS);
    cl_event both[] = {on_a, b};
    ck_assert_int_eq(clEnqueueMarkerWithWaitList(q2, 2, both, &marker), CL_SUCCESS);
    ck_assert_int_eq(clFlush(queue), CL_SUCCESS);
    ck_assert_int_eq(clFlush(q2), CL_SUCCESS);
    ck_assert_int_eq(clSetUserEventStatus(a, CL_COMPLETE), CL_SUCCESS);
    ck_assert_int_eq(clWaitForEvents(1, &on_a), CL_SUCCESS);
    usleep(50000);
    ck_assert_int_gt(status_of(marker), CL_COMPLETE); /* b still holds it */
    ck_assert_int_eq(clSetUserEventStatus(b, CL_COMPLETE), CL_SUCCESS);
    ck_assert_int_eq(clWaitForEvents(1, &marker), CL_SUCCESS);
    cl_command_type type = 0;
    ck_assert_int_eq(clGetEventInfo(marker, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL), CL_SUCCESS);
    ck_assert_uint_eq(type, CL_COMMAND_MARKER);
    cl_command_queue owner = NULL;
    ck_assert_int_eq(clGetEventInfo(marker, CL_EVENT_COMMAND_QUEUE, sizeof(owner), &owner, NULL), CL_SUCCESS);
    ck_assert_ptr_eq(owner, q2);

    /* On an out-of-order queue a barrier orders what comes after it behind what came before. */
    enum { N = 4096 };
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof(uint32_t), NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_event gate = clCreateUserEvent(ctx, &err);
    uint32_t one = 1, two = 2;
    cl_event fill1, barrier, fill2;
    ck_assert_int_eq(clEnqueueFillBuffer(ooo, m, &one, 4, 0, N * 4, 1, &gate, &fill1), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueBarrierWithWaitList(ooo, 0, NULL, &barrier), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueFillBuffer(ooo, m, &two, 4, 0, N * 4, 0, NULL, &fill2), CL_SUCCESS);
    ck_assert_int_eq(clFlush(ooo), CL_SUCCESS);
    usleep(50000);
    ck_assert_int_gt(status_of(fill2), CL_COMPLETE); /* held by the barrier */
    ck_assert_int_eq(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    ck_assert_int_eq(clFinish(ooo), CL_SUCCESS);
    uint32_t host[N];
    ck_assert_int_eq(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, sizeof(host), host, 0, NULL, NULL), CL_SUCCESS);
    for (int i = 0; i < N; i++)
        ck_assert_uint_eq(host[i], 2);
    ck_assert_int_eq(clGetEventInfo(barrier, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL), CL_SUCCESS);
    ck_assert_uint_eq(type, CL_COMMAND_BARRIER);

    /* A barrier with a wait list naming another queue's event. */
    cl_event gate2 = clCreateUserEvent(ctx, &err), held, after;
    ck_assert_int_eq(clEnqueueMarkerWithWaitList(queue, 1, &gate2, &held), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueBarrierWithWaitList(q2, 1, &held, NULL), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueMarkerWithWaitList(q2, 0, NULL, &after), CL_SUCCESS);
    ck_assert_int_eq(clFlush(q2), CL_SUCCESS);
    usleep(50000);
    ck_assert_int_gt(status_of(after), CL_COMPLETE);
    ck_assert_int_eq(clSetUserEventStatus(gate2, CL_COMPLETE), CL_SUCCESS);
    ck_assert_int_eq(clFinish(q2), CL_SUCCESS);
    ck_assert_int_eq(status_of(after), CL_COMPLETE);

    /* Wait-list errors are the caller's. */
    ck_assert_int_eq(clEnqueueMarkerWithWaitList(queue, 1, NULL, NULL), CL_INVALID_EVENT_WAIT_LIST);
    ck_assert_int_eq(clEnqueueBarrierWithWaitList(queue, 0, &a, NULL), CL_INVALID_EVENT_WAIT_LIST);
    cl_event forged = aos_test_forged_handle();
    ck_assert_int_eq(clEnqueueMarkerWithWaitList(queue, 1, &forged, NULL), CL_INVALID_EVENT_WAIT_LIST);
    cl_context other_ctx = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
    cl_event foreign = clCreateUserEvent(other_ctx, &err);
    ck_assert_int_eq(clEnqueueMarkerWithWaitList(queue, 1, &foreign, NULL), CL_INVALID_CONTEXT);
    ck_assert_int_eq(clWaitForEvents(0, &a), CL_INVALID_VALUE);
    cl_event mixed[] = {a, foreign};
    ck_assert_int_eq(clWaitForEvents(2, mixed), CL_INVALID_CONTEXT);
    clSetUserEventStatus(foreign, CL_COMPLETE);

    cl_event all[] = {a, b, on_a, marker, gate, fill1, barrier, fill2, gate2, held, after, foreign};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        ck_assert_int_eq(clReleaseEvent(all[i]), CL_SUCCESS);
    clReleaseContext(other_ctx);
    clReleaseMemObject(m);
    clReleaseCommandQueue(ooo);
    clReleaseCommandQueue(q2);
}
END_TEST

/* ---- Profiling ---------------------------------------------------------------------------- */

static void check_profile(cl_event ev, const char *what)
{
    static const cl_profiling_info params[] = {CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
                                               CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END,
                                               CL_PROFILING_COMMAND_COMPLETE};
    cl_ulong t[5];
    for (int i = 0; i < 5; i++) {
        size_t size = 0;
        ck_assert_int_eq(clGetEventProfilingInfo(ev, params[i], sizeof(t[i]), &t[i], &size), CL_SUCCESS);
        ck_assert_uint_eq(size, sizeof(cl_ulong));
    }
    ck_assert_msg(t[0] > 0, "%s: QUEUED is 0", what);
    for (int i = 1; i < 5; i++)
        ck_assert_msg(t[i - 1] <= t[i], "%s: profiling step %d (%llu) after step %d (%llu)", what, i - 1,
                      (unsigned long long)t[i - 1], i, (unsigned long long)t[i]);
}

START_TEST(test_profiling_is_monotonic)
{
    enum { N = 1 << 20 };
    cl_int err;
    cl_program p = aos_test_build(ctx, add_src, NULL);
    cl_kernel k = clCreateKernel(p, "add_one", &err);
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof(uint32_t), NULL, &err);
    uint32_t *host = calloc(N, sizeof(uint32_t));
    ck_assert_int_eq(clSetKernelArg(k, 0, sizeof(m), &m), CL_SUCCESS);
    size_t global = N;
    cl_event write, run, read_small, read_big;
    ck_assert_int_eq(clEnqueueWriteBuffer(queue, m, CL_FALSE, 0, N * 4, host, 0, NULL, &write), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueNDRangeKernel(queue, k, 1, NULL, &global, NULL, 0, NULL, &run), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, 64, host, 0, NULL, &read_small), CL_SUCCESS);
    /* 4 MiB non-blocking: several pieces with host steps; profiling comes from the device part. */
    ck_assert_int_eq(clEnqueueReadBuffer(queue, m, CL_FALSE, 0, N * 4, host, 0, NULL, &read_big), CL_SUCCESS);
    ck_assert_int_eq(clFinish(queue), CL_SUCCESS);
    ck_assert_uint_eq(host[N - 1], 1);
    check_profile(write, "write");
    check_profile(run, "kernel");
    check_profile(read_small, "blocking read");
    check_profile(read_big, "split read");
    /* Commands of an in-order queue run one after the other. */
    cl_ulong write_end, run_start, run_end, read_start;
    clGetEventProfilingInfo(write, CL_PROFILING_COMMAND_END, sizeof(cl_ulong), &write_end, NULL);
    clGetEventProfilingInfo(run, CL_PROFILING_COMMAND_START, sizeof(cl_ulong), &run_start, NULL);
    clGetEventProfilingInfo(run, CL_PROFILING_COMMAND_END, sizeof(cl_ulong), &run_end, NULL);
    clGetEventProfilingInfo(read_small, CL_PROFILING_COMMAND_START, sizeof(cl_ulong), &read_start, NULL);
    ck_assert_uint_le(write_end, run_start);
    ck_assert_uint_le(run_end, read_start);

    /* Not available: user events, queues without profiling, unknown parameters. */
    cl_ulong t;
    cl_event user = clCreateUserEvent(ctx, &err);
    clSetUserEventStatus(user, CL_COMPLETE);
    ck_assert_int_eq(clGetEventProfilingInfo(user, CL_PROFILING_COMMAND_START, sizeof(t), &t, NULL),
                     CL_PROFILING_INFO_NOT_AVAILABLE);
    cl_command_queue plain = clCreateCommandQueue(ctx, aos_test_device(), 0, &err);
    cl_event unprofiled;
    ck_assert_int_eq(clEnqueueMarkerWithWaitList(plain, 0, NULL, &unprofiled), CL_SUCCESS);
    ck_assert_int_eq(clFinish(plain), CL_SUCCESS);
    ck_assert_int_eq(clGetEventProfilingInfo(unprofiled, CL_PROFILING_COMMAND_START, sizeof(t), &t, NULL),
                     CL_PROFILING_INFO_NOT_AVAILABLE);
    ck_assert_int_eq(clGetEventProfilingInfo(run, 0x7777, sizeof(t), &t, NULL), CL_INVALID_VALUE);
    ck_assert_int_eq(clGetEventProfilingInfo(run, CL_PROFILING_COMMAND_START, 2, &t, NULL), CL_INVALID_VALUE);

    cl_event all[] = {write, run, read_small, read_big, user, unprofiled};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        clReleaseEvent(all[i]);
    clReleaseCommandQueue(plain);
    clReleaseMemObject(m);
    clReleaseKernel(k);
    clReleaseProgram(p);
    free(host);
}
END_TEST

/* Eight queries of a completed event's timestamps: answered from one call to the daemon, the same
 * each time, in order. Returns QUEUED..END. */
static void profile_in_one_call(cl_event ev, const char *what, cl_ulong times[4])
{
    static const cl_profiling_info params[] = {CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
                                               CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END};
    cl_ulong again[4];
    long long calls_before = aos_test_status_count(getpid(), "calls");
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(clGetEventProfilingInfo(ev, params[i], sizeof(times[i]), &times[i], NULL), CL_SUCCESS);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(clGetEventProfilingInfo(ev, params[i], sizeof(again[i]), &again[i], NULL), CL_SUCCESS);
    long long calls = aos_test_status_count(getpid(), "calls") - calls_before;
    ck_assert_msg(calls == 1, "%s: eight profiling queries of a completed event took %lld calls to the daemon", what,
                  calls);
    for (int i = 0; i < 4; i++)
        ck_assert_uint_eq(times[i], again[i]);
    for (int i = 1; i < 4; i++)
        ck_assert_msg(times[i - 1] <= times[i], "%s: profiling step %d after step %d", what, i - 1, i);
}

/* A completed event's four timestamps come in one round trip and are kept; a pending event's are
 * not available, and asking for them early must not keep anything. */
START_TEST(test_profiling_is_fetched_once_when_complete)
{
    cl_int err;
    cl_event gate = clCreateUserEvent(ctx, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_event marker;
    ck_assert_int_eq(clEnqueueMarkerWithWaitList(queue, 1, &gate, &marker), CL_SUCCESS);
    ck_assert_int_eq(clFlush(queue), CL_SUCCESS);
    cl_ulong t;
    ck_assert_int_eq(clGetEventProfilingInfo(marker, CL_PROFILING_COMMAND_END, sizeof(t), &t, NULL),
                     CL_PROFILING_INFO_NOT_AVAILABLE);
    usleep(20000); /* the marker's end must come after this point */
    ck_assert_int_eq(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    ck_assert_int_eq(clFinish(queue), CL_SUCCESS);
    cl_ulong times[4];
    profile_in_one_call(marker, "marker", times);
    /* The end is the real one, not something kept from the early query: it follows the gate's
     * 20 ms wait after the enqueue. */
    ck_assert_uint_ge(times[3] - times[0], 20000000);
    /* The size checks stay the native ones. */
    ck_assert_int_eq(clGetEventProfilingInfo(marker, CL_PROFILING_COMMAND_START, 2, &t, NULL), CL_INVALID_VALUE);
    size_t size = 0;
    ck_assert_int_eq(clGetEventProfilingInfo(marker, CL_PROFILING_COMMAND_START, 0, NULL, &size), CL_SUCCESS);
    ck_assert_uint_eq(size, sizeof(cl_ulong));

    /* Kernel launches too, however the daemon ran them (logical or solo under fair, native under
     * fifo), after a clFinish as applications that time kernels do. */
    cl_program p = aos_test_build(ctx, add_src, NULL);
    cl_kernel k = clCreateKernel(p, "add_one", &err);
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096 * sizeof(uint32_t), NULL, &err);
    ck_assert_int_eq(clSetKernelArg(k, 0, sizeof(m), &m), CL_SUCCESS);
    size_t global = 4096, local = 64;
    for (int launch = 0; launch < 12; launch++) {
        cl_event run;
        ck_assert_int_eq(clEnqueueNDRangeKernel(queue, k, 1, NULL, &global, &local, 0, NULL, &run), CL_SUCCESS);
        ck_assert_int_eq(clFinish(queue), CL_SUCCESS);
        profile_in_one_call(run, "kernel", times);
        clReleaseEvent(run);
    }
    clReleaseMemObject(m);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseEvent(marker);
    clReleaseEvent(gate);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("events");
    TCase *tc = tcase_create("events");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_callbacks_run_in_client);
    tcase_add_test(tc, test_callback_may_release_its_event);
    tcase_add_test(tc, test_user_event_gates_queue);
    tcase_add_test(tc, test_failed_user_event_fails_dependents);
    tcase_add_test(tc, test_failed_chain_released_early);
    tcase_add_test(tc, test_commands_behind_a_failed_event_fail);
    tcase_add_test(tc, test_markers_and_barriers_with_wait_lists);
    tcase_add_test(tc, test_profiling_is_monotonic);
    tcase_add_test(tc, test_profiling_is_fetched_once_when_complete);
    suite_add_tcase(s, tc);
    return aos_test_run_suite(s);
}
