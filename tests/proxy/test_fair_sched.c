/* The device scheduler under the fair policy, seen through the trace: launches shrink when another
 * arrives and grow when it leaves (loop shape), direct waves take the whole device in turns (direct
 * shape), more launches than the device holds rotate in waves, a launch keeps the arguments it was
 * enqueued with, and a runaway virtual group aborts its launch only. Built twice: test_fair_sched
 * runs the loop shape, test_fair_sched_direct (AOS_TEST_DIRECT_WAVES) the direct one. */
#include <stdint.h>
#include <time.h>

#include "accelos/vndrange.h"
#include "daemon_status.h"
#include "harness.h"
#include "spin_kernel.h"
#include "trace_read.h"

#ifdef AOS_TEST_DIRECT_WAVES
#define WAVE_SHAPE "direct"
#else
#define WAVE_SHAPE "loop"
#endif

static char trace_path[64] = "/tmp/accelos-sched-trace-XXXXXX";

/* Work per item that scales with `rounds`; one group (`slow_group`) may run `slow_rounds`. */
#define SPIN(name)                                                                                  \
    "kernel void " name "(global uint *out, uint rounds, uint slow_group, uint slow_rounds)\n"     \
    "{ size_t i = get_global_id(0); uint h = (uint)i;\n"                                            \
    "  uint n = get_group_id(0) == slow_group ? slow_rounds : rounds;\n"                            \
    "  for (uint r = 0; r < n; r++) " AOS_SPIN_STEP "\n"                                             \
    "  out[i] = h; }\n"
static const char *src = SPIN("spin_a") SPIN("spin_b") SPIN("rot_0") SPIN("rot_1") SPIN("rot_2") SPIN("rot_3")
    SPIN("keep_args") SPIN("runaway") SPIN("bystander") SPIN("cheap");

enum { LOCAL = 16, GROUPS = 96, N = LOCAL * GROUPS, ROUNDS = 40000 };

struct spin {
    cl_kernel k;
    cl_mem out;
    uint32_t rounds;
};

static void spin_setup(struct spin *s, cl_program p, cl_context ctx, const char *name, uint32_t rounds)
{
    cl_int err;
    s->k = clCreateKernel(p, name, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    s->out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof(uint32_t), NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    s->rounds = rounds;
    cl_uint none = UINT32_MAX, zero = 0;
    ck_assert_int_eq(clSetKernelArg(s->k, 0, sizeof(s->out), &s->out), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(s->k, 1, sizeof(rounds), &rounds), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(s->k, 2, sizeof(none), &none), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(s->k, 3, sizeof(zero), &zero), CL_SUCCESS);
}

static void spin_enqueue(struct spin *s, cl_command_queue q, cl_uint num_wait, const cl_event *wait, cl_event *ev)
{
    size_t global = N, local = LOCAL;
    ck_assert_int_eq(clEnqueueNDRangeKernel(q, s->k, 1, NULL, &global, &local, num_wait, wait, ev), CL_SUCCESS);
    ck_assert_int_eq(clFlush(q), CL_SUCCESS);
}

static void check_out(cl_command_queue q, cl_mem out, uint32_t rounds)
{
    uint32_t *got = malloc(N * sizeof(uint32_t));
    ck_assert_int_eq(clEnqueueReadBuffer(q, out, CL_TRUE, 0, N * sizeof(uint32_t), got, 0, NULL, NULL), CL_SUCCESS);
    for (size_t i = 0; i < N; i++)
        ck_assert_msg(got[i] == aos_spin_expect((uint32_t)i, rounds), "item %zu: %u != %u", i, got[i],
                      aos_spin_expect((uint32_t)i, rounds));
    free(got);
}

static void spin_release(struct spin *s)
{
    clReleaseKernel(s->k);
    clReleaseMemObject(s->out);
}

static void trace_line(const char *kernel, char *line, size_t size)
{
    char needle[64];
    snprintf(needle, sizeof(needle), "\"kernel\":\"%s\"", kernel);
    ck_assert_msg(trace_find(trace_path, needle, line, size), "no trace line for %s", kernel);
}

/* Runs spin_a alone for a while, then spin_b beside it, checks both results and that every
 * virtual group ran, and returns their trace lines. */
static void run_a_then_b(char *la, char *lb, size_t size)
{
    cl_context ctx;
    cl_command_queue q1;
    aos_test_context(&ctx, &q1);
    cl_command_queue q2 = aos_test_queue(ctx, CL_QUEUE_PROFILING_ENABLE);
    cl_program p = aos_test_build(ctx, src, NULL);
    struct spin a, b;
    spin_setup(&a, p, ctx, "spin_a", ROUNDS);
    spin_setup(&b, p, ctx, "spin_b", ROUNDS / 4); /* short: it ends while a still runs, under load too */
    spin_enqueue(&a, q1, 0, NULL, NULL);
    usleep(30000); /* a runs alone for a while */
    spin_enqueue(&b, q2, 0, NULL, NULL);
    ck_assert_int_eq(clFinish(q2), CL_SUCCESS);
    ck_assert_int_eq(clFinish(q1), CL_SUCCESS);
    check_out(q1, a.out, a.rounds);
    check_out(q1, b.out, b.rounds);
    trace_line("spin_a", la, size);
    trace_line("spin_b", lb, size);
    ck_assert_uint_eq(trace_field(la, "virtual_groups_done"), GROUPS);
    ck_assert_uint_eq(trace_field(lb, "virtual_groups_done"), GROUPS);
    ck_assert_uint_ge(trace_field(la, "waves"), 2);
    spin_release(&a);
    spin_release(&b);
    clReleaseProgram(p);
    clReleaseCommandQueue(q2);
    clReleaseCommandQueue(q1);
    clReleaseContext(ctx);
}

#ifndef AOS_TEST_DIRECT_WAVES
/* True when groups[] has `first` somewhere and `then` after it. */
static bool went_from(const unsigned *groups, size_t n, unsigned first, unsigned then)
{
    for (size_t i = 0; i < n; i++)
        if (groups[i] == first)
            for (size_t j = i + 1; j < n; j++)
                if (groups[j] == then)
                    return true;
    return false;
}

START_TEST(test_shrink_when_another_arrives_grow_when_it_leaves)
{
    char la[2048], lb[2048];
    run_a_then_b(la, lb, sizeof(la));
    if (aos_test_compute_units() >= 2) {
        unsigned ga[32], gb[32];
        size_t na = trace_groups(la, ga, 32), nb = trace_groups(lb, gb, 32);
        /* a held the whole device, gave half to b, and took it back when b was done. */
        ck_assert_msg(went_from(ga, na, aos_test_compute_units(), aos_test_compute_units() / 2), "a never shrank: %s", la);
        ck_assert_msg(went_from(ga, na, aos_test_compute_units() / 2, aos_test_compute_units()), "a never grew back: %s", la);
        ck_assert_msg(nb >= 1 && gb[0] == aos_test_compute_units() / 2, "b did not start on half: %s", lb);
    }
}
END_TEST
#else
/* Direct shape: a launch running alone is cut into whole-device waves, so a newcomer starts before
 * it ends, and every wave of either spans the device's compute units (fewer only for the tail). */
START_TEST(test_direct_waves_take_the_whole_device_in_turns)
{
    cl_uint cu = aos_test_compute_units();
    char la[2048], lb[2048];
    run_a_then_b(la, lb, sizeof(la));
    ck_assert_msg(trace_field(lb, "start_ns") < trace_field(la, "end_ns"),
                  "b waited for all of a: %s / %s", la, lb);
    unsigned ga[32], gb[32];
    size_t na = trace_groups(la, ga, 32), nb = trace_groups(lb, gb, 32);
    ck_assert_uint_ge(na, 1);
    ck_assert_uint_ge(nb, 1);
    ck_assert_msg(ga[0] == cu && gb[0] == cu, "a wave did not span the device: %s / %s", la, lb);
    for (size_t i = 0; i + 1 < na; i++)
        ck_assert_msg(ga[i] == cu, "a shrank below the device: %s", la);
}
END_TEST
#endif

/* A launch's loop waves carry the chunk the JIT compiled for its kernel (4 for these) into the
 * record and the trace: a CPU's few physical groups get no spread chunk (aos_vndrange_spread_chunk,
 * below AOS_VNDRANGE_SPREAD_MIN_PHYS), and every group still runs once; direct waves take no chunk. */
START_TEST(test_loop_waves_carry_their_chunk)
{
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    cl_program p = aos_test_build(ctx, src, NULL);
    struct spin c;
    spin_setup(&c, p, ctx, "cheap", 1);
    spin_enqueue(&c, q, 0, NULL, NULL);
    ck_assert_int_eq(clFinish(q), CL_SUCCESS);
    check_out(q, c.out, c.rounds);
    char line[2048];
    trace_line("cheap", line, sizeof(line));
    ck_assert_uint_eq(trace_field(line, "virtual_groups_done"), GROUPS);
#ifdef AOS_TEST_DIRECT_WAVES
    ck_assert_msg(trace_field(line, "chunk") == 0, "a direct launch with a chunk: %s", line);
#else
    if (aos_test_compute_units() < AOS_VNDRANGE_SPREAD_MIN_PHYS)
        ck_assert_msg(trace_field(line, "chunk") == 4, "not the compiled chunk: %s", line);
    ck_assert_msg(trace_field(line, "chunk") >= 4 && trace_field(line, "chunk") <= GROUPS, "chunk: %s", line);
#endif
    spin_release(&c);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

/* Four launches on a device that holds two at one group each: waves rotate them, so all four are
 * under way at once (without slicing the last two would start only when the first two ended). */
START_TEST(test_more_launches_than_the_device_holds_rotate)
{
    cl_uint cu = aos_test_compute_units();
    cl_context ctx;
    cl_command_queue q[4];
    aos_test_context(&ctx, &q[0]);
    for (int i = 1; i < 4; i++)
        q[i] = aos_test_queue(ctx, CL_QUEUE_PROFILING_ENABLE);
    cl_program p = aos_test_build(ctx, src, NULL);
    const char *names[4] = {"rot_0", "rot_1", "rot_2", "rot_3"};
    struct spin s[4];
    for (int i = 0; i < 4; i++)
        spin_setup(&s[i], p, ctx, names[i], ROUNDS);
    for (int i = 0; i < 4; i++)
        spin_enqueue(&s[i], q[i], 0, NULL, NULL);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(clFinish(q[i]), CL_SUCCESS);
    unsigned long long latest_start = 0, earliest_end = UINT64_MAX;
    for (int i = 0; i < 4; i++) {
        check_out(q[i], s[i].out, s[i].rounds);
        char line[2048];
        trace_line(names[i], line, sizeof(line));
        unsigned long long start = trace_field(line, "start_ns"), end = trace_field(line, "end_ns");
        latest_start = start > latest_start ? start : latest_start;
        earliest_end = end < earliest_end ? end : earliest_end;
        if (cu <= 2)
            ck_assert_uint_ge(trace_field(line, "waves"), 2);
    }
    if (cu <= 2)
        ck_assert_msg(latest_start < earliest_end, "launches did not rotate: the last started at %llu, after the "
                      "first ended at %llu", latest_start, earliest_end);
    for (int i = 0; i < 4; i++) {
        spin_release(&s[i]);
        clReleaseCommandQueue(q[i]);
    }
    clReleaseProgram(p);
    clReleaseContext(ctx);
}
END_TEST

/* Waves run after the application has changed the kernel's arguments and released the buffer:
 * each launch still runs with what it was enqueued with. */
START_TEST(test_launch_keeps_its_arguments)
{
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    cl_program p = aos_test_build(ctx, src, NULL);
    struct spin s;
    spin_setup(&s, p, ctx, "keep_args", 7);
    cl_int err;
    cl_event gate = clCreateUserEvent(ctx, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_mem second = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof(uint32_t), NULL, &err);
    cl_mem dropped = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof(uint32_t), NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_event ev[3];
    spin_enqueue(&s, q, 1, &gate, &ev[0]);
    uint32_t rounds2 = 11;
    ck_assert_int_eq(clSetKernelArg(s.k, 0, sizeof(second), &second), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(s.k, 1, sizeof(rounds2), &rounds2), CL_SUCCESS);
    spin_enqueue(&s, q, 1, &gate, &ev[1]);
    ck_assert_int_eq(clSetKernelArg(s.k, 0, sizeof(dropped), &dropped), CL_SUCCESS);
    spin_enqueue(&s, q, 1, &gate, &ev[2]);
    ck_assert_int_eq(clReleaseMemObject(dropped), CL_SUCCESS); /* still in use by the third launch */
    ck_assert_int_eq(clSetKernelArg(s.k, 0, sizeof(s.out), &s.out), CL_SUCCESS);
    ck_assert_int_eq(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    ck_assert_int_eq(clWaitForEvents(3, ev), CL_SUCCESS);
    check_out(q, s.out, 7);
    check_out(q, second, 11);
    cl_command_type type = 0;
    ck_assert_int_eq(clGetEventInfo(ev[0], CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL), CL_SUCCESS);
    ck_assert_uint_eq(type, CL_COMMAND_NDRANGE_KERNEL);
    /* Profiling describes the logical launch: queued, submitted, started, ended, in that order. */
    cl_ulong t[4];
    const cl_profiling_info what[4] = {CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
                                       CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END};
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(clGetEventProfilingInfo(ev[1], what[i], sizeof(t[i]), &t[i], NULL), CL_SUCCESS);
    ck_assert_uint_le(t[0], t[1]);
    ck_assert_uint_le(t[1], t[2]);
    ck_assert_uint_lt(t[2], t[3]);
    cl_ulong end0 = 0;
    ck_assert_int_eq(clGetEventProfilingInfo(ev[0], CL_PROFILING_COMMAND_END, sizeof(end0), &end0, NULL),
                     CL_SUCCESS);
    ck_assert_uint_le(end0, t[2]); /* in-order queue: the second launch started after the first ended */
    for (int i = 0; i < 3; i++)
        clReleaseEvent(ev[i]);
    clReleaseEvent(gate);
    clReleaseMemObject(second);
    spin_release(&s);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* One virtual group of billions of steps against a 200 ms limit (this file's configuration): the
 * launch fails long before that group could end, and another launch still runs correctly. A first
 * launch without the slow group leaves the kernel's short time per virtual group, so the runaway
 * launch's first wave holds all its groups: the abort must not wait a limit per group of that
 * wave. Runs last: the runaway group keeps one compute unit until it ends. */
START_TEST(test_runaway_virtual_group_aborts_its_launch)
{
    cl_context ctx;
    cl_command_queue q1;
    aos_test_context(&ctx, &q1);
    cl_command_queue q2 = aos_test_queue(ctx, CL_QUEUE_PROFILING_ENABLE);
    cl_program p = aos_test_build(ctx, src, NULL);
    struct spin runaway, fine;
    spin_setup(&runaway, p, ctx, "runaway", 1);
    spin_enqueue(&runaway, q1, 0, NULL, NULL);
    ck_assert_int_eq(clFinish(q1), CL_SUCCESS);
    check_out(q1, runaway.out, 1);
    cl_uint slow_group = 0, slow_rounds = UINT32_MAX;
    ck_assert_int_eq(clSetKernelArg(runaway.k, 2, sizeof(slow_group), &slow_group), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(runaway.k, 3, sizeof(slow_rounds), &slow_rounds), CL_SUCCESS);
    spin_setup(&fine, p, ctx, "bystander", 5);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cl_event ev;
    spin_enqueue(&runaway, q1, 0, NULL, &ev);
    ck_assert_int_eq(clWaitForEvents(1, &ev), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    double took = seconds_since(&t0);
    cl_int status = 0;
    ck_assert_int_eq(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL),
                     CL_SUCCESS);
    ck_assert_int_eq(status, CL_OUT_OF_RESOURCES);
    /* 4 billion dependent steps take seconds; the abort comes after the 200 ms limit. */
    ck_assert_msg(took < 3.0, "abort took %.2f s", took);
    char line[2048];
    /* The first runaway launch completed; the one failed launch in this file is the second. */
    ck_assert_msg(trace_find(trace_path, "\"status\":\"failed\"", line, sizeof(line)), "no failed launch traced");
    ck_assert_ptr_nonnull(strstr(line, "\"kernel\":\"runaway\""));
    ck_assert_int_eq(trace_signed(line, "error"), CL_OUT_OF_RESOURCES);
    /* Its failed event is kept until the daemon stops (PoCL 3.1 may still touch it), and the
     * status report counts it for the operator. */
    ck_assert_int_ge(aos_test_status_scheduler("parked-events"), 1);

    spin_enqueue(&fine, q2, 0, NULL, NULL);
    ck_assert_int_eq(clFinish(q2), CL_SUCCESS);
    check_out(q2, fine.out, 5);
    clReleaseEvent(ev);
    spin_release(&runaway);
    spin_release(&fine);
    clReleaseProgram(p);
    clReleaseCommandQueue(q2);
    clReleaseCommandQueue(q1);
    clReleaseContext(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fair_sched");
    TCase *tc = tcase_create("fair_sched");
    tcase_set_timeout(tc, 120);
#ifdef AOS_TEST_DIRECT_WAVES
    tcase_add_test(tc, test_direct_waves_take_the_whole_device_in_turns);
#else
    tcase_add_test(tc, test_shrink_when_another_arrives_grow_when_it_leaves);
#endif
    tcase_add_test(tc, test_more_launches_than_the_device_holds_rotate);
    tcase_add_test(tc, test_loop_waves_carry_their_chunk);
    tcase_add_test(tc, test_launch_keeps_its_arguments);
    tcase_add_test(tc, test_runaway_virtual_group_aborts_its_launch);
    suite_add_tcase(s, tc);
    return aos_test_run_suite_fair_traced(s, trace_path,
                                          "slice_ms = 2\nvgroup_timeout_ms = 200\nmax_inflight_per_client = 0\n"
                                          "solo_native_us = 0\n"
                                          "wave_shape = " WAVE_SHAPE "\n");
}
