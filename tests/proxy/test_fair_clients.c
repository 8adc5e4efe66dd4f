/* Two applications running elastic kernels at the same time under the fair policy: each gets its
 * own correct results, and the daemon serves both elastically at once. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients.h"
#include "daemon_status.h"
#include "harness.h"

/* Enough work per item that launches overlap, with results that depend on every item's index. */
static const char *src =
    "kernel void scramble(global const uint *in, global uint *out, uint seed, local uint *tile)\n"
    "{ size_t i = get_global_id(0), l = get_local_id(0);\n"
    "  uint h = in[i] ^ seed;\n"
    "  for (int r = 0; r < 1000; r++) h = h * 1664525u + 1013904223u + (uint)get_group_id(0);\n"
    "  tile[l] = h; barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[i] = tile[get_local_size(0) - 1 - l] + (uint)get_num_groups(0); }\n";

enum { N = 1 << 15, LOCAL = 64, ROUNDS = 16 };

static uint32_t reference(const uint32_t *in, uint32_t seed, size_t i)
{
    size_t g = i / LOCAL, mirror = g * LOCAL + (LOCAL - 1 - i % LOCAL);
    uint32_t h = in[mirror] ^ seed;
    for (int r = 0; r < 1000; r++)
        h = h * 1664525u + 1013904223u + (uint32_t)g;
    return h + (uint32_t)(N / LOCAL);
}

/* Separate pipes: a child that syncs twice on one gate could take the go meant for the other. */
struct gates {
    struct aos_test_gate first; /* both built: run the first launch */
    struct aos_test_gate rest;  /* both ran it: run the others */
};

/* One application: says it is ready, and runs its first launch on the first go and the rest on
 * the second, checking every result. Returns the process exit code. */
static int client(int index, void *arg)
{
    struct gates *gates = arg;
    uint32_t salt = 0x1000u * (uint32_t)(index + 1);
    cl_context ctx;
    cl_command_queue q;
    cl_kernel k = aos_test_client_kernel(src, "scramble", &ctx, &q);
    if (!k)
        return 3;
    cl_int err;
    uint32_t *in = malloc(N * sizeof(uint32_t)), *out = malloc(N * sizeof(uint32_t));
    for (uint32_t i = 0; i < N; i++)
        in[i] = i * 2654435761u + salt;
    cl_mem min = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, N * sizeof(uint32_t), in, &err);
    cl_mem mout = clCreateBuffer(ctx, 0, N * sizeof(uint32_t), NULL, &err);
    clSetKernelArg(k, 0, sizeof(min), &min);
    clSetKernelArg(k, 1, sizeof(mout), &mout);
    clSetKernelArg(k, 3, LOCAL * sizeof(uint32_t), NULL);
    if (!aos_test_gate_sync(&gates->first))
        return 3;
    int bad = 0;
    for (int round = 0; round < ROUNDS && !bad; round++) {
        if (round == 1 && !aos_test_gate_sync(&gates->rest))
            return 3;
        uint32_t seed = salt + (uint32_t)round;
        size_t global = N, local = LOCAL;
        clSetKernelArg(k, 2, sizeof(seed), &seed);
        cl_int e1 = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL);
        cl_int e2 = clEnqueueReadBuffer(q, mout, CL_TRUE, 0, N * sizeof(uint32_t), out, 0, NULL, NULL);
        if (e1 != CL_SUCCESS || e2 != CL_SUCCESS) {
            fprintf(stderr, "client %u round %d: launch %d, read %d\n", salt, round, e1, e2);
            return 4;
        }
        for (size_t i = 0; i < N && !bad; i++)
            bad = out[i] != reference(in, seed, i);
    }
    long long kernels, launches;
    aos_test_status_elastic(getpid(), &kernels, &launches);
    return bad ? 1 : (kernels == 1 && launches == ROUNDS) ? 0 : 2;
}

/* The clients the device's scheduler remembers. */
static long long clients_known(void)
{
    return aos_test_status_scheduler("clients-known");
}

START_TEST(test_two_clients_at_once)
{
    /* Nothing here touches OpenCL before the fork: each child is its own client. */
    struct gates gates;
    aos_test_gate_open(&gates.first);
    aos_test_gate_open(&gates.rest);
    pid_t kids[2];
    for (int c = 0; c < 2; c++)
        kids[c] = aos_test_fork_client(client, c, &gates);
    aos_test_gate_await_ready(&gates.first, 2);
    aos_test_gate_go(&gates.first, 2);
    /* Both have run one launch and are still connected: the daemon serves both elastically. */
    aos_test_gate_await_ready(&gates.rest, 2);
    long long kernels, launches;
    for (int i = 0; i < 2; i++) {
        aos_test_status_elastic(kids[i], &kernels, &launches);
        ck_assert_int_eq(kernels, 1);
        ck_assert_int_eq(launches, 1);
    }
    ck_assert_int_eq(clients_known(), 2);
    /* The remaining rounds of both run at the same time. */
    aos_test_gate_go(&gates.rest, 2);
    for (int i = 0; i < 2; i++) {
        int code = aos_test_reap(kids[i]);
        ck_assert_msg(code == 0, "client %d: exit %d (1: wrong results, 2: not elastic, 3/4: setup)", i, code);
    }
    /* Gone, they are forgotten: a daemon that serves clients for months must not keep each one. */
    long long known = -1;
    for (int i = 0; i < 500 && known != 0; i++) {
        known = clients_known();
        if (known)
            usleep(10000);
    }
    ck_assert_msg(known == 0, "the scheduler still remembers %lld clients that left", known);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fair_clients");
    TCase *tc = tcase_create("fair_clients");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, test_two_clients_at_once);
    suite_add_tcase(s, tc);
    return aos_test_run_suite_logical(s);
}
