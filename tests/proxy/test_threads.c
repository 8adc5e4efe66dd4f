/*
 * One client process, many threads: eight threads share a context and a program; four have a
 * queue each and four share one queue. Each thread repeatedly writes its inputs (blocking and
 * non-blocking, small and split into several staging pieces), runs its own kernel, reads the
 * result back (blocking and non-blocking) and checks every value, while the others do the same.
 * A second test creates and releases objects from many threads at once.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define THREADS 8
#define OWN_QUEUES 4 /* threads 0..3 own a queue, 4..7 share one */
#define ROUNDS 6

static const char *saxpy_src =
    "kernel void saxpy(global const uint *x, global const uint *y, global uint *out, uint a, uint n)\n"
    "{ size_t i = get_global_id(0); if (i < n) out[i] = a * x[i] + y[i]; }\n";

struct worker {
    int index;
    cl_context ctx;
    cl_program prog;
    cl_command_queue queue;
    char error[256]; /* empty on success */
};

#define CHECK(w, cond, ...)                                                                                \
    do {                                                                                                   \
        if (!(cond)) {                                                                                     \
            snprintf((w)->error, sizeof((w)->error), __VA_ARGS__);                                         \
            goto out;                                                                                      \
        }                                                                                                  \
    } while (0)

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    cl_int err;
    cl_kernel k = NULL;
    cl_mem x = NULL, y = NULL, out = NULL;
    uint32_t *hx = NULL, *hy = NULL, *hout = NULL;
    k = clCreateKernel(w->prog, "saxpy", &err);
    CHECK(w, err == CL_SUCCESS, "clCreateKernel: %d", err);
    for (int round = 0; round < ROUNDS; round++) {
        /* Sizes alternate between one request and several pieces of the staging area. */
        size_t n = (round % 2) ? (3u << 20) / 4 + (size_t)w->index * 7 : 1000 + (size_t)w->index * 13;
        size_t bytes = n * sizeof(uint32_t);
        hx = malloc(bytes), hy = malloc(bytes), hout = malloc(bytes);
        CHECK(w, hx && hy && hout, "out of memory");
        uint32_t a = (uint32_t)(w->index * 100 + round + 1);
        for (size_t i = 0; i < n; i++) {
            hx[i] = (uint32_t)(i * 2654435761u) ^ (uint32_t)w->index;
            hy[i] = (uint32_t)(i + (size_t)round * 1000003u);
        }
        x = clCreateBuffer(w->ctx, CL_MEM_READ_ONLY, bytes, NULL, &err);
        CHECK(w, err == CL_SUCCESS, "clCreateBuffer x: %d", err);
        y = clCreateBuffer(w->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, hy, &err);
        CHECK(w, err == CL_SUCCESS, "clCreateBuffer y: %d", err);
        out = clCreateBuffer(w->ctx, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
        CHECK(w, err == CL_SUCCESS, "clCreateBuffer out: %d", err);
        cl_event wrote = NULL, ran = NULL, read = NULL;
        err = clEnqueueWriteBuffer(w->queue, x, round % 3 == 0, 0, bytes, hx, 0, NULL, &wrote);
        CHECK(w, err == CL_SUCCESS, "write: %d", err);
        cl_uint count = (cl_uint)n;
        err = clSetKernelArg(k, 0, sizeof(x), &x);
        err |= clSetKernelArg(k, 1, sizeof(y), &y);
        err |= clSetKernelArg(k, 2, sizeof(out), &out);
        err |= clSetKernelArg(k, 3, sizeof(a), &a);
        err |= clSetKernelArg(k, 4, sizeof(count), &count);
        CHECK(w, err == CL_SUCCESS, "clSetKernelArg: %d", err);
        size_t global = (n + 63) / 64 * 64;
        /* The wait list matters on the shared queue only for ordering with this thread's own
         * write; on an in-order queue it is implied anyway. */
        err = clEnqueueNDRangeKernel(w->queue, k, 1, NULL, &global, NULL, 1, &wrote, &ran);
        CHECK(w, err == CL_SUCCESS, "launch: %d", err);
        memset(hout, 0, bytes);
        bool blocking_read = round % 2 == 0;
        err = clEnqueueReadBuffer(w->queue, out, blocking_read, 0, bytes, hout, 1, &ran, &read);
        CHECK(w, err == CL_SUCCESS, "read: %d", err);
        if (!blocking_read) {
            err = w->index % 2 ? clWaitForEvents(1, &read) : clFinish(w->queue);
            CHECK(w, err == CL_SUCCESS, "wait for read: %d", err);
        }
        cl_int status = 1;
        err = clGetEventInfo(read, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL);
        CHECK(w, err == CL_SUCCESS && status == CL_COMPLETE, "read status %d (%d)", status, err);
        for (size_t i = 0; i < n; i++)
            CHECK(w, hout[i] == a * hx[i] + hy[i], "round %d: out[%zu] = %u, expected %u", round, i, hout[i],
                  a * hx[i] + hy[i]);
        clReleaseEvent(wrote);
        clReleaseEvent(ran);
        clReleaseEvent(read);
        clReleaseMemObject(x), x = NULL;
        clReleaseMemObject(y), y = NULL;
        clReleaseMemObject(out), out = NULL;
        free(hx), hx = NULL;
        free(hy), hy = NULL;
        free(hout), hout = NULL;
    }
out:
    if (x)
        clReleaseMemObject(x);
    if (y)
        clReleaseMemObject(y);
    if (out)
        clReleaseMemObject(out);
    if (k)
        clReleaseKernel(k);
    free(hx);
    free(hy);
    free(hout);
    return NULL;
}

START_TEST(test_threads_transfer_and_compute)
{
    cl_int err;
    cl_device_id d = aos_test_device();
    cl_context ctx = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_program prog = aos_test_build(ctx, saxpy_src, NULL);
    cl_command_queue queues[OWN_QUEUES + 1];
    for (int i = 0; i <= OWN_QUEUES; i++)
        queues[i] = aos_test_queue(ctx, 0);
    struct worker w[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (struct worker){.index = i, .ctx = ctx, .prog = prog,
                               .queue = queues[i < OWN_QUEUES ? i : OWN_QUEUES]};
        ck_assert_int_eq(pthread_create(&t[i], NULL, worker_main, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < THREADS; i++)
        ck_assert_msg(w[i].error[0] == '\0', "thread %d: %s", i, w[i].error);
    for (int i = 0; i <= OWN_QUEUES; i++) {
        ck_assert_int_eq(clFinish(queues[i]), CL_SUCCESS);
        ck_assert_int_eq(clReleaseCommandQueue(queues[i]), CL_SUCCESS);
    }
    ck_assert_int_eq(clReleaseProgram(prog), CL_SUCCESS);
    ck_assert_int_eq(clReleaseContext(ctx), CL_SUCCESS);
}
END_TEST

struct churner {
    cl_context ctx;
    cl_command_queue queue;
    int failures;
};

/* Creates and releases buffers, user events and markers as fast as it can. */
static void *churn_main(void *arg)
{
    struct churner *c = arg;
    for (int i = 0; i < 300; i++) {
        cl_int err;
        cl_mem m = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE, 256 + (size_t)i, NULL, &err);
        cl_event user = clCreateUserEvent(c->ctx, &err);
        cl_event marker = NULL;
        if (!m || !user || clEnqueueMarkerWithWaitList(c->queue, 1, &user, &marker) != CL_SUCCESS) {
            c->failures++;
            continue;
        }
        size_t size = 0;
        if (clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof(size), &size, NULL) != CL_SUCCESS || size != 256 + (size_t)i)
            c->failures++;
        if (clSetUserEventStatus(user, CL_COMPLETE) != CL_SUCCESS || clWaitForEvents(1, &marker) != CL_SUCCESS)
            c->failures++;
        clReleaseEvent(marker);
        clReleaseEvent(user);
        clReleaseMemObject(m);
    }
    return NULL;
}

START_TEST(test_threads_create_and_release)
{
    cl_context ctx;
    cl_command_queue queue;
    aos_test_context(&ctx, &queue);
    struct churner c[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        c[i] = (struct churner){.ctx = ctx, .queue = queue};
        ck_assert_int_eq(pthread_create(&t[i], NULL, churn_main, &c[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        ck_assert_int_eq(c[i].failures, 0);
    }
    cl_uint refs = 0;
    ck_assert_int_eq(clGetContextInfo(ctx, CL_CONTEXT_REFERENCE_COUNT, sizeof(refs), &refs, NULL), CL_SUCCESS);
    ck_assert_uint_eq(refs, 1);
    ck_assert_int_eq(clFinish(queue), CL_SUCCESS);
    ck_assert_int_eq(clReleaseCommandQueue(queue), CL_SUCCESS);
    ck_assert_int_eq(clReleaseContext(ctx), CL_SUCCESS);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("threads");
    TCase *tc = tcase_create("threads");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_threads_transfer_and_compute);
    tcase_add_test(tc, test_threads_create_and_release);
    suite_add_tcase(s, tc);
    return aos_test_run_suite(s);
}
