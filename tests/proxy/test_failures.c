/*
 * What a client sees when accelosd is missing or dies: no platform (quickly, with one line of
 * explanation under ACCELOS_DEBUG) when there is no daemon, and errors instead of hangs when the
 * daemon is killed while calls wait on it.
 *
 * Every test here starts (and kills) its own daemon, so the suite does not use
 * aos_test_run_suite. Timing bounds are generous for a loaded 2-core machine but far below what
 * a hang would take: the long kernel below runs for minutes.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "check_run.h"

#include <CL/cl_ext.h>

/* A busy loop far longer than any test: 2 work items, each about 100 * 2^31 iterations. */
static const char *spin_src =
    "kernel void spin(global uint *out, uint outer, uint inner)\n"
    "{\n"
    "    uint x = get_global_id(0) + 1;\n"
    "    for (uint j = 0; j < outer; j++)\n"
    "        for (uint i = 0; i < inner; i++)\n"
    "            x = x * 1664525u + 1013904223u;\n"
    "    out[get_global_id(0)] = x;\n"
    "}\n";

#define KILL_AFTER_US 300000
#define BOUND_S 10.0

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- No daemon ------------------------------------------------------------------------------ */

struct lookup_result {
    cl_int err;
    cl_uint num;
    double seconds;
};

/* Runs clGetPlatformIDs through the loader in a child process (a fresh loader and proxy state)
 * with ACCELOS_SOCKET = socket_path, collecting what the child wrote to stderr. */
static struct lookup_result lookup_in_child(const char *socket_path, bool debug, char *err_text, size_t cap)
{
    int err_pipe[2], res_pipe[2];
    ck_assert_int_eq(pipe(err_pipe), 0);
    ck_assert_int_eq(pipe(res_pipe), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        dup2(err_pipe[1], STDERR_FILENO);
        close(err_pipe[0]);
        close(res_pipe[0]);
        setenv("ACCELOS_SOCKET", socket_path, 1);
        if (debug)
            setenv("ACCELOS_DEBUG", "1", 1);
        else
            unsetenv("ACCELOS_DEBUG");
        struct lookup_result r = {.num = 12345};
        double t0 = now_s();
        r.err = clGetPlatformIDs(0, NULL, &r.num);
        cl_platform_id p;
        cl_int again = clGetPlatformIDs(1, &p, NULL);
        r.seconds = now_s() - t0;
        if (again != r.err)
            r.err = 777; /* both forms must agree */
        _exit(write(res_pipe[1], &r, sizeof(r)) == sizeof(r) ? 0 : 1);
    }
    close(err_pipe[1]);
    close(res_pipe[1]);
    size_t got = 0;
    ssize_t n;
    while (got < cap - 1 && (n = read(err_pipe[0], err_text + got, cap - 1 - got)) > 0)
        got += (size_t)n;
    err_text[got] = '\0';
    struct lookup_result r;
    ck_assert_int_eq(read(res_pipe[0], &r, sizeof(r)), (ssize_t)sizeof(r));
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(err_pipe[0]);
    close(res_pipe[0]);
    return r;
}

static int count_lines(const char *text)
{
    int n = 0;
    for (; *text; text++)
        n += *text == '\n';
    return n;
}

START_TEST(test_no_daemon_no_platform)
{
    const char *path = "/tmp/accelos-test-absent/accelosd.sock";
    char text[4096];
    struct lookup_result r = lookup_in_child(path, true, text, sizeof(text));
    ck_assert_int_eq(r.err, CL_PLATFORM_NOT_FOUND_KHR);
    ck_assert_uint_eq(r.num, 0);
    ck_assert_msg(r.seconds < 2.0, "took %.3f s", r.seconds);
    /* Exactly one line, saying where it looked and why it failed. */
    ck_assert_msg(count_lines(text) == 1, "stderr: '%s'", text);
    ck_assert_ptr_nonnull(strstr(text, "accelOS"));
    ck_assert_ptr_nonnull(strstr(text, path));
    ck_assert_ptr_nonnull(strstr(text, strerror(ENOENT)));

    /* Silent unless asked: ProxyCL runs inside someone else's program. */
    r = lookup_in_child(path, false, text, sizeof(text));
    ck_assert_int_eq(r.err, CL_PLATFORM_NOT_FOUND_KHR);
    ck_assert_str_eq(text, "");
}
END_TEST

/* A Unix socket bound at a fresh path (dir receives the directory, path the socket path). */
static int bind_fresh_socket(char dir[32], char path[64])
{
    snprintf(dir, 32, "/tmp/accelos-test-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, 64, "%s/accelosd.sock", dir);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    ck_assert_int_ge(s, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    memcpy(addr.sun_path, path, strlen(path) + 1);
    ck_assert_int_eq(bind(s, (struct sockaddr *)&addr, sizeof(addr)), 0);
    return s;
}

START_TEST(test_stale_socket_no_platform)
{
    /* A socket file left behind by a dead daemon: connect is refused at once. */
    char dir[32], path[64];
    close(bind_fresh_socket(dir, path)); /* bound, never listening */
    char text[4096];
    struct lookup_result r = lookup_in_child(path, true, text, sizeof(text));
    ck_assert_int_eq(r.err, CL_PLATFORM_NOT_FOUND_KHR);
    ck_assert_msg(r.seconds < 2.0, "took %.3f s", r.seconds);
    ck_assert_msg(count_lines(text) == 1, "stderr: '%s'", text);
    ck_assert_ptr_nonnull(strstr(text, strerror(ECONNREFUSED)));
    unlink(path);
    rmdir(dir);
}
END_TEST

START_TEST(test_mute_daemon_no_platform)
{
    /* Something listens but never answers the hello: bounded by the handshake timeout. */
    char dir[32], path[64];
    int s = bind_fresh_socket(dir, path);
    ck_assert_int_eq(listen(s, 4), 0);
    char text[4096];
    struct lookup_result r = lookup_in_child(path, true, text, sizeof(text));
    ck_assert_int_eq(r.err, CL_PLATFORM_NOT_FOUND_KHR);
    ck_assert_msg(r.seconds < 4.0, "took %.3f s", r.seconds);
    ck_assert_msg(count_lines(text) == 1, "stderr: '%s'", text);
    ck_assert_ptr_nonnull(strstr(text, strerror(ETIMEDOUT)));
    close(s);
    unlink(path);
    rmdir(dir);
}
END_TEST

/* ---- Daemon killed while calls wait --------------------------------------------------------- */

static void start_daemon(void)
{
    aos_test_daemon_start(NULL);
}

static void stop_daemon(void)
{
    aos_test_daemon_stop();
}

struct spin {
    cl_context ctx;
    cl_command_queue q;
    cl_program prog;
    cl_kernel k;
    cl_mem out;
};

static volatile int context_errors;
static volatile pid_t context_error_pid;
static char context_error_text[256];

static void CL_CALLBACK on_context_error(const char *info, const void *priv, size_t cb, void *data)
{
    (void)priv, (void)cb;
    if (data != (void *)&context_errors)
        return; /* wrong user_data: the count stays 0 and the test fails */
    snprintf(context_error_text, sizeof(context_error_text), "%s", info);
    context_error_pid = getpid();
    __atomic_add_fetch(&context_errors, 1, __ATOMIC_SEQ_CST);
}

/* A context (with an error callback), an in-order queue and the spin kernel enqueued on it. */
static void spin_start(struct spin *s, cl_event *ev)
{
    cl_int err;
    cl_device_id d = aos_test_device();
    s->ctx = clCreateContext(NULL, 1, &d, on_context_error, (void *)&context_errors, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    s->q = aos_test_queue(s->ctx, 0);
    s->prog = aos_test_build(s->ctx, spin_src, NULL);
    s->k = clCreateKernel(s->prog, "spin", &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    s->out = clCreateBuffer(s->ctx, CL_MEM_READ_WRITE, 32u << 20, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_uint outer = 100, inner = 1u << 31;
    ck_assert_int_eq(clSetKernelArg(s->k, 0, sizeof(s->out), &s->out), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(s->k, 1, sizeof(outer), &outer), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(s->k, 2, sizeof(inner), &inner), CL_SUCCESS);
    size_t global = 2;
    ck_assert_int_eq(clEnqueueNDRangeKernel(s->q, s->k, 1, NULL, &global, NULL, 0, NULL, ev), CL_SUCCESS);
    ck_assert_int_eq(clFlush(s->q), CL_SUCCESS);
}

static void *killer_main(void *arg)
{
    (void)arg;
    usleep(KILL_AFTER_US);
    kill(aos_test_daemon_pid(), SIGKILL);
    return NULL;
}

static pthread_t kill_daemon_soon(void)
{
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, killer_main, NULL), 0);
    return t;
}

START_TEST(test_finish_fails_when_daemon_dies)
{
    struct spin s;
    spin_start(&s, NULL);
    pid_t daemon = aos_test_daemon_pid();
    pthread_t killer = kill_daemon_soon();
    double t0 = now_s();
    cl_int err = clFinish(s.q);
    double waited = now_s() - t0;
    pthread_join(killer, NULL);
    ck_assert_int_eq(err, CL_OUT_OF_RESOURCES);
    ck_assert_msg(waited < BOUND_S, "clFinish took %.2f s", waited);
    ck_assert_msg(waited >= KILL_AFTER_US * 1e-6 * 0.9, "clFinish returned before the kill (%.2f s)", waited);
    ck_assert_int_eq(waitpid(daemon, NULL, WNOHANG), daemon); /* it really died */

    /* Later calls fail promptly, and nothing waits. */
    t0 = now_s();
    size_t global = 2;
    ck_assert_int_eq(clEnqueueNDRangeKernel(s.q, s.k, 1, NULL, &global, NULL, 0, NULL, NULL), CL_OUT_OF_RESOURCES);
    ck_assert_int_eq(clFinish(s.q), CL_OUT_OF_RESOURCES);
    uint32_t word = 0;
    ck_assert_int_eq(clEnqueueReadBuffer(s.q, s.out, CL_TRUE, 0, 4, &word, 0, NULL, NULL), CL_OUT_OF_RESOURCES);
    ck_assert_int_eq(clEnqueueWriteBuffer(s.q, s.out, CL_FALSE, 0, 4, &word, 0, NULL, NULL), CL_OUT_OF_RESOURCES);
    cl_int cerr;
    ck_assert_ptr_null(clCreateBuffer(s.ctx, CL_MEM_READ_WRITE, 64, NULL, &cerr));
    ck_assert_int_eq(cerr, CL_OUT_OF_RESOURCES);
    ck_assert_ptr_null(clCreateUserEvent(s.ctx, &cerr));
    ck_assert_int_eq(cerr, CL_OUT_OF_RESOURCES);
    /* Releasing still works locally: the application can clean up. */
    ck_assert_int_eq(clReleaseKernel(s.k), CL_SUCCESS);
    ck_assert_int_eq(clReleaseProgram(s.prog), CL_SUCCESS);
    ck_assert_int_eq(clReleaseMemObject(s.out), CL_SUCCESS);
    ck_assert_int_eq(clReleaseCommandQueue(s.q), CL_SUCCESS);
    double later = now_s() - t0;
    ck_assert_msg(later < 1.0, "calls after the daemon died took %.2f s", later);

    /* The context's error callback told this process, once. */
    for (int i = 0; i < 400 && !context_errors; i++)
        usleep(5000);
    ck_assert_int_eq(context_errors, 1);
    ck_assert_int_eq(context_error_pid, getpid());
    ck_assert_ptr_nonnull(strstr(context_error_text, "accelosd"));
    ck_assert_int_eq(clReleaseContext(s.ctx), CL_SUCCESS);
}
END_TEST

struct waiter {
    const char *what;
    struct spin *s;
    cl_event ev;
    size_t read_size;
    cl_int err;
    double seconds;
    pthread_t thread;
};

static void *wait_events_main(void *arg)
{
    struct waiter *w = arg;
    double t0 = now_s();
    w->err = clWaitForEvents(1, &w->ev);
    w->seconds = now_s() - t0;
    return NULL;
}

static void *blocking_read_main(void *arg)
{
    struct waiter *w = arg;
    void *host = malloc(w->read_size);
    double t0 = now_s();
    w->err = clEnqueueReadBuffer(w->s->q, w->s->out, CL_TRUE, 0, w->read_size, host, 0, NULL, NULL);
    w->seconds = now_s() - t0;
    free(host);
    return NULL;
}

START_TEST(test_waits_fail_when_daemon_dies)
{
    struct spin s;
    cl_event kernel_done;
    spin_start(&s, &kernel_done);
    cl_int err;
    cl_event never = clCreateUserEvent(s.ctx, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    /* Several threads block in different ways at once: waits on the kernel and on a user event
     * nobody sets, a blocking read that fits one request, and one that is split into pieces. */
    struct waiter w[] = {
        {.what = "clWaitForEvents(kernel)", .s = &s, .ev = kernel_done},
        {.what = "clWaitForEvents(user event)", .s = &s, .ev = never},
        {.what = "blocking read 4 KiB", .s = &s, .read_size = 4096},
        {.what = "blocking read 24 MiB", .s = &s, .read_size = 24u << 20},
    };
    enum { N = sizeof(w) / sizeof(w[0]) };
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(pthread_create(&w[i].thread, NULL, w[i].ev ? wait_events_main : blocking_read_main, &w[i]), 0);
    pthread_t killer = kill_daemon_soon();
    pthread_join(killer, NULL);
    double t0 = now_s();
    for (int i = 0; i < N; i++) {
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_sec += (time_t)BOUND_S;
        ck_assert_msg(pthread_timedjoin_np(w[i].thread, NULL, &deadline) == 0, "%s still waits %.1f s after the kill",
                      w[i].what, now_s() - t0);
    }
    for (int i = 0; i < N; i++) {
        ck_assert_msg(w[i].err == CL_OUT_OF_RESOURCES, "%s returned %d", w[i].what, w[i].err);
        ck_assert_msg(w[i].seconds < BOUND_S, "%s took %.2f s", w[i].what, w[i].seconds);
    }
    /* Events of the dead daemon report failure rather than pretending to run. */
    cl_int status = 0;
    ck_assert_int_eq(clGetEventInfo(kernel_done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL),
                     CL_OUT_OF_RESOURCES);
    ck_assert_int_eq(clWaitForEvents(1, &kernel_done), CL_OUT_OF_RESOURCES);
    ck_assert_int_eq(clReleaseEvent(kernel_done), CL_SUCCESS);
    ck_assert_int_eq(clReleaseEvent(never), CL_SUCCESS);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("failures");
    TCase *none = tcase_create("no daemon");
    tcase_set_timeout(none, 30);
    tcase_add_test(none, test_no_daemon_no_platform);
    tcase_add_test(none, test_stale_socket_no_platform);
    tcase_add_test(none, test_mute_daemon_no_platform);
    suite_add_tcase(suite, none);
    TCase *dies = tcase_create("daemon dies");
    tcase_set_timeout(dies, 60);
    tcase_add_checked_fixture(dies, start_daemon, stop_daemon);
    tcase_add_test(dies, test_finish_fails_when_daemon_dies);
    tcase_add_test(dies, test_waits_fail_when_daemon_dies);
    suite_add_tcase(suite, dies);
    return aos_check_run(suite);
}
