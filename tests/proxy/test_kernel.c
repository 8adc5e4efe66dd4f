/* Kernels through the proxy: vector add, info, argument validation on the client, local memory,
 * many arguments of every kind, clones, and launches whose arguments change between runs. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "vadd_fixture.h"

START_TEST(test_vector_add)
{
    struct aos_test_vadd v;
    aos_test_vadd_setup(&v, 100000);
    size_t global = (v.n + 63) / 64 * 64, local = 64;
    cl_event ev = NULL;
    ck_assert_int_eq(clEnqueueNDRangeKernel(v.q, v.k, 1, NULL, &global, &local, 0, NULL, &ev), CL_SUCCESS);
    ck_assert_int_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
    ck_assert_int_eq(aos_test_event_status(ev), CL_COMPLETE);
    cl_command_type type = 0;
    ck_assert_int_eq(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL), CL_SUCCESS);
    ck_assert_uint_eq(type, CL_COMMAND_NDRANGE_KERNEL);
    clReleaseEvent(ev);
    aos_test_vadd_check(&v, v.mc);

    /* Change one argument only: the others persist in the daemon. Output to a: a = a + b. */
    ck_assert_int_eq(clSetKernelArg(v.k, 2, sizeof(cl_mem), &v.ma), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueNDRangeKernel(v.q, v.k, 1, NULL, &global, NULL, 0, NULL, NULL), CL_SUCCESS);
    aos_test_vadd_check(&v, v.ma);
    /* Next launch on item 0 only: a[0] gains b[0] once more. */
    float got[2];
    ck_assert_int_eq(clEnqueueTask(v.q, v.k, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(v.q, v.ma, CL_TRUE, 0, sizeof(got), got, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_float_eq(got[0], v.a[0] + 2 * v.b[0]);
    ck_assert_float_eq(got[1], v.a[1] + v.b[1]);
    aos_test_vadd_teardown(&v);
}
END_TEST

static const char *info_src =
    "kernel __attribute__((reqd_work_group_size(4, 1, 1)))\n"
    "void fixed(global float *out, local int *scratch, const int count, constant float *coef)\n"
    "{ scratch[get_local_id(0)] = count; barrier(CLK_LOCAL_MEM_FENCE); out[get_global_id(0)] = scratch[0] * coef[0]; }\n"
    "kernel void free_size(global int *x) { x[get_global_id(0)] = 1; }\n";

START_TEST(test_kernel_info)
{
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    cl_device_id d = aos_test_device();
    cl_program p = aos_test_build(ctx, info_src, NULL);
    cl_int err;
    cl_kernel k = clCreateKernel(p, "fixed", &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    char name[32] = "";
    size_t ret = 0;
    ck_assert_int_eq(clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof(name), name, &ret), CL_SUCCESS);
    ck_assert_str_eq(name, "fixed");
    ck_assert_uint_eq(ret, 6);
    cl_uint nargs = 0, refs = 0;
    ck_assert_int_eq(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof(nargs), &nargs, NULL), CL_SUCCESS);
    ck_assert_uint_eq(nargs, 4);
    ck_assert_int_eq(clGetKernelInfo(k, CL_KERNEL_REFERENCE_COUNT, sizeof(refs), &refs, NULL), CL_SUCCESS);
    ck_assert_uint_eq(refs, 1);
    cl_program kp = NULL;
    cl_context kc = NULL;
    ck_assert_int_eq(clGetKernelInfo(k, CL_KERNEL_PROGRAM, sizeof(kp), &kp, NULL), CL_SUCCESS);
    ck_assert_ptr_eq(kp, p);
    ck_assert_int_eq(clGetKernelInfo(k, CL_KERNEL_CONTEXT, sizeof(kc), &kc, NULL), CL_SUCCESS);
    ck_assert_ptr_eq(kc, ctx);
    char attrs[128] = "";
    ck_assert_int_eq(clGetKernelInfo(k, CL_KERNEL_ATTRIBUTES, sizeof(attrs), attrs, NULL), CL_SUCCESS);

    /* Argument info. */
    cl_kernel_arg_address_qualifier aq = 0;
    ck_assert_int_eq(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(aq), &aq, NULL), CL_SUCCESS);
    ck_assert_uint_eq(aq, CL_KERNEL_ARG_ADDRESS_GLOBAL);
    ck_assert_int_eq(clGetKernelArgInfo(k, 1, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(aq), &aq, NULL), CL_SUCCESS);
    ck_assert_uint_eq(aq, CL_KERNEL_ARG_ADDRESS_LOCAL);
    ck_assert_int_eq(clGetKernelArgInfo(k, 3, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(aq), &aq, NULL), CL_SUCCESS);
    ck_assert_uint_eq(aq, CL_KERNEL_ARG_ADDRESS_CONSTANT);
    char tname[64] = "";
    ck_assert_int_eq(clGetKernelArgInfo(k, 2, CL_KERNEL_ARG_TYPE_NAME, sizeof(tname), tname, NULL), CL_SUCCESS);
    ck_assert_str_eq(tname, "int");
    char aname[64] = "";
    ck_assert_int_eq(clGetKernelArgInfo(k, 1, CL_KERNEL_ARG_NAME, sizeof(aname), aname, NULL), CL_SUCCESS);
    ck_assert_str_eq(aname, "scratch");
    cl_kernel_arg_type_qualifier tq = 0;
    /* The spec gives CONST to pointers into the constant address space. */
    ck_assert_int_eq(clGetKernelArgInfo(k, 3, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof(tq), &tq, NULL), CL_SUCCESS);
    ck_assert_uint_eq(tq & CL_KERNEL_ARG_TYPE_CONST, CL_KERNEL_ARG_TYPE_CONST);
    ck_assert_int_eq(clGetKernelArgInfo(k, 4, CL_KERNEL_ARG_NAME, sizeof(aname), aname, NULL), CL_INVALID_ARG_INDEX);

    /* Work-group info. */
    size_t cwg[3] = {0, 0, 0}, wg = 0, dev_max = 0;
    ck_assert_int_eq(clGetKernelWorkGroupInfo(k, d, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof(cwg), cwg, NULL),
                     CL_SUCCESS);
    ck_assert_uint_eq(cwg[0], 4);
    ck_assert_uint_eq(cwg[1], 1);
    ck_assert_uint_eq(cwg[2], 1);
    ck_assert_int_eq(clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(dev_max), &dev_max, NULL), CL_SUCCESS);
    /* NULL device is fine with a single-device program. */
    ck_assert_int_eq(clGetKernelWorkGroupInfo(k, NULL, CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg), &wg, NULL), CL_SUCCESS);
    ck_assert_uint_ge(wg, 1);
    ck_assert_uint_le(wg, dev_max);
    size_t multiple = 0;
    ck_assert_int_eq(clGetKernelWorkGroupInfo(k, d, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sizeof(multiple),
                                              &multiple, NULL),
                     CL_SUCCESS);
    ck_assert_uint_ge(multiple, 1);
    cl_ulong lmem = 0;
    ck_assert_int_eq(clGetKernelWorkGroupInfo(k, d, CL_KERNEL_LOCAL_MEM_SIZE, sizeof(lmem), &lmem, NULL), CL_SUCCESS);
    void *garbage = aos_test_forged_handle();
    ck_assert_int_eq(clGetKernelWorkGroupInfo(k, (cl_device_id)garbage, CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg), &wg,
                                              NULL),
                     CL_INVALID_DEVICE);
    ck_assert_int_eq(clGetKernelInfo((cl_kernel)garbage, CL_KERNEL_NUM_ARGS, sizeof(nargs), &nargs, NULL),
                     CL_INVALID_KERNEL);

    /* The required work-group size is enforced on the client. */
    float coefv = 2.0f;
    cl_mem out = aos_test_buffer(ctx, 8 * sizeof(float), NULL), coef = aos_test_buffer(ctx, sizeof(float), &coefv);
    int count = 21;
    ck_assert_int_eq(clSetKernelArg(k, 0, sizeof(out), &out), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 1, 4 * sizeof(int), NULL), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 2, sizeof(count), &count), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 3, sizeof(coef), &coef), CL_SUCCESS);
    size_t global = 8, good = 4, bad = 2;
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &bad, 0, NULL, NULL), CL_INVALID_WORK_GROUP_SIZE);
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL), CL_INVALID_WORK_GROUP_SIZE);
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &good, 0, NULL, NULL), CL_SUCCESS);
    float res[8];
    ck_assert_int_eq(clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof(res), res, 0, NULL, NULL), CL_SUCCESS);
    for (int i = 0; i < 8; i++)
        ck_assert_float_eq(res[i], 42.0f);

    clReleaseMemObject(out);
    clReleaseMemObject(coef);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

START_TEST(test_set_arg_errors)
{
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    cl_program p = aos_test_build(ctx, info_src, NULL);
    cl_int err;
    cl_kernel k = clCreateKernel(p, "fixed", &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_mem buf = aos_test_buffer(ctx, 64, NULL);
    int v = 1;
    void *garbage = aos_test_forged_handle();
    cl_mem bogus = (cl_mem)garbage;
    ck_assert_int_eq(clSetKernelArg((cl_kernel)garbage, 0, sizeof(buf), &buf), CL_INVALID_KERNEL);
    ck_assert_int_eq(clSetKernelArg(k, 4, sizeof(v), &v), CL_INVALID_ARG_INDEX);
    ck_assert_int_eq(clSetKernelArg(k, 0, sizeof(buf) - 1, &buf), CL_INVALID_ARG_SIZE);
    ck_assert_int_eq(clSetKernelArg(k, 0, sizeof(bogus), &bogus), CL_INVALID_MEM_OBJECT);
    ck_assert_int_eq(clSetKernelArg(k, 1, 16, &v), CL_INVALID_ARG_VALUE);
    ck_assert_int_eq(clSetKernelArg(k, 1, 0, NULL), CL_INVALID_ARG_SIZE);
    ck_assert_int_eq(clSetKernelArg(k, 2, sizeof(short), &v), CL_INVALID_ARG_SIZE);
    ck_assert_int_eq(clSetKernelArg(k, 2, 8, &v), CL_INVALID_ARG_SIZE);
    ck_assert_int_eq(clSetKernelArg(k, 2, sizeof(int), NULL), CL_INVALID_ARG_VALUE);
    ck_assert_int_eq(clSetKernelArgSVMPointer(k, 0, buf), CL_INVALID_OPERATION);
    ck_assert_int_eq(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM, 0, NULL), CL_INVALID_OPERATION);

    /* Not every argument set yet. */
    size_t global = 4, local = 4;
    ck_assert_int_eq(clSetKernelArg(k, 0, sizeof(buf), &buf), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL), CL_INVALID_KERNEL_ARGS);
    ck_assert_int_eq(clSetKernelArg(k, 1, 16, NULL), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 2, sizeof(v), &v), CL_SUCCESS);
    /* A NULL buffer is a valid value for a global pointer. */
    ck_assert_int_eq(clSetKernelArg(k, 3, sizeof(cl_mem), NULL), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 3, sizeof(buf), &buf), CL_SUCCESS);

    /* Launch checks. */
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 0, NULL, &global, &local, 0, NULL, NULL), CL_INVALID_WORK_DIMENSION);
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 4, NULL, &global, &local, 0, NULL, NULL), CL_INVALID_WORK_DIMENSION);
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, NULL, &local, 0, NULL, NULL), CL_INVALID_GLOBAL_WORK_SIZE);
    ck_assert_int_eq(clEnqueueNDRangeKernel(NULL, k, 1, NULL, &global, &local, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, NULL, 1, NULL, &global, &local, 0, NULL, NULL), CL_INVALID_KERNEL);
    cl_event ev = NULL;
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 1, NULL, NULL), CL_INVALID_EVENT_WAIT_LIST);
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, &ev), CL_SUCCESS);
    ck_assert_int_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
    clReleaseEvent(ev);
    ck_assert_int_eq(clEnqueueNativeKernel(q, NULL, NULL, 0, 0, NULL, NULL, 0, NULL, NULL), CL_INVALID_OPERATION);

    cl_kernel k2 = clCreateKernel(p, "free_size", &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k2, 0, sizeof(buf), &buf), CL_SUCCESS);
    size_t g7 = 7, l2 = 2, huge = 1u << 20, gh = 1u << 20;
    /* PoCL's CPU device has no non-uniform work-groups. */
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k2, 1, NULL, &g7, &l2, 0, NULL, NULL), CL_INVALID_WORK_GROUP_SIZE);
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k2, 1, NULL, &gh, &huge, 0, NULL, NULL), CL_INVALID_WORK_GROUP_SIZE);
    size_t zero = 0;
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k2, 1, NULL, &g7, &zero, 0, NULL, NULL), CL_INVALID_WORK_GROUP_SIZE);
    size_t g3[3] = {2, 2, 1 << 20}, l3[3] = {1, 1, 1 << 19};
    err = clEnqueueNDRangeKernel(q, k2, 3, NULL, g3, l3, 0, NULL, NULL);
    ck_assert(err == CL_INVALID_WORK_ITEM_SIZE || err == CL_INVALID_WORK_GROUP_SIZE);
    ck_assert_int_eq(clFinish(q), CL_SUCCESS);

    clReleaseKernel(k2);
    clReleaseMemObject(buf);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

START_TEST(test_local_memory_reduction)
{
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    const char *src = "kernel void wgsum(global const int *in, global int *out, local int *tmp)\n"
                      "{ size_t l = get_local_id(0), n = get_local_size(0);\n"
                      "  tmp[l] = in[get_global_id(0)]; barrier(CLK_LOCAL_MEM_FENCE);\n"
                      "  for (size_t s = n / 2; s > 0; s /= 2) { if (l < s) tmp[l] += tmp[l + s];\n"
                      "    barrier(CLK_LOCAL_MEM_FENCE); }\n"
                      "  if (l == 0) out[get_group_id(0)] = tmp[0]; }\n";
    cl_program p = aos_test_build(ctx, src, NULL);
    cl_int err;
    cl_kernel k = clCreateKernel(p, "wgsum", &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    enum { N = 4096 };
    int *in = malloc(N * sizeof(int));
    for (int i = 0; i < N; i++)
        in[i] = i % 97;
    cl_mem min = aos_test_buffer(ctx, N * sizeof(int), in), mout = aos_test_buffer(ctx, N * sizeof(int), NULL);
    ck_assert_int_eq(clSetKernelArg(k, 0, sizeof(min), &min), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 1, sizeof(mout), &mout), CL_SUCCESS);
    /* Several work-group sizes, each with a matching local allocation. */
    size_t sizes[] = {16, 64, 256};
    for (size_t t = 0; t < 3; t++) {
        size_t local = sizes[t], global = N, groups = N / local;
        ck_assert_int_eq(clSetKernelArg(k, 2, local * sizeof(int), NULL), CL_SUCCESS);
        ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL), CL_SUCCESS);
        int *out = malloc(groups * sizeof(int));
        ck_assert_int_eq(clEnqueueReadBuffer(q, mout, CL_TRUE, 0, groups * sizeof(int), out, 0, NULL, NULL),
                         CL_SUCCESS);
        for (size_t g = 0; g < groups; g++) {
            int expect = 0;
            for (size_t i = g * local; i < (g + 1) * local; i++)
                expect += in[i];
            ck_assert_int_eq(out[g], expect);
        }
        free(out);
    }
    free(in);
    clReleaseMemObject(min);
    clReleaseMemObject(mout);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

typedef struct {
    cl_float4 v;
    cl_int i;
    cl_int pad[3];
} pair_t;

static const char *many_src =
    "typedef struct { float4 v; int i; int pad[3]; } pair_t;\n"
    "kernel void many(global float *out, char c, uchar uc, short s, ushort us, int i, uint ui, long l,\n"
    "                 ulong ul, float f, double d, float2 f2, float3 f3, float4 f4, int8 i8, pair_t pr,\n"
    "                 local float *scratch, constant int *k)\n"
    "{ if (get_global_id(0) != 0) return; scratch[0] = 1.0f;\n"
    "  out[0] = c; out[1] = uc; out[2] = s; out[3] = us; out[4] = i; out[5] = ui; out[6] = l; out[7] = ul;\n"
    "  out[8] = f; out[9] = (float)d; out[10] = f2.y; out[11] = f3.z; out[12] = f4.w; out[13] = i8.s7;\n"
    "  out[14] = pr.v.y + pr.i; out[15] = k[1] * scratch[0]; }\n";

START_TEST(test_many_args_and_kernels)
{
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    cl_device_id d = aos_test_device();
    cl_device_fp_config fp64 = 0;
    clGetDeviceInfo(d, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof(fp64), &fp64, NULL);
    cl_program p = aos_test_build(ctx, many_src, NULL);
    cl_int err;
    cl_kernel k = clCreateKernel(p, "many", &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_uint nargs = 0;
    ck_assert_int_eq(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof(nargs), &nargs, NULL), CL_SUCCESS);
    ck_assert_uint_eq(nargs, 18);
    int kv[2] = {5, 9};
    cl_mem out = aos_test_buffer(ctx, 16 * sizeof(float), NULL), kbuf = aos_test_buffer(ctx, sizeof(kv), kv);
    cl_char c = -3;
    cl_uchar uc = 200;
    cl_short s = -1234;
    cl_ushort us = 60000;
    cl_int i = -70000;
    cl_uint ui = 70000;
    cl_long l = -5;
    cl_ulong ul = 6;
    cl_float f = 1.5f;
    cl_double dd = 2.25;
    cl_float2 f2 = {{0.0f, 7.5f}};
    cl_float3 f3 = {{0.0f, 0.0f, 8.5f}};
    cl_float4 f4 = {{0.0f, 0.0f, 0.0f, 9.5f}};
    cl_int8 i8 = {{0, 0, 0, 0, 0, 0, 0, 11}};
    pair_t pr = {.v = {{0.0f, 0.25f, 0.0f, 0.0f}}, .i = 3};
    ck_assert_int_eq(clSetKernelArg(k, 0, sizeof(out), &out), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 1, sizeof(c), &c), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 2, sizeof(uc), &uc), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 3, sizeof(s), &s), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 4, sizeof(us), &us), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 5, sizeof(i), &i), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 6, sizeof(ui), &ui), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 7, sizeof(l), &l), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 8, sizeof(ul), &ul), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 9, sizeof(f), &f), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 10, sizeof(dd), &dd), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 11, sizeof(f2), &f2), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 12, sizeof(f3), &f3), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 13, sizeof(f4), &f4), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 14, sizeof(i8), &i8), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 15, sizeof(pr), &pr), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 16, 64, NULL), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 18, sizeof(kbuf), &kbuf), CL_INVALID_ARG_INDEX);
    ck_assert_int_eq(clSetKernelArg(k, 16, 64, &f), CL_INVALID_ARG_VALUE);
    /* Wrong sizes for vectors are caught on the client. */
    ck_assert_int_eq(clSetKernelArg(k, 13, sizeof(f2), &f2), CL_INVALID_ARG_SIZE);
    ck_assert_int_eq(clSetKernelArg(k, 1, sizeof(i), &i), CL_INVALID_ARG_SIZE);
    ck_assert_int_eq(clSetKernelArg(k, 17, sizeof(kbuf), &kbuf), CL_SUCCESS);
    (void)fp64;
    size_t global = 1;
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL), CL_SUCCESS);
    float res[16];
    ck_assert_int_eq(clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof(res), res, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_float_eq(res[0], -3.0f);
    ck_assert_float_eq(res[1], 200.0f);
    ck_assert_float_eq(res[2], -1234.0f);
    ck_assert_float_eq(res[3], 60000.0f);
    ck_assert_float_eq(res[4], -70000.0f);
    ck_assert_float_eq(res[5], 70000.0f);
    ck_assert_float_eq(res[6], -5.0f);
    ck_assert_float_eq(res[7], 6.0f);
    ck_assert_float_eq(res[8], 1.5f);
    ck_assert_float_eq(res[9], 2.25f);
    ck_assert_float_eq(res[10], 7.5f);
    ck_assert_float_eq(res[11], 8.5f);
    ck_assert_float_eq(res[12], 9.5f);
    ck_assert_float_eq(res[13], 11.0f);
    ck_assert_float_eq(res[14], 3.25f);
    ck_assert_float_eq(res[15], 9.0f);

    /* A clone keeps the values; changing the clone leaves the original alone. */
    cl_kernel cl = clCloneKernel(k, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    f = 4.0f;
    ck_assert_int_eq(clSetKernelArg(cl, 9, sizeof(f), &f), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, cl, 1, NULL, &global, NULL, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof(res), res, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_float_eq(res[8], 4.0f);
    ck_assert_float_eq(res[13], 11.0f);
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof(res), res, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_float_eq(res[8], 1.5f);
    clReleaseKernel(cl);

    /* Many kernels from one program, each launched with its own argument. */
    const char *multi = "kernel void k0(global int *x) { x[0] = 100; }\n"
                        "kernel void k1(global int *x) { x[1] = 101; }\n"
                        "kernel void k2(global int *x) { x[2] = 102; }\n"
                        "kernel void k3(global int *x) { x[3] = 103; }\n";
    cl_program mp = aos_test_build(ctx, multi, NULL);
    cl_uint nk = 0;
    ck_assert_int_eq(clCreateKernelsInProgram(mp, 0, NULL, &nk), CL_SUCCESS);
    ck_assert_uint_eq(nk, 4);
    cl_kernel ks[4];
    ck_assert_int_eq(clCreateKernelsInProgram(mp, 2, ks, NULL), CL_INVALID_VALUE);
    ck_assert_int_eq(clCreateKernelsInProgram(mp, 4, ks, &nk), CL_SUCCESS);
    int zeros[4] = {0};
    cl_mem xb = aos_test_buffer(ctx, sizeof(zeros), zeros);
    for (int j = 0; j < 4; j++) {
        ck_assert_int_eq(clSetKernelArg(ks[j], 0, sizeof(xb), &xb), CL_SUCCESS);
        ck_assert_int_eq(clEnqueueTask(q, ks[j], 0, NULL, NULL), CL_SUCCESS);
    }
    int xs[4];
    ck_assert_int_eq(clEnqueueReadBuffer(q, xb, CL_TRUE, 0, sizeof(xs), xs, 0, NULL, NULL), CL_SUCCESS);
    for (int j = 0; j < 4; j++)
        ck_assert_int_eq(xs[j], 100 + j);
    for (int j = 0; j < 4; j++)
        clReleaseKernel(ks[j]);

    /* Hundreds of kernel objects and launches with changing arguments. */
    enum { K = 200 };
    cl_kernel *lots = malloc(K * sizeof(cl_kernel));
    for (int j = 0; j < K; j++) {
        lots[j] = clCreateKernel(p, "many", &err);
        ck_assert_int_eq(err, CL_SUCCESS);
    }
    for (int j = 0; j < K; j++)
        ck_assert_int_eq(clReleaseKernel(lots[j]), CL_SUCCESS);
    free(lots);
    for (int j = 0; j < 100; j++) {
        cl_int iv = j;
        ck_assert_int_eq(clSetKernelArg(k, 5, sizeof(iv), &iv), CL_SUCCESS);
        ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL), CL_SUCCESS);
    }
    ck_assert_int_eq(clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof(res), res, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_float_eq(res[4], 99.0f);
    ck_assert_float_eq(res[15], 9.0f);

    clReleaseMemObject(xb);
    clReleaseProgram(mp);
    clReleaseMemObject(out);
    clReleaseMemObject(kbuf);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

START_TEST(test_released_buffer_fails_launch)
{
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    cl_program p = aos_test_build(ctx, "kernel void w(global int *x) { x[get_global_id(0)] = 5; }", NULL);
    cl_int err;
    cl_kernel k = clCreateKernel(p, "w", &err);
    cl_mem b = aos_test_buffer(ctx, 16 * sizeof(int), NULL);
    ck_assert_int_eq(clSetKernelArg(k, 0, sizeof(b), &b), CL_SUCCESS);
    size_t global = 16;
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clFinish(q), CL_SUCCESS);
    ck_assert_int_eq(clReleaseMemObject(b), CL_SUCCESS);
    /* The daemon refuses to launch with a buffer the client no longer holds: the event fails. */
    cl_event ev = NULL;
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, &ev), CL_SUCCESS);
    clWaitForEvents(1, &ev);
    cl_int st = 0;
    ck_assert_int_eq(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL), CL_SUCCESS);
    ck_assert_int_lt(st, 0);
    clReleaseEvent(ev);
    /* A fresh buffer makes it work again, and the session is still alive. */
    cl_mem b2 = aos_test_buffer(ctx, 16 * sizeof(int), NULL);
    ck_assert_int_eq(clSetKernelArg(k, 0, sizeof(b2), &b2), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL), CL_SUCCESS);
    int out[16];
    ck_assert_int_eq(clEnqueueReadBuffer(q, b2, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL), CL_SUCCESS);
    for (int i = 0; i < 16; i++)
        ck_assert_int_eq(out[i], 5);
    clReleaseMemObject(b2);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kernel");
    TCase *tc = tcase_create("kernel");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_vector_add);
    tcase_add_test(tc, test_kernel_info);
    tcase_add_test(tc, test_set_arg_errors);
    tcase_add_test(tc, test_local_memory_reduction);
    tcase_add_test(tc, test_many_args_and_kernels);
    tcase_add_test(tc, test_released_buffer_fails_launch);
    suite_add_tcase(s, tc);
    return aos_test_run_suite(s);
}
