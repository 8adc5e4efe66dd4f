/*
 * accelos-proxy-bench: what a call costs through ProxyCL, against the same call on PoCL directly,
 * both measured in one process and one run.
 *
 * Design note.
 *  - Both platforms are open at once: the loader is given pocl.icd and accelos.icd (run.sh builds
 *    that vendor directory and starts a private accelosd serving PoCL), and each path is picked by
 *    its platform name. Both paths therefore reach the same PoCL CPU device, directly or through
 *    accelosd.
 *  - Every row is measured on both paths back to back, the order alternating per round, so the
 *    drift of this shared machine hits both alike. A row's value in one round is the median of its
 *    iterations; the table shows the median over rounds of direct, proxy, proxy - direct ("adds")
 *    and proxy / direct, and the range of the per-round ratios.
 *  - Latency is CLOCK_MONOTONIC around one call; the clock's own cost (about 25 ns) is in both
 *    columns and cancels in "adds". Bandwidth is bytes over the median time of one blocking call.
 *  - Round-trip regimes. back-to-back: the next call follows at once, so accelosd's service thread
 *    is still polling the ring. asleep: a pause (1 ms) before each call, longer than the daemon's
 *    polling window (50 us) and the client's (20 us), so both sides sleep on futexes and the call
 *    pays the wake-ups. busy: the same pause, while a second thread of this client sends an async
 *    call (retain + release) every ~25 us, so the daemon is awake serving this client when the
 *    measured call arrives. The direct path gets the same pauses and the same helper thread.
 *  - The handshake floor (pb_floor.h) runs ProxyCL's spin-then-futex handoff between two bare
 *    threads in the same three regimes, so a round trip's cost can be split into the machine's
 *    share (wake-ups of idle vCPUs, threads sharing a CPU) and ProxyCL's.
 *  - Idle CPU: after the rounds, with every object still alive and the connection open, the
 *    daemon's utime+stime ticks, schedstat CPU time and context switches over a window (2 s).
 *  - Results are checked, not only timed: transfers must round-trip a pattern, and a launch after
 *    the clSetKernelArg loop must see the last value set. A wrong result exits 1.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "aos_clenv.h"
#include "aos_json.h"
#include "pb_floor.h"
#include "pb_procstat.h"
#include "pb_util.h"

#define PB_PROXY_PLATFORM "accelOS"
#define PB_DIRECT_PLATFORM "Portable Computing Language"
#define PB_MAX_ROUNDS 64
#define PB_BIG_BYTES (64u << 20)
/* The busy helper's pause; with 1 ns timer slack this gives one call every ~25 us here. */
#define PB_HELPER_PAUSE_NS 5000

/* Exit codes. */
enum { PB_EXIT_OK = 0, PB_EXIT_WRONG = 1, PB_EXIT_USAGE = 2, PB_EXIT_CL = 3 };

static const char pb_source[] = "kernel void pb_empty(void) {}\n"
                                "kernel void pb_args(global int *p, int x) { if (get_global_id(0) == 0) p[0] = x; }\n";

struct pb_opts {
    int rounds;
    int iters;     /* back-to-back latency rows */
    int gap_iters; /* latency rows with a pause before each call */
    int gap_us;
    int bw_iters;  /* 64 MiB transfers; smaller transfers get more */
    double idle_s;
    pid_t daemon_pid;
    const char *json;
};

struct pb_path {
    const char *name; /* "direct" or "proxy" */
    struct aos_clenv env;
    cl_command_queue queue;
    cl_program program;
    cl_kernel empty;
    cl_kernel args;
    cl_mem small; /* pb_args' output; the retain/release row retains and releases it */
    cl_mem spare; /* the busy helper retains and releases this one */
    cl_mem big;   /* transfers */
    /* What the busy helper achieved, over all busy rows. */
    uint64_t helper_calls, helper_long_gaps, helper_ns;
};

enum pb_row {
    ROW_DEVICE_INFO,
    ROW_SET_ARG,
    ROW_RETAIN_RELEASE,
    ROW_ENQUEUE,
    ROW_ENQUEUE_FINISH,
    ROW_RT_INFO_HOT,
    ROW_RT_INFO_ASLEEP,
    ROW_RT_INFO_BUSY,
    ROW_RT_FINISH_HOT,
    ROW_RT_FINISH_ASLEEP,
    ROW_RT_FINISH_BUSY,
    ROW_WRITE_4K,
    ROW_WRITE_1M,
    ROW_WRITE_64M,
    ROW_READ_4K,
    ROW_READ_1M,
    ROW_READ_64M,
    PB_ROW_COUNT
};

struct pb_result {
    double direct[PB_MAX_ROUNDS];
    double proxy[PB_MAX_ROUNDS];
};

struct pb_idle {
    bool have_daemon;
    struct pb_cpu daemon, client;
};

struct pb_ctx {
    struct pb_opts opts;
    double *samples; /* one row's iterations */
    uint8_t *src;    /* 64 MiB pattern, written by the write rows */
    uint8_t *dst;    /* 64 MiB, filled by the read rows */
    struct pb_path paths[2]; /* [0] direct, [1] proxy */
    struct pb_result results[PB_ROW_COUNT];
    double floor[PB_REGIME_COUNT][PB_MAX_ROUNDS]; /* handshake floor by regime, per round */
    struct pb_idle idle;
    char machine[512];
};

enum pb_kind { PB_LATENCY, PB_BANDWIDTH };
enum pb_target { PB_NO_TARGET, PB_ADDS_AT_MOST, PB_RATIO_AT_LEAST };

typedef double (*pb_measure_fn)(struct pb_ctx *c, struct pb_path *p, uint64_t arg);

struct pb_row_def {
    const char *key;   /* JSON */
    const char *label; /* table; the smoke test looks for every one */
    enum pb_kind kind;
    pb_measure_fn measure;
    uint64_t arg; /* enum pb_regime for round trips, bytes for transfers */
    enum pb_target target;
    double limit;
};

/* ---- Helpers ------------------------------------------------------------------------------------ */

static void pb_check(cl_int rc, const char *what, const struct pb_path *p)
{
    if (rc == CL_SUCCESS)
        return;
    fprintf(stderr, "accelos-proxy-bench: %s on the %s path failed: %s (%d)\n", what, p->name, aos_cl_strerror(rc),
            rc);
    exit(PB_EXIT_CL);
}

static void pb_wrong(const char *what, const struct pb_path *p)
{
    fprintf(stderr, "accelos-proxy-bench: wrong result on the %s path: %s\n", p->name, what);
    exit(PB_EXIT_WRONG);
}

/* Untimed iterations before the timed ones: first-call costs (info caches, lazy compilation). */
static int warmup(int n)
{
    int w = n / 10 + 1;
    return w > 50 ? 50 : w;
}

/* ---- Busy helper ------------------------------------------------------------------------------- */

struct pb_helper {
    pthread_t thread;
    struct pb_path *path;
    atomic_bool stop;
    cl_int error;
    uint64_t calls, long_gaps, start, end;
};

static void *helper_main(void *arg)
{
    struct pb_helper *h = arg;
    /* The default 50 us timer slack would stretch every pause past the daemon's polling window. */
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    uint64_t last = pb_now_ns();
    h->start = last;
    while (!atomic_load(&h->stop)) {
        cl_int rc = clRetainMemObject(h->path->spare);
        if (rc == CL_SUCCESS)
            rc = clReleaseMemObject(h->path->spare);
        if (rc != CL_SUCCESS) {
            h->error = rc;
            break;
        }
        uint64_t t = pb_now_ns();
        if (t - last > PB_FLOOR_SERVER_SPIN_NS)
            h->long_gaps++;
        last = t;
        h->calls++;
        pb_sleep_ns(PB_HELPER_PAUSE_NS);
    }
    h->end = pb_now_ns();
    return NULL;
}

static void helper_start(struct pb_helper *h, struct pb_path *p)
{
    memset(h, 0, sizeof(*h));
    h->path = p;
    atomic_init(&h->stop, false);
    if (pthread_create(&h->thread, NULL, helper_main, h) != 0) {
        fprintf(stderr, "accelos-proxy-bench: cannot start the busy helper thread\n");
        exit(PB_EXIT_CL);
    }
    pb_sleep_ns(2000000); /* let it reach its steady pace */
}

static void helper_stop(struct pb_helper *h)
{
    atomic_store(&h->stop, true);
    pthread_join(h->thread, NULL);
    pb_check(h->error, "clRetainMemObject/clReleaseMemObject (busy helper)", h->path);
    h->path->helper_calls += h->calls;
    h->path->helper_long_gaps += h->long_gaps;
    h->path->helper_ns += h->end - h->start;
}

/* ---- Measurements ------------------------------------------------------------------------------ */

typedef cl_int (*pb_call_fn)(struct pb_path *p);

/* Times one call per iteration in the given regime; returns the median in microseconds. */
static double time_calls(struct pb_ctx *c, struct pb_path *p, pb_call_fn call, enum pb_regime regime, const char *what)
{
    int n = regime == PB_BACK_TO_BACK ? c->opts.iters : c->opts.gap_iters;
    uint64_t gap = (uint64_t)c->opts.gap_us * 1000u;
    struct pb_helper helper;
    if (regime == PB_BUSY)
        helper_start(&helper, p);
    for (int i = -warmup(n); i < n; i++) {
        if (regime != PB_BACK_TO_BACK)
            pb_sleep_ns(gap);
        uint64_t t0 = pb_now_ns();
        cl_int rc = call(p);
        uint64_t t1 = pb_now_ns();
        pb_check(rc, what, p);
        if (i >= 0)
            c->samples[i] = (double)(t1 - t0) / 1e3;
    }
    if (regime == PB_BUSY)
        helper_stop(&helper);
    return pb_median(c->samples, n);
}

static cl_int call_device_info(struct pb_path *p)
{
    cl_uint units = 0;
    return clGetDeviceInfo(p->env.device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(units), &units, NULL);
}

/* ProxyCL forwards CL_PLATFORM_VERSION to the daemon on every call (proxycl/platform.c caches
 * device info, not this): a pure round trip. Should it ever be cached, pick another query. */
static cl_int call_platform_info(struct pb_path *p)
{
    char version[256];
    return clGetPlatformInfo(p->env.platform, CL_PLATFORM_VERSION, sizeof(version), version, NULL);
}

static cl_int call_finish(struct pb_path *p)
{
    return clFinish(p->queue);
}

static double m_device_info(struct pb_ctx *c, struct pb_path *p, uint64_t arg)
{
    (void)arg;
    return time_calls(c, p, call_device_info, PB_BACK_TO_BACK, "clGetDeviceInfo");
}

static double m_platform_info(struct pb_ctx *c, struct pb_path *p, uint64_t regime)
{
    return time_calls(c, p, call_platform_info, (enum pb_regime)regime, "clGetPlatformInfo");
}

static double m_finish(struct pb_ctx *c, struct pb_path *p, uint64_t regime)
{
    return time_calls(c, p, call_finish, (enum pb_regime)regime, "clFinish");
}

/* Launches pb_args once and checks that it wrote the value last set with clSetKernelArg. */
static void verify_args_kernel(struct pb_path *p, cl_int expect)
{
    size_t one = 1;
    cl_int got = -1;
    pb_check(clEnqueueNDRangeKernel(p->queue, p->args, 1, NULL, &one, NULL, 0, NULL, NULL), "clEnqueueNDRangeKernel",
             p);
    pb_check(clEnqueueReadBuffer(p->queue, p->small, CL_TRUE, 0, sizeof(got), &got, 0, NULL, NULL),
             "clEnqueueReadBuffer", p);
    if (got != expect) {
        char what[128];
        snprintf(what, sizeof(what), "pb_args wrote %d, the last clSetKernelArg value was %d", got, expect);
        pb_wrong(what, p);
    }
}

static double m_set_arg(struct pb_ctx *c, struct pb_path *p, uint64_t arg)
{
    (void)arg;
    int n = c->opts.iters;
    cl_int x = 0;
    for (int i = -warmup(n); i < n; i++) {
        x = i * 7 + 3;
        uint64_t t0 = pb_now_ns();
        cl_int rc = clSetKernelArg(p->args, 1, sizeof(x), &x);
        uint64_t t1 = pb_now_ns();
        pb_check(rc, "clSetKernelArg", p);
        if (i >= 0)
            c->samples[i] = (double)(t1 - t0) / 1e3;
    }
    verify_args_kernel(p, x);
    return pb_median(c->samples, n);
}

/* Each iteration times a retain and then a release of the same buffer: both are samples. */
static double m_retain_release(struct pb_ctx *c, struct pb_path *p, uint64_t arg)
{
    (void)arg;
    int pairs = c->opts.iters / 2 > 0 ? c->opts.iters / 2 : 1;
    for (int i = -warmup(pairs); i < pairs; i++) {
        uint64_t t0 = pb_now_ns();
        cl_int rc = clRetainMemObject(p->small);
        uint64_t t1 = pb_now_ns();
        pb_check(rc, "clRetainMemObject", p);
        rc = clReleaseMemObject(p->small);
        uint64_t t2 = pb_now_ns();
        pb_check(rc, "clReleaseMemObject", p);
        if (i >= 0) {
            c->samples[2 * i] = (double)(t1 - t0) / 1e3;
            c->samples[2 * i + 1] = (double)(t2 - t1) / 1e3;
        }
    }
    return pb_median(c->samples, 2 * pairs);
}

/* arg 0: the non-blocking enqueue alone (the clFinish after it is untimed); 1: enqueue + clFinish. */
static double m_enqueue(struct pb_ctx *c, struct pb_path *p, uint64_t with_finish)
{
    int n = c->opts.iters;
    size_t one = 1;
    for (int i = -warmup(n); i < n; i++) {
        uint64_t t0 = pb_now_ns();
        cl_int rc = clEnqueueNDRangeKernel(p->queue, p->empty, 1, NULL, &one, NULL, 0, NULL, NULL);
        uint64_t t1 = pb_now_ns();
        pb_check(rc, "clEnqueueNDRangeKernel", p);
        rc = clFinish(p->queue);
        uint64_t t2 = pb_now_ns();
        pb_check(rc, "clFinish", p);
        if (i >= 0)
            c->samples[i] = (double)((with_finish ? t2 : t1) - t0) / 1e3;
    }
    return pb_median(c->samples, n);
}

static int transfer_iters(const struct pb_opts *o, uint64_t bytes)
{
    int n = bytes >= PB_BIG_BYTES ? o->bw_iters : bytes >= (1u << 20) ? o->iters / 16 : o->iters / 2;
    return n < 2 ? 2 : n;
}

/* Blocking transfers of bytes; returns MB/s (10^6 bytes per second) from the median time. */
static double time_transfer(struct pb_ctx *c, struct pb_path *p, uint64_t bytes, bool write)
{
    int n = transfer_iters(&c->opts, bytes);
    for (int i = -1; i < n; i++) {
        uint64_t t0 = pb_now_ns();
        cl_int rc = write ? clEnqueueWriteBuffer(p->queue, p->big, CL_TRUE, 0, bytes, c->src, 0, NULL, NULL)
                          : clEnqueueReadBuffer(p->queue, p->big, CL_TRUE, 0, bytes, c->dst, 0, NULL, NULL);
        uint64_t t1 = pb_now_ns();
        pb_check(rc, write ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer", p);
        if (i >= 0)
            c->samples[i] = (double)(t1 - t0);
    }
    double ns = pb_median(c->samples, n);
    return ns > 0 ? (double)bytes / ns * 1e3 : 0;
}

static double m_write(struct pb_ctx *c, struct pb_path *p, uint64_t bytes)
{
    return time_transfer(c, p, bytes, true);
}

/* The big buffer holds the pattern (setup wrote it, and so does every write row): check the read. */
static double m_read(struct pb_ctx *c, struct pb_path *p, uint64_t bytes)
{
    memset(c->dst, 0, bytes);
    double mbs = time_transfer(c, p, bytes, false);
    if (memcmp(c->dst, c->src, bytes) != 0)
        pb_wrong("a blocking read returned bytes that differ from those written", p);
    return mbs;
}

/* ---- Rows -------------------------------------------------------------------------------------- */

/* Targets from the ProxyCL issue: calls needing no answer add <= 1 us; a blocking round trip adds
 * <= 5 us with the daemon asleep and <= 2 us with it busy (back-to-back counts as busy: the daemon
 * is still polling); 64 MiB transfers reach >= 0.8x direct bandwidth. */
static const struct pb_row_def pb_rows[PB_ROW_COUNT] = {
    [ROW_DEVICE_INFO] = {"device_info", "clGetDeviceInfo(MAX_COMPUTE_UNITS)", PB_LATENCY, m_device_info, 0,
                         PB_NO_TARGET, 0},
    [ROW_SET_ARG] = {"set_kernel_arg", "clSetKernelArg(int)", PB_LATENCY, m_set_arg, 0, PB_ADDS_AT_MOST, 1.0},
    [ROW_RETAIN_RELEASE] = {"retain_release", "clRetainMemObject/clReleaseMemObject", PB_LATENCY, m_retain_release,
                            0, PB_ADDS_AT_MOST, 1.0},
    [ROW_ENQUEUE] = {"enqueue", "clEnqueueNDRangeKernel, non-blocking", PB_LATENCY, m_enqueue, 0, PB_ADDS_AT_MOST,
                     1.0},
    [ROW_ENQUEUE_FINISH] = {"enqueue_finish", "clEnqueueNDRangeKernel + clFinish", PB_LATENCY, m_enqueue, 1,
                            PB_NO_TARGET, 0},
    [ROW_RT_INFO_HOT] = {"rt_info_back_to_back", "round trip clGetPlatformInfo, back-to-back", PB_LATENCY,
                         m_platform_info, PB_BACK_TO_BACK, PB_ADDS_AT_MOST, 2.0},
    [ROW_RT_INFO_ASLEEP] = {"rt_info_asleep", "round trip clGetPlatformInfo, asleep", PB_LATENCY, m_platform_info,
                            PB_ASLEEP, PB_ADDS_AT_MOST, 5.0},
    [ROW_RT_INFO_BUSY] = {"rt_info_busy", "round trip clGetPlatformInfo, busy", PB_LATENCY, m_platform_info, PB_BUSY,
                          PB_ADDS_AT_MOST, 2.0},
    [ROW_RT_FINISH_HOT] = {"rt_finish_back_to_back", "round trip clFinish (empty), back-to-back", PB_LATENCY,
                           m_finish, PB_BACK_TO_BACK, PB_ADDS_AT_MOST, 2.0},
    [ROW_RT_FINISH_ASLEEP] = {"rt_finish_asleep", "round trip clFinish (empty), asleep", PB_LATENCY, m_finish,
                              PB_ASLEEP, PB_ADDS_AT_MOST, 5.0},
    [ROW_RT_FINISH_BUSY] = {"rt_finish_busy", "round trip clFinish (empty), busy", PB_LATENCY, m_finish, PB_BUSY,
                            PB_ADDS_AT_MOST, 2.0},
    [ROW_WRITE_4K] = {"write_4k", "write 4 KiB (blocking)", PB_BANDWIDTH, m_write, 4u << 10, PB_NO_TARGET, 0},
    [ROW_WRITE_1M] = {"write_1m", "write 1 MiB (blocking)", PB_BANDWIDTH, m_write, 1u << 20, PB_NO_TARGET, 0},
    [ROW_WRITE_64M] = {"write_64m", "write 64 MiB (blocking)", PB_BANDWIDTH, m_write, PB_BIG_BYTES,
                       PB_RATIO_AT_LEAST, 0.8},
    [ROW_READ_4K] = {"read_4k", "read 4 KiB (blocking)", PB_BANDWIDTH, m_read, 4u << 10, PB_NO_TARGET, 0},
    [ROW_READ_1M] = {"read_1m", "read 1 MiB (blocking)", PB_BANDWIDTH, m_read, 1u << 20, PB_NO_TARGET, 0},
    [ROW_READ_64M] = {"read_64m", "read 64 MiB (blocking)", PB_BANDWIDTH, m_read, PB_BIG_BYTES, PB_RATIO_AT_LEAST,
                      0.8},
};

/* By enum pb_regime. */
static const char *const pb_floor_keys[PB_REGIME_COUNT] = {"back_to_back", "asleep", "busy"};
static const char *const pb_floor_labels[PB_REGIME_COUNT] = {
    "handshake floor, back-to-back", "handshake floor, asleep", "handshake floor, busy"};

#define PB_IDLE_DAEMON_LABEL "idle accelosd, client connected"
#define PB_IDLE_CLIENT_LABEL "idle client process (both paths)"

struct pb_summary {
    double direct, proxy, adds, ratio, ratio_lo, ratio_hi;
    const char *verdict; /* NULL without a target */
};

static struct pb_summary summarize(const struct pb_row_def *def, const struct pb_result *r, int rounds)
{
    double adds[PB_MAX_ROUNDS], ratios[PB_MAX_ROUNDS];
    struct pb_summary s = {.ratio_lo = 0, .ratio_hi = 0};
    for (int i = 0; i < rounds; i++) {
        adds[i] = r->proxy[i] - r->direct[i];
        ratios[i] = r->direct[i] > 0 ? r->proxy[i] / r->direct[i] : 0;
        if (i == 0 || ratios[i] < s.ratio_lo)
            s.ratio_lo = ratios[i];
        if (i == 0 || ratios[i] > s.ratio_hi)
            s.ratio_hi = ratios[i];
    }
    s.direct = pb_median(r->direct, rounds);
    s.proxy = pb_median(r->proxy, rounds);
    s.adds = pb_median(adds, rounds);
    s.ratio = pb_median(ratios, rounds);
    if (def->target == PB_ADDS_AT_MOST)
        s.verdict = s.adds <= def->limit ? "PASS" : "MISS";
    else if (def->target == PB_RATIO_AT_LEAST)
        s.verdict = s.ratio >= def->limit ? "PASS" : "MISS";
    return s;
}

static void target_text(const struct pb_row_def *def, char *buf, size_t size)
{
    if (def->target == PB_ADDS_AT_MOST)
        snprintf(buf, size, "adds <= %g us", def->limit);
    else if (def->target == PB_RATIO_AT_LEAST)
        snprintf(buf, size, "ratio >= %.2f", def->limit);
    else
        snprintf(buf, size, "-");
}

/* ---- Set-up ------------------------------------------------------------------------------------ */

static void path_open(struct pb_path *p, const char *name, const char *platform)
{
    char err[512];
    cl_int rc;
    p->name = name;
    if (aos_clenv_open(&p->env, platform, err, sizeof(err)) < 0) {
        fprintf(stderr, "accelos-proxy-bench: %s path: %s\n", name, err);
        if (strcmp(platform, PB_PROXY_PLATFORM) == 0)
            fprintf(stderr, "accelos-proxy-bench: run it through bench/proxy/run.sh, which starts accelosd\n");
        exit(PB_EXIT_CL);
    }
    p->queue = clCreateCommandQueue(p->env.context, p->env.device, 0, &rc);
    pb_check(rc, "clCreateCommandQueue", p);
    const char *src = pb_source;
    p->program = clCreateProgramWithSource(p->env.context, 1, &src, NULL, &rc);
    pb_check(rc, "clCreateProgramWithSource", p);
    rc = clBuildProgram(p->program, 1, &p->env.device, NULL, NULL, NULL);
    if (rc != CL_SUCCESS) {
        char log[4096] = "";
        clGetProgramBuildInfo(p->program, p->env.device, CL_PROGRAM_BUILD_LOG, sizeof(log) - 1, log, NULL);
        fprintf(stderr, "accelos-proxy-bench: build log (%s path):\n%s\n", name, log);
        pb_check(rc, "clBuildProgram", p);
    }
    p->empty = clCreateKernel(p->program, "pb_empty", &rc);
    pb_check(rc, "clCreateKernel(pb_empty)", p);
    p->args = clCreateKernel(p->program, "pb_args", &rc);
    pb_check(rc, "clCreateKernel(pb_args)", p);
    p->small = clCreateBuffer(p->env.context, CL_MEM_READ_WRITE, 64, NULL, &rc);
    pb_check(rc, "clCreateBuffer(64 B)", p);
    p->spare = clCreateBuffer(p->env.context, CL_MEM_READ_WRITE, 64, NULL, &rc);
    pb_check(rc, "clCreateBuffer(64 B)", p);
    p->big = clCreateBuffer(p->env.context, CL_MEM_READ_WRITE, PB_BIG_BYTES, NULL, &rc);
    pb_check(rc, "clCreateBuffer(64 MiB)", p);
    pb_check(clSetKernelArg(p->args, 0, sizeof(p->small), &p->small), "clSetKernelArg", p);
    cl_int x = 42;
    pb_check(clSetKernelArg(p->args, 1, sizeof(x), &x), "clSetKernelArg", p);
    verify_args_kernel(p, x);
}

/* Writes the pattern into the big buffer and reads each size back. */
static void path_verify_transfers(struct pb_ctx *c, struct pb_path *p)
{
    pb_check(clEnqueueWriteBuffer(p->queue, p->big, CL_TRUE, 0, PB_BIG_BYTES, c->src, 0, NULL, NULL),
             "clEnqueueWriteBuffer", p);
    const size_t sizes[] = {4u << 10, 1u << 20, PB_BIG_BYTES};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        memset(c->dst, 0, sizes[i]);
        pb_check(clEnqueueReadBuffer(p->queue, p->big, CL_TRUE, 0, sizes[i], c->dst, 0, NULL, NULL),
                 "clEnqueueReadBuffer", p);
        if (memcmp(c->dst, c->src, sizes[i]) != 0)
            pb_wrong("a blocking read after a blocking write returned other bytes", p);
    }
}

static void path_close(struct pb_path *p)
{
    clReleaseMemObject(p->big);
    clReleaseMemObject(p->spare);
    clReleaseMemObject(p->small);
    clReleaseKernel(p->args);
    clReleaseKernel(p->empty);
    clReleaseProgram(p->program);
    clReleaseCommandQueue(p->queue);
    aos_clenv_close(&p->env);
}

/* ---- Idle CPU ---------------------------------------------------------------------------------- */

static void measure_idle(struct pb_ctx *c)
{
    const struct pb_opts *o = &c->opts;
    struct pb_path *paths = c->paths;
    struct pb_idle idle = {0};
    for (int i = 0; i < 2; i++)
        pb_check(clFinish(paths[i].queue), "clFinish", &paths[i]);
    pb_sleep_ns(200000000); /* past every polling window */
    struct pb_cpu d0, d1, c0, c1;
    idle.have_daemon = o->daemon_pid > 0 && pb_cpu_sample(o->daemon_pid, &d0) == 0;
    pb_cpu_sample(getpid(), &c0);
    pb_sleep_ns((uint64_t)(o->idle_s * 1e9));
    if (idle.have_daemon && pb_cpu_sample(o->daemon_pid, &d1) == 0)
        idle.daemon = pb_cpu_delta(&d0, &d1);
    else
        idle.have_daemon = false;
    pb_cpu_sample(getpid(), &c1);
    idle.client = pb_cpu_delta(&c0, &c1);
    c->idle = idle;
}

/* No CPU: not one tick of utime/stime and not one thread woken during the window. */
static const char *idle_verdict(const struct pb_idle *idle)
{
    if (!idle->have_daemon)
        return "SKIP";
    return idle->daemon.ticks == 0 && idle->daemon.switches == 0 ? "PASS" : "MISS";
}

/* ---- Output ------------------------------------------------------------------------------------ */

static void print_table(const struct pb_ctx *c)
{
    const struct pb_path *paths = c->paths;
    const struct pb_idle *idle = &c->idle;
    const struct pb_opts *o = &c->opts;
    const struct pb_path *proxy = &paths[1];
    printf("accelOS proxy benchmark: direct = PoCL in this process; proxy = accelOS platform -> accelosd -> PoCL\n");
    printf("machine: %s\n", c->machine);
    printf("device: %s (direct) / %s (proxy)\n", paths[0].env.device_name, proxy->env.device_name);
    printf("rounds %d; per round: %d iterations back-to-back, %d with a %d us pause, 64 MiB x %d\n", o->rounds,
           o->iters, o->gap_iters, o->gap_us, o->bw_iters);
    printf("each value: median over rounds of the per-round median; adds = proxy - direct; ratio = proxy/direct\n\n");
    printf("%-44s %10s %10s %9s %8s %15s  %-15s %s\n", "latency (us)", "direct", "proxy", "adds", "ratio",
           "ratio lo..hi", "target", "verdict");
    for (int r = 0; r < PB_ROW_COUNT; r++) {
        const struct pb_row_def *def = &pb_rows[r];
        if (r == ROW_WRITE_4K)
            printf("\n%-44s %10s %10s %9s %8s %15s  %-15s %s\n", "bandwidth (MB/s)", "direct", "proxy", "", "ratio",
                   "ratio lo..hi", "target", "verdict");
        struct pb_summary s = summarize(def, &c->results[r], o->rounds);
        char target[32], range[32], adds[16];
        target_text(def, target, sizeof(target));
        snprintf(range, sizeof(range), "%.2f..%.2f", s.ratio_lo, s.ratio_hi);
        if (def->kind == PB_LATENCY) {
            snprintf(adds, sizeof(adds), "%+.3f", s.adds);
            printf("%-44s %10.3f %10.3f %9s %8.3f %15s  %-15s %s\n", def->label, s.direct, s.proxy, adds, s.ratio,
                   range, target, s.verdict ? s.verdict : "-");
        } else {
            printf("%-44s %10.0f %10.0f %9s %8.3f %15s  %-15s %s\n", def->label, s.direct, s.proxy, "", s.ratio,
                   range, target, s.verdict ? s.verdict : "-");
        }
    }
    printf("\nhandshake floor (median us): ProxyCL's spin-then-futex handoff between two bare threads of this\n"
           "process, no OpenCL and no ring; the least a round trip with that handshake costs on this machine\n");
    for (int m = 0; m < PB_REGIME_COUNT; m++)
        printf("%-44s %10.3f\n", pb_floor_labels[m], pb_median(c->floor[m], o->rounds));
    printf("\nidle CPU over %.1f s (client connected, not calling)\n", o->idle_s);
    if (idle->have_daemon)
        printf("%-44s %llu ticks, %.3f ms on CPU, %llu wake-ups, %u threads   target: no CPU   %s\n",
               PB_IDLE_DAEMON_LABEL, (unsigned long long)idle->daemon.ticks, (double)idle->daemon.run_ns / 1e6,
               (unsigned long long)idle->daemon.switches, idle->daemon.threads, idle_verdict(idle));
    else
        printf("%-44s n/a (no --daemon-pid)   target: no CPU   SKIP\n", PB_IDLE_DAEMON_LABEL);
    printf("%-44s %llu ticks, %.3f ms on CPU, %llu wake-ups, %u threads   (no target)\n", PB_IDLE_CLIENT_LABEL,
           (unsigned long long)idle->client.ticks, (double)idle->client.run_ns / 1e6,
           (unsigned long long)idle->client.switches, idle->client.threads);
    for (int i = 0; i < 2; i++) {
        const struct pb_path *p = &paths[i];
        if (p->helper_calls)
            printf("busy helper (%s): one retain+release every %.1f us; %.2f %% of its gaps over %d us\n", p->name,
                   (double)p->helper_ns / 1e3 / (double)p->helper_calls,
                   100.0 * (double)p->helper_long_gaps / (double)p->helper_calls, PB_FLOOR_SERVER_SPIN_NS / 1000);
    }
}

static void json_number_array(FILE *f, const double *v, int n)
{
    fputc('[', f);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%.6g", i ? "," : "", v[i]);
    fputc(']', f);
}

static void json_cpu(FILE *f, const struct pb_cpu *cpu)
{
    fprintf(f, "{\"ticks\":%llu,\"cpu_ns\":%llu,\"wakeups\":%llu,\"threads\":%u}", (unsigned long long)cpu->ticks,
            (unsigned long long)cpu->run_ns, (unsigned long long)cpu->switches, cpu->threads);
}

static int write_json(const struct pb_ctx *c)
{
    const struct pb_path *paths = c->paths;
    const struct pb_result *results = c->results;
    const struct pb_idle *idle = &c->idle;
    const struct pb_opts *o = &c->opts;
    FILE *f = fopen(o->json, "w");
    if (!f) {
        fprintf(stderr, "accelos-proxy-bench: cannot write %s: %s\n", o->json, strerror(errno));
        return -errno;
    }
    fprintf(f, "{\"machine\":");
    aos_json_put_string(f, c->machine);
    fprintf(f, ",\"device\":");
    aos_json_put_string(f, paths[1].env.device_name);
    fprintf(f, ",\"rounds\":%d,\"iters\":%d,\"gap_iters\":%d,\"gap_us\":%d,\"bw_iters\":%d,\"rows\":[", o->rounds,
            o->iters, o->gap_iters, o->gap_us, o->bw_iters);
    for (int r = 0; r < PB_ROW_COUNT; r++) {
        const struct pb_row_def *def = &pb_rows[r];
        struct pb_summary s = summarize(def, &results[r], o->rounds);
        char target[32];
        target_text(def, target, sizeof(target));
        fprintf(f, "%s{\"key\":\"%s\",\"label\":", r ? "," : "", def->key);
        aos_json_put_string(f, def->label);
        fprintf(f, ",\"unit\":\"%s\",\"direct\":%.6g,\"proxy\":%.6g,", def->kind == PB_LATENCY ? "us" : "MB/s",
                s.direct, s.proxy);
        if (def->kind == PB_LATENCY)
            fprintf(f, "\"adds\":%.6g,", s.adds);
        fprintf(f, "\"ratio\":%.6g,\"ratio_lo\":%.6g,\"ratio_hi\":%.6g,\"target\":", s.ratio, s.ratio_lo, s.ratio_hi);
        aos_json_put_string(f, target);
        fprintf(f, ",\"verdict\":%s%s%s,\"rounds_direct\":", s.verdict ? "\"" : "", s.verdict ? s.verdict : "null",
                s.verdict ? "\"" : "");
        json_number_array(f, results[r].direct, o->rounds);
        fprintf(f, ",\"rounds_proxy\":");
        json_number_array(f, results[r].proxy, o->rounds);
        fputc('}', f);
    }
    fprintf(f, "],\"idle\":{\"seconds\":%.6g,\"daemon_pid\":%d,\"daemon\":", o->idle_s, (int)o->daemon_pid);
    if (idle->have_daemon)
        json_cpu(f, &idle->daemon);
    else
        fprintf(f, "null");
    fprintf(f, ",\"verdict\":\"%s\",\"client\":", idle_verdict(idle));
    json_cpu(f, &idle->client);
    fprintf(f, "},\"floor\":{");
    for (int m = 0; m < PB_REGIME_COUNT; m++) {
        fprintf(f, "%s\"%s\":", m ? "," : "", pb_floor_keys[m]);
        json_number_array(f, c->floor[m], o->rounds);
    }
    fprintf(f, "},\"busy_helper\":{");
    for (int i = 0; i < 2; i++) {
        const struct pb_path *p = &paths[i];
        double calls = p->helper_calls ? (double)p->helper_calls : 1;
        fprintf(f, "%s\"%s\":{\"calls\":%llu,\"interval_us\":%.6g,\"long_gap_fraction\":%.6g}", i ? "," : "",
                p->name, (unsigned long long)p->helper_calls, (double)p->helper_ns / 1e3 / calls,
                (double)p->helper_long_gaps / calls);
    }
    fprintf(f, "}}\n");
    int rc = ferror(f) ? -EIO : 0;
    if (fclose(f) != 0)
        rc = -EIO;
    return rc;
}

/* ---- Main -------------------------------------------------------------------------------------- */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: accelos-proxy-bench [options]   (normally through bench/proxy/run.sh BUILD_DIR [options])\n"
            "  --rounds N       repeat the whole comparison N times (default 5, at most %d)\n"
            "  --iters N        iterations of each back-to-back latency row (default 2000)\n"
            "  --gap-iters N    iterations of the asleep/busy rows (default 300)\n"
            "  --gap-us N       pause before each asleep/busy call (default 1000)\n"
            "  --bw-iters N     64 MiB transfers per row (default 8; smaller sizes get more)\n"
            "  --idle-seconds S window of the idle-CPU measurement (default 2)\n"
            "  --daemon-pid PID accelosd's pid, for the idle-CPU measurement\n"
            "  --quick          tiny counts, for the smoke test (options after it override)\n"
            "  --json PATH      also write the results as JSON\n"
            "  --list-rows      print the label of every row the table prints, then exit\n"
            "Needs the \"%s\" and \"%s\" platforms; exit 0 ok, 1 wrong result, 2 usage, 3 OpenCL error.\n",
            PB_MAX_ROUNDS, PB_PROXY_PLATFORM, PB_DIRECT_PLATFORM);
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -EINVAL;
    *out = (int)v;
    return 0;
}

/* Returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, struct pb_opts *o)
{
    static const struct option options[] = {
        {"rounds", required_argument, NULL, 'r'},     {"iters", required_argument, NULL, 'i'},
        {"gap-iters", required_argument, NULL, 'g'},  {"gap-us", required_argument, NULL, 'G'},
        {"bw-iters", required_argument, NULL, 'b'},   {"idle-seconds", required_argument, NULL, 's'},
        {"daemon-pid", required_argument, NULL, 'p'}, {"quick", no_argument, NULL, 'q'},
        {"json", required_argument, NULL, 'j'},       {"list-rows", no_argument, NULL, 'l'},
        {"help", no_argument, NULL, 'h'},             {NULL, 0, NULL, 0},
    };
    *o = (struct pb_opts){.rounds = 5, .iters = 2000, .gap_iters = 300, .gap_us = 1000, .bw_iters = 8, .idle_s = 2};
    int c, pid = 0, bad = 0, index = 0;
    while ((c = getopt_long(argc, argv, "h", options, &index)) != -1) {
        switch (c) {
        case 'r': bad |= parse_int(optarg, 1, PB_MAX_ROUNDS, &o->rounds); break;
        case 'i': bad |= parse_int(optarg, 2, 10000000, &o->iters); break;
        case 'g': bad |= parse_int(optarg, 1, 1000000, &o->gap_iters); break;
        case 'G': bad |= parse_int(optarg, 0, 1000000, &o->gap_us); break;
        case 'b': bad |= parse_int(optarg, 1, 100000, &o->bw_iters); break;
        case 's': {
            char *end;
            o->idle_s = strtod(optarg, &end);
            bad |= (end == optarg || *end || !(o->idle_s > 0 && o->idle_s <= 600)) ? -EINVAL : 0;
            break;
        }
        case 'p': bad |= parse_int(optarg, 1, 1 << 30, &pid); o->daemon_pid = pid; break;
        case 'q':
            o->rounds = 1, o->iters = 20, o->gap_iters = 5, o->bw_iters = 1, o->idle_s = 0.2;
            break;
        case 'j': o->json = optarg; break;
        case 'l':
            for (int r = 0; r < PB_ROW_COUNT; r++)
                printf("%s\n", pb_rows[r].label);
            for (int m = 0; m < PB_REGIME_COUNT; m++)
                printf("%s\n", pb_floor_labels[m]);
            printf("%s\n%s\n", PB_IDLE_DAEMON_LABEL, PB_IDLE_CLIENT_LABEL);
            return PB_EXIT_OK;
        case 'h': usage(stdout); return PB_EXIT_OK;
        default: usage(stderr); return PB_EXIT_USAGE;
        }
        if (bad) {
            fprintf(stderr, "accelos-proxy-bench: bad value '%s' for --%s\n", optarg, options[index].name);
            usage(stderr);
            return PB_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "accelos-proxy-bench: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return PB_EXIT_USAGE;
    }
    return -1;
}

/* The same handshake with no OpenCL, in the three regimes of the round-trip rows. */
static void measure_floor(struct pb_ctx *c, int round)
{
    for (int m = 0; m < PB_REGIME_COUNT; m++) {
        int n = m == PB_BACK_TO_BACK ? c->opts.iters : c->opts.gap_iters;
        double v = pb_floor_measure((enum pb_regime)m, n, c->opts.gap_us, c->samples);
        if (v < 0) {
            fprintf(stderr, "accelos-proxy-bench: cannot start the handshake floor's threads\n");
            exit(PB_EXIT_CL);
        }
        c->floor[m][round] = v;
    }
}

int main(int argc, char **argv)
{
    /* Static: the results arrays are large for a stack. */
    static struct pb_ctx c;
    int rc = parse_args(argc, argv, &c.opts);
    if (rc >= 0)
        return rc;
    const struct pb_opts *o = &c.opts;

    size_t cap = (size_t)(o->iters > o->gap_iters ? o->iters : o->gap_iters);
    if (cap < (size_t)o->bw_iters)
        cap = (size_t)o->bw_iters;
    c.samples = malloc(cap * sizeof(*c.samples));
    c.src = malloc(PB_BIG_BYTES);
    c.dst = malloc(PB_BIG_BYTES);
    if (!c.samples || !c.src || !c.dst) {
        fprintf(stderr, "accelos-proxy-bench: out of memory\n");
        return PB_EXIT_CL;
    }
    for (size_t i = 0; i < PB_BIG_BYTES; i++)
        c.src[i] = (uint8_t)(i * 2654435761u >> 13);
    memset(c.dst, 0, PB_BIG_BYTES);

    path_open(&c.paths[0], "direct", PB_DIRECT_PLATFORM);
    path_open(&c.paths[1], "proxy", PB_PROXY_PLATFORM);
    for (int i = 0; i < 2; i++)
        path_verify_transfers(&c, &c.paths[i]);

    for (int round = 0; round < o->rounds; round++) {
        fprintf(stderr, "accelos-proxy-bench: round %d of %d\n", round + 1, o->rounds);
        for (int r = 0; r < PB_ROW_COUNT; r++) {
            const struct pb_row_def *def = &pb_rows[r];
            /* Alternate which path goes first, so drift favours neither. */
            int first = (round + r) % 2;
            for (int k = 0; k < 2; k++) {
                int which = k == 0 ? first : 1 - first;
                double v = def->measure(&c, &c.paths[which], def->arg);
                (which == 0 ? c.results[r].direct : c.results[r].proxy)[round] = v;
            }
        }
        measure_floor(&c, round);
    }
    measure_idle(&c);

    pb_machine_describe(c.machine, sizeof(c.machine));
    print_table(&c);
    rc = PB_EXIT_OK;
    if (o->json && write_json(&c) < 0)
        rc = PB_EXIT_USAGE;

    for (int i = 1; i >= 0; i--)
        path_close(&c.paths[i]);
    free(c.dst);
    free(c.src);
    free(c.samples);
    return rc;
}
