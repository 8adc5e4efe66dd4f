/* The bystander of the hostile-client tests (good_client.h). */
#include "good_client.h"

#include <stdint.h>
#include <string.h>

cl_context good_ctx;
cl_command_queue good_queue;
cl_mem good_buffer;
static uint32_t good_data[1024];

void good_client_setup(void)
{
    aos_test_context(&good_ctx, &good_queue);
    for (int i = 0; i < 1024; i++)
        good_data[i] = (uint32_t)i * 7u + 3u;
    cl_int err;
    good_buffer = clCreateBuffer(good_ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(good_data), good_data,
                                 &err);
    ck_assert_int_eq(err, CL_SUCCESS);
}

void good_client_teardown(void)
{
    clReleaseMemObject(good_buffer);
    clReleaseCommandQueue(good_queue);
    clReleaseContext(good_ctx);
}

void good_client_works(void)
{
    uint32_t back[1024];
    memset(back, 0, sizeof(back));
    ck_assert_int_eq(clEnqueueReadBuffer(good_queue, good_buffer, CL_TRUE, 0, sizeof(back), back, 0, NULL, NULL),
                     CL_SUCCESS);
    ck_assert_int_eq(memcmp(back, good_data, sizeof(back)), 0);
    cl_int err;
    cl_mem m = clCreateBuffer(good_ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    uint32_t v = 0x5eed;
    ck_assert_int_eq(clEnqueueFillBuffer(good_queue, m, &v, 4, 0, 4096, 0, NULL, NULL), CL_SUCCESS);
    uint32_t got[1024];
    ck_assert_int_eq(clEnqueueReadBuffer(good_queue, m, CL_TRUE, 0, 4096, got, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_uint_eq(got[0], 0x5eed);
    ck_assert_uint_eq(got[1023], 0x5eed);
    ck_assert_int_eq(clReleaseMemObject(m), CL_SUCCESS);
}
