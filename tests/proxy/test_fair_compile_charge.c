/* The device's compile is not the client's device time: on PoCL the first waves of a new kernel
 * also wait while the device compiles its code for their shape (tens of ms, hundreds under a
 * sanitizer). Charged as device time, that put a new client's virtual time hundreds of ms ahead of
 * the others', and its launches behind theirs for as long (test_fair_cut on a cold cache). The
 * launch's trace `device_ns` is what its waves were charged. */
#include <stdint.h>
#include <stdio.h>

#include "harness.h"
#include "spin_kernel.h"
#include "trace_read.h"

static char trace_path[64] = "/tmp/accelos-compile-trace-XXXXXX";

/* A few microseconds of work per group: next to a compile, nothing. */
enum { LOCAL = 16, GROUPS = 8, N = LOCAL * GROUPS, ROUNDS = 100 };

START_TEST(test_a_compile_is_not_charged_as_device_time)
{
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    char src[512];
    aos_spin_cold_source(src, sizeof(src), "cold_charge");
    cl_program p = aos_test_build(ctx, src, NULL);
    cl_kernel k = aos_test_kernel(p, "cold_charge");
    cl_mem out = aos_test_buffer(ctx, N * sizeof(uint32_t), NULL);
    cl_event ev = aos_spin_slow_group_enqueue(q, k, out, N, LOCAL, ROUNDS, UINT32_MAX, 0);
    ck_assert_ptr_nonnull(ev);
    ck_assert_int_eq(clWaitForEvents(1, &ev), CL_SUCCESS);
    ck_assert_int_eq(aos_test_event_status(ev), CL_COMPLETE);
    clReleaseEvent(ev);
    uint32_t got[N];
    ck_assert_int_eq(clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof(got), got, 0, NULL, NULL), CL_SUCCESS);
    for (uint32_t i = 0; i < N; i++)
        ck_assert_uint_eq(got[i], aos_spin_expect(i, ROUNDS));

    char line[4096];
    ck_assert_msg(trace_find(trace_path, "\"kernel\":\"cold_charge\"", line, sizeof(line)), "no trace line");
    unsigned long long span = trace_field(line, "ended_host_ns") - trace_field(line, "admitted_host_ns");
    unsigned long long charged = trace_field(line, "device_ns");
    fprintf(stderr, "compile_charge: launch in flight %.2f ms, charged %.3f ms over %llu waves\n", span / 1e6,
            charged / 1e6, trace_field(line, "waves"));
    /* The launch's own waves take microseconds; it is in flight this long only for the compiles
     * (50-150 ms each for this kernel on a 2-core VM, a linked shared object each: never under
     * 5 ms). Were it shorter, this test would show nothing. */
    ck_assert_msg(span >= 5000000ull, "the launch took only %.2f ms: was its kernel compiled before?", span / 1e6);
    /* Charged with the compiles, device_ns was about the whole span. */
    ck_assert_msg(charged * 4 < span, "charged %.2f ms of a launch in flight %.2f ms: %s", charged / 1e6, span / 1e6,
                  line);

    clReleaseMemObject(out);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fair_compile_charge");
    TCase *tc = tcase_create("fair_compile_charge");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_a_compile_is_not_charged_as_device_time);
    suite_add_tcase(s, tc);
    /* Waves, not one native launch: solo launches are timed by their profiling already. */
    return aos_test_run_suite_fair_traced(s, trace_path, "solo_native_us = 0\n");
}
