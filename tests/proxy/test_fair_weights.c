/* Client weights from the configuration (weight.<name>): three applications start the same
 * elastic launch at once on a device that holds fewer of them than that, so they are time-sliced;
 * the one configured with weight 4 must finish well ahead of the two that weigh 1. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "accelos/futex.h"
#include "clients.h"
#include "harness.h"
#include "spin_kernel.h"

static char config_path[64] = "/tmp/accelos-weights-conf-XXXXXX";

static const char *src = AOS_SPIN_KERNEL("churn");

/* About half a second of work alone on a 2-core PoCL device: hundreds of slices per launch. */
enum { LOCAL = 16, GROUPS = 96, N = LOCAL * GROUPS, ROUNDS = 400000, CLIENTS = 3 };

static const char *const names[CLIENTS] = {"aos_heavy", "aos_light_a", "aos_light_b"};

struct clients {
    struct aos_test_gate gate;
    int result[CLIENTS][2]; /* each client's launch time in ns */
};

/* Application `index`, named names[index]: gets ready, waits for the go, runs one launch and
 * reports how long it took. Exit codes: 0 ok, 1 wrong results, 3 setup failed. */
static int client(int index, void *arg)
{
    struct clients *all = arg;
    prctl(PR_SET_NAME, names[index]); /* what weight.<name> matches, read by the daemon at launch */
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    cl_program p = aos_test_build(ctx, src, NULL);
    cl_int err;
    cl_kernel k = clCreateKernel(p, "churn", &err);
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof(uint32_t), NULL, &err);
    if (!k || !out)
        return 3;
    cl_uint rounds = ROUNDS;
    clSetKernelArg(k, 0, sizeof(out), &out);
    clSetKernelArg(k, 1, sizeof(rounds), &rounds);
    if (!aos_test_gate_sync(&all->gate))
        return 3;
    uint64_t t0 = aos_now_ns();
    size_t global = N, local = LOCAL;
    if (clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL) != CL_SUCCESS || clFinish(q) != CL_SUCCESS)
        return 3;
    uint64_t took = aos_now_ns() - t0;
    uint32_t *got = malloc(N * sizeof(uint32_t));
    if (clEnqueueReadBuffer(q, out, CL_TRUE, 0, N * sizeof(uint32_t), got, 0, NULL, NULL) != CL_SUCCESS)
        return 3;
    int bad = 0;
    for (size_t i = 0; i < N; i += 97) /* a spread sample: the full check costs seconds of host time */
        bad |= got[i] != aos_spin_expect((uint32_t)i, ROUNDS);
    bad |= got[N - 1] != aos_spin_expect(N - 1, ROUNDS);
    if (write(all->result[index][1], &took, sizeof(took)) != (ssize_t)sizeof(took))
        return 3;
    return bad;
}

START_TEST(test_heavier_client_finishes_first)
{
    struct clients all;
    aos_test_gate_open(&all.gate);
    pid_t kids[CLIENTS];
    for (int c = 0; c < CLIENTS; c++) {
        ck_assert_int_eq(pipe(all.result[c]), 0);
        kids[c] = aos_test_fork_client(client, c, &all);
        close(all.result[c][1]);
    }
    aos_test_gate_await_ready(&all.gate, CLIENTS);
    aos_test_gate_go(&all.gate, CLIENTS);
    double took[CLIENTS];
    for (int i = 0; i < CLIENTS; i++) {
        uint64_t ns = 0;
        ck_assert_int_eq(read(all.result[i][0], &ns, sizeof(ns)), (ssize_t)sizeof(ns));
        took[i] = (double)ns / 1e9;
        int code = aos_test_reap(kids[i]);
        ck_assert_msg(code == 0, "%s: exit %d (1: wrong results, 3: setup)", names[i], code);
    }
    /* Weight 4 against 1 and 1: the heavy client gets about 4/6 of the device until it is done,
     * so it finishes near 1.5 units of work while the light ones need about 3. With equal weights
     * all three would end close together. */
    double lightest = took[1] < took[2] ? took[1] : took[2];
    fprintf(stderr, "fair_weights: heavy %.3f s, light %.3f s and %.3f s\n", took[0], took[1], took[2]);
    ck_assert_msg(took[0] < 0.75 * lightest, "heavy %.3f s, light %.3f s and %.3f s", took[0], took[1], took[2]);
}
END_TEST

int main(void)
{
    /* Short slices: many rotations within one launch, so the shares show in the end times. */
    if (!aos_test_write_temp(config_path, "slice_ms = 2\nweight.aos_heavy = 4\n")) {
        perror("accelos test: temporary file");
        return 1;
    }
    Suite *s = suite_create("fair_weights");
    TCase *tc = tcase_create("fair_weights");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_heavier_client_finishes_first);
    suite_add_tcase(s, tc);
    const char *const args[] = {"--policy", "fair", "--config", config_path, NULL};
    int rc = aos_test_run_suite_with_args(s, args);
    unlink(config_path);
    return rc;
}
