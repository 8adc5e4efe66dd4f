/* Client weights from the configuration (weight.<name>): three applications start the same
 * elastic launch at once on a device that holds fewer of them than that, so they are time-sliced;
 * the one configured with weight 4 must finish well ahead of the two that weigh 1. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "accelos/futex.h"
#include "harness.h"

static char config_path[64] = "/tmp/accelos-weights-conf-XXXXXX";

static const char *src =
    "kernel void churn(global uint *out, uint rounds)\n"
    "{ size_t i = get_global_id(0); uint h = (uint)i;\n"
    "  for (uint r = 0; r < rounds; r++) h = (h ^ (h >> 15)) * 2246822519u + r;\n"
    "  out[i] = h; }\n";

/* About half a second of work alone on a 2-core PoCL device: hundreds of slices per launch. */
enum { LOCAL = 16, GROUPS = 96, N = LOCAL * GROUPS, ROUNDS = 400000, CLIENTS = 3 };

static uint32_t expect(size_t i)
{
    uint32_t h = (uint32_t)i;
    for (uint32_t r = 0; r < ROUNDS; r++)
        h = (h ^ (h >> 15)) * 2246822519u + r;
    return h;
}

/* One application named `name`: gets ready, waits for the go byte, runs one launch and reports
 * how long it took. Exit codes: 0 ok, 1 wrong results, 3 setup failed. */
static int client(const char *name, int go_fd, int ready_fd, int result_fd)
{
    prctl(PR_SET_NAME, name); /* what weight.<name> matches, read by the daemon at launch */
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
    char c = 'r';
    if (write(ready_fd, &c, 1) != 1 || read(go_fd, &c, 1) != 1)
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
        bad |= got[i] != expect(i);
    bad |= got[N - 1] != expect(N - 1);
    if (write(result_fd, &took, sizeof(took)) != (ssize_t)sizeof(took))
        return 3;
    return bad;
}

START_TEST(test_heavier_client_finishes_first)
{
    static const char *const names[CLIENTS] = {"aos_heavy", "aos_light_a", "aos_light_b"};
    int go[2], ready[2], result[CLIENTS][2];
    ck_assert_int_eq(pipe(go), 0);
    ck_assert_int_eq(pipe(ready), 0);
    pid_t kids[CLIENTS];
    for (int c = 0; c < CLIENTS; c++) {
        ck_assert_int_eq(pipe(result[c]), 0);
        kids[c] = fork();
        ck_assert_int_ge(kids[c], 0);
        if (kids[c] == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            _exit(client(names[c], go[0], ready[1], result[c][1]));
        }
        close(result[c][1]);
    }
    char c;
    for (int i = 0; i < CLIENTS; i++)
        ck_assert_int_eq(read(ready[0], &c, 1), 1);
    ck_assert_int_eq(write(go[1], "ggg", CLIENTS), CLIENTS);
    double took[CLIENTS];
    for (int i = 0; i < CLIENTS; i++) {
        uint64_t ns = 0;
        ck_assert_int_eq(read(result[i][0], &ns, sizeof(ns)), (ssize_t)sizeof(ns));
        took[i] = (double)ns / 1e9;
        int status = 0;
        ck_assert_int_eq(waitpid(kids[i], &status, 0), kids[i]);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: status %d (1: wrong results, 3: setup)",
                      names[i], status);
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
