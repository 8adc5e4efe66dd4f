/* The busy kernel of the scheduler tests: every item hashes its index `rounds` times, so one
 * argument sets the work per item and every result can be checked on the host. */
#ifndef ACCELOS_TEST_SPIN_KERNEL_H
#define ACCELOS_TEST_SPIN_KERNEL_H

#include <CL/cl.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

/* One dependent step on h in round r: OpenCL C, and the same in aos_spin_expect(). */
#define AOS_SPIN_STEP "h = (h ^ (h >> 15)) * 2246822519u + r;"

/* kernel void name(global uint *out, uint rounds): out[i] = the hash of i after `rounds` steps. */
#define AOS_SPIN_KERNEL(name)                                                                       \
    "kernel void " name "(global uint *out, uint rounds)\n"                                         \
    "{ size_t i = get_global_id(0); uint h = (uint)i;\n"                                            \
    "  for (uint r = 0; r < rounds; r++) " AOS_SPIN_STEP "\n"                                       \
    "  out[i] = h; }\n"

/* The parameters and body of the slow-group spin kernel: as AOS_SPIN_KERNEL, but the items of
 * group slow_group run slow_rounds steps instead of rounds (one virtual group far past a limit). */
#define AOS_SPIN_SLOW_GROUP_PARAMS "(global uint *out, uint rounds, uint slow_group, uint slow_rounds)\n"
#define AOS_SPIN_SLOW_GROUP_BODY                                                                   \
    "{ size_t i = get_global_id(0); uint h = (uint)i;\n"                                            \
    "  uint n = get_group_id(0) == slow_group ? slow_rounds : rounds;\n"                            \
    "  for (uint r = 0; r < n; r++) " AOS_SPIN_STEP "\n"                                            \
    "  out[i] = h; }\n"

/* The slow-group spin kernel `name` with a nonce that makes its source new to PoCL's and the
 * JIT's caches, so that the device compiles it during its first launch's waves. */
static inline void aos_spin_cold_source(char *buf, size_t size, const char *name)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    snprintf(buf, size,
             "/* nonce %ld.%09ld.%ld */\n"
             "kernel void %s" AOS_SPIN_SLOW_GROUP_PARAMS AOS_SPIN_SLOW_GROUP_BODY,
             (long)ts.tv_sec, ts.tv_nsec, (long)getpid(), name);
}

/* What AOS_SPIN_STEP leaves in h, starting from `start`, after `rounds` steps. */
static inline uint32_t aos_spin_expect(uint32_t start, uint32_t rounds)
{
    uint32_t h = start;
    for (uint32_t r = 0; r < rounds; r++)
        h = (h ^ (h >> 15)) * 2246822519u + r;
    return h;
}

/* Enqueues the spin kernel k over `groups` groups of `local` items, its results into a new buffer
 * of its own: that buffer, or NULL when a step failed. */
static inline cl_mem aos_spin_enqueue(cl_context ctx, cl_command_queue q, cl_kernel k, size_t groups, size_t local,
                                      cl_uint rounds)
{
    cl_int err;
    size_t n = groups * local;
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * sizeof(uint32_t), NULL, &err);
    if (out && (clSetKernelArg(k, 0, sizeof(out), &out) != CL_SUCCESS ||
                clSetKernelArg(k, 1, sizeof(rounds), &rounds) != CL_SUCCESS ||
                clEnqueueNDRangeKernel(q, k, 1, NULL, &n, &local, 0, NULL, NULL) != CL_SUCCESS)) {
        clReleaseMemObject(out);
        out = NULL;
    }
    return out;
}

/* Launches the slow-group spin kernel k over n items in groups of local, its results into out, and
 * flushes: its event, or NULL when a step failed. */
static inline cl_event aos_spin_slow_group_enqueue(cl_command_queue q, cl_kernel k, cl_mem out, size_t n, size_t local,
                                                   cl_uint rounds, cl_uint slow_group, cl_uint slow_rounds)
{
    cl_event ev = NULL;
    if (clSetKernelArg(k, 0, sizeof(out), &out) != CL_SUCCESS ||
        clSetKernelArg(k, 1, sizeof(rounds), &rounds) != CL_SUCCESS ||
        clSetKernelArg(k, 2, sizeof(slow_group), &slow_group) != CL_SUCCESS ||
        clSetKernelArg(k, 3, sizeof(slow_rounds), &slow_rounds) != CL_SUCCESS ||
        clEnqueueNDRangeKernel(q, k, 1, NULL, &n, &local, 0, NULL, &ev) != CL_SUCCESS)
        return NULL;
    if (clFlush(q) != CL_SUCCESS) {
        clReleaseEvent(ev);
        return NULL;
    }
    return ev;
}

/* Checks a sample of a spin kernel's n results in `out` (first, middle, last: the full check of a
 * long kernel would cost seconds of host time): 0 when right, 1 when one is wrong, 3 when they
 * cannot be read. */
static inline int aos_spin_check_sample(cl_command_queue q, cl_mem out, size_t n, cl_uint rounds)
{
    const size_t at[3] = {0, n / 2 + 1, n - 1};
    for (int i = 0; i < 3; i++) {
        uint32_t got;
        if (clEnqueueReadBuffer(q, out, CL_TRUE, at[i] * sizeof(got), sizeof(got), &got, 0, NULL, NULL) !=
            CL_SUCCESS)
            return 3;
        if (got != aos_spin_expect((uint32_t)at[i], rounds))
            return 1;
    }
    return 0;
}

/* Launches the spin kernel k `n` times over `groups` groups of `local` items, each finished and
 * checked before the next is sent: 0, or 1 wrong results, 3 a failed step. */
static inline int aos_spin_waited_launches(cl_context ctx, cl_command_queue q, cl_kernel k, int n, size_t groups,
                                           size_t local, cl_uint rounds)
{
    for (int i = 0; i < n; i++) {
        cl_mem out = aos_spin_enqueue(ctx, q, k, groups, local, rounds);
        if (!out || clFinish(q) != CL_SUCCESS)
            return 3;
        int rc = aos_spin_check_sample(q, out, groups * local, rounds);
        clReleaseMemObject(out);
        if (rc)
            return rc;
    }
    return 0;
}

#endif
