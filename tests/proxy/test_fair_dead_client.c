/* A client that dies with a long elastic launch under way: the daemon stops that launch at its next
 * wave instead of running the dead client's remaining virtual groups, and serves others at once. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "accelos/futex.h"
#include "clients.h"
#include "harness.h"
#include "spin_kernel.h"
#include "trace_read.h"

static char trace_path[64] = "/tmp/accelos-dead-trace-XXXXXX";

static const char *src =
    AOS_SPIN_KERNEL("doomed")
    "kernel void after(global uint *out) { out[get_global_id(0)] = (uint)get_global_id(0) * 3u + 1u; }\n";

/* About ten seconds of work alone on a 2-core PoCL device, in 96 virtual groups. */
enum { LOCAL = 16, GROUPS = 96, N = LOCAL * GROUPS, ROUNDS = 4000000 };

/* Enqueues the long launch, says so, and waits to be killed. */
static int doomed_client(int index, void *arg)
{
    (void)index;
    struct aos_test_gate *gate = arg;
    cl_context ctx;
    cl_command_queue q;
    cl_kernel k = aos_test_client_kernel(src, "doomed", &ctx, &q);
    if (!k || !aos_spin_enqueue(ctx, q, k, GROUPS, LOCAL, ROUNDS) || clFlush(q) != CL_SUCCESS)
        return 3;
    if (!aos_test_gate_ready(gate))
        return 3;
    for (;;)
        pause();
}

START_TEST(test_dead_clients_launch_stops_at_next_wave)
{
    struct aos_test_gate gate;
    aos_test_gate_open(&gate);
    pid_t kid = aos_test_fork_client(doomed_client, 0, &gate); /* before any OpenCL call here */
    aos_test_gate_await_ready(&gate, 1);
    usleep(300000); /* waves under way */
    uint64_t killed = aos_now_ns();
    ck_assert_int_eq(kill(kid, SIGKILL), 0);
    ck_assert_int_eq(aos_test_reap(kid), 128 + SIGKILL);

    char line[2048];
    ck_assert_msg(trace_find(trace_path, "\"kernel\":\"doomed\"", line, sizeof(line)), "the launch never ended");
    double ended = (double)(aos_now_ns() - killed) / 1e9;
    /* The rest of the launch would take seconds; one wave is a few ms plus one virtual group. */
    ck_assert_msg(ended < 2.0, "ended %.2f s after the kill: %s", ended, line);
    ck_assert_ptr_nonnull(strstr(line, "\"status\":\"failed\""));
    unsigned long long done = trace_field(line, "virtual_groups_done");
    ck_assert_uint_eq(trace_field(line, "virtual_groups"), GROUPS);
    ck_assert_msg(done > 0 && done < GROUPS, "virtual groups done: %llu of %d", done, GROUPS);

    /* Another client is served, with correct results. */
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    cl_program p = aos_test_build(ctx, src, NULL);
    cl_int err;
    cl_kernel k = clCreateKernel(p, "after", &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof(uint32_t), NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 0, sizeof(out), &out), CL_SUCCESS);
    size_t global = N, local = LOCAL;
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL), CL_SUCCESS);
    uint32_t *got = malloc(N * sizeof(uint32_t));
    ck_assert_int_eq(clEnqueueReadBuffer(q, out, CL_TRUE, 0, N * sizeof(uint32_t), got, 0, NULL, NULL), CL_SUCCESS);
    for (uint32_t i = 0; i < N; i++)
        ck_assert_uint_eq(got[i], i * 3u + 1u);
    free(got);
    clReleaseMemObject(out);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

int main(void)
{
    if (!aos_test_write_temp(trace_path, "")) {
        perror("accelos test: temporary file");
        return 1;
    }
    Suite *s = suite_create("fair_dead_client");
    TCase *tc = tcase_create("fair_dead_client");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_dead_clients_launch_stops_at_next_wave);
    suite_add_tcase(s, tc);
    const char *const args[] = {"--policy", "fair", "--trace", trace_path, NULL};
    int rc = aos_test_run_suite_with_args(s, args);
    unlink(trace_path);
    return rc;
}
