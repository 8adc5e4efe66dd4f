/*
 * Shared buffers: on the CPU device the daemon puts a buffer's storage in the client's shared-buffer
 * arena, and ProxyCL copies transfers of 256 KiB and more straight between application memory and
 * the buffer (proxycl/direct.c). These tests check that such transfers keep the queue's order both
 * ways (a later command sees a direct write; a later command cannot overwrite what a direct read is
 * still copying), honour wait lists, offsets, rects and sub-buffers, that maps are in place, and
 * that the daemon gives the storage back when buffers go.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon_status.h"
#include "harness.h"

#define BIG (4u << 20) /* bytes: well above the direct threshold */
#define WORDS (BIG / 4)

/* Asserts got == want for every index i below n, naming the first that differs: one Check assertion
 * per array, since Check's per-call cost would dominate over millions of elements. */
#define EXPECT_ALL(n, i, got, want)                                                                   \
    do {                                                                                              \
        size_t bad_ = SIZE_MAX;                                                                       \
        for (size_t i = 0; i < (size_t)(n) && bad_ == SIZE_MAX; i++)                                  \
            if ((uint64_t)(got) != (uint64_t)(want))                                                  \
                bad_ = i;                                                                             \
        if (bad_ != SIZE_MAX) {                                                                       \
            size_t i = bad_;                                                                          \
            ck_abort_msg("at index %zu: %llu, expected %llu", i, (unsigned long long)(got),          \
                         (unsigned long long)(want));                                                 \
        }                                                                                             \
    } while (0)

static const char *source =
    "kernel void set(global uint *a, uint v) { a[get_global_id(0)] = v; }\n"
    "kernel void twice_plus(global uint *a) { size_t i = get_global_id(0); a[i] = a[i] * 2u + 1u; }\n";

static cl_context ctx;
static cl_command_queue queue;
static cl_program program;
static cl_kernel set_kernel, twice_kernel;

static void setup(void)
{
    aos_test_context(&ctx, &queue);
    program = aos_test_build(ctx, source, "");
    set_kernel = aos_test_kernel(program, "set");
    twice_kernel = aos_test_kernel(program, "twice_plus");
}

static void teardown(void)
{
    clReleaseKernel(set_kernel);
    clReleaseKernel(twice_kernel);
    clReleaseProgram(program);
    clReleaseCommandQueue(queue);
    clReleaseContext(ctx);
}

static cl_event run_set(cl_mem b, uint32_t v)
{
    size_t n = WORDS;
    cl_event ev = NULL;
    ck_assert_int_eq(clSetKernelArg(set_kernel, 0, sizeof(b), &b), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(set_kernel, 1, sizeof(v), &v), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueNDRangeKernel(queue, set_kernel, 1, NULL, &n, NULL, 0, NULL, &ev), CL_SUCCESS);
    return ev;
}

static void run_twice(cl_mem b)
{
    size_t n = WORDS;
    ck_assert_int_eq(clSetKernelArg(twice_kernel, 0, sizeof(b), &b), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueNDRangeKernel(queue, twice_kernel, 1, NULL, &n, NULL, 0, NULL, NULL), CL_SUCCESS);
}

/* The daemon counts the storage while the buffer lives and gives it back when it goes. */
START_TEST(test_storage_counted_and_returned)
{
    long long before = aos_test_status_shared_in_use();
    ck_assert_int_ge(before, 0);
    cl_mem b = aos_test_buffer(ctx, BIG + 100, NULL);
    ck_assert_int_eq(aos_test_status_shared_in_use() - before, BIG + 4096); /* whole pages */
    ck_assert_int_eq(clReleaseMemObject(b), CL_SUCCESS);
    long long after = -1;
    for (int i = 0; i < 100 && (after = aos_test_status_shared_in_use()) != before; i++)
        usleep(10000); /* the runtime frees the storage after the release returns */
    ck_assert_int_eq(after, before);
}
END_TEST

/* Blocking writes and reads at offsets that are not page or word aligned, around a kernel. */
START_TEST(test_blocking_round_trip_at_offsets)
{
    uint32_t *data = malloc(BIG), *back = malloc(BIG);
    for (uint32_t i = 0; i < WORDS; i++)
        data[i] = i * 2654435761u;
    cl_mem b = aos_test_buffer(ctx, BIG, NULL);
    ck_assert_int_eq(clEnqueueWriteBuffer(queue, b, CL_TRUE, 0, BIG, data, 0, NULL, NULL), CL_SUCCESS);
    run_twice(b);
    memset(back, 0, BIG);
    ck_assert_int_eq(clEnqueueReadBuffer(queue, b, CL_TRUE, 0, BIG, back, 0, NULL, NULL), CL_SUCCESS);
    EXPECT_ALL(WORDS, i, back[i], data[i] * 2u + 1u);
    /* 300001 bytes at byte offset 12345: the rest of the buffer must stay as it was. */
    uint8_t *patch = malloc(300001);
    memset(patch, 0xab, 300001);
    ck_assert_int_eq(clEnqueueWriteBuffer(queue, b, CL_TRUE, 12345, 300001, patch, 0, NULL, NULL), CL_SUCCESS);
    uint8_t *bytes = malloc(BIG);
    ck_assert_int_eq(clEnqueueReadBuffer(queue, b, CL_TRUE, 0, BIG, bytes, 0, NULL, NULL), CL_SUCCESS);
    const uint8_t *old = (const uint8_t *)back;
    EXPECT_ALL(BIG, i, bytes[i], i >= 12345 && i < 12345 + 300001 ? 0xab : old[i]);
    memset(patch, 0, 300001);
    ck_assert_int_eq(clEnqueueReadBuffer(queue, b, CL_TRUE, 12344, 300001, patch, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_uint_eq(patch[0], old[12344]);
    ck_assert_uint_eq(patch[1], 0xab);
    ck_assert_uint_eq(patch[300000], 0xab);
    clReleaseMemObject(b);
    free(data), free(back), free(patch), free(bytes);
}
END_TEST

/* A non-blocking write waiting for a user event: nothing after it runs before the event is set,
 * and the kernel after it sees the written data. */
START_TEST(test_non_blocking_write_waits_for_its_wait_list)
{
    cl_int err;
    uint32_t *data = malloc(BIG), *back = malloc(BIG);
    for (uint32_t i = 0; i < WORDS; i++)
        data[i] = i;
    cl_mem b = aos_test_buffer(ctx, BIG, NULL);
    cl_event user = clCreateUserEvent(ctx, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_event we = NULL, re = NULL;
    ck_assert_int_eq(clEnqueueWriteBuffer(queue, b, CL_FALSE, 0, BIG, data, 1, &user, &we), CL_SUCCESS);
    run_twice(b);
    ck_assert_int_eq(clEnqueueReadBuffer(queue, b, CL_FALSE, 0, BIG, back, 0, NULL, &re), CL_SUCCESS);
    ck_assert_int_eq(clFlush(queue), CL_SUCCESS);
    usleep(100000);
    ck_assert_int_gt(aos_test_event_status(we), CL_COMPLETE);
    ck_assert_int_gt(aos_test_event_status(re), CL_COMPLETE);
    ck_assert_int_eq(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
    ck_assert_int_eq(clWaitForEvents(1, &re), CL_SUCCESS);
    ck_assert_int_eq(aos_test_event_status(we), CL_COMPLETE);
    cl_command_type type = 0;
    clGetEventInfo(we, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL);
    ck_assert_uint_eq(type, CL_COMMAND_WRITE_BUFFER);
    EXPECT_ALL(WORDS, i, back[i], i * 2u + 1u);
    clReleaseEvent(we), clReleaseEvent(re), clReleaseEvent(user);
    clReleaseMemObject(b);
    free(data), free(back);
}
END_TEST

static void CL_CALLBACK slow_callback(cl_event ev, cl_int status, void *data)
{
    (void)ev, (void)status, (void)data;
    usleep(300000); /* holds ProxyCL's callback thread, which also runs the read's copy */
}

/* A kernel sets b to value, then a non-blocking read of b into back is enqueued whose copy is held
 * up behind a slow callback on the kernel's event. Returns the read's event, *kernel the kernel's. */
static cl_event held_up_read(cl_mem b, uint32_t value, uint32_t *back, cl_event *kernel)
{
    *kernel = run_set(b, value);
    ck_assert_int_eq(clSetEventCallback(*kernel, CL_COMPLETE, slow_callback, NULL), CL_SUCCESS);
    cl_event re = NULL;
    ck_assert_int_eq(clEnqueueReadBuffer(queue, b, CL_FALSE, 0, BIG, back, 0, NULL, &re), CL_SUCCESS);
    return re;
}

/* A later kernel must not overwrite the buffer while a non-blocking read is still copying it out:
 * the read's copy is held up behind a slow callback on the callback thread, and the kernel after
 * the read is enqueued at once. */
START_TEST(test_later_kernel_waits_for_direct_read)
{
    uint32_t *back = malloc(BIG);
    memset(back, 0, BIG);
    cl_mem b = aos_test_buffer(ctx, BIG, NULL);
    cl_event first, re = held_up_read(b, 1, back, &first);
    cl_event second = run_set(b, 2);
    ck_assert_int_eq(clFinish(queue), CL_SUCCESS);
    EXPECT_ALL(WORDS, i, back[i], 1);
    ck_assert_int_eq(clEnqueueReadBuffer(queue, b, CL_TRUE, 0, BIG, back, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_uint_eq(back[0], 2);
    ck_assert_uint_eq(back[WORDS - 1], 2);
    clReleaseEvent(first), clReleaseEvent(re), clReleaseEvent(second);
    clReleaseMemObject(b);
    free(back);
}
END_TEST

/* The application may release a buffer right after enqueueing a non-blocking read of it (the
 * command keeps it alive): the copy, held up behind a slow callback, must still find the data. */
START_TEST(test_release_right_after_non_blocking_read)
{
    uint32_t *back = malloc(BIG);
    memset(back, 0, BIG);
    cl_mem b = aos_test_buffer(ctx, BIG, NULL);
    cl_event first, re = held_up_read(b, 9, back, &first);
    ck_assert_int_eq(clReleaseMemObject(b), CL_SUCCESS);
    cl_mem other = aos_test_buffer(ctx, BIG, NULL); /* would take the freed storage */
    cl_event third = run_set(other, 5);
    ck_assert_int_eq(clWaitForEvents(1, &re), CL_SUCCESS);
    EXPECT_ALL(WORDS, i, back[i], 9);
    ck_assert_int_eq(clFinish(queue), CL_SUCCESS);
    clReleaseEvent(first), clReleaseEvent(re), clReleaseEvent(third);
    clReleaseMemObject(other);
    free(back);
}
END_TEST

enum { W = 1000, H = 600, D = 2, BROW = 1024, BSLICE = BROW * 640, HROW = 1100, HSLICE = HROW * 610 };

/* What byte i of the buffer holds after the rect write below: the host byte that lands there
 * inside the box (buffer origin 5,7,1; host origin 3,2,0), zero outside. */
static uint8_t rect_expected(const uint8_t *host, size_t i)
{
    size_t z = i / BSLICE, y = i % BSLICE / BROW, x = i % BROW;
    bool inside = z >= 1 && z < 1 + D && y >= 7 && y < 7 + H && x >= 5 && x < 5 + W;
    return inside ? host[(x - 5 + 3) + (y - 7 + 2) * HROW + (z - 1) * HSLICE] : 0;
}

/* Rect transfers copy row by row between the two pitches. */
START_TEST(test_rect_direct)
{
    size_t bytes = (size_t)BSLICE * 3;
    cl_mem b = aos_test_buffer(ctx, bytes, NULL);
    uint8_t *zero = calloc(1, bytes);
    ck_assert_int_eq(clEnqueueWriteBuffer(queue, b, CL_TRUE, 0, bytes, zero, 0, NULL, NULL), CL_SUCCESS);
    uint8_t *host = malloc((size_t)HSLICE * 3);
    for (size_t i = 0; i < (size_t)HSLICE * 3; i++)
        host[i] = (uint8_t)(i * 7 + (i >> 11));
    size_t borigin[3] = {5, 7, 1}, horigin[3] = {3, 2, 0}, region[3] = {W, H, D};
    ck_assert_int_eq(clEnqueueWriteBufferRect(queue, b, CL_TRUE, borigin, horigin, region, BROW, BSLICE, HROW, HSLICE,
                                              host, 0, NULL, NULL),
                     CL_SUCCESS);
    uint8_t *dev = malloc(bytes);
    ck_assert_int_eq(clEnqueueReadBuffer(queue, b, CL_TRUE, 0, bytes, dev, 0, NULL, NULL), CL_SUCCESS);
    EXPECT_ALL(bytes, i, dev[i], rect_expected(host, i));
    uint8_t *again = calloc(1, (size_t)HSLICE * 3);
    ck_assert_int_eq(clEnqueueReadBufferRect(queue, b, CL_TRUE, borigin, horigin, region, BROW, BSLICE, HROW, HSLICE,
                                             again, 0, NULL, NULL),
                     CL_SUCCESS);
    for (size_t z = 0; z < D; z++)
        for (size_t y = 0; y < H; y++) {
            size_t h = 3 + (y + 2) * HROW + z * HSLICE;
            ck_assert_int_eq(memcmp(again + h, host + h, W), 0);
        }
    clReleaseMemObject(b);
    free(zero), free(host), free(dev), free(again);
}
END_TEST

/* A sub-buffer's transfers land at its origin in the parent. */
START_TEST(test_sub_buffer_direct)
{
    cl_uint align_bits = 0;
    clGetDeviceInfo(aos_test_device(), CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof(align_bits), &align_bits, NULL);
    size_t origin = 1u << 20;
    ck_assert_uint_eq(origin % (align_bits / 8 ? align_bits / 8 : 1), 0);
    cl_mem parent = aos_test_buffer(ctx, BIG, NULL);
    uint8_t *zero = calloc(1, BIG);
    ck_assert_int_eq(clEnqueueWriteBuffer(queue, parent, CL_TRUE, 0, BIG, zero, 0, NULL, NULL), CL_SUCCESS);
    cl_buffer_region region = {.origin = origin, .size = 1u << 20};
    cl_int err;
    cl_mem sub = clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    uint8_t *data = malloc(1u << 20);
    memset(data, 0x5a, 1u << 20);
    ck_assert_int_eq(clEnqueueWriteBuffer(queue, sub, CL_TRUE, 0, 1u << 20, data, 0, NULL, NULL), CL_SUCCESS);
    uint8_t *back = malloc(BIG);
    ck_assert_int_eq(clEnqueueReadBuffer(queue, parent, CL_TRUE, 0, BIG, back, 0, NULL, NULL), CL_SUCCESS);
    EXPECT_ALL(BIG, i, back[i], i >= origin && i < origin + (1u << 20) ? 0x5a : 0);
    clReleaseMemObject(sub);
    clReleaseMemObject(parent);
    free(zero), free(data), free(back);
}
END_TEST

/* Maps of a shared buffer are the storage itself, as on a native CPU device: two maps of one buffer
 * are views of the same memory, a kernel's results show without a copy, and what the application
 * writes through a map reaches the next kernel. */
START_TEST(test_map_in_place)
{
    cl_int err;
    cl_mem b = aos_test_buffer(ctx, BIG, NULL);
    cl_event done = run_set(b, 7);
    uint32_t *whole = clEnqueueMapBuffer(queue, b, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, BIG, 1, &done, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    uint32_t *part = clEnqueueMapBuffer(queue, b, CL_TRUE, CL_MAP_READ, 4096, 4096, 0, NULL, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_ptr_eq(part, whole + 1024);
    ck_assert_uint_eq(whole[0], 7);
    ck_assert_uint_eq(whole[WORDS - 1], 7);
    for (uint32_t i = 0; i < WORDS; i++)
        whole[i] = i;
    ck_assert_uint_eq(part[0], 1024); /* the same memory */
    cl_uint count = 0;
    clGetMemObjectInfo(b, CL_MEM_MAP_COUNT, sizeof(count), &count, NULL);
    ck_assert_uint_eq(count, 2);
    ck_assert_int_eq(clEnqueueUnmapMemObject(queue, b, part, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueUnmapMemObject(queue, b, whole, 0, NULL, NULL), CL_SUCCESS);
    run_twice(b);
    uint32_t *back = malloc(BIG);
    ck_assert_int_eq(clEnqueueReadBuffer(queue, b, CL_TRUE, 0, BIG, back, 0, NULL, NULL), CL_SUCCESS);
    EXPECT_ALL(WORDS, i, back[i], i * 2u + 1u);
    clReleaseEvent(done);
    clReleaseMemObject(b);
    free(back);
}
END_TEST

struct writer {
    cl_mem buffer;
    uint32_t value;
    int failures;
};

static void *write_many(void *arg)
{
    struct writer *w = arg;
    uint32_t *data = malloc(BIG), *back = malloc(BIG);
    for (int round = 0; round < 8; round++) {
        for (uint32_t i = 0; i < WORDS; i++)
            data[i] = w->value + (uint32_t)round;
        if (clEnqueueWriteBuffer(queue, w->buffer, CL_TRUE, 0, BIG, data, 0, NULL, NULL) != CL_SUCCESS ||
            clEnqueueReadBuffer(queue, w->buffer, CL_TRUE, 0, BIG, back, 0, NULL, NULL) != CL_SUCCESS ||
            memcmp(data, back, BIG) != 0)
            w->failures++;
    }
    free(data), free(back);
    return NULL;
}

/* Threads sharing one queue, each with its own buffer. */
START_TEST(test_threads_on_one_queue)
{
    struct writer w[3];
    pthread_t t[3];
    for (int i = 0; i < 3; i++) {
        w[i] = (struct writer){.buffer = aos_test_buffer(ctx, BIG, NULL), .value = 1000u * (uint32_t)(i + 1)};
        ck_assert_int_eq(pthread_create(&t[i], NULL, write_many, &w[i]), 0);
    }
    for (int i = 0; i < 3; i++) {
        pthread_join(t[i], NULL);
        ck_assert_int_eq(w[i].failures, 0);
        clReleaseMemObject(w[i].buffer);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("shared");
    TCase *tc = tcase_create("direct");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_storage_counted_and_returned);
    tcase_add_test(tc, test_blocking_round_trip_at_offsets);
    tcase_add_test(tc, test_non_blocking_write_waits_for_its_wait_list);
    tcase_add_test(tc, test_later_kernel_waits_for_direct_read);
    tcase_add_test(tc, test_release_right_after_non_blocking_read);
    tcase_add_test(tc, test_rect_direct);
    tcase_add_test(tc, test_sub_buffer_direct);
    tcase_add_test(tc, test_map_in_place);
    tcase_add_test(tc, test_threads_on_one_queue);
    suite_add_tcase(s, tc);
    return aos_test_run_suite(s);
}
