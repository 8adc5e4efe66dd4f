/*
 * Probe, built as accelos-direct-probe and run by hand: how close a loop-free elastic shape comes to native speed on
 * the first OpenCL device (PoCL). In the "direct" shape each physical group runs exactly one
 * virtual group, base + get_group_id(0), and a launch is a series of waves of W groups; there
 * is no dequeue loop, atomic or barrier, so PoCL compiles the body as it does the native kernel.
 * Prints the median over reps of native time / direct time, for one wave and for waves of
 * about slice_ms, each waited for or queued while the previous one runs.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *src =
    /* 7-point stencil (Parboil stencil naive_kernel), native. */
    "kernel void st_native(float c0, float c1, global const float *A0, global float *An, int nx, int ny, int nz)\n"
    "{ int i = get_global_id(0), j = get_global_id(1), k = get_global_id(2);\n"
    "  long idx = i + (long)nx * (j + (long)ny * k);\n"
    "  if (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1) { An[idx] = A0[idx]; return; }\n"
    "  long sy = nx, sz = (long)nx * ny;\n"
    "  An[idx] = c1 * (A0[idx - 1] + A0[idx + 1] + A0[idx - sy] + A0[idx + sy] + A0[idx - sz] + A0[idx + sz]) - c0 * A0[idx]; }\n"
    /* The same body with the grid built-ins read from the virtual group base + get_group_id(0). */
    "kernel void st_direct(float c0, float c1, global const float *A0, global float *An, int nx, int ny, int nz,\n"
    "                      uint base, uint ngx, uint ngy)\n"
    "{ uint v = base + (uint)get_group_id(0);\n"
    "  uint gx = v % ngx, gy = (v / ngx) % ngy, gz = v / (ngx * ngy);\n"
    "  int i = (int)(gx * get_local_size(0) + get_local_id(0));\n"
    "  int j = (int)(gy * get_local_size(1) + get_local_id(1));\n"
    "  int k = (int)(gz * get_local_size(2) + get_local_id(2));\n"
    "  long idx = i + (long)nx * (j + (long)ny * k);\n"
    "  if (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1) { An[idx] = A0[idx]; return; }\n"
    "  long sy = nx, sz = (long)nx * ny;\n"
    "  An[idx] = c1 * (A0[idx - 1] + A0[idx + 1] + A0[idx - sy] + A0[idx + sy] + A0[idx - sz] + A0[idx + sz]) - c0 * A0[idx]; }\n"
    "kernel void va_native(global const float *a, global const float *b, global float *c)\n"
    "{ size_t i = get_global_id(0); c[i] = a[i] + b[i]; }\n"
    "kernel void va_direct(global const float *a, global const float *b, global float *c, uint base, uint ngx, uint ngy)\n"
    "{ uint v = base + (uint)get_group_id(0); (void)ngx; (void)ngy;\n"
    "  size_t i = v * get_local_size(0) + get_local_id(0); c[i] = a[i] + b[i]; }\n";

#define CHECK(x)                                                                                    \
    do {                                                                                            \
        cl_int e_ = (x);                                                                            \
        if (e_ != CL_SUCCESS) {                                                                     \
            fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__, #x, e_);                         \
            exit(2);                                                                                \
        }                                                                                           \
    } while (0)

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static cl_command_queue q;

/* One native launch of the whole grid. */
static double run_native(cl_kernel k, const size_t *global, const size_t *local)
{
    double t0 = now_ms();
    CHECK(clEnqueueNDRangeKernel(q, k, 3, NULL, global, local, 0, NULL, NULL));
    CHECK(clFinish(q));
    return now_ms() - t0;
}

/* Waves of `wave` groups over `groups` virtual groups. Each wave is waited for (as the daemon
 * does now) unless `pipelined`: then the next wave is queued while one runs. */
static double run_direct(cl_kernel k, cl_uint base_arg, const size_t *local, cl_uint groups, cl_uint wave,
                         int pipelined)
{
    double t0 = now_ms();
    for (cl_uint base = 0; base < groups; base += wave) {
        cl_uint n = groups - base < wave ? groups - base : wave;
        size_t g[3] = {n * local[0], local[1], local[2]};
        CHECK(clSetKernelArg(k, base_arg, sizeof(base), &base));
        CHECK(clEnqueueNDRangeKernel(q, k, 3, NULL, g, local, 0, NULL, NULL));
        CHECK(pipelined ? clFlush(q) : clFinish(q));
    }
    CHECK(clFinish(q));
    return now_ms() - t0;
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 9;
    double slice_ms = argc > 2 ? atof(argv[2]) : 4.0;
    cl_platform_id plat;
    cl_device_id dev;
    CHECK(clGetPlatformIDs(1, &plat, NULL));
    CHECK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err);
    q = clCreateCommandQueue(ctx, dev, 0, &err);
    CHECK(err);
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    CHECK(err);
    CHECK(clBuildProgram(p, 1, &dev, "-cl-std=CL1.2", NULL, NULL));

    int nx = 256, ny = 256, nz = 256;
    size_t cells = (size_t)nx * ny * nz;
    float *host = malloc(cells * sizeof(float));
    for (size_t i = 0; i < cells; i++)
        host[i] = (float)(i % 97) * 0.25f;
    cl_mem a0 = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, cells * 4, host, &err);
    cl_mem an = clCreateBuffer(ctx, CL_MEM_READ_WRITE, cells * 4, NULL, &err);
    cl_mem an2 = clCreateBuffer(ctx, CL_MEM_READ_WRITE, cells * 4, NULL, &err);
    float c0 = 0.5f, c1 = 1.0f / 6;
    struct {
        const char *name;
        cl_kernel nat, dir;
        size_t global[3], local[3];
        cl_uint base_arg;
    } cases[2];
    cases[0].name = "stencil 256x256x256, local 16x4x1";
    cases[0].nat = clCreateKernel(p, "st_native", &err);
    cases[0].dir = clCreateKernel(p, "st_direct", &err);
    memcpy(cases[0].global, (size_t[3]){(size_t)nx, (size_t)ny, (size_t)nz}, sizeof(size_t[3]));
    memcpy(cases[0].local, (size_t[3]){16, 4, 1}, sizeof(size_t[3]));
    cases[0].base_arg = 7;
    cases[1].name = "vec_add 16M floats, local 64";
    cases[1].nat = clCreateKernel(p, "va_native", &err);
    cases[1].dir = clCreateKernel(p, "va_direct", &err);
    memcpy(cases[1].global, (size_t[3]){cells, 1, 1}, sizeof(size_t[3]));
    memcpy(cases[1].local, (size_t[3]){64, 1, 1}, sizeof(size_t[3]));
    cases[1].base_arg = 3;
    for (int c = 0; c < 2; c++) {
        cl_kernel ks[2] = {cases[c].nat, cases[c].dir};
        for (int v = 0; v < 2; v++) {
            cl_kernel k = ks[v];
            cl_mem out = v ? an2 : an;
            if (c == 0) {
                CHECK(clSetKernelArg(k, 0, 4, &c0));
                CHECK(clSetKernelArg(k, 1, 4, &c1));
                CHECK(clSetKernelArg(k, 2, sizeof(cl_mem), &a0));
                CHECK(clSetKernelArg(k, 3, sizeof(cl_mem), &out));
                CHECK(clSetKernelArg(k, 4, 4, &nx));
                CHECK(clSetKernelArg(k, 5, 4, &ny));
                CHECK(clSetKernelArg(k, 6, 4, &nz));
            } else {
                CHECK(clSetKernelArg(k, 0, sizeof(cl_mem), &a0));
                CHECK(clSetKernelArg(k, 1, sizeof(cl_mem), &a0));
                CHECK(clSetKernelArg(k, 2, sizeof(cl_mem), &out));
            }
        }
        cl_uint ng[3];
        for (int d = 0; d < 3; d++)
            ng[d] = (cl_uint)(cases[c].global[d] / cases[c].local[d]);
        cl_uint groups = ng[0] * ng[1] * ng[2];
        CHECK(clSetKernelArg(cases[c].dir, cases[c].base_arg + 1, 4, &ng[0]));
        CHECK(clSetKernelArg(cases[c].dir, cases[c].base_arg + 2, 4, &ng[1]));
        /* Warm up, check the results match, and size the waves from the native time. */
        double native_ms = run_native(cases[c].nat, cases[c].global, cases[c].local);
        for (int i = 0; i < 5; i++) { /* the fastest of a few sizes the waves: one run is noisy */
            double t = run_native(cases[c].nat, cases[c].global, cases[c].local);
            native_ms = t < native_ms ? t : native_ms;
        }
        run_direct(cases[c].dir, cases[c].base_arg, cases[c].local, groups, groups, 0);
        size_t bytes = cells * 4;
        float *x = malloc(bytes), *y = malloc(bytes);
        CHECK(clEnqueueReadBuffer(q, an, CL_TRUE, 0, bytes, x, 0, NULL, NULL));
        CHECK(clEnqueueReadBuffer(q, an2, CL_TRUE, 0, bytes, y, 0, NULL, NULL));
        if (memcmp(x, y, bytes)) {
            fprintf(stderr, "%s: direct results differ from native\n", cases[c].name);
            return 1;
        }
        free(x);
        free(y);
        cl_uint wave = (cl_uint)((double)groups * slice_ms / native_ms);
        if (wave < 1)
            wave = 1;
        if (wave > groups)
            wave = groups;
        double one[64], sliced[64], piped[64];
        if (reps > 64)
            reps = 64;
        if (reps < 1)
            reps = 1;
        for (int r = 0; r < reps; r++) {
            double n = run_native(cases[c].nat, cases[c].global, cases[c].local);
            one[r] = n / run_direct(cases[c].dir, cases[c].base_arg, cases[c].local, groups, groups, 0);
            n = run_native(cases[c].nat, cases[c].global, cases[c].local);
            sliced[r] = n / run_direct(cases[c].dir, cases[c].base_arg, cases[c].local, groups, wave, 0);
            n = run_native(cases[c].nat, cases[c].global, cases[c].local);
            piped[r] = n / run_direct(cases[c].dir, cases[c].base_arg, cases[c].local, groups, wave, 1);
        }
        qsort(one, (size_t)reps, sizeof(double), cmp);
        qsort(sliced, (size_t)reps, sizeof(double), cmp);
        qsort(piped, (size_t)reps, sizeof(double), cmp);
        printf("%s: %u groups, native %.2f ms; speed of direct against native (median of %d): one wave "
               "%.3fx; waves of %u groups (~%.1f ms) each waited for %.3fx, pipelined %.3fx\n",
               cases[c].name, groups, native_ms, reps, one[reps / 2], wave, slice_ms, sliced[reps / 2],
               piped[reps / 2]);
    }
    return 0;
}
