/* Narrow direct waves (docs/scheduler.md §6, Wave shapes): one application runs a kernel whose
 * every virtual group outlasts a slice; a second application's short launches must not wait a whole
 * group each. While the second is present, the long kernel's waves hold all but one compute unit
 * and the short launches run on the one left, so they all end before the long launch does. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients.h"
#include "harness.h"
#include "spin_kernel.h"
#include "trace_read.h"

static char trace_path[64] = "/tmp/accelos-narrow-trace-XXXXXX";

/* A long group is tens of milliseconds of spinning on one core (a slice is 4 ms); a short launch
 * is about a millisecond of work in all. */
enum { LOCAL = 16, LONG_ROUNDS = 3000000, LONG_GROUPS_PER_CU = 3, SHORT_GROUPS = 16, SHORT_ROUNDS = 2000,
       SHORT_LAUNCHES = 8 };

/* Client 0 starts the long launch and says so; client 1 waits for the go, then runs its short
 * launches one after another. */
static const struct aos_test_spin_scene scene = {
    .src = AOS_SPIN_KERNEL("long_groups") AOS_SPIN_KERNEL("short_burst"),
    .long_name = "long_groups", .short_name = "short_burst", .local = LOCAL,
    .long_groups = LONG_GROUPS_PER_CU, .long_per_cu = true, .long_rounds = LONG_ROUNDS,
    .short_groups = SHORT_GROUPS, .short_rounds = SHORT_ROUNDS, .short_launches = SHORT_LAUNCHES};

START_TEST(test_short_launches_run_beside_long_groups)
{
    /* Nothing here touches OpenCL before the fork: each child is its own client. The long launch's
     * first wave is on the device and measures a group before the short launches come. */
    struct aos_test_long_short gates = {.spin = &scene};
    aos_test_long_short_run(aos_test_spin_scene_client, &gates, 50000);
    cl_uint cu = aos_test_compute_units();
    ck_assert_uint_ge(cu, 2); /* all but one compute unit needs two */

    char long_line[4096], short_line[4096];
    ck_assert_msg(trace_find(trace_path, "\"kernel\":\"long_groups\"", long_line, sizeof(long_line)),
                  "no trace line for the long launch");
    ck_assert_uint_eq(trace_field(long_line, "virtual_groups_done"), cu * LONG_GROUPS_PER_CU);
    unsigned long long long_end = trace_field(long_line, "ended_host_ns"), last_short_end = 0;
    for (int i = 1; i <= SHORT_LAUNCHES; i++) {
        ck_assert_msg(trace_find_nth(trace_path, "\"kernel\":\"short_burst\"", i, short_line, sizeof(short_line)),
                      "no trace line for short launch %d", i);
        ck_assert_uint_eq(trace_field(short_line, "virtual_groups_done"), SHORT_GROUPS);
        unsigned long long end = trace_field(short_line, "ended_host_ns");
        last_short_end = end > last_short_end ? end : last_short_end;
    }
    /* In whole-device turns each short launch would wait a long group: 8 of them outlast what is
     * left of the long launch. */
    ck_assert_msg(last_short_end < long_end, "the short launches ended %.1f ms after the long one",
                  (last_short_end - long_end) / 1e6);
    unsigned groups[64];
    size_t n = trace_groups(long_line, groups, 64);
    bool narrow = false;
    for (size_t i = 0; i < n; i++)
        narrow |= groups[i] == cu - 1;
    ck_assert_msg(narrow, "the long launch never ran on %u of %u compute units", cu - 1, cu);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fair_narrow");
    TCase *tc = tcase_create("fair_narrow");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, test_short_launches_run_beside_long_groups);
    suite_add_tcase(s, tc);
    return aos_test_run_suite_fair_traced(s, trace_path, NULL);
}
