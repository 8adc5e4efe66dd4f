/*
 * Several client processes at once: eight forked children, each with its own connection and
 * context, build and run a vector add and check every value, while the daemon's status report
 * (the real `accelosd --status`) lists each of them by pid with the objects it holds. The parent
 * is connected before it forks, so the children also prove that a forked process starts a
 * connection of its own.
 *
 * Children do not use Check's assertions (they are not the test process): they report what
 * failed on stderr and through their exit status.
 */
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include "daemon_status.h"
#include "harness.h"

#define CLIENTS 8
#define N 50000

static const char *vadd_src =
    "kernel void vadd(global const float *a, global const float *b, global float *c, uint n)\n"
    "{ size_t i = get_global_id(0); if (i < n) c[i] = a[i] + b[i]; }\n";

/* Exit codes of a child, one per step, so a failure says where it happened. */
enum child_step {
    STEP_OK = 0, STEP_PLATFORM = 10, STEP_CONTEXT, STEP_BUFFERS, STEP_BUILD, STEP_KERNEL, STEP_RUN,
    STEP_READ, STEP_VALUES, STEP_SYNC,
};

static const char *const step_names[] = {
    [STEP_PLATFORM] = "platform", [STEP_CONTEXT] = "context", [STEP_BUFFERS] = "buffers",
    [STEP_BUILD] = "build",       [STEP_KERNEL] = "kernel",   [STEP_RUN] = "run",
    [STEP_READ] = "read",         [STEP_VALUES] = "values",   [STEP_SYNC] = "sync",
};

/* The step each child is in, in memory shared with the parent: when a child does not finish,
 * the failure says where it is stuck. */
static volatile int *child_at;

static void enter(int client, enum child_step step)
{
    child_at[client] = step;
}

static int step_failed(enum child_step step, int client, cl_int err)
{
    fprintf(stderr, "client %d: step %d failed with %d\n", client, (int)step, err);
    return step;
}

/* One client's whole session; runs in a child process. */
static int run_client(int client)
{
    cl_platform_id platform;
    cl_device_id device;
    cl_uint n = 0;
    enter(client, STEP_PLATFORM);
    cl_int err = clGetPlatformIDs(1, &platform, &n);
    if (err != CL_SUCCESS || n != 1)
        return step_failed(STEP_PLATFORM, client, err);
    err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
    if (err != CL_SUCCESS)
        return step_failed(STEP_PLATFORM, client, err);
    enter(client, STEP_CONTEXT);
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (!ctx)
        return step_failed(STEP_CONTEXT, client, err);
    cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
    if (!q)
        return step_failed(STEP_CONTEXT, client, err);
    static float a[N], b[N], c[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float)(i % 1000) * (float)(client + 1);
        b[i] = (float)(client * 100000 + i);
    }
    enter(client, STEP_BUFFERS);
    cl_mem ma = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, sizeof(a), a, &err);
    cl_mem mb = ma ? clCreateBuffer(ctx, CL_MEM_READ_ONLY, sizeof(b), NULL, &err) : NULL;
    cl_mem mc = mb ? clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof(c), NULL, &err) : NULL;
    if (!mc)
        return step_failed(STEP_BUFFERS, client, err);
    err = clEnqueueWriteBuffer(q, mb, CL_FALSE, 0, sizeof(b), b, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return step_failed(STEP_BUFFERS, client, err);
    enter(client, STEP_BUILD);
    cl_program p = clCreateProgramWithSource(ctx, 1, &vadd_src, NULL, &err);
    if (!p || (err = clBuildProgram(p, 1, &device, NULL, NULL, NULL)) != CL_SUCCESS)
        return step_failed(STEP_BUILD, client, err);
    enter(client, STEP_KERNEL);
    cl_kernel k = clCreateKernel(p, "vadd", &err);
    if (!k)
        return step_failed(STEP_KERNEL, client, err);
    cl_uint count = N;
    err = clSetKernelArg(k, 0, sizeof(ma), &ma);
    err |= clSetKernelArg(k, 1, sizeof(mb), &mb);
    err |= clSetKernelArg(k, 2, sizeof(mc), &mc);
    err |= clSetKernelArg(k, 3, sizeof(count), &count);
    if (err != CL_SUCCESS)
        return step_failed(STEP_KERNEL, client, err);
    size_t global = N;
    enter(client, STEP_RUN);
    if ((err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL)) != CL_SUCCESS)
        return step_failed(STEP_RUN, client, err);
    enter(client, STEP_READ);
    if ((err = clEnqueueReadBuffer(q, mc, CL_TRUE, 0, sizeof(c), c, 0, NULL, NULL)) != CL_SUCCESS)
        return step_failed(STEP_READ, client, err);
    enter(client, STEP_VALUES);
    for (int i = 0; i < N; i++)
        if (c[i] != a[i] + b[i]) {
            fprintf(stderr, "client %d: c[%d] = %f, expected %f\n", client, i, c[i], a[i] + b[i]);
            return STEP_VALUES;
        }
    /* The objects stay alive until the parent has seen them in the status report. */
    enter(client, STEP_OK);
    return STEP_OK;
}

struct status_client {
    pid_t pid;
    unsigned objects;
    unsigned long long bytes;
};

/* Runs the real `accelosd --status` against the test daemon and parses its client lines. */
static int daemon_status(struct status_client *out, int cap, unsigned *devices)
{
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "'%s' --status --socket '%s'", getenv("ACCELOS_DAEMON_BIN"), aos_test_socket_path());
    FILE *f = popen(cmd, "r");
    ck_assert_ptr_nonnull(f);
    char line[1024];
    int n = 0;
    *devices = 0;
    while (fgets(line, sizeof(line), f)) {
        unsigned d;
        if (sscanf(line, "accelosd %u devices", &d) == 1)
            *devices = d;
        if (strncmp(line, "client ", 7) != 0 || strstr(line, " closing"))
            continue;
        char *pid = strstr(line, " pid "), *objects = strstr(line, " objects "), *bytes = strstr(line, " bytes ");
        ck_assert_msg(pid && objects && bytes, "unexpected status line: %s", line);
        ck_assert_int_lt(n, cap);
        out[n].pid = (pid_t)atoi(pid + 5);
        out[n].objects = (unsigned)strtoul(objects + 9, NULL, 10);
        out[n].bytes = strtoull(bytes + 7, NULL, 10);
        n++;
    }
    ck_assert_int_eq(pclose(f), 0);
    return n;
}

/* Fails the test naming the step each unfinished child is in, with the daemon's status report. */
static void report_stuck_children(int finished, const pid_t *pids)
{
    fprintf(stderr, "only %d of %d clients finished their work; where the others are:\n", finished, CLIENTS);
    for (int i = 0; i < CLIENTS; i++)
        if (child_at[i] != STEP_OK)
            fprintf(stderr, "  client %d (pid %d): in step %s\n", i, (int)pids[i],
                    child_at[i] >= 0 ? step_names[child_at[i]] : "(not started)");
    static char text[1 << 16];
    aos_test_status_text(text, sizeof(text));
    fprintf(stderr, "daemon status:\n%s", text);
    for (int i = 0; i < CLIENTS; i++)
        if (child_at[i] != STEP_OK)
            aos_test_print_stacks(pids[i], "a client that did not finish");
    aos_test_print_stacks(aos_test_daemon_pid(), "the daemon");
    ck_abort_msg("only %d of %d clients finished their work (steps above)", finished, CLIENTS);
}

START_TEST(test_eight_clients_at_once)
{
    /* The parent is a client too, connected before it forks: each child must start its own
     * connection instead of using the parent's. */
    cl_context parent_ctx;
    cl_command_queue parent_queue;
    aos_test_context(&parent_ctx, &parent_queue);
    cl_int err;
    uint32_t parent_data[256];
    for (int i = 0; i < 256; i++)
        parent_data[i] = 0xa5a50000u + (uint32_t)i;
    cl_mem parent_buf = clCreateBuffer(parent_ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(parent_data),
                                       parent_data, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    child_at = mmap(NULL, CLIENTS * sizeof(*child_at), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    ck_assert(child_at != MAP_FAILED);
    for (int i = 0; i < CLIENTS; i++)
        child_at[i] = -1;
    int ready[2], go[2];
    ck_assert_int_eq(pipe(ready), 0);
    ck_assert_int_eq(pipe(go), 0);
    pid_t pids[CLIENTS];
    for (int i = 0; i < CLIENTS; i++) {
        pids[i] = fork();
        ck_assert_int_ge(pids[i], 0);
        if (pids[i] == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive a failed test */
            close(ready[0]);
            close(go[1]);
            int rc = run_client(i);
            char done = (char)rc;
            if (write(ready[1], &done, 1) != 1)
                _exit(STEP_SYNC);
            char c;
            while (read(go[0], &c, 1) > 0) /* EOF: the parent has looked at the status */
                ;
            _exit(rc);
        }
    }
    close(ready[1]);
    close(go[0]);
    for (int got = 0; got < CLIENTS; got++) {
        struct pollfd p = {.fd = ready[0], .events = POLLIN};
        if (poll(&p, 1, 60000) != 1)
            report_stuck_children(got, pids);
        char rc;
        ck_assert_int_eq(read(ready[0], &rc, 1), 1);
        ck_assert_msg(rc == STEP_OK, "a client failed at step %d (see its stderr)", rc);
    }

    /* All eight are connected at once and the daemon accounts for each separately. */
    struct status_client seen[64];
    unsigned devices = 0;
    int n = daemon_status(seen, 64, &devices);
    ck_assert_uint_ge(devices, 1);
    ck_assert_int_eq(n, CLIENTS + 1);
    bool parent_seen = false;
    for (int j = 0; j < n; j++)
        parent_seen |= seen[j].pid == getpid();
    ck_assert(parent_seen);
    for (int i = 0; i < CLIENTS; i++) {
        int found = -1;
        for (int j = 0; j < n; j++)
            if (seen[j].pid == pids[i])
                found = j;
        ck_assert_msg(found >= 0, "client pid %d is not in the status report", (int)pids[i]);
        /* context, queue, 3 buffers, program, kernel */
        ck_assert_uint_ge(seen[found].objects, 7);
        ck_assert_uint_ge(seen[found].bytes, 3ull * N * sizeof(float));
    }

    close(go[1]);
    for (int i = 0; i < CLIENTS; i++) {
        int status;
        ck_assert_int_eq(waitpid(pids[i], &status, 0), pids[i]);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "client %d exited with status 0x%x", i, status);
    }
    close(ready[0]);

    /* Their sessions end with their processes; the parent's lives on, untouched. */
    for (int tries = 0; tries < 200 && (n = daemon_status(seen, 64, &devices)) > 1; tries++)
        usleep(20000);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(seen[0].pid, getpid());
    uint32_t back[256];
    ck_assert_int_eq(clEnqueueReadBuffer(parent_queue, parent_buf, CL_TRUE, 0, sizeof(back), back, 0, NULL, NULL),
                     CL_SUCCESS);
    ck_assert_int_eq(memcmp(back, parent_data, sizeof(back)), 0);
    ck_assert_int_eq(clReleaseMemObject(parent_buf), CL_SUCCESS);
    ck_assert_int_eq(clReleaseCommandQueue(parent_queue), CL_SUCCESS);
    ck_assert_int_eq(clReleaseContext(parent_ctx), CL_SUCCESS);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("clients");
    TCase *tc = tcase_create("processes");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_eight_clients_at_once);
    suite_add_tcase(s, tc);
    return aos_test_run_suite(s);
}
