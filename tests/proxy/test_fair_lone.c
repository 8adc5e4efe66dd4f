/* Lone waves (docs/scheduler.md §6): while no other client is present, a launch runs in waves of
 * lone_slice_ms instead of slice_ms, since nobody waits for them and each wave costs a hand-off;
 * a client that arrives still starts before the lone launch ends, after at most one such wave. */
#include <stdint.h>
#include <stdio.h>

#include "clients.h"
#include "harness.h"
#include "spin_kernel.h"
#include "trace_read.h"

static char trace_path[64] = "/tmp/accelos-lone-trace-XXXXXX";

/* Slices of 2 ms against lone slices of 30 ms: a launch alone takes waves of about 30 ms, about
 * 2 ms without lone slices. The long launches are a hundred or some hundreds of ms of work in
 * groups of about a millisecond. */
enum { SLICE_MS = 2, LONE_MS = 30, LOCAL = 16, ALONE_GROUPS = 256, ROUNDS = 20000, LONG_GROUPS = 1024,
       SHORT_GROUPS = 16, SHORT_ROUNDS = 6000, SHORT_LAUNCHES = 5 };

/* The second of two launches alone (the first one measures the code): its waves take about the
 * lone slice, a multiple of the slice. */
START_TEST(test_launch_alone_runs_in_lone_waves)
{
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    cl_program p = aos_test_build(ctx, AOS_SPIN_KERNEL("alone"), NULL);
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(aos_test_spin_launch(ctx, q, p, "alone", ALONE_GROUPS, LOCAL, ROUNDS, NULL), 0);
    char line[4096];
    ck_assert_msg(trace_find_nth(trace_path, "\"kernel\":\"alone\"", 2, line, sizeof(line)),
                  "no trace line for the second launch");
    ck_assert_uint_eq(trace_field(line, "virtual_groups_done"), ALONE_GROUPS);
    unsigned long long waves = trace_field(line, "waves"), device_ns = trace_field(line, "device_ns");
    ck_assert_uint_ge(waves, 1);
    /* Alone, the whole launch may fit one lone wave; slices of 2 ms would make it tens of them. */
    double mean_ms = (double)device_ns / (double)waves / 1e6;
    ck_assert_msg(mean_ms > 4.0 * SLICE_MS || waves == 1, "%llu waves of %.2f ms on average alone (slice %d ms, lone %d ms): %s",
                  waves, mean_ms, SLICE_MS, LONE_MS, line);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

static const struct aos_test_spin_scene scene = {
    .src = AOS_SPIN_KERNEL("lone_long") AOS_SPIN_KERNEL("newcomer"),
    .long_name = "lone_long", .short_name = "newcomer", .local = LOCAL, .long_groups = LONG_GROUPS,
    .long_rounds = ROUNDS, .short_groups = SHORT_GROUPS, .short_rounds = SHORT_ROUNDS,
    .short_launches = SHORT_LAUNCHES};

/* The scene's clients, but client 0 first measures its code with a short launch: lone waves are
 * for code the device has timed before. */
static int measured_long_client(int index, void *arg)
{
    if (index == 0) {
        cl_context ctx;
        cl_command_queue q;
        aos_test_context(&ctx, &q);
        cl_program p = aos_test_build(ctx, scene.src, NULL);
        int rc = p ? aos_test_spin_launch(ctx, q, p, scene.long_name, 8, LOCAL, ROUNDS, NULL) : 3;
        clReleaseProgram(p);
        clReleaseCommandQueue(q);
        clReleaseContext(ctx);
        if (rc)
            return rc;
    }
    return aos_test_spin_scene_client(index, arg);
}

/* A client that arrives while a launch runs alone in lone waves waits for the running wave, not
 * for the whole launch: all its launches end before the long one. */
START_TEST(test_newcomer_waits_one_lone_wave_at_most)
{
    struct aos_test_long_short gates = {.spin = &scene};
    aos_test_long_short_run(measured_long_client, &gates, 50000);
    char long_line[4096], short_line[4096];
    ck_assert_msg(trace_find_nth(trace_path, "\"kernel\":\"lone_long\"", 2, long_line, sizeof(long_line)),
                  "no trace line for the long launch");
    ck_assert_uint_eq(trace_field(long_line, "virtual_groups_done"), LONG_GROUPS);
    ck_assert_msg(trace_find_nth(trace_path, "\"kernel\":\"newcomer\"", SHORT_LAUNCHES, short_line,
                                 sizeof(short_line)),
                  "no trace line for the newcomer's last launch");
    ck_assert_msg(trace_field(short_line, "ended_host_ns") < trace_field(long_line, "ended_host_ns"),
                  "the newcomer waited for the whole long launch: %s / %s", short_line, long_line);
    ck_assert_uint_ge(trace_field(long_line, "waves"), 2);
}
END_TEST

int main(void)
{
    char config[128];
    snprintf(config, sizeof(config), "slice_ms = %d\nlone_slice_ms = %d\nsolo_native_us = 0\n", SLICE_MS, LONE_MS);
    Suite *s = suite_create("fair_lone");
    TCase *tc = tcase_create("fair_lone");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, test_launch_alone_runs_in_lone_waves);
    tcase_add_test(tc, test_newcomer_waits_one_lone_wave_at_most);
    suite_add_tcase(s, tc);
    return aos_test_run_suite_fair_traced(s, trace_path, config);
}
