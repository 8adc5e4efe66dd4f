/* Unit tests of what the daemon checks in a client's requests before the runtime sees them:
 * transfer bounds (accelosd/mem_bounds.c) and NDRange shapes (accelosd/ndrange_shape.c). */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <check.h>
#include <stdint.h>

#include "check_run.h"
#include "mem_bounds.h"
#include "ndrange_shape.h"

#define BIG UINT64_MAX

START_TEST(test_range)
{
    static const struct {
        uint64_t offset, size, total;
        bool fits;
    } cases[] = {
        {0, 0, 0, true},          {0, 4096, 4096, true},       {4095, 1, 4096, true},
        {4096, 0, 4096, true},    {4096, 1, 4096, false},      {1, 4096, 4096, false},
        {0, 4097, 4096, false},   {BIG, 2, 4096, false},       {BIG - 1, 2, BIG, false},
        {2, BIG - 1, BIG, false}, {BIG - 2, 2, BIG, true},     {BIG, 0, 4096, false},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        ck_assert_msg(aos_bounds_range(cases[i].offset, cases[i].size, cases[i].total) == cases[i].fits,
                      "case %zu", i);
}
END_TEST

START_TEST(test_rect)
{
    static const struct {
        uint64_t origin[3], region[3], row, slice, total;
        bool fits;
    } cases[] = {
        /* Tight pitches: the last byte is (z+d-1)*slice + (y+h-1)*row + x+w. */
        {{0, 0, 0}, {64, 16, 1}, 0, 0, 1024, true},
        {{0, 0, 0}, {64, 16, 1}, 0, 0, 1023, false},
        {{13, 4, 0}, {64, 16, 1}, 256, 0, 65536, true},
        {{192, 19, 0}, {64, 1, 1}, 256, 0, 5120, true}, /* ends exactly at 19*256 + 256 */
        {{193, 19, 0}, {64, 1, 1}, 256, 0, 5120, false},
        {{0, 0, 3}, {16, 4, 2}, 32, 256, 4 * 256 + 3 * 32 + 16, true},
        {{0, 0, 3}, {16, 4, 2}, 32, 256, 4 * 256 + 3 * 32 + 15, false},
        /* Pitches OpenCL refuses. */
        {{0, 0, 0}, {64, 16, 1}, 63, 0, BIG, false},          /* row below the width */
        {{0, 0, 0}, {64, 16, 2}, 64, 64 * 15, BIG, false},    /* slice below rows * row */
        {{0, 0, 0}, {64, 16, 2}, 64, 64 * 16 + 1, BIG, false}, /* slice not a multiple of row */
        {{0, 0, 0}, {0, 16, 1}, 0, 0, BIG, false},            /* an empty region */
        {{0, 0, 0}, {64, 16, 0}, 0, 0, BIG, false},
        /* What wraps in size_t. */
        {{13, 4, 0}, {64, 16, 1}, BIG, 0, 65536, false},       /* the row pitch that crashed PoCL */
        {{0, 0, 4}, {64, 16, 1}, 1ull << 62, 0, BIG, false},   /* slice = 16 << 62 */
        {{0, 0, 0}, {64, 2, 1}, 1ull << 63, 0, BIG, false},    /* region[1] * row */
        {{BIG, 0, 0}, {1, 1, 1}, 0, 0, BIG, false},            /* x + w */
        {{0, BIG, 0}, {1, 2, 1}, 0, 0, BIG, false},            /* y + h - 1 */
        {{0, 0, 1ull << 40}, {1, 1, 1}, 1ull << 12, 1ull << 24, BIG, false}, /* z * slice */
        {{BIG - 64, 0, 0}, {64, 1, 1}, 0, 0, BIG, true},       /* the largest that fits */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        ck_assert_msg(aos_bounds_rect(cases[i].origin, cases[i].region, cases[i].row, cases[i].slice,
                                      cases[i].total) == cases[i].fits,
                      "case %zu", i);
}
END_TEST

START_TEST(test_image)
{
    static const struct {
        uint64_t origin[3], region[3], extent[3];
        bool fits;
    } cases[] = {
        {{0, 0, 0}, {32, 16, 1}, {32, 16, 1}, true},      /* a whole 2D image */
        {{31, 15, 0}, {1, 1, 1}, {32, 16, 1}, true},
        {{31, 15, 0}, {2, 1, 1}, {32, 16, 1}, false},
        {{0, 0, 0}, {32, 16, 1}, {32, 1, 1}, false},      /* a 1D array of one layer: the fill that overran */
        {{0, 0, 1}, {32, 16, 1}, {32, 16, 1}, false},     /* a slice a 2D image has not */
        {{0, 0, 0}, {0, 16, 1}, {32, 16, 1}, false},      /* an empty region */
        {{0, 0, 0}, {32, 16, 0}, {32, 16, 1}, false},
        {{BIG, 0, 0}, {2, 1, 1}, {32, 16, 1}, false},     /* wraps to 1 in size_t */
        {{0, 1, 0}, {1, BIG, 1}, {32, 16, 1}, false},
        {{0, 0, 3}, {8, 8, 5}, {8, 8, 8}, true},          /* 3D */
        {{0, 0, 4}, {8, 8, 5}, {8, 8, 8}, false},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        ck_assert_msg(aos_bounds_image(cases[i].origin, cases[i].region, cases[i].extent) == cases[i].fits,
                      "case %zu", i);
    static const uint64_t box[3] = {32, 16, 2};
    ck_assert_uint_eq(aos_bounds_box_bytes(box, 4), 32 * 16 * 2 * 4);
    static const uint64_t huge[3] = {1ull << 32, 1ull << 32, 1};
    ck_assert_uint_eq(aos_bounds_box_bytes(huge, 16), 0);
}
END_TEST

START_TEST(test_ndrange_shape)
{
    static const struct {
        uint32_t dim;
        uint64_t offset[3], global[3], local[3];
        bool has_offset, has_local;
        int32_t err;
    } cases[] = {
        {1, {0}, {64, 0, 0}, {16, 0, 0}, false, true, CL_SUCCESS},
        {3, {0}, {64, 4, 2}, {16, 2, 1}, false, true, CL_SUCCESS},
        {2, {0}, {64, 4, 0}, {16, 2, 0}, false, true, CL_SUCCESS}, /* dimension 3 unused */
        {3, {0}, {64, 4, 2}, {16, 2, 0}, false, true, CL_INVALID_WORK_GROUP_SIZE}, /* crashed PoCL */
        {1, {0}, {64, 0, 0}, {0, 0, 0}, false, true, CL_INVALID_WORK_GROUP_SIZE},
        {1, {0}, {64, 0, 0}, {0, 0, 0}, false, false, CL_SUCCESS}, /* no local size given */
        {0, {0}, {64, 0, 0}, {16, 0, 0}, false, true, CL_INVALID_WORK_DIMENSION},
        {4, {0}, {64, 0, 0}, {16, 0, 0}, false, true, CL_INVALID_WORK_DIMENSION},
        {1, {UINT64_MAX - 8}, {64, 0, 0}, {16, 0, 0}, true, true, CL_INVALID_GLOBAL_OFFSET},
        {1, {UINT64_MAX - 64}, {64, 0, 0}, {16, 0, 0}, true, true, CL_SUCCESS}, /* ends at SIZE_MAX */
        {2, {0, 5}, {64, UINT64_MAX}, {16, 1}, true, true, CL_INVALID_GLOBAL_OFFSET},
        {1, {UINT64_MAX - 8}, {64, 0, 0}, {16, 0, 0}, false, true, CL_SUCCESS}, /* offset not given */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        ck_assert_msg(aos_ndrange_shape_check(cases[i].dim, cases[i].has_offset ? cases[i].offset : NULL,
                                              cases[i].global, cases[i].has_local ? cases[i].local : NULL) ==
                          cases[i].err,
                      "case %zu", i);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("request_bounds");
    TCase *tc = tcase_create("bounds");
    tcase_add_test(tc, test_range);
    tcase_add_test(tc, test_rect);
    tcase_add_test(tc, test_image);
    tcase_add_test(tc, test_ndrange_shape);
    suite_add_tcase(s, tc);
    return aos_check_run(s);
}
