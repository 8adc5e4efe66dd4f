/* Buffers through the proxy: transfers of all sizes, sub-buffers, copy/fill, rect, map/unmap with
 * each host-pointer flag, destructor callbacks, error codes, and device memory freed when a client
 * is killed. */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "accelos/sock.h"
#include "accelos/wire.h"
#include "daemon_status.h"
#include "harness.h"

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

static void fill_seq(uint8_t *p, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)((i * 131u + seed) ^ (i >> 9));
}

static void round_trip(size_t size, cl_bool blocking)
{
    cl_int err;
    uint8_t *src = malloc(size), *dst = malloc(size);
    ck_assert_ptr_nonnull(src);
    ck_assert_ptr_nonnull(dst);
    fill_seq(src, size, (uint32_t)size);
    memset(dst, 0, size);
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, size, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_event we = NULL, re = NULL;
    ck_assert_int_eq(clEnqueueWriteBuffer(queue, b, blocking, 0, size, src, 0, NULL, &we), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(queue, b, blocking, 0, size, dst, 1, &we, &re), CL_SUCCESS);
    ck_assert_int_eq(clWaitForEvents(1, &re), CL_SUCCESS);
    cl_int status = 1;
    ck_assert_int_eq(clGetEventInfo(re, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL),
                     CL_SUCCESS);
    ck_assert_int_eq(status, CL_COMPLETE);
    cl_command_type type = 0;
    ck_assert_int_eq(clGetEventInfo(re, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL), CL_SUCCESS);
    ck_assert_uint_eq(type, CL_COMMAND_READ_BUFFER);
    ck_assert_int_eq(memcmp(src, dst, size), 0);
    clReleaseEvent(we);
    clReleaseEvent(re);
    clReleaseMemObject(b);
    free(src);
    free(dst);
}

START_TEST(test_round_trip_blocking)
{
    static const size_t sizes[] = {1, 4096, 1u << 20, 3u << 20, (16u << 20) + 12345};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        round_trip(sizes[i], CL_TRUE);
}
END_TEST

START_TEST(test_round_trip_non_blocking)
{
    static const size_t sizes[] = {7, 65536, 5u << 20, (40u << 20) + 3};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        round_trip(sizes[i], CL_FALSE);
}
END_TEST

START_TEST(test_large_transfer_64mib)
{
    size_t size = 64u << 20;
    round_trip(size, CL_TRUE);
    /* Many non-blocking writes in a row: staging is recycled as the device finishes. */
    cl_int err;
    uint8_t *src = malloc(size), *dst = calloc(1, size);
    fill_seq(src, size, 99);
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, size, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    for (int k = 0; k < 3; k++)
        ck_assert_int_eq(clEnqueueWriteBuffer(queue, b, CL_FALSE, 0, size, src, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clFinish(queue), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(queue, b, CL_TRUE, 0, size, dst, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(memcmp(src, dst, size), 0);
    clReleaseMemObject(b);
    free(src);
    free(dst);
}
END_TEST

START_TEST(test_non_blocking_read_finish)
{
    cl_int err;
    uint32_t src[1024], dst[1024];
    for (int i = 0; i < 1024; i++)
        src[i] = 0xabc00000u + (uint32_t)i;
    memset(dst, 0, sizeof(dst));
    cl_mem b = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, sizeof(src), src, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(queue, b, CL_FALSE, 0, sizeof(dst), dst, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clFinish(queue), CL_SUCCESS);
    ck_assert_int_eq(memcmp(src, dst, sizeof(src)), 0);
    clReleaseMemObject(b);
}
END_TEST

START_TEST(test_sub_buffers)
{
    cl_int err;
    cl_uint align = 0;
    ck_assert_int_eq(clGetDeviceInfo(aos_test_device(), CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof(align), &align, NULL),
                     CL_SUCCESS);
    size_t origin = align / 8 ? align / 8 : 128;
    size_t size = origin * 4;
    uint8_t *data = malloc(size), *view = malloc(origin);
    fill_seq(data, size, 5);
    cl_mem parent = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, size, data, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_buffer_region region = {origin, origin};
    cl_mem sub = clCreateSubBuffer(parent, CL_MEM_READ_ONLY, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(queue, sub, CL_TRUE, 0, origin, view, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(memcmp(view, data + origin, origin), 0);

    cl_mem assoc = NULL;
    size_t off = 0, sz = 0;
    cl_mem_flags flags = 0;
    ck_assert_int_eq(clGetMemObjectInfo(sub, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof(assoc), &assoc, NULL), CL_SUCCESS);
    ck_assert_ptr_eq(assoc, parent);
    ck_assert_int_eq(clGetMemObjectInfo(sub, CL_MEM_OFFSET, sizeof(off), &off, NULL), CL_SUCCESS);
    ck_assert_uint_eq(off, origin);
    ck_assert_int_eq(clGetMemObjectInfo(sub, CL_MEM_SIZE, sizeof(sz), &sz, NULL), CL_SUCCESS);
    ck_assert_uint_eq(sz, origin);
    ck_assert_int_eq(clGetMemObjectInfo(sub, CL_MEM_FLAGS, sizeof(flags), &flags, NULL), CL_SUCCESS);
    ck_assert(flags & CL_MEM_READ_ONLY);
    ck_assert(flags & CL_MEM_COPY_HOST_PTR); /* inherited */

    /* A write through a second view shows in the parent. */
    cl_buffer_region r2 = {2 * origin, origin};
    cl_mem sub2 = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &r2, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    memset(view, 0x5a, origin);
    ck_assert_int_eq(clEnqueueWriteBuffer(queue, sub2, CL_TRUE, 0, origin, view, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(queue, parent, CL_TRUE, 0, size, data, 0, NULL, NULL), CL_SUCCESS);
    for (size_t i = 0; i < origin; i++)
        ck_assert_uint_eq(data[2 * origin + i], 0x5a);

    /* Errors. */
    cl_buffer_region bad = {size - 1, 2};
    ck_assert_ptr_null(clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &bad, &err));
    ck_assert_int_eq(err, CL_INVALID_VALUE);
    cl_buffer_region zero = {0, 0};
    ck_assert_ptr_null(clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &zero, &err));
    ck_assert_int_eq(err, CL_INVALID_BUFFER_SIZE);
    cl_buffer_region mis = {1, 16};
    ck_assert_ptr_null(clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &mis, &err));
    ck_assert_int_eq(err, CL_MISALIGNED_SUB_BUFFER_OFFSET);
    ck_assert_ptr_null(clCreateSubBuffer(sub, 0, CL_BUFFER_CREATE_TYPE_REGION, &zero, &err));
    ck_assert_int_eq(err, CL_INVALID_MEM_OBJECT);
    ck_assert_ptr_null(clCreateSubBuffer(sub2, CL_MEM_USE_HOST_PTR, CL_BUFFER_CREATE_TYPE_REGION, &region, &err));
    ck_assert_int_eq(err, CL_INVALID_MEM_OBJECT);
    ck_assert_ptr_null(clCreateSubBuffer(parent, CL_MEM_USE_HOST_PTR, CL_BUFFER_CREATE_TYPE_REGION, &region, &err));
    ck_assert_int_eq(err, CL_INVALID_VALUE);

    /* Releasing the parent first is allowed: the views keep working. */
    ck_assert_int_eq(clReleaseMemObject(parent), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(queue, sub2, CL_TRUE, 0, origin, view, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_uint_eq(view[0], 0x5a);
    clReleaseMemObject(sub);
    clReleaseMemObject(sub2);
    free(data);
    free(view);
}
END_TEST

START_TEST(test_copy_and_fill)
{
    cl_int err;
    enum { N = 1 << 16 };
    uint32_t *a = malloc(N * 4), *b = malloc(N * 4);
    cl_mem x = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * 4, NULL, &err);
    cl_mem y = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * 4, NULL, &err);
    uint32_t pattern = 0xdeadbeef;
    ck_assert_int_eq(clEnqueueFillBuffer(queue, x, &pattern, 4, 0, N * 4, 0, NULL, NULL), CL_SUCCESS);
    uint16_t p2 = 0x1234;
    ck_assert_int_eq(clEnqueueFillBuffer(queue, x, &p2, 2, 64, 32, 0, NULL, NULL), CL_SUCCESS);
    cl_event ce = NULL;
    ck_assert_int_eq(clEnqueueCopyBuffer(queue, x, y, 0, 0, N * 4, 0, NULL, &ce), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(queue, y, CL_TRUE, 0, N * 4, a, 1, &ce, NULL), CL_SUCCESS);
    for (int i = 0; i < N; i++) {
        uint32_t want = (i >= 16 && i < 24) ? 0x12341234u : 0xdeadbeefu;
        ck_assert_uint_eq(a[i], want);
    }
    /* Copy within one buffer without overlap, and the overlap error. */
    ck_assert_int_eq(clEnqueueCopyBuffer(queue, y, y, 0, 1024, 512, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueCopyBuffer(queue, y, y, 0, 8, 512, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
    ck_assert_int_eq(clEnqueueFillBuffer(queue, x, &pattern, 3, 0, 12, 0, NULL, NULL), CL_INVALID_VALUE);
    ck_assert_int_eq(clEnqueueFillBuffer(queue, x, &pattern, 4, 2, 12, 0, NULL, NULL), CL_INVALID_VALUE);
    ck_assert_int_eq(clEnqueueCopyBuffer(queue, x, y, N * 4 - 4, 0, 8, 0, NULL, NULL), CL_INVALID_VALUE);
    ck_assert_int_eq(clFinish(queue), CL_SUCCESS);
    clReleaseEvent(ce);
    clReleaseMemObject(x);
    clReleaseMemObject(y);
    free(a);
    free(b);
}
END_TEST

START_TEST(test_rect)
{
    cl_int err;
    /* Buffer holds a 16x8x2 box of bytes (pitches 16 and 128). */
    enum { W = 16, H = 8, D = 2 };
    uint8_t dev[W * H * D];
    memset(dev, 0, sizeof(dev));
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(dev), dev, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    /* Host box with pitches 40 and 400; write a 5x3x2 region from host (2,1,0) to buffer (3,4,0). */
    uint8_t host[400 * 2];
    for (size_t i = 0; i < sizeof(host); i++)
        host[i] = (uint8_t)(i * 7 + 1);
    size_t bo[3] = {3, 4, 0}, ho[3] = {2, 1, 0}, region[3] = {5, 3, 2};
    ck_assert_int_eq(clEnqueueWriteBufferRect(queue, b, CL_TRUE, bo, ho, region, W, W * H, 40, 400, host, 0, NULL,
                                              NULL),
                     CL_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(queue, b, CL_TRUE, 0, sizeof(dev), dev, 0, NULL, NULL), CL_SUCCESS);
    for (size_t z = 0; z < D; z++)
        for (size_t y = 0; y < H; y++)
            for (size_t x = 0; x < W; x++) {
                bool in = x >= 3 && x < 8 && y >= 4 && y < 7;
                uint8_t want = in ? host[(x - 3 + 2) + (y - 4 + 1) * 40 + z * 400] : 0;
                ck_assert_uint_eq(dev[x + y * W + z * W * H], want);
            }
    /* Read it back with different host pitches, non-blocking. */
    uint8_t out[12 * 4 * 2];
    memset(out, 0xee, sizeof(out));
    size_t ro[3] = {0, 0, 0};
    ck_assert_int_eq(clEnqueueReadBufferRect(queue, b, CL_FALSE, bo, ro, region, W, W * H, 12, 48, out, 0, NULL, NULL),
                     CL_SUCCESS);
    ck_assert_int_eq(clFinish(queue), CL_SUCCESS);
    for (size_t z = 0; z < 2; z++)
        for (size_t y = 0; y < 4; y++)
            for (size_t x = 0; x < 12; x++) {
                uint8_t want = (x < 5 && y < 3) ? host[(x + 2) + (y + 1) * 40 + z * 400] : 0xee;
                ck_assert_uint_eq(out[x + y * 12 + z * 48], want);
            }
    /* Copy rect into a second buffer. */
    cl_mem c = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 5 * 3 * 2, NULL, &err);
    size_t zo[3] = {0, 0, 0};
    ck_assert_int_eq(clEnqueueCopyBufferRect(queue, b, c, bo, zo, region, W, W * H, 5, 15, 0, NULL, NULL), CL_SUCCESS);
    uint8_t packed[30];
    ck_assert_int_eq(clEnqueueReadBuffer(queue, c, CL_TRUE, 0, 30, packed, 0, NULL, NULL), CL_SUCCESS);
    for (size_t z = 0; z < 2; z++)
        for (size_t y = 0; y < 3; y++)
            for (size_t x = 0; x < 5; x++)
                ck_assert_uint_eq(packed[x + y * 5 + z * 15], host[(x + 2) + (y + 1) * 40 + z * 400]);
    /* Out of range and bad pitches. */
    size_t far[3] = {0, 0, 1}; /* the second slice ends past the 256-byte buffer */
    ck_assert_int_eq(clEnqueueWriteBufferRect(queue, b, CL_TRUE, far, ho, region, W, W * H, 40, 400, host, 0, NULL,
                                              NULL),
                     CL_INVALID_VALUE);
    ck_assert_int_eq(clEnqueueWriteBufferRect(queue, b, CL_TRUE, bo, ho, region, 4, W * H, 40, 400, host, 0, NULL,
                                              NULL),
                     CL_INVALID_VALUE);
    clReleaseMemObject(b);
    clReleaseMemObject(c);
}
END_TEST

START_TEST(test_map_use_host_ptr)
{
    cl_int err;
    enum { N = 4096 };
    uint8_t *host = aligned_alloc(4096, N);
    fill_seq(host, N, 11);
    uint8_t expect[N];
    memcpy(expect, host, N);
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, N, host, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    void *hp = NULL;
    ck_assert_int_eq(clGetMemObjectInfo(b, CL_MEM_HOST_PTR, sizeof(hp), &hp, NULL), CL_SUCCESS);
    ck_assert_ptr_eq(hp, host);
    /* The device has the initial contents. */
    uint8_t back[N];
    ck_assert_int_eq(clEnqueueReadBuffer(queue, b, CL_TRUE, 0, N, back, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(memcmp(back, expect, N), 0);
    /* Device writes show in host_ptr once mapped. */
    uint8_t ones[256];
    memset(ones, 1, sizeof(ones));
    ck_assert_int_eq(clEnqueueWriteBuffer(queue, b, CL_TRUE, 512, 256, ones, 0, NULL, NULL), CL_SUCCESS);
    uint8_t *p = clEnqueueMapBuffer(queue, b, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 256, 1024, 0, NULL, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_ptr_eq(p, host + 256);
    ck_assert_uint_eq(p[256], 1);
    ck_assert_uint_eq(p[0], expect[256]);
    cl_uint count = 0;
    ck_assert_int_eq(clGetMemObjectInfo(b, CL_MEM_MAP_COUNT, sizeof(count), &count, NULL), CL_SUCCESS);
    ck_assert_uint_eq(count, 1);
    memset(p, 0x77, 16);
    ck_assert_int_eq(clEnqueueUnmapMemObject(queue, b, p, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clGetMemObjectInfo(b, CL_MEM_MAP_COUNT, sizeof(count), &count, NULL), CL_SUCCESS);
    ck_assert_uint_eq(count, 0);
    ck_assert_int_eq(clEnqueueReadBuffer(queue, b, CL_TRUE, 256, 16, back, 0, NULL, NULL), CL_SUCCESS);
    for (int i = 0; i < 16; i++)
        ck_assert_uint_eq(back[i], 0x77);
    /* Unmapping twice, or a pointer never mapped, is CL_INVALID_VALUE. */
    ck_assert_int_eq(clEnqueueUnmapMemObject(queue, b, p, 0, NULL, NULL), CL_INVALID_VALUE);
    /* A sub-buffer of a USE_HOST_PTR buffer maps at host_ptr + origin + offset. */
    cl_buffer_region r = {1024, 1024};
    cl_mem sub = clCreateSubBuffer(b, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    uint8_t *sp = clEnqueueMapBuffer(queue, sub, CL_TRUE, CL_MAP_READ, 8, 8, 0, NULL, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_ptr_eq(sp, host + 1024 + 8);
    ck_assert_int_eq(clEnqueueUnmapMemObject(queue, sub, sp, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clFinish(queue), CL_SUCCESS);
    clReleaseMemObject(sub);
    clReleaseMemObject(b);
    free(host);
}
END_TEST

START_TEST(test_map_copy_and_alloc_host_ptr)
{
    cl_int err;
    enum { N = 1 << 20 };
    uint32_t *init = malloc(N * 4);
    for (int i = 0; i < N; i++)
        init[i] = (uint32_t)i * 3u;
    cl_mem_flags kinds[2] = {CL_MEM_COPY_HOST_PTR, CL_MEM_ALLOC_HOST_PTR};
    for (int k = 0; k < 2; k++) {
        cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE | kinds[k], N * 4, k == 0 ? init : NULL, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        if (k == 1)
            ck_assert_int_eq(clEnqueueWriteBuffer(queue, b, CL_TRUE, 0, N * 4, init, 0, NULL, NULL), CL_SUCCESS);
        /* Non-blocking map: data is there once the event completes. */
        cl_event me = NULL;
        uint32_t *p = clEnqueueMapBuffer(queue, b, CL_FALSE, CL_MAP_READ | CL_MAP_WRITE, 4096, N * 4 - 4096, 0, NULL,
                                         &me, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        ck_assert_ptr_nonnull(p);
        ck_assert_int_eq(clWaitForEvents(1, &me), CL_SUCCESS);
        cl_command_type type = 0;
        clGetEventInfo(me, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL);
        ck_assert_uint_eq(type, CL_COMMAND_MAP_BUFFER);
        clReleaseEvent(me);
        for (int i = 0; i < N - 1024; i++)
            ck_assert_uint_eq(p[i], init[i + 1024]);
        for (int i = 0; i < 100; i++)
            p[i] = 0xc0ffee00u + (uint32_t)i;
        ck_assert_int_eq(clEnqueueUnmapMemObject(queue, b, p, 0, NULL, NULL), CL_SUCCESS);
        /* Write-invalidate maps do not read, and write back on unmap. */
        uint32_t *q = clEnqueueMapBuffer(queue, b, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0, 16, 0, NULL, NULL, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        q[0] = 42, q[1] = 43, q[2] = 44, q[3] = 45;
        ck_assert_int_eq(clEnqueueUnmapMemObject(queue, b, q, 0, NULL, NULL), CL_SUCCESS);
        uint32_t back[1124];
        ck_assert_int_eq(clEnqueueReadBuffer(queue, b, CL_TRUE, 0, sizeof(back), back, 0, NULL, NULL), CL_SUCCESS);
        ck_assert_uint_eq(back[0], 42);
        ck_assert_uint_eq(back[3], 45);
        ck_assert_uint_eq(back[4], init[4]);
        ck_assert_uint_eq(back[1024], 0xc0ffee00u);
        ck_assert_uint_eq(back[1123], 0xc0ffee00u + 99);
        clReleaseMemObject(b);
    }
    free(init);
}
END_TEST

START_TEST(test_map_errors)
{
    cl_int err;
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_HOST_READ_ONLY, 64, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_ptr_null(clEnqueueMapBuffer(queue, b, CL_TRUE, CL_MAP_WRITE, 0, 64, 0, NULL, NULL, &err));
    ck_assert_int_eq(err, CL_INVALID_OPERATION);
    ck_assert_ptr_null(clEnqueueMapBuffer(queue, b, CL_TRUE, CL_MAP_READ, 32, 64, 0, NULL, NULL, &err));
    ck_assert_int_eq(err, CL_INVALID_VALUE);
    ck_assert_ptr_null(clEnqueueMapBuffer(queue, b, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION, 0, 64, 0,
                                          NULL, NULL, &err));
    ck_assert_int_eq(err, CL_INVALID_VALUE);
    ck_assert_int_eq(clEnqueueWriteBuffer(queue, b, CL_TRUE, 0, 4, &err, 0, NULL, NULL), CL_INVALID_OPERATION);
    cl_uint count = 7;
    ck_assert_int_eq(clGetMemObjectInfo(b, CL_MEM_MAP_COUNT, sizeof(count), &count, NULL), CL_SUCCESS);
    ck_assert_uint_eq(count, 0);
    clReleaseMemObject(b);
}
END_TEST

START_TEST(test_create_errors)
{
    cl_int err;
    int x = 0;
    ck_assert_ptr_null(clCreateBuffer(ctx, CL_MEM_READ_WRITE, 0, NULL, &err));
    ck_assert_int_eq(err, CL_INVALID_BUFFER_SIZE);
    ck_assert_ptr_null(clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, 4, NULL, &err));
    ck_assert_int_eq(err, CL_INVALID_HOST_PTR);
    ck_assert_ptr_null(clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4, &x, &err));
    ck_assert_int_eq(err, CL_INVALID_HOST_PTR);
    ck_assert_ptr_null(clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 4, NULL, &err));
    ck_assert_int_eq(err, CL_INVALID_VALUE);
    ck_assert_ptr_null(clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR, 4, &x, &err));
    ck_assert_int_eq(err, CL_INVALID_VALUE);
    ck_assert_ptr_null(clCreateBuffer(ctx, (cl_mem_flags)1 << 40, 4, NULL, &err));
    ck_assert_int_eq(err, CL_INVALID_VALUE);
    ck_assert_ptr_null(clCreateBuffer((cl_context)queue, CL_MEM_READ_WRITE, 4, NULL, &err));
    ck_assert_int_eq(err, CL_INVALID_CONTEXT);
    cl_ulong max_alloc = 0;
    clGetDeviceInfo(aos_test_device(), CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(max_alloc), &max_alloc, NULL);
    ck_assert_ptr_null(clCreateBuffer(ctx, CL_MEM_READ_WRITE, (size_t)max_alloc + 1, NULL, &err));
    ck_assert_int_eq(err, CL_INVALID_BUFFER_SIZE);

    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    char buf[128];
    ck_assert_int_eq(clEnqueueReadBuffer(queue, b, CL_TRUE, 60, 8, buf, 0, NULL, NULL), CL_INVALID_VALUE);
    ck_assert_int_eq(clEnqueueReadBuffer(queue, b, CL_TRUE, 0, 0, buf, 0, NULL, NULL), CL_INVALID_VALUE);
    ck_assert_int_eq(clEnqueueReadBuffer(queue, b, CL_TRUE, 0, 8, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
    ck_assert_int_eq(clEnqueueReadBuffer(queue, (cl_mem)ctx, CL_TRUE, 0, 8, buf, 0, NULL, NULL),
                     CL_INVALID_MEM_OBJECT);
    ck_assert_int_eq(clEnqueueReadBuffer((cl_command_queue)b, b, CL_TRUE, 0, 8, buf, 0, NULL, NULL),
                     CL_INVALID_COMMAND_QUEUE);
    ck_assert_int_eq(clEnqueueWriteBuffer(queue, b, CL_TRUE, 0, 8, buf, 1, NULL, NULL), CL_INVALID_EVENT_WAIT_LIST);
    ck_assert_int_eq(clGetMemObjectInfo(b, 0xdead, sizeof(buf), buf, NULL), CL_INVALID_VALUE);
    cl_uint refs = 0;
    ck_assert_int_eq(clRetainMemObject(b), CL_SUCCESS);
    ck_assert_int_eq(clGetMemObjectInfo(b, CL_MEM_REFERENCE_COUNT, sizeof(refs), &refs, NULL), CL_SUCCESS);
    ck_assert_uint_eq(refs, 2);
    ck_assert_int_eq(clReleaseMemObject(b), CL_SUCCESS);
    ck_assert_int_eq(clReleaseMemObject(b), CL_SUCCESS);
    ck_assert_int_eq(clReleaseMemObject(b), CL_INVALID_MEM_OBJECT);
}
END_TEST

static int destructor_calls;
static cl_mem destructor_seen[4];

static void CL_CALLBACK on_destroy(cl_mem m, void *data)
{
    destructor_seen[destructor_calls++] = m;
    *(int *)data += 1;
}

/* Calls the daemon answers with an error give their reply slot back: more failures than there are
 * slots, then calls that succeed. */
START_TEST(test_failed_calls_do_not_use_up_reply_slots)
{
    cl_ulong max_alloc = 0;
    ck_assert_int_eq(clGetDeviceInfo(aos_test_device(), CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(max_alloc), &max_alloc,
                                     NULL),
                     CL_SUCCESS);
    cl_int err;
    cl_mem parent = aos_test_buffer(ctx, 8192, NULL);
    cl_buffer_region misaligned = {.origin = 1, .size = 16};
    for (int i = 0; i < 100; i++) { /* the daemon answers both with an error: there are 64 slots */
        cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (size_t)max_alloc + 4096, NULL, &err);
        ck_assert_ptr_null(b);
        ck_assert_int_eq(err, CL_INVALID_BUFFER_SIZE);
        b = clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &misaligned, &err);
        ck_assert_ptr_null(b);
        ck_assert_int_eq(err, CL_MISALIGNED_SUB_BUFFER_OFFSET);
    }
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    clReleaseMemObject(b);
    clReleaseMemObject(parent);
}
END_TEST

/* A blocking command behind an event that already failed returns the spec's error at once (PoCL on
 * its own would never run it and the call would not return), through staging and directly, and
 * the queue goes on working. */
START_TEST(test_blocking_behind_failed_event)
{
    cl_int err;
    cl_event failed = clCreateUserEvent(ctx, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_int_eq(clSetUserEventStatus(failed, -5), CL_SUCCESS);
    size_t sizes[2] = {4096, 4u << 20};
    for (int k = 0; k < 2; k++) {
        uint8_t *host = calloc(1, sizes[k]);
        cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizes[k], NULL, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        cl_event ev = NULL;
        ck_assert_int_eq(clEnqueueReadBuffer(queue, b, CL_TRUE, 0, sizes[k], host, 1, &failed, &ev),
                         CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        ck_assert_ptr_null(ev);
        ck_assert_int_eq(clEnqueueWriteBuffer(queue, b, CL_TRUE, 0, sizes[k], host, 1, &failed, NULL),
                         CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        void *p = clEnqueueMapBuffer(queue, b, CL_TRUE, CL_MAP_READ, 0, sizes[k], 1, &failed, NULL, &err);
        ck_assert_ptr_null(p);
        ck_assert_int_eq(err, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        memset(host, 0x3c, sizes[k]);
        ck_assert_int_eq(clEnqueueWriteBuffer(queue, b, CL_TRUE, 0, sizes[k], host, 0, NULL, NULL), CL_SUCCESS);
        memset(host, 0, sizes[k]);
        ck_assert_int_eq(clEnqueueReadBuffer(queue, b, CL_TRUE, 0, sizes[k], host, 0, NULL, NULL), CL_SUCCESS);
        ck_assert_uint_eq(host[0], 0x3c);
        ck_assert_uint_eq(host[sizes[k] - 1], 0x3c);
        ck_assert_int_eq(clFinish(queue), CL_SUCCESS);
        clReleaseMemObject(b);
        free(host);
    }
    clReleaseEvent(failed);
}
END_TEST

/* A non-blocking read whose wait list is too long for one request fails, and leaves nothing behind
 * that a later clFinish would wait for, through staging and directly. */
START_TEST(test_wait_list_too_long_for_a_request)
{
    enum { N = 65530 }; /* fewer than the wait-list limit, more ids than one ring message holds */
    cl_int err;
    cl_event *events = malloc(N * sizeof(*events));
    for (int i = 0; i < N; i++) {
        events[i] = clCreateUserEvent(ctx, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        ck_assert_int_eq(clSetUserEventStatus(events[i], CL_COMPLETE), CL_SUCCESS);
    }
    size_t sizes[2] = {4096, 1u << 20};
    for (int k = 0; k < 2; k++) {
        uint8_t *host = malloc(sizes[k]);
        cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizes[k], NULL, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        ck_assert_int_eq(clEnqueueReadBuffer(queue, b, CL_FALSE, 0, sizes[k], host, N, events, NULL),
                         CL_OUT_OF_RESOURCES);
        ck_assert_int_eq(clFinish(queue), CL_SUCCESS); /* it waited forever for the unsent step */
        ck_assert_int_eq(clEnqueueReadBuffer(queue, b, CL_FALSE, 0, sizes[k], host, 4, events, NULL), CL_SUCCESS);
        ck_assert_int_eq(clFinish(queue), CL_SUCCESS);
        clReleaseMemObject(b);
        free(host);
    }
    for (int i = 0; i < N; i++)
        clReleaseEvent(events[i]);
    free(events);
}
END_TEST

START_TEST(test_destructor_callbacks)
{
    cl_int err;
    int hits = 0;
    destructor_calls = 0;
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
    cl_buffer_region r = {0, 1024};
    cl_mem sub = clCreateSubBuffer(b, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_int_eq(clSetMemObjectDestructorCallback(b, on_destroy, &hits), CL_SUCCESS);
    ck_assert_int_eq(clSetMemObjectDestructorCallback(b, on_destroy, &hits), CL_SUCCESS);
    ck_assert_int_eq(clSetMemObjectDestructorCallback(b, NULL, &hits), CL_INVALID_VALUE);
    ck_assert_int_eq(clReleaseMemObject(b), CL_SUCCESS);
    ck_assert_int_eq(hits, 0); /* the sub-buffer still holds it */
    ck_assert_int_eq(clReleaseMemObject(sub), CL_SUCCESS);
    ck_assert_int_eq(hits, 2);
    ck_assert_ptr_eq(destructor_seen[0], b);
}
END_TEST

/* Sum of "bytes N" over the daemon's status report's client lines. */
static long long daemon_bytes(int *clients)
{
    char text[8192];
    aos_test_status_text(text, sizeof(text));
    long long total = 0;
    *clients = 0;
    for (char *p = text; (p = strstr(p, "client ")); p++) {
        char *b = strstr(p, " bytes ");
        if (b)
            total += atoll(b + 7);
        (*clients)++;
    }
    return total;
}

START_TEST(test_killed_client_frees_memory)
{
    long long shared_before = aos_test_status_shared_in_use();
    int pipefd[2];
    ck_assert_int_eq(pipe(pipefd), 0);
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive a failed test */
        cl_context c;
        cl_command_queue q;
        aos_test_context(&c, &q);
        cl_int err;
        cl_mem b = clCreateBuffer(c, CL_MEM_READ_WRITE, 48u << 20, NULL, &err);
        uint32_t v = 1;
        clEnqueueFillBuffer(q, b, &v, 4, 0, 48u << 20, 0, NULL, NULL);
        clFinish(q);
        char ok = err == CL_SUCCESS ? 'y' : 'n';
        if (write(pipefd[1], &ok, 1) != 1)
            _exit(2);
        pause();
        _exit(0);
    }
    char ok = 0;
    ck_assert_int_eq(read(pipefd[0], &ok, 1), 1);
    ck_assert_int_eq(ok, 'y');
    int clients = 0;
    ck_assert_int_ge(daemon_bytes(&clients), 48ll << 20);
    /* On the CPU device the buffer's storage is shared memory in the client's arena. */
    ck_assert_int_eq(aos_test_status_shared_in_use() - shared_before, 48ll << 20);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    long long bytes = -1;
    for (int i = 0; i < 200; i++) {
        bytes = daemon_bytes(&clients);
        if (bytes < (48ll << 20))
            break;
        usleep(20000);
    }
    ck_assert_int_lt(bytes, 48ll << 20);
    long long shared = -1;
    for (int i = 0; i < 200 && (shared = aos_test_status_shared_in_use()) != shared_before; i++)
        usleep(20000);
    ck_assert_int_eq(shared, shared_before);
    close(pipefd[0]);
    close(pipefd[1]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mem");
    TCase *tc = tcase_create("buffers");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_round_trip_blocking);
    tcase_add_test(tc, test_round_trip_non_blocking);
    tcase_add_test(tc, test_large_transfer_64mib);
    tcase_add_test(tc, test_non_blocking_read_finish);
    tcase_add_test(tc, test_sub_buffers);
    tcase_add_test(tc, test_copy_and_fill);
    tcase_add_test(tc, test_rect);
    tcase_add_test(tc, test_map_use_host_ptr);
    tcase_add_test(tc, test_map_copy_and_alloc_host_ptr);
    tcase_add_test(tc, test_map_errors);
    tcase_add_test(tc, test_create_errors);
    tcase_add_test(tc, test_failed_calls_do_not_use_up_reply_slots);
    tcase_add_test(tc, test_blocking_behind_failed_event);
    tcase_add_test(tc, test_wait_list_too_long_for_a_request);
    tcase_add_test(tc, test_destructor_callbacks);
    tcase_add_test(tc, test_killed_client_frees_memory);
    suite_add_tcase(s, tc);
    return aos_test_run_suite(s);
}
