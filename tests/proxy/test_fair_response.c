/* Response slices (docs/scheduler.md §6): one application runs a launch of many short groups,
 * which the fair policy cuts into waves; while a second application sends short launches, which
 * wait for the running wave, the first one's waves shrink toward the length of those launches
 * (not below the floor, response_floor_us with one other client present: 1 ms here) instead of
 * taking slice_ms each. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "clients.h"
#include "harness.h"
#include "spin_kernel.h"
#include "trace_read.h"

static char trace_path[64] = "/tmp/accelos-response-trace-XXXXXX";

/* A slice of 16 ms against a floor of 1 ms: waves alone take 16 ms, beside the short client about
 * as long as its launches (1-4 ms, sanitizers included).
 * The long launch is some hundreds of ms of work in groups of a fraction of a millisecond; the
 * short client's launches take about a millisecond each, one after another, for most of it. */
enum { SLICE_MS = 16, FLOOR_US = 1000, LOCAL = 16, LONG_GROUPS = 512, LONG_ROUNDS = 20000, SHORT_GROUPS = 16,
       SHORT_ROUNDS = 6000, SHORT_LAUNCHES = 100 };

static const struct aos_test_spin_scene scene = {
    .src = AOS_SPIN_KERNEL("many_groups") AOS_SPIN_KERNEL("short_launch"),
    .long_name = "many_groups", .short_name = "short_launch", .local = LOCAL, .long_groups = LONG_GROUPS,
    .long_rounds = LONG_ROUNDS, .short_groups = SHORT_GROUPS, .short_rounds = SHORT_ROUNDS,
    .short_launches = SHORT_LAUNCHES};

START_TEST(test_waves_shrink_while_short_launches_wait)
{
    struct aos_test_long_short gates = {.spin = &scene};
    aos_test_long_short_run(aos_test_spin_scene_client, &gates, 20000);
    char long_line[4096];
    ck_assert_msg(trace_find(trace_path, "\"kernel\":\"many_groups\"", long_line, sizeof(long_line)),
                  "no trace line for the long launch");
    ck_assert_uint_eq(trace_field(long_line, "virtual_groups_done"), LONG_GROUPS);
    unsigned long long long_start = trace_field(long_line, "admitted_host_ns");
    unsigned long long long_end = trace_field(long_line, "ended_host_ns");
    unsigned long long waves = trace_field(long_line, "waves"), device_ns = trace_field(long_line, "device_ns");
    /* How much of the long launch had the short client beside it. */
    unsigned long long beside = 0, first = 0, last = 0;
    for (int i = 1; i <= SHORT_LAUNCHES; i++) {
        unsigned long long start, end;
        trace_span_nth(trace_path, "\"kernel\":\"short_launch\"", i, &start, &end);
        first = i == 1 || start < first ? start : first;
        last = end > last ? end : last;
    }
    if (last > long_start && first < long_end)
        beside = (last < long_end ? last : long_end) - (first > long_start ? first : long_start);
    ck_assert_msg(beside * 2 > long_end - long_start, "the short client was beside the long launch for %.0f of %.0f ms",
                  beside / 1e6, (long_end - long_start) / 1e6);
    /* 16 ms waves alone; beside the short client about its launches: the mean well below the slice. */
    double mean_ms = (double)device_ns / (double)waves / 1e6;
    ck_assert_msg(mean_ms < SLICE_MS / 2.0, "the long launch's %llu waves took %.2f ms on average (slice %d ms): %s",
                  waves, mean_ms, SLICE_MS, long_line);
}
END_TEST

int main(void)
{
    char config[128];
    /* Cut waves off: the long launch's groups are long enough to be cut (docs/scheduler.md §6), and
     * then its waves would end on demand rather than be sized to the short launches. */
    snprintf(config, sizeof(config), "slice_ms = %d\nresponse_floor_us = %d\ncut_quantum_us = 0\n", SLICE_MS,
             FLOOR_US);
    Suite *s = suite_create("fair_response");
    TCase *tc = tcase_create("fair_response");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, test_waves_shrink_while_short_launches_wait);
    suite_add_tcase(s, tc);
    return aos_test_run_suite_fair_traced(s, trace_path, config);
}
