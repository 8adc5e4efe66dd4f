/* Kernels under the fair policy: elastic launches give native results, the application still sees
 * its own program and kernels, build errors are native, and the daemon reports that the rewrite
 * was really used. */
#include <stdlib.h>
#include <string.h>

#include "daemon_status.h"
#include "harness.h"
#include "vadd_fixture.h"

START_TEST(test_policy_reported)
{
    char text[16384];
    aos_test_status_text(text, sizeof(text));
    ck_assert_msg(strstr(text, "\npolicy fair\n") != NULL, "status:\n%s", text);
}
END_TEST

START_TEST(test_vector_add_is_elastic)
{
    struct aos_test_vadd v;
    aos_test_vadd_setup(&v, 100000);
    long long kernels0, launches0, kernels1, launches1;
    aos_test_status_elastic(getpid(), &kernels0, &launches0);
    ck_assert_int_eq(kernels0, 1);
    /* With a local size, and without one (the daemon picks it). */
    size_t global = (v.n + 63) / 64 * 64, local = 64;
    for (int run = 0; run < 2; run++) {
        memset(v.c, 0, v.n * sizeof(float));
        ck_assert_int_eq(clEnqueueWriteBuffer(v.q, v.mc, CL_FALSE, 0, v.n * sizeof(float), v.c, 0, NULL, NULL),
                         CL_SUCCESS);
        ck_assert_int_eq(clEnqueueNDRangeKernel(v.q, v.k, 1, NULL, &global, run ? NULL : &local, 0, NULL, NULL),
                         CL_SUCCESS);
        aos_test_vadd_check(&v, v.mc);
    }
    aos_test_status_elastic(getpid(), &kernels1, &launches1);
    ck_assert_int_eq(launches1 - launches0, 2);
    aos_test_vadd_teardown(&v);
}
END_TEST

/* A local-memory argument and a kernel-scoped local array, both with barriers. */
static const char *local_src =
    "kernel void wgsum(global const int *in, global int *out, local int *tmp)\n"
    "{ size_t l = get_local_id(0), n = get_local_size(0);\n"
    "  tmp[l] = in[get_global_id(0)]; barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t s = n / 2; s > 0; s /= 2) { if (l < s) tmp[l] += tmp[l + s];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE); }\n"
    "  if (l == 0) out[get_group_id(0)] = tmp[0]; }\n"
    "kernel void reverse(global const int *in, global int *out)\n"
    "{ local int tile[32]; size_t l = get_local_id(0), g = get_group_id(0);\n"
    "  tile[l] = in[get_global_id(0)]; barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[g * 32 + l] = tile[31 - l]; }\n";

START_TEST(test_local_memory_and_barrier)
{
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    cl_program p = aos_test_build(ctx, local_src, NULL);
    cl_kernel k = aos_test_kernel(p, "wgsum"), rev = aos_test_kernel(p, "reverse");
    enum { N = 8192 };
    int *in = malloc(N * sizeof(int)), *out = malloc(N * sizeof(int));
    for (int i = 0; i < N; i++)
        in[i] = (i * 7919) % 1013 - 500;
    cl_mem min = aos_test_buffer(ctx, N * sizeof(int), in), mout = aos_test_buffer(ctx, N * sizeof(int), NULL);
    long long kernels, launches0, launches1;
    aos_test_status_elastic(getpid(), &kernels, &launches0);
    ck_assert_int_eq(kernels, 2);
    ck_assert_int_eq(clSetKernelArg(k, 0, sizeof(min), &min), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 1, sizeof(mout), &mout), CL_SUCCESS);
    size_t sizes[] = {8, 32, 128, 512};
    for (size_t t = 0; t < sizeof(sizes) / sizeof(sizes[0]); t++) {
        size_t local = sizes[t], global = N, groups = N / local;
        ck_assert_int_eq(clSetKernelArg(k, 2, local * sizeof(int), NULL), CL_SUCCESS);
        ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL), CL_SUCCESS);
        ck_assert_int_eq(clEnqueueReadBuffer(q, mout, CL_TRUE, 0, groups * sizeof(int), out, 0, NULL, NULL),
                         CL_SUCCESS);
        for (size_t g = 0; g < groups; g++) {
            int expect = 0;
            for (size_t i = g * local; i < (g + 1) * local; i++)
                expect += in[i];
            ck_assert_msg(out[g] == expect, "local %zu group %zu: %d != %d", local, g, out[g], expect);
        }
    }
    ck_assert_int_eq(clSetKernelArg(rev, 0, sizeof(min), &min), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(rev, 1, sizeof(mout), &mout), CL_SUCCESS);
    size_t global = N, local = 32;
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, rev, 1, NULL, &global, &local, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(q, mout, CL_TRUE, 0, N * sizeof(int), out, 0, NULL, NULL), CL_SUCCESS);
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(out[i], in[i / 32 * 32 + 31 - i % 32]);
    aos_test_status_elastic(getpid(), &kernels, &launches1);
    ck_assert_int_eq(launches1 - launches0, 5);
    free(in);
    free(out);
    clReleaseMemObject(min);
    clReleaseMemObject(mout);
    clReleaseKernel(k);
    clReleaseKernel(rev);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

/* Every grid built-in the rewrite replaces, and the physical ones it keeps, per work-item. */
static const char *grid_src =
    "kernel void grid(global uint *out, uint width)\n"
    "{ size_t x = get_global_id(0) - get_global_offset(0), y = get_global_id(1) - get_global_offset(1);\n"
    "  global uint *o = out + (y * width + x) * 12;\n"
    "  o[0] = get_group_id(0); o[1] = get_group_id(1); o[2] = get_global_id(0); o[3] = get_global_id(1);\n"
    "  o[4] = get_num_groups(0); o[5] = get_num_groups(1); o[6] = get_global_offset(0);\n"
    "  o[7] = get_global_offset(1); o[8] = get_local_id(0); o[9] = get_local_id(1);\n"
    "  o[10] = get_global_size(0) * 1000 + get_global_size(1); o[11] = get_local_size(0) * 1000 + get_local_size(1); }\n";

static void grid_check(const cl_uint *out, const size_t global[2], const size_t local[2], const size_t offset[2])
{
    for (size_t y = 0; y < global[1]; y++)
        for (size_t x = 0; x < global[0]; x++) {
            const cl_uint *o = out + (y * global[0] + x) * 12;
            cl_uint expect[12] = {
                (cl_uint)(x / local[0]),         (cl_uint)(y / local[1]),
                (cl_uint)(x + offset[0]),        (cl_uint)(y + offset[1]),
                (cl_uint)(global[0] / local[0]), (cl_uint)(global[1] / local[1]),
                (cl_uint)offset[0],              (cl_uint)offset[1],
                (cl_uint)(x % local[0]),         (cl_uint)(y % local[1]),
                (cl_uint)(global[0] * 1000 + global[1]), (cl_uint)(local[0] * 1000 + local[1]),
            };
            for (int f = 0; f < 12; f++)
                ck_assert_msg(o[f] == expect[f], "item (%zu,%zu) field %d: %u != %u", x, y, f, o[f], expect[f]);
        }
}

START_TEST(test_grid_builtins_2d_offset)
{
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    cl_program p = aos_test_build(ctx, grid_src, NULL);
    cl_kernel k = aos_test_kernel(p, "grid");
    size_t global[2] = {48, 20}, local[2] = {8, 4}, offset[2] = {5, 3};
    size_t bytes = global[0] * global[1] * 12 * sizeof(cl_uint);
    cl_uint *out = malloc(bytes), width = (cl_uint)global[0];
    cl_mem m = aos_test_buffer(ctx, bytes, NULL);
    ck_assert_int_eq(clSetKernelArg(k, 0, sizeof(m), &m), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 1, sizeof(width), &width), CL_SUCCESS);
    long long kernels, launches0, launches1;
    aos_test_status_elastic(getpid(), &kernels, &launches0);
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 2, offset, global, local, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(q, m, CL_TRUE, 0, bytes, out, 0, NULL, NULL), CL_SUCCESS);
    grid_check(out, global, local, offset);
    /* No local size: whatever the daemon picks, the kernel must see a consistent grid. */
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 2, offset, global, NULL, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(q, m, CL_TRUE, 0, bytes, out, 0, NULL, NULL), CL_SUCCESS);
    size_t picked[2] = {out[11] / 1000, out[11] % 1000};
    ck_assert(picked[0] >= 1 && global[0] % picked[0] == 0 && picked[1] >= 1 && global[1] % picked[1] == 0);
    grid_check(out, global, picked, offset);
    aos_test_status_elastic(getpid(), &kernels, &launches1);
    ck_assert_int_eq(launches1 - launches0, 2);
    free(out);
    clReleaseMemObject(m);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

START_TEST(test_application_sees_its_program)
{
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    cl_device_id d = aos_test_device();
    const char *src = "kernel void first(global int *x, int v) { x[get_global_id(0)] = v; }\n"
                      "kernel void second(global int *x, local int *t, global int *y) { t[0] = 1; x[0] = t[0]; }\n";
    cl_program p = aos_test_build(ctx, src, "-DUNUSED=1");
    cl_kernel k = aos_test_kernel(p, "first");
    cl_uint nargs = 0;
    ck_assert_int_eq(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof(nargs), &nargs, NULL), CL_SUCCESS);
    ck_assert_uint_eq(nargs, 2);
    char name[64] = "";
    ck_assert_int_eq(clGetKernelArgInfo(k, 1, CL_KERNEL_ARG_NAME, sizeof(name), name, NULL), CL_SUCCESS);
    ck_assert_str_eq(name, "v");
    ck_assert_int_eq(clGetKernelArgInfo(k, 2, CL_KERNEL_ARG_NAME, sizeof(name), name, NULL), CL_INVALID_ARG_INDEX);
    cl_mem m = aos_test_buffer(ctx, 64 * sizeof(int), NULL);
    ck_assert_int_eq(clSetKernelArg(k, 2, sizeof(m), &m), CL_INVALID_ARG_INDEX);
    cl_kernel k2 = aos_test_kernel(p, "second");
    ck_assert_int_eq(clGetKernelInfo(k2, CL_KERNEL_NUM_ARGS, sizeof(nargs), &nargs, NULL), CL_SUCCESS);
    ck_assert_uint_eq(nargs, 3);
    size_t wg = 0;
    ck_assert_int_eq(clGetKernelWorkGroupInfo(k, d, CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg), &wg, NULL), CL_SUCCESS);
    ck_assert_uint_ge(wg, 1);

    char names[64] = "", text[512] = "", opts[64] = "";
    ck_assert_int_eq(clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, sizeof(names), names, NULL), CL_SUCCESS);
    ck_assert(!strcmp(names, "first;second") || !strcmp(names, "second;first"));
    ck_assert_int_eq(clGetProgramInfo(p, CL_PROGRAM_SOURCE, sizeof(text), text, NULL), CL_SUCCESS);
    ck_assert_str_eq(text, src);
    size_t num = 0;
    ck_assert_int_eq(clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof(num), &num, NULL), CL_SUCCESS);
    ck_assert_uint_eq(num, 2);
    cl_build_status bs = CL_BUILD_NONE;
    ck_assert_int_eq(clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_STATUS, sizeof(bs), &bs, NULL), CL_SUCCESS);
    ck_assert_int_eq(bs, CL_BUILD_SUCCESS);
    ck_assert_int_eq(clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_OPTIONS, sizeof(opts), opts, NULL), CL_SUCCESS);
    ck_assert_ptr_nonnull(strstr(opts, "-DUNUSED=1"));

    /* A binary saved from the program loads as an ordinary (native) program with the same kernels. */
    size_t size = 0;
    ck_assert_int_eq(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, NULL), CL_SUCCESS);
    unsigned char *bin = malloc(size);
    ck_assert_int_eq(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bin), &bin, NULL), CL_SUCCESS);
    cl_int err, st;
    const unsigned char *cbin = bin;
    cl_program pb = clCreateProgramWithBinary(ctx, 1, &d, &size, &cbin, &st, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_int_eq(clBuildProgram(pb, 1, &d, NULL, NULL, NULL), CL_SUCCESS);
    cl_kernel kb = aos_test_kernel(pb, "first");
    ck_assert_int_eq(clGetKernelInfo(kb, CL_KERNEL_NUM_ARGS, sizeof(nargs), &nargs, NULL), CL_SUCCESS);
    ck_assert_uint_eq(nargs, 2);
    long long kernels, launches0, launches1;
    aos_test_status_elastic(getpid(), &kernels, &launches0);
    ck_assert_int_eq(kernels, 2); /* first and second; the binary's kernel stays native */
    int v = 77;
    ck_assert_int_eq(clSetKernelArg(kb, 0, sizeof(m), &m), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(kb, 1, sizeof(v), &v), CL_SUCCESS);
    size_t global = 64;
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, kb, 1, NULL, &global, NULL, 0, NULL, NULL), CL_SUCCESS);
    int out[64];
    ck_assert_int_eq(clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL), CL_SUCCESS);
    for (int i = 0; i < 64; i++)
        ck_assert_int_eq(out[i], 77);
    aos_test_status_elastic(getpid(), &kernels, &launches1);
    ck_assert_int_eq(launches1, launches0);
    free(bin);
    clReleaseKernel(kb);
    clReleaseProgram(pb);
    clReleaseMemObject(m);
    clReleaseKernel(k);
    clReleaseKernel(k2);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

START_TEST(test_build_error_is_native)
{
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    cl_device_id d = aos_test_device();
    const char *src = "kernel void broken(global int *x) { x[0] = undeclared_thing; }\n";
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_int_eq(clBuildProgram(p, 1, &d, NULL, NULL, NULL), CL_BUILD_PROGRAM_FAILURE);
    char log[8192] = "";
    ck_assert_int_eq(clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL), CL_SUCCESS);
    ck_assert_msg(strstr(log, "undeclared_thing") != NULL && strstr(log, "error") != NULL, "log: %s", log);
    cl_build_status bs = CL_BUILD_NONE;
    ck_assert_int_eq(clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_STATUS, sizeof(bs), &bs, NULL), CL_SUCCESS);
    ck_assert_int_eq(bs, CL_BUILD_ERROR);
    ck_assert_ptr_null(clCreateKernel(p, "broken", &err));
    ck_assert_int_ne(err, CL_SUCCESS);
    /* Options the JIT would refuse are still the native compiler's call. */
    ck_assert_int_eq(clBuildProgram(p, 1, &d, "-cl-no-such-option", NULL, NULL), CL_INVALID_BUILD_OPTIONS);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

START_TEST(test_profiling_reports_the_kernel)
{
    struct aos_test_vadd v;
    aos_test_vadd_setup(&v, 1 << 16);
    size_t global = v.n, local = 128;
    cl_event ev;
    ck_assert_int_eq(clEnqueueNDRangeKernel(v.q, v.k, 1, NULL, &global, &local, 0, NULL, &ev), CL_SUCCESS);
    ck_assert_int_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
    cl_ulong queued = 0, submit = 0, start = 0, end = 0;
    ck_assert_int_eq(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_QUEUED, sizeof(queued), &queued, NULL),
                     CL_SUCCESS);
    ck_assert_int_eq(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_SUBMIT, sizeof(submit), &submit, NULL),
                     CL_SUCCESS);
    ck_assert_int_eq(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof(start), &start, NULL),
                     CL_SUCCESS);
    ck_assert_int_eq(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof(end), &end, NULL), CL_SUCCESS);
    ck_assert_uint_gt(start, 0);
    ck_assert_uint_le(queued, submit);
    ck_assert_uint_le(submit, start);
    ck_assert_uint_le(start, end);
    cl_command_type type = 0;
    ck_assert_int_eq(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL), CL_SUCCESS);
    ck_assert_uint_eq(type, CL_COMMAND_NDRANGE_KERNEL);
    clReleaseEvent(ev);
    aos_test_vadd_check(&v, v.mc);
    aos_test_vadd_teardown(&v);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fair_kernel");
    TCase *tc = tcase_create("fair_kernel");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_policy_reported);
    tcase_add_test(tc, test_vector_add_is_elastic);
    tcase_add_test(tc, test_local_memory_and_barrier);
    tcase_add_test(tc, test_grid_builtins_2d_offset);
    tcase_add_test(tc, test_application_sees_its_program);
    tcase_add_test(tc, test_build_error_is_native);
    tcase_add_test(tc, test_profiling_reports_the_kernel);
    suite_add_tcase(s, tc);
    return aos_test_run_suite_logical(s);
}
