/* Forked application processes and their start gate for integration tests (clients.h). */
#include "clients.h"
#include "harness.h"
#include "spin_kernel.h"

#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

pid_t aos_test_fork_client(int (*body)(int index, void *arg), int index, void *arg)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        _exit(body(index, arg));
    }
    return pid;
}

int aos_test_reap(pid_t pid)
{
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void aos_test_gate_open(struct aos_test_gate *g)
{
    ck_assert_int_eq(pipe(g->ready), 0);
    ck_assert_int_eq(pipe(g->go), 0);
}

void aos_test_gate_await_ready(struct aos_test_gate *g, int n)
{
    if (g->ready[1] >= 0) { /* only children write from now on: a read sees EOF when all are gone */
        close(g->ready[1]);
        g->ready[1] = -1;
    }
    for (int i = 0; i < n; i++) {
        char c;
        ck_assert_msg(read(g->ready[0], &c, 1) == 1, "a client ended before it was ready");
    }
}

void aos_test_gate_go(struct aos_test_gate *g, int n)
{
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(write(g->go[1], "g", 1), 1);
}

int aos_test_spin_launch(cl_context ctx, cl_command_queue q, cl_program p, const char *name, size_t groups,
                         size_t local, cl_uint rounds, struct aos_test_gate *sent)
{
    cl_kernel k = clCreateKernel(p, name, NULL);
    cl_mem out = k ? aos_spin_enqueue(ctx, q, k, groups, local, rounds) : NULL;
    if (!out || clFlush(q) != CL_SUCCESS || (sent && !aos_test_gate_ready(sent)))
        return 3;
    int rc = aos_spin_check_sample(q, out, groups * local, rounds);
    clReleaseMemObject(out);
    clReleaseKernel(k);
    return rc;
}

int aos_test_spin_scene_client(int index, void *arg)
{
    struct aos_test_long_short *g = arg;
    const struct aos_test_spin_scene *sc = g->spin;
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    cl_program p = aos_test_build(ctx, sc->src, NULL);
    if (!p || !aos_test_gate_sync(&g->start))
        return 3;
    if (index == 0) {
        size_t groups = sc->long_groups * (sc->long_per_cu ? aos_test_compute_units() : 1);
        return aos_test_spin_launch(ctx, q, p, sc->long_name, groups, sc->local, sc->long_rounds, &g->launched);
    }
    if (!aos_test_gate_sync(&g->go))
        return 3;
    for (int i = 0; i < sc->short_launches; i++) {
        int rc = aos_test_spin_launch(ctx, q, p, sc->short_name, sc->short_groups, sc->local, sc->short_rounds, NULL);
        if (rc)
            return rc;
    }
    return 0;
}

bool aos_test_gate_ready(struct aos_test_gate *g)
{
    return write(g->ready[1], "r", 1) == 1;
}

bool aos_test_gate_sync(struct aos_test_gate *g)
{
    char c;
    return aos_test_gate_ready(g) && read(g->go[0], &c, 1) == 1;
}

void aos_test_long_short_run(int (*body)(int index, void *arg), struct aos_test_long_short *g, unsigned settle_us)
{
    aos_test_gate_open(&g->start);
    aos_test_gate_open(&g->launched);
    aos_test_gate_open(&g->go);
    pid_t kids[2];
    for (int c = 0; c < 2; c++)
        kids[c] = aos_test_fork_client(body, c, g);
    aos_test_gate_await_ready(&g->start, 2);
    aos_test_gate_go(&g->start, 2);
    aos_test_gate_await_ready(&g->launched, 1);
    aos_test_gate_await_ready(&g->go, 1);
    usleep(settle_us);
    aos_test_gate_go(&g->go, 1);
    for (int i = 0; i < 2; i++) {
        int code = aos_test_reap(kids[i]);
        ck_assert_msg(code == 0, "client %d: exit %d (1: wrong results, 3: setup)", i, code);
    }
}

int aos_test_daemon_exit_code(const char *const *args)
{
    const char *bin = getenv("ACCELOS_DAEMON_BIN");
    ck_assert_ptr_nonnull(bin);
    const char *argv[32] = {bin};
    int n = 1;
    for (int i = 0; args[i]; i++) {
        ck_assert_int_lt(n, 31);
        argv[n++] = args[i];
    }
    argv[n] = NULL;
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, STDERR_FILENO);
        execv(bin, (char *const *)argv);
        _exit(127);
    }
    return aos_test_reap(pid);
}
