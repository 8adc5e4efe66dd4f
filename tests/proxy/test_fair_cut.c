/* Cut waves (docs/scheduler.md §6): on the CPU device a direct wave of a kernel whose groups are
 * long enough is stopped at a group boundary once another client's launch is a quantum behind it,
 * and its launch resumes where the wave stopped. Here the response floor is as long as the slice
 * and the device is not held for the short client between its launches (anticipate_us = 0), so
 * without cuts every wave of the long launch would take 16 ms, and each short launch beside it
 * would wait for the rest of one, and so would the reads of its results. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "clients.h"
#include "daemon_status.h"
#include "harness.h"
#include "spin_kernel.h"
#include "trace_read.h"

static char trace_path[64] = "/tmp/accelos-cut-trace-XXXXXX";

/* Long launch: 4096 groups of tens of microseconds (well above the 5 us of a cuttable group),
 * about 150 ms on two cores. Short launches: a fraction of a millisecond each. */
enum { SLICE_MS = 16, QUANTUM_US = 1000, LOCAL = 16, LONG_GROUPS = 4096, LONG_ROUNDS = 3000, SHORT_GROUPS = 4,
       SHORT_ROUNDS = 2000, SHORT_LAUNCHES = 40 };

/* One item of every group of the long launch, so that a group a cut skipped and no wave ran
 * again shows: 0 right, 1 wrong, 3 unreadable. */
static int check_every_group(cl_command_queue q, cl_mem out)
{
    size_t n = (size_t)LONG_GROUPS * LOCAL;
    uint32_t *got = malloc(n * sizeof(*got));
    if (!got || clEnqueueReadBuffer(q, out, CL_TRUE, 0, n * sizeof(*got), got, 0, NULL, NULL) != CL_SUCCESS) {
        free(got);
        return 3;
    }
    int rc = 0;
    for (size_t g = 0; g < LONG_GROUPS && !rc; g++) {
        size_t i = g * LOCAL + g % LOCAL;
        if (got[i] != aos_spin_expect((uint32_t)i, LONG_ROUNDS)) {
            fprintf(stderr, "group %zu: item %zu is %#x, expected %#x\n", g, i, got[i],
                    aos_spin_expect((uint32_t)i, LONG_ROUNDS));
            rc = 1;
        }
    }
    free(got);
    return rc;
}

static int by_value(const void *a, const void *b)
{
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return x < y ? -1 : x > y;
}

static int client(int index, void *arg)
{
    struct aos_test_long_short *g = arg;
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    cl_program p = aos_test_build(ctx, AOS_SPIN_KERNEL("long_groups") AOS_SPIN_KERNEL("short_launch"), NULL);
    if (!p)
        return 3;
    /* Warm-up, so that the device's compiles (on a cold PoCL cache hundreds of milliseconds each,
     * one per kernel and per launch at offset 0 or not) are not timed below. The long client's
     * first launch measures its groups and ends in cuttable waves off the origin; its second
     * starts with a cuttable wave at the origin, as the timed launch does. */
    int warm = 0;
    for (int i = 0; i < (index == 0 ? 2 : 1) && !warm; i++)
        warm = index == 0 ? aos_test_spin_launch(ctx, q, p, "long_groups", LONG_GROUPS / 8, LOCAL, LONG_ROUNDS, NULL)
                          : aos_test_spin_launch(ctx, q, p, "short_launch", SHORT_GROUPS, LOCAL, SHORT_ROUNDS, NULL);
    if (warm)
        return warm;
    if (!aos_test_gate_sync(&g->start))
        return 3;
    if (index == 1) {
        if (!aos_test_gate_sync(&g->go))
            return 3;
        for (int i = 0; i < SHORT_LAUNCHES; i++) {
            int rc = aos_test_spin_launch(ctx, q, p, "short_launch", SHORT_GROUPS, LOCAL, SHORT_ROUNDS, NULL);
            if (rc)
                return rc;
        }
        return 0;
    }
    cl_kernel k = clCreateKernel(p, "long_groups", NULL);
    cl_mem out = k ? aos_spin_enqueue(ctx, q, k, LONG_GROUPS, LOCAL, LONG_ROUNDS) : NULL;
    if (!out || clFlush(q) != CL_SUCCESS || !aos_test_gate_ready(&g->launched))
        return 3;
    int rc = check_every_group(q, out);
    clReleaseMemObject(out);
    clReleaseKernel(k);
    return rc;
}

START_TEST(test_waves_are_cut_for_a_client_behind)
{
    struct aos_test_long_short gates = {0};
    aos_test_long_short_run(client, &gates, 30000);
    char long_line[4096];
    /* The first launches were the warm-up: two long ones, one short one. */
    ck_assert_msg(trace_find_nth(trace_path, "\"kernel\":\"long_groups\"", 3, long_line, sizeof(long_line)),
                  "no trace line for the long launch");
    ck_assert_uint_eq(trace_field(long_line, "virtual_groups_done"), LONG_GROUPS);
    unsigned long long long_start = trace_field(long_line, "admitted_host_ns");
    unsigned long long long_end = trace_field(long_line, "ended_host_ns");
    /* The short launches admitted while the long one ran: each waits for a cut, not for the rest of
     * a 16 ms wave. */
    unsigned long long in_flight[SHORT_LAUNCHES], first_start = 0, last_end = 0;
    int beside = 0;
    for (int i = 2; i <= SHORT_LAUNCHES + 1; i++) {
        unsigned long long start, end;
        trace_span_nth(trace_path, "\"kernel\":\"short_launch\"", i, &start, &end);
        first_start = i == 2 || start < first_start ? start : first_start;
        last_end = end > last_end ? end : last_end;
        if (start < long_start || start >= long_end)
            continue; /* not admitted while the long launch ran */
        in_flight[beside++] = end - start;
    }
    /* The median: on a cold PoCL cache one or two launches still time a compile of the device's. */
    qsort(in_flight, (size_t)beside, sizeof(in_flight[0]), by_value);
    double median_ms = beside ? (double)in_flight[beside / 2] / 1e6 : 0;
    long long cut = aos_test_status_scheduler("waves-cut");
    fprintf(stderr, "fair_cut: %d short launches beside the long one, median %.2f ms, %lld waves cut\n", beside,
            median_ms, cut);
    /* Each short launch is followed by reads of its results, each a command that waits for the
     * device: with cuts 12-20 of the 40 launches got through while the long one ran, in a median
     * of 1.1-4.0 ms (cold caches included); without, 5 in 15-16 ms (session 39, 2-core VM). */
    ck_assert_msg(beside >= SHORT_LAUNCHES / 5,
                  "only %d of %d short launches ran beside the long one (they ran from %+.1f to %+.1f ms of its %.1f "
                  "ms): %s",
                  beside, SHORT_LAUNCHES, ((double)first_start - (double)long_start) / 1e6,
                  ((double)last_end - (double)long_start) / 1e6, (long_end - long_start) / 1e6, long_line);
    ck_assert_msg(cut >= 1, "no wave was cut (%d short launches beside the long one, median %.2f ms)", beside, median_ms);
    ck_assert_msg(median_ms < SLICE_MS * 3 / 8.0,
                  "short launches beside the long one took %.2f ms (median; %d of them, %lld waves cut, slice %d "
                  "ms): %s",
                  median_ms, beside, cut, SLICE_MS, long_line);
}
END_TEST

int main(void)
{
    char config[192];
    snprintf(config, sizeof(config), "slice_ms = %d\nresponse_floor_us = %d\nanticipate_us = 0\ncut_quantum_us = %d\n",
             SLICE_MS, SLICE_MS * 1000, QUANTUM_US);
    Suite *s = suite_create("fair_cut");
    TCase *tc = tcase_create("fair_cut");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, test_waves_are_cut_for_a_client_behind);
    suite_add_tcase(s, tc);
    return aos_test_run_suite_fair_traced(s, trace_path, config);
}
