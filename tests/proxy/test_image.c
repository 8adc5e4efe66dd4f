/* Images and samplers through the proxy: round trips with pitches, maps, copies, fills, formats,
 * info and error codes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

static const cl_image_format rgba8 = {CL_RGBA, CL_UNSIGNED_INT8};

START_TEST(test_image2d_round_trip_with_pitches)
{
    enum { W = 37, H = 19, HP = 4 * W + 12 };
    uint8_t *host = malloc(HP * H), *out = malloc(HP * H);
    for (size_t i = 0; i < HP * H; i++)
        host[i] = (uint8_t)(i * 13 + 7);
    cl_image_desc d = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = W, .image_height = H,
                       .image_row_pitch = HP};
    cl_int err;
    cl_mem im = clCreateImage(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, &rgba8, &d, host, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    size_t origin[3] = {0, 0, 0}, region[3] = {W, H, 1};
    memset(out, 0, HP * H);
    ck_assert_int_eq(clEnqueueReadImage(queue, im, CL_TRUE, origin, region, HP, 0, out, 0, NULL, NULL), CL_SUCCESS);
    for (size_t y = 0; y < H; y++)
        ck_assert_int_eq(memcmp(out + y * HP, host + y * HP, 4 * W), 0);
    /* Write a sub-rectangle, read it back tightly packed, non-blocking. */
    uint8_t patch[4 * 5 * 3];
    for (size_t i = 0; i < sizeof(patch); i++)
        patch[i] = (uint8_t)(200 + i);
    size_t po[3] = {3, 4, 0}, pr[3] = {5, 3, 1};
    ck_assert_int_eq(clEnqueueWriteImage(queue, im, CL_TRUE, po, pr, 0, 0, patch, 0, NULL, NULL), CL_SUCCESS);
    uint8_t back[sizeof(patch)];
    ck_assert_int_eq(clEnqueueReadImage(queue, im, CL_FALSE, po, pr, 0, 0, back, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clFinish(queue), CL_SUCCESS);
    ck_assert_int_eq(memcmp(back, patch, sizeof(patch)), 0);
    /* Info answered locally. */
    size_t v = 0;
    ck_assert_int_eq(clGetImageInfo(im, CL_IMAGE_ELEMENT_SIZE, sizeof(v), &v, NULL), CL_SUCCESS);
    ck_assert_uint_eq(v, 4);
    ck_assert_int_eq(clGetImageInfo(im, CL_IMAGE_WIDTH, sizeof(v), &v, NULL), CL_SUCCESS);
    ck_assert_uint_eq(v, W);
    ck_assert_int_eq(clGetImageInfo(im, CL_IMAGE_HEIGHT, sizeof(v), &v, NULL), CL_SUCCESS);
    ck_assert_uint_eq(v, H);
    cl_image_format f;
    ck_assert_int_eq(clGetImageInfo(im, CL_IMAGE_FORMAT, sizeof(f), &f, NULL), CL_SUCCESS);
    ck_assert_uint_eq(f.image_channel_order, CL_RGBA);
    cl_mem_object_type t = 0;
    ck_assert_int_eq(clGetMemObjectInfo(im, CL_MEM_TYPE, sizeof(t), &t, NULL), CL_SUCCESS);
    ck_assert_uint_eq(t, CL_MEM_OBJECT_IMAGE2D);
    /* Errors. */
    size_t big[3] = {W + 1, 1, 1};
    ck_assert_int_eq(clEnqueueReadImage(queue, im, CL_TRUE, origin, big, 0, 0, out, 0, NULL, NULL), CL_INVALID_VALUE);
    ck_assert_int_eq(clEnqueueReadImage(queue, im, CL_TRUE, origin, region, 7, 0, out, 0, NULL, NULL), CL_INVALID_VALUE);
    clReleaseMemObject(im);
    free(host);
    free(out);
}
END_TEST

START_TEST(test_image3d_and_arrays)
{
    cl_int err;
    cl_image_format f = {CL_R, CL_FLOAT};
    enum { W = 8, H = 5, D = 4 };
    float src[W * H * D], dst[W * H * D];
    for (int i = 0; i < W * H * D; i++)
        src[i] = (float)i * 0.5f;
    cl_image_desc types[3] = {
        {.image_type = CL_MEM_OBJECT_IMAGE3D, .image_width = W, .image_height = H, .image_depth = D},
        {.image_type = CL_MEM_OBJECT_IMAGE2D_ARRAY, .image_width = W, .image_height = H, .image_array_size = D},
        {.image_type = CL_MEM_OBJECT_IMAGE1D_ARRAY, .image_width = W, .image_array_size = H * D},
    };
    for (int k = 0; k < 3; k++) {
        cl_mem im = clCreateImage(ctx, CL_MEM_READ_WRITE, &f, &types[k], NULL, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        size_t o[3] = {0, 0, 0};
        size_t r[3] = {W, H, D};
        if (k == 2)
            r[1] = H * D, r[2] = 1;
        memset(dst, 0, sizeof(dst));
        ck_assert_int_eq(clEnqueueWriteImage(queue, im, CL_FALSE, o, r, 0, 0, src, 0, NULL, NULL), CL_SUCCESS);
        ck_assert_int_eq(clEnqueueReadImage(queue, im, CL_TRUE, o, r, 0, 0, dst, 0, NULL, NULL), CL_SUCCESS);
        ck_assert_int_eq(memcmp(src, dst, sizeof(src)), 0);
        clReleaseMemObject(im);
    }
}
END_TEST

START_TEST(test_image_map_copy_fill)
{
    cl_int err;
    enum { W = 16, H = 16 };
    uint32_t host[W * H];
    for (int i = 0; i < W * H; i++)
        host[i] = 0x01010101u * (uint32_t)(i & 0x7f);
    cl_image_desc d = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = W, .image_height = H};
    cl_mem a = clCreateImage(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, &rgba8, &d, host, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    size_t o[3] = {2, 3, 0}, r[3] = {4, 4, 1}, rp = 0;
    uint32_t *p = clEnqueueMapImage(queue, a, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, o, r, &rp, NULL, 0, NULL, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_ptr_eq(p, host + 3 * W + 2); /* USE_HOST_PTR maps into the application's memory */
    ck_assert_uint_eq(rp, W * 4);
    p[0] = 0xaabbccddu;
    ck_assert_int_eq(clEnqueueUnmapMemObject(queue, a, p, 0, NULL, NULL), CL_SUCCESS);

    cl_mem b = clCreateImage(ctx, CL_MEM_READ_WRITE, &rgba8, &d, NULL, &err);
    size_t z[3] = {0, 0, 0}, all[3] = {W, H, 1};
    ck_assert_int_eq(clEnqueueCopyImage(queue, a, b, z, z, all, 0, NULL, NULL), CL_SUCCESS);
    cl_uint color[4] = {1, 2, 3, 4};
    size_t fo[3] = {0, 0, 0}, fr[3] = {1, 1, 1};
    ck_assert_int_eq(clEnqueueFillImage(queue, b, color, fo, fr, 0, NULL, NULL), CL_SUCCESS);
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, W * H * 4, NULL, &err);
    ck_assert_int_eq(clEnqueueCopyImageToBuffer(queue, b, buf, z, all, 0, 0, NULL, NULL), CL_SUCCESS);
    uint32_t out[W * H];
    ck_assert_int_eq(clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_uint_eq(out[0], 0x04030201u);
    ck_assert_uint_eq(out[3 * W + 2], 0xaabbccddu);
    ck_assert_uint_eq(out[5], host[5]);

    /* Mapped image without a host pointer: packed pitch. */
    size_t rp2 = 0;
    uint32_t *q = clEnqueueMapImage(queue, b, CL_TRUE, CL_MAP_READ, z, all, &rp2, NULL, 0, NULL, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_uint_eq(rp2, W * 4);
    ck_assert_uint_eq(q[3 * W + 2], 0xaabbccddu);
    cl_uint count = 0;
    clGetMemObjectInfo(b, CL_MEM_MAP_COUNT, sizeof(count), &count, NULL);
    ck_assert_uint_eq(count, 1);
    ck_assert_int_eq(clEnqueueUnmapMemObject(queue, b, q, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clFinish(queue), CL_SUCCESS);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(buf);
}
END_TEST

START_TEST(test_formats_samplers_errors)
{
    cl_uint n = 0;
    ck_assert_int_eq(clGetSupportedImageFormats(ctx, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0, NULL, &n),
                     CL_SUCCESS);
    ck_assert_uint_gt(n, 0);
    cl_image_format *f = calloc(n, sizeof(*f));
    ck_assert_int_eq(clGetSupportedImageFormats(ctx, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, n, f, NULL),
                     CL_SUCCESS);
    int has_rgba8 = 0;
    for (cl_uint i = 0; i < n; i++)
        has_rgba8 |= f[i].image_channel_order == CL_RGBA && f[i].image_channel_data_type == CL_UNORM_INT8;
    ck_assert(has_rgba8);
    free(f);

    cl_int err;
    cl_sampler s = clCreateSampler(ctx, CL_TRUE, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_addressing_mode am = 0;
    ck_assert_int_eq(clGetSamplerInfo(s, CL_SAMPLER_ADDRESSING_MODE, sizeof(am), &am, NULL), CL_SUCCESS);
    ck_assert_uint_eq(am, CL_ADDRESS_REPEAT);
    cl_uint refs = 0;
    clRetainSampler(s);
    ck_assert_int_eq(clGetSamplerInfo(s, CL_SAMPLER_REFERENCE_COUNT, sizeof(refs), &refs, NULL), CL_SUCCESS);
    ck_assert_uint_eq(refs, 2);
    clReleaseSampler(s);
    ck_assert_int_eq(clReleaseSampler(s), CL_SUCCESS);
    ck_assert_ptr_null(clCreateSampler(ctx, CL_TRUE, 0x9999, CL_FILTER_LINEAR, &err));
    ck_assert_int_eq(err, CL_INVALID_VALUE);
    cl_sampler_properties props[] = {CL_SAMPLER_FILTER_MODE, CL_FILTER_NEAREST, 0};
    s = clCreateSamplerWithProperties(ctx, props, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    size_t sz = 0;
    ck_assert_int_eq(clGetSamplerInfo(s, CL_SAMPLER_PROPERTIES, 0, NULL, &sz), CL_SUCCESS);
    ck_assert_uint_eq(sz, sizeof(props));
    clReleaseSampler(s);

    cl_image_desc d = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 4, .image_height = 0};
    ck_assert_ptr_null(clCreateImage(ctx, CL_MEM_READ_WRITE, &rgba8, &d, NULL, &err));
    ck_assert_int_eq(err, CL_INVALID_IMAGE_DESCRIPTOR);
    cl_image_format bad = {0x1234, CL_UNORM_INT8};
    d.image_height = 4;
    ck_assert_ptr_null(clCreateImage(ctx, CL_MEM_READ_WRITE, &bad, &d, NULL, &err));
    ck_assert_int_eq(err, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("image");
    TCase *tc = tcase_create("images");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_image2d_round_trip_with_pitches);
    tcase_add_test(tc, test_image3d_and_arrays);
    tcase_add_test(tc, test_image_map_copy_fill);
    tcase_add_test(tc, test_formats_samplers_errors);
    suite_add_tcase(s, tc);
    return aos_test_run_suite(s);
}
