/* Programs through the proxy: build failures and their logs, compile + link with headers, binary
 * round trips, build callbacks in the client, info, large sources through staging. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CL_USE_DEPRECATED_OPENCL_2_2_APIS
#include "harness.h"

static const char *scale_src = "kernel void scale(global int *x, int f) { size_t i = get_global_id(0); x[i] *= f; }\n";

/* Runs kernel "scale" of p on n ints 0..n-1 with factor f and checks the result. */
static void run_scale(cl_context ctx, cl_command_queue q, cl_program p, int f)
{
    enum { N = 256 };
    int host[N];
    for (int i = 0; i < N; i++)
        host[i] = i;
    cl_int err;
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(host), host, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_kernel k = clCreateKernel(p, "scale", &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 0, sizeof(buf), &buf), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 1, sizeof(int), &f), CL_SUCCESS);
    size_t global = N;
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL), CL_SUCCESS);
    memset(host, 0, sizeof(host));
    ck_assert_int_eq(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof(host), host, 0, NULL, NULL), CL_SUCCESS);
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(host[i], i * f);
    clReleaseKernel(k);
    clReleaseMemObject(buf);
}

START_TEST(test_build_failure_log)
{
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    const char *bad = "kernel void broken(global int *x) { x[0] = undefined_thing_42; }\n";
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, &bad, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_device_id d = aos_test_device();
    ck_assert_int_eq(clBuildProgram(p, 1, &d, NULL, NULL, NULL), CL_BUILD_PROGRAM_FAILURE);
    cl_build_status st = CL_BUILD_NONE;
    ck_assert_int_eq(clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_STATUS, sizeof(st), &st, NULL), CL_SUCCESS);
    ck_assert_int_eq(st, CL_BUILD_ERROR);
    size_t log_size = 0;
    ck_assert_int_eq(clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size), CL_SUCCESS);
    ck_assert_uint_gt(log_size, 1);
    char *log = malloc(log_size);
    ck_assert_int_eq(clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, log_size, log, NULL), CL_SUCCESS);
    ck_assert_ptr_nonnull(strstr(log, "undefined_thing_42"));
    ck_assert_ptr_nonnull(strstr(log, "undeclared identifier"));
    free(log);
    /* No executable: kernels cannot be created. */
    ck_assert_ptr_null(clCreateKernel(p, "broken", &err));
    ck_assert_int_eq(err, CL_INVALID_PROGRAM_EXECUTABLE);
    ck_assert_int_eq(clReleaseProgram(p), CL_SUCCESS);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

START_TEST(test_compile_link_with_header)
{
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    cl_device_id d = aos_test_device();
    cl_int err;
    const char *hdr_src = "#define FACTOR 7\nint times(int v);\n";
    const char *lib_src = "#include \"times.h\"\nint times(int v) { return v * FACTOR; }\n";
    const char *main_src = "#include \"times.h\"\n"
                           "kernel void apply(global int *x) { size_t i = get_global_id(0); x[i] = times(x[i]) + 1; }\n";
    cl_program hdr = clCreateProgramWithSource(ctx, 1, &hdr_src, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_program lib = clCreateProgramWithSource(ctx, 1, &lib_src, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_program mainp = clCreateProgramWithSource(ctx, 1, &main_src, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    const char *names[] = {"times.h"};
    ck_assert_int_eq(clCompileProgram(lib, 1, &d, NULL, 1, &hdr, names, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clCompileProgram(mainp, 1, &d, NULL, 1, &hdr, names, NULL, NULL), CL_SUCCESS);
    cl_program_binary_type bt = 0;
    ck_assert_int_eq(clGetProgramBuildInfo(lib, d, CL_PROGRAM_BINARY_TYPE, sizeof(bt), &bt, NULL), CL_SUCCESS);
    ck_assert_uint_eq(bt, CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);
    /* Without the header the include fails to compile. */
    cl_program lonely = clCreateProgramWithSource(ctx, 1, &lib_src, NULL, &err);
    ck_assert_int_eq(clCompileProgram(lonely, 1, &d, NULL, 0, NULL, NULL, NULL, NULL), CL_COMPILE_PROGRAM_FAILURE);
    clReleaseProgram(lonely);

    cl_program inputs[] = {mainp, lib};
    cl_program linked = clLinkProgram(ctx, 1, &d, NULL, 2, inputs, NULL, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_ptr_nonnull(linked);
    ck_assert_int_eq(clGetProgramBuildInfo(linked, d, CL_PROGRAM_BINARY_TYPE, sizeof(bt), &bt, NULL), CL_SUCCESS);
    ck_assert_uint_eq(bt, CL_PROGRAM_BINARY_TYPE_EXECUTABLE);

    enum { N = 64 };
    int host[N];
    for (int i = 0; i < N; i++)
        host[i] = i;
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, sizeof(host), host, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_kernel k = clCreateKernel(linked, "apply", &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 0, sizeof(buf), &buf), CL_SUCCESS);
    size_t global = N;
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof(host), host, 0, NULL, NULL), CL_SUCCESS);
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(host[i], i * 7 + 1);
    clReleaseKernel(k);
    clReleaseMemObject(buf);
    clReleaseProgram(linked);
    clReleaseProgram(mainp);
    clReleaseProgram(lib);
    clReleaseProgram(hdr);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

START_TEST(test_binary_round_trip)
{
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    cl_device_id d = aos_test_device();
    cl_program p = aos_test_build(ctx, scale_src, NULL);
    size_t size = 0, ret = 0;
    ck_assert_int_eq(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, &ret), CL_SUCCESS);
    ck_assert_uint_eq(ret, sizeof(size_t));
    ck_assert_uint_gt(size, 0);
    unsigned char *bin = malloc(size);
    memset(bin, 0xab, size);
    unsigned char *bins[1] = {bin};
    ck_assert_int_eq(clGetProgramInfo(p, CL_PROGRAM_BINARIES, 0, NULL, &ret), CL_SUCCESS);
    ck_assert_uint_eq(ret, sizeof(bins));
    ck_assert_int_eq(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bins), bins, NULL), CL_SUCCESS);
    /* The second fetch gives the same bytes. */
    unsigned char *again = malloc(size);
    unsigned char *bins2[1] = {again};
    ck_assert_int_eq(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof(bins2), bins2, NULL), CL_SUCCESS);
    ck_assert_int_eq(memcmp(bin, again, size), 0);
    free(again);

    cl_int status = -1, err;
    const unsigned char *cbin = bin;
    cl_program p2 = clCreateProgramWithBinary(ctx, 1, &d, &size, &cbin, &status, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_int_eq(status, CL_SUCCESS);
    ck_assert_int_eq(clBuildProgram(p2, 1, &d, NULL, NULL, NULL), CL_SUCCESS);
    run_scale(ctx, q, p2, 3);

    /* Garbage is refused with a per-device status. */
    unsigned char junk[64];
    memset(junk, 0x5a, sizeof(junk));
    const unsigned char *cjunk = junk;
    size_t jsize = sizeof(junk);
    status = 0;
    cl_program p3 = clCreateProgramWithBinary(ctx, 1, &d, &jsize, &cjunk, &status, &err);
    ck_assert_ptr_null(p3);
    ck_assert_int_eq(err, CL_INVALID_BINARY);
    ck_assert_int_eq(status, CL_INVALID_BINARY);
    /* Missing binaries. */
    size_t zero = 0;
    ck_assert_ptr_null(clCreateProgramWithBinary(ctx, 1, &d, &zero, &cbin, &status, &err));
    ck_assert_int_eq(err, CL_INVALID_VALUE);

    free(bin);
    clReleaseProgram(p2);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

struct cb_record {
    volatile int calls;
    volatile pid_t pid;
    cl_program program;
};

static void CL_CALLBACK on_built(cl_program p, void *data)
{
    struct cb_record *r = data;
    r->program = p;
    r->pid = getpid();
    __atomic_add_fetch(&r->calls, 1, __ATOMIC_SEQ_CST);
}

START_TEST(test_build_callback_in_client)
{
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    cl_device_id d = aos_test_device();
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, &scale_src, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    struct cb_record rec = {0};
    ck_assert_int_eq(clBuildProgram(p, 1, &d, "-cl-fast-relaxed-math", on_built, &rec), CL_SUCCESS);
    for (int i = 0; i < 2000 && !__atomic_load_n(&rec.calls, __ATOMIC_SEQ_CST); i++)
        usleep(10000);
    ck_assert_int_eq(rec.calls, 1);
    ck_assert_int_eq(rec.pid, getpid());
    ck_assert_ptr_eq(rec.program, p);
    cl_build_status st = CL_BUILD_NONE;
    ck_assert_int_eq(clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_STATUS, sizeof(st), &st, NULL), CL_SUCCESS);
    ck_assert_int_eq(st, CL_BUILD_SUCCESS);
    char opts[256] = "";
    ck_assert_int_eq(clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_OPTIONS, sizeof(opts), opts, NULL), CL_SUCCESS);
    ck_assert_ptr_nonnull(strstr(opts, "-cl-fast-relaxed-math"));
    run_scale(ctx, q, p, 5);

    /* A failing build also calls back, and the status says so. */
    const char *bad = "kernel void k(global int *x) { x[0] = nope; }";
    cl_program pb = clCreateProgramWithSource(ctx, 1, &bad, NULL, &err);
    struct cb_record rec2 = {0};
    ck_assert_int_eq(clBuildProgram(pb, 0, NULL, NULL, on_built, &rec2), CL_SUCCESS);
    for (int i = 0; i < 2000 && !__atomic_load_n(&rec2.calls, __ATOMIC_SEQ_CST); i++)
        usleep(10000);
    ck_assert_int_eq(rec2.calls, 1);
    ck_assert_int_eq(clGetProgramBuildInfo(pb, d, CL_PROGRAM_BUILD_STATUS, sizeof(st), &st, NULL), CL_SUCCESS);
    ck_assert_int_eq(st, CL_BUILD_ERROR);
    clReleaseProgram(pb);

    /* user_data without a callback is the caller's error. */
    ck_assert_int_eq(clBuildProgram(p, 0, NULL, NULL, NULL, &rec), CL_INVALID_VALUE);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

START_TEST(test_program_info)
{
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    cl_device_id d = aos_test_device();
    const char *parts[] = {"kernel void first(global int *x) { x[0] = 1; }\n",
                           "kernel void second(global int *x) { x[0] = 2; }\n"};
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 2, parts, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_uint refs = 0;
    ck_assert_int_eq(clGetProgramInfo(p, CL_PROGRAM_REFERENCE_COUNT, sizeof(refs), &refs, NULL), CL_SUCCESS);
    ck_assert_uint_eq(refs, 1);
    ck_assert_int_eq(clRetainProgram(p), CL_SUCCESS);
    ck_assert_int_eq(clGetProgramInfo(p, CL_PROGRAM_REFERENCE_COUNT, sizeof(refs), &refs, NULL), CL_SUCCESS);
    ck_assert_uint_eq(refs, 2);
    ck_assert_int_eq(clReleaseProgram(p), CL_SUCCESS);
    cl_context pctx = NULL;
    ck_assert_int_eq(clGetProgramInfo(p, CL_PROGRAM_CONTEXT, sizeof(pctx), &pctx, NULL), CL_SUCCESS);
    ck_assert_ptr_eq(pctx, ctx);
    cl_uint ndev = 0;
    ck_assert_int_eq(clGetProgramInfo(p, CL_PROGRAM_NUM_DEVICES, sizeof(ndev), &ndev, NULL), CL_SUCCESS);
    ck_assert_uint_eq(ndev, 1);
    cl_device_id pd = NULL;
    ck_assert_int_eq(clGetProgramInfo(p, CL_PROGRAM_DEVICES, sizeof(pd), &pd, NULL), CL_SUCCESS);
    ck_assert_ptr_eq(pd, d);
    size_t src_size = 0;
    ck_assert_int_eq(clGetProgramInfo(p, CL_PROGRAM_SOURCE, 0, NULL, &src_size), CL_SUCCESS);
    ck_assert_uint_eq(src_size, strlen(parts[0]) + strlen(parts[1]) + 1);
    char *src = malloc(src_size);
    ck_assert_int_eq(clGetProgramInfo(p, CL_PROGRAM_SOURCE, src_size, src, NULL), CL_SUCCESS);
    ck_assert_int_eq(strncmp(src, parts[0], strlen(parts[0])), 0);
    ck_assert_str_eq(src + strlen(parts[0]), parts[1]);
    free(src);
    /* Before the build there are no kernels to list. */
    size_t nk = 0;
    ck_assert_int_eq(clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof(nk), &nk, NULL), CL_INVALID_PROGRAM_EXECUTABLE);
    ck_assert_int_eq(clBuildProgram(p, 0, NULL, NULL, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof(nk), &nk, NULL), CL_SUCCESS);
    ck_assert_uint_eq(nk, 2);
    char names[64] = "";
    ck_assert_int_eq(clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, sizeof(names), names, NULL), CL_SUCCESS);
    ck_assert_ptr_nonnull(strstr(names, "first"));
    ck_assert_ptr_nonnull(strstr(names, "second"));
    /* Too small a buffer. */
    ck_assert_int_eq(clGetProgramInfo(p, CL_PROGRAM_CONTEXT, 2, &pctx, NULL), CL_INVALID_VALUE);
    /* Kernels attached: rebuilding is refused. */
    cl_kernel k = clCreateKernel(p, "first", &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_int_eq(clBuildProgram(p, 0, NULL, NULL, NULL, NULL), CL_INVALID_OPERATION);
    clReleaseKernel(k);
    ck_assert_int_eq(clBuildProgram(p, 0, NULL, NULL, NULL, NULL), CL_SUCCESS);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

START_TEST(test_program_errors)
{
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    cl_device_id d = aos_test_device();
    cl_int err;
    ck_assert_ptr_null(clCreateProgramWithSource(ctx, 0, NULL, NULL, &err));
    ck_assert_int_eq(err, CL_INVALID_VALUE);
    const char *nulls[] = {NULL};
    ck_assert_ptr_null(clCreateProgramWithSource(ctx, 1, nulls, NULL, &err));
    ck_assert_int_eq(err, CL_INVALID_VALUE);
    void *garbage = aos_test_forged_handle();
    ck_assert_ptr_null(clCreateProgramWithSource((cl_context)garbage, 1, &scale_src, NULL, &err));
    ck_assert_int_eq(err, CL_INVALID_CONTEXT);
    ck_assert_int_eq(clBuildProgram((cl_program)garbage, 0, NULL, NULL, NULL, NULL), CL_INVALID_PROGRAM);
    ck_assert_int_eq(clRetainProgram(NULL), CL_INVALID_PROGRAM);
    /* PoCL's CPU device takes no IL. */
    static const unsigned char spirv[20] = {0x03, 0x02, 0x23, 0x07};
    ck_assert_ptr_null(clCreateProgramWithIL(ctx, spirv, sizeof(spirv), &err));
    ck_assert_int_eq(err, CL_INVALID_OPERATION);
    cl_program p = clCreateProgramWithSource(ctx, 1, &scale_src, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_ptr_null(clCreateKernel(p, "scale", &err));
    ck_assert_int_eq(err, CL_INVALID_PROGRAM_EXECUTABLE);
    ck_assert_int_eq(clBuildProgram(p, 1, NULL, NULL, NULL, NULL), CL_INVALID_VALUE);
    cl_device_id bogus = (cl_device_id)garbage;
    ck_assert_int_eq(clBuildProgram(p, 1, &bogus, NULL, NULL, NULL), CL_INVALID_DEVICE);
    ck_assert_int_eq(clBuildProgram(p, 1, &d, "-this-is-no-option", NULL, NULL), CL_INVALID_BUILD_OPTIONS);
    ck_assert_int_eq(clBuildProgram(p, 1, &d, NULL, NULL, NULL), CL_SUCCESS);
    ck_assert_ptr_null(clCreateKernel(p, "no_such_kernel", &err));
    ck_assert_int_eq(err, CL_INVALID_KERNEL_NAME);
    ck_assert_ptr_null(clCreateKernel(p, NULL, &err));
    ck_assert_int_eq(err, CL_INVALID_VALUE);
    ck_assert_int_eq(clSetProgramReleaseCallback(p, NULL, NULL), CL_INVALID_VALUE);
    ck_assert_int_eq(clUnloadPlatformCompiler(aos_test_platform()), CL_SUCCESS);
    /* The program still works after the failed attempts. */
    run_scale(ctx, q, p, 2);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

START_TEST(test_large_source_through_staging)
{
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    /* 3 MiB of comment: larger than one request, so the source goes through the data area. */
    size_t pad = 3u << 20;
    size_t head = strlen(scale_src);
    char *src = malloc(head + pad + 8);
    memcpy(src, scale_src, head);
    memcpy(src + head, "/*", 2);
    for (size_t i = 2; i < pad - 2; i++)
        src[head + i] = (char)('a' + i % 26);
    memcpy(src + head + pad - 2, "*/", 2);
    src[head + pad] = '\0';
    cl_program p = aos_test_build(ctx, src, "-D UNUSED_MACRO=1");
    size_t size = 0;
    ck_assert_int_eq(clGetProgramInfo(p, CL_PROGRAM_SOURCE, 0, NULL, &size), CL_SUCCESS);
    ck_assert_uint_eq(size, head + pad + 1);
    char *back = malloc(size);
    ck_assert_int_eq(clGetProgramInfo(p, CL_PROGRAM_SOURCE, size, back, NULL), CL_SUCCESS);
    ck_assert_int_eq(memcmp(back, src, size), 0);
    free(back);
    free(src);
    run_scale(ctx, q, p, 4);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("program");
    TCase *tc = tcase_create("program");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_build_failure_log);
    tcase_add_test(tc, test_compile_link_with_header);
    tcase_add_test(tc, test_binary_round_trip);
    tcase_add_test(tc, test_build_callback_in_client);
    tcase_add_test(tc, test_program_info);
    tcase_add_test(tc, test_program_errors);
    tcase_add_test(tc, test_large_source_through_staging);
    suite_add_tcase(s, tc);
    return aos_test_run_suite(s);
}
