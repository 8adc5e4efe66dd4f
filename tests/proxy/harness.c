#include "harness.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t daemon_pid;
static char tmpdir[256];
static char socket_path[300];

void aos_test_daemon_start(const char *const *extra_args)
{
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/accelos-test-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        exit(1);
    }
    snprintf(socket_path, sizeof(socket_path), "%s/accelosd.sock", tmpdir);
    setenv("ACCELOS_SOCKET", socket_path, 1);
    const char *bin = getenv("ACCELOS_DAEMON_BIN");
    if (!bin) {
        fprintf(stderr, "ACCELOS_DAEMON_BIN is not set\n");
        exit(1);
    }
    const char *argv[16] = {bin, "--socket", socket_path};
    int n = 3;
    /* ACCELOS_TEST_DAEMON_VERBOSE=1 shows the daemon's log when a test needs debugging. */
    if (getenv("ACCELOS_TEST_DAEMON_VERBOSE"))
        argv[n++] = "-vv";
    for (int i = 0; extra_args && extra_args[i] && n < 15; i++)
        argv[n++] = extra_args[i];
    argv[n] = NULL;
    daemon_pid = fork();
    if (daemon_pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM); /* a test that dies early must not leave it running */
        execv(bin, (char *const *)argv);
        _exit(127);
    }
    for (int i = 0; i < 500; i++) {
        struct sockaddr_un addr = {.sun_family = AF_UNIX};
        strcpy(addr.sun_path, socket_path);
        int s = socket(AF_UNIX, SOCK_STREAM, 0);
        int ok = connect(s, (struct sockaddr *)&addr, sizeof(addr)) == 0;
        close(s);
        if (ok)
            return;
        usleep(10000);
    }
    fprintf(stderr, "accelosd did not start\n");
    exit(1);
}

int aos_test_daemon_stop(void)
{
    int ended = 0;
    if (daemon_pid > 0) {
        int status = 0;
        kill(daemon_pid, SIGTERM);
        if (waitpid(daemon_pid, &status, 0) == daemon_pid)
            ended = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        daemon_pid = 0;
    }
    unlink(socket_path);
    rmdir(tmpdir);
    return ended;
}

pid_t aos_test_daemon_pid(void) { return daemon_pid; }

/* The fields of a /proc/.../stat file after "pid (comm) ", from the state (field 3) on, read into
 * buf; NULL when it cannot be read. */
static const char *proc_stat_fields(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t n = fread(buf, 1, size - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *end = strrchr(buf, ')'); /* comm may hold spaces and parentheses */
    return end && end[1] == ' ' ? end + 2 : NULL;
}

bool aos_test_daemon_alive(void)
{
    /* kill(pid, 0) also succeeds on a zombie, and only the parent can reap it: read its state. */
    char path[64], stat[512];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)daemon_pid);
    const char *fields = daemon_pid > 0 ? proc_stat_fields(path, stat, sizeof(stat)) : NULL;
    return fields && fields[0] != 'Z' && fields[0] != 'X';
}

/* utime + stime of a /proc/.../stat file, in ns; false when it cannot be read. */
static bool stat_cpu_ns(const char *path, uint64_t *ns)
{
    char stat[1024];
    const char *fields = proc_stat_fields(path, stat, sizeof(stat));
    /* utime and stime are fields 14 and 15, in clock ticks. */
    unsigned long long utime = 0, stime = 0;
    if (!fields || sscanf(fields, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2)
        return false;
    *ns = (utime + stime) * (1000000000ull / (uint64_t)sysconf(_SC_CLK_TCK));
    return true;
}

uint64_t aos_test_daemon_cpu_ns(void)
{
    char path[64];
    uint64_t ns = 0;
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)daemon_pid);
    ck_assert_msg(stat_cpu_ns(path, &ns), "cannot read %s", path);
    return ns;
}

uint64_t aos_test_daemon_thread_cpu_ns(const char *name)
{
    char dir[64];
    snprintf(dir, sizeof(dir), "/proc/%d/task", (int)daemon_pid);
    DIR *tasks = opendir(dir);
    ck_assert_msg(tasks != NULL, "cannot list %s", dir);
    uint64_t sum = 0;
    int found = 0;
    for (struct dirent *e; (e = readdir(tasks));) {
        if (e->d_name[0] == '.')
            continue;
        char path[384], comm[32] = "";
        size_t len = strlen(name);
        snprintf(path, sizeof(path), "%s/%s/comm", dir, e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue; /* the thread ended */
        bool named = fgets(comm, sizeof(comm), f) && len < sizeof(comm) && strncmp(comm, name, len) == 0 &&
                     (comm[len] == '\n' || comm[len] == '\0');
        fclose(f);
        uint64_t ns;
        snprintf(path, sizeof(path), "%s/%s/stat", dir, e->d_name);
        if (named && stat_cpu_ns(path, &ns)) {
            sum += ns;
            found++;
        }
    }
    closedir(tasks);
    ck_assert_msg(found > 0, "the daemon has no thread named %s", name);
    return sum;
}

const char *aos_test_socket_path(void) { return socket_path; }

void aos_test_print_stacks(pid_t pid, const char *who)
{
    if (system("command -v gdb >/dev/null 2>&1") != 0) {
        fprintf(stderr, "(no gdb here: no stacks of %s, pid %d)\n", who, (int)pid);
        return;
    }
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "gdb -p %d -batch -nx -q -ex 'thread apply all bt' 1>&2 2>/dev/null", (int)pid);
    fprintf(stderr, "---- stacks of %s, pid %d ----\n", who, (int)pid);
    if (system(cmd) != 0)
        fprintf(stderr, "(gdb could not attach to pid %d)\n", (int)pid);
}

cl_platform_id aos_test_platform(void)
{
    cl_platform_id platforms[8];
    cl_uint n = 0;
    ck_assert_int_eq(clGetPlatformIDs(8, platforms, &n), CL_SUCCESS);
    for (cl_uint i = 0; i < n; i++) {
        char name[128] = "";
        clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof(name), name, NULL);
        if (strcmp(name, "accelOS") == 0)
            return platforms[i];
    }
    ck_abort_msg("no accelOS platform among %u", n);
    return NULL;
}

cl_device_id aos_test_device(void)
{
    cl_device_id d;
    ck_assert_int_eq(clGetDeviceIDs(aos_test_platform(), CL_DEVICE_TYPE_ALL, 1, &d, NULL), CL_SUCCESS);
    return d;
}

cl_uint aos_test_compute_units(void)
{
    cl_uint cu = 0;
    ck_assert_int_eq(clGetDeviceInfo(aos_test_device(), CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(cu), &cu, NULL),
                     CL_SUCCESS);
    return cu;
}

void aos_test_context(cl_context *ctx, cl_command_queue *queue)
{
    cl_int err;
    cl_device_id d = aos_test_device();
    *ctx = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    *queue = aos_test_queue(*ctx, CL_QUEUE_PROFILING_ENABLE);
}

cl_command_queue aos_test_queue(cl_context ctx, cl_command_queue_properties props)
{
    cl_int err;
    cl_command_queue q = clCreateCommandQueue(ctx, aos_test_device(), props, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    return q;
}

cl_program aos_test_build(cl_context ctx, const char *source, const char *options)
{
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_device_id d = aos_test_device();
    err = clBuildProgram(p, 1, &d, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[8192] = "";
        clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL);
        ck_abort_msg("build failed (%d): %s", err, log);
    }
    return p;
}

cl_mem aos_test_buffer(cl_context ctx, size_t size, const void *init)
{
    cl_int err;
    cl_mem m = clCreateBuffer(ctx, init ? CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR : CL_MEM_READ_WRITE, size,
                              (void *)init, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    return m;
}

cl_kernel aos_test_kernel(cl_program program, const char *name)
{
    cl_int err;
    cl_kernel k = clCreateKernel(program, name, &err);
    ck_assert_msg(err == CL_SUCCESS, "clCreateKernel(%s): %d", name, err);
    return k;
}

cl_kernel aos_test_client_kernel(const char *source, const char *name, cl_context *ctx, cl_command_queue *queue)
{
    aos_test_context(ctx, queue);
    cl_program p = aos_test_build(*ctx, source, NULL);
    cl_kernel k = clCreateKernel(p, name, NULL);
    clReleaseProgram(p);
    return k;
}

cl_kernel aos_test_app_kernel(const char *source, const char *name, cl_context *ctx, cl_command_queue *queue)
{
    cl_kernel k = aos_test_client_kernel(source, name, ctx, queue);
    ck_assert_msg(k != NULL, "no kernel %s", name);
    return k;
}

void aos_test_app_release(cl_context ctx, cl_command_queue queue, cl_kernel kernel)
{
    clReleaseKernel(kernel);
    clReleaseCommandQueue(queue);
    clReleaseContext(ctx);
}

cl_int aos_test_event_status(cl_event ev)
{
    cl_int st = 1;
    ck_assert_int_eq(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL), CL_SUCCESS);
    return st;
}

int aos_test_run_suite(Suite *suite)
{
    return aos_test_run_suite_with_args(suite, NULL);
}

int aos_test_run_suite_with_args(Suite *suite, const char *const *daemon_args)
{
    aos_test_daemon_start(daemon_args);
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    /* A clean shutdown is part of the test: a crash or a LeakSanitizer report on the way out
     * (sanitizer build) makes the exit status non-zero. */
    int daemon_status = aos_test_daemon_stop();
    if (daemon_status)
        fprintf(stderr, "accelosd ended with status %d after SIGTERM (its report is above)\n", daemon_status);
    return failed || daemon_status ? 1 : 0;
}

int aos_test_run_suite_logical(Suite *suite)
{
    char config[] = "/tmp/accelos-logical-conf-XXXXXX";
    if (!aos_test_write_temp(config, "solo_native_us = 0\n")) {
        perror("accelos test: configuration file");
        return 1;
    }
    const char *const args[] = {"--policy", "fair", "--config", config, NULL};
    int rc = aos_test_run_suite_with_args(suite, args);
    unlink(config);
    return rc;
}

int aos_test_run_suite_fair_traced(Suite *suite, char *trace_path, const char *config)
{
    char config_path[] = "/tmp/accelos-fair-conf-XXXXXX";
    if (!aos_test_write_temp(trace_path, "")) {
        perror("accelos test: trace file");
        return 1;
    }
    if (config && !aos_test_write_temp(config_path, config)) {
        perror("accelos test: configuration file");
        unlink(trace_path);
        return 1;
    }
    const char *const args[] = {"--policy", "fair", "--trace", trace_path, config ? "--config" : NULL, config_path,
                                NULL};
    int rc = aos_test_run_suite_with_args(suite, args);
    if (!getenv("AOS_TEST_KEEP_TRACE")) /* set: the trace stays for a look at what the daemon did */
        unlink(trace_path);
    if (config)
        unlink(config_path);
    return rc;
}

void *aos_test_forged_handle(void)
{
    static void *forged[16];
    cl_platform_id platform = aos_test_platform();
    memcpy(&forged[0], (void *)platform, sizeof(void *));
    return forged;
}

bool aos_test_write_temp(char *path_template, const char *text)
{
    int fd = mkstemp(path_template);
    if (fd < 0)
        return false;
    size_t len = strlen(text);
    bool ok = write(fd, text, len) == (ssize_t)len;
    close(fd);
    return ok;
}
