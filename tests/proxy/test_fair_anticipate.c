/* Anticipation (docs/scheduler.md §6): an application sends short launches one after another
 * while another application's long launch runs in whole-device waves. When one short launch ends,
 * the next is already queued behind it, or by the application's habit comes within moments, so
 * the device waits for it instead of starting a slice of the long launch, as long as the short
 * client is not ahead in virtual time. It may be, just, after its first launch (both start level);
 * after one slice of the long launch it is behind by a slice, and its other launches follow each
 * other with no slice in between. Without anticipation a slice runs between every two. A launch
 * that comes while the device waits for it runs natively, without a logical launch's gate and waves. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients.h"
#include "daemon_status.h"
#include "harness.h"
#include "spin_kernel.h"
#include "trace_read.h"

static char trace_path[64] = "/tmp/accelos-anticipate-trace-XXXXXX";

static const char *src = AOS_SPIN_KERNEL("long_launch") AOS_SPIN_KERNEL("short_burst") AOS_SPIN_KERNEL("short_waited")
    AOS_SPIN_KERNEL("one_group");

/* Long slices, so a slice between two short launches cannot hide in the machine's noise. The long
 * launch is many groups of about a millisecond each, several slices in all. */
enum { SLICE_MS = 20, LOCAL = 16, LONG_GROUPS_PER_CU = 200, LONG_ROUNDS = 200000, SHORT_GROUPS = 16,
       SHORT_ROUNDS = 2000, SHORT_LAUNCHES = 6, ONE_GROUP_LAUNCHES = 8, WAITED_LAUNCHES = 10, WARM_LAUNCHES = 3,
       ANTICIPATE_US = 20000, RESPONSE_FLOOR_US = SLICE_MS * 1000, HELD_SOLO_MIN = 2, HOLD_CHARGE_PCT = 40 };

/* How client 1 sends its short launches (set before the clients are forked), and the kernel each
 * way uses, so that each run's launches are found in the trace. */
enum short_mode { SHORT_BURST, SHORT_WAITED, SHORT_ONE_GROUP };
static const char *const short_kernel[] = {
    [SHORT_BURST] = "short_burst",     /* all queued at once */
    [SHORT_WAITED] = "short_waited",   /* each waited for before the next */
    [SHORT_ONE_GROUP] = "one_group",   /* queued at once, one work-group each */
};
static enum short_mode short_mode;

/* Client 1's n launches one at a time, each finished and checked before the next is sent: between
 * two of them the device has nothing of this client queued. 0, or 1 wrong results, 3 setup. */
static int waited_launches(cl_context ctx, cl_command_queue q, cl_kernel k, int n)
{
    return aos_spin_waited_launches(ctx, q, k, n, SHORT_GROUPS, LOCAL, SHORT_ROUNDS);
}

/* Client 0 runs the long launch; client 1, once told, queues its short launches all at once and
 * only then waits for them, or sends them one by one (short_mode). 0, or 1 wrong results, 3 setup,
 * 7 fewer than HELD_SOLO_MIN of those sent one by one ran natively. */
static int client(int index, void *arg)
{
    struct aos_test_long_short *gates = arg;
    cl_context ctx;
    cl_command_queue q;
    const char *name = index == 0 ? "long_launch" : short_kernel[short_mode];
    bool one_group = short_mode == SHORT_ONE_GROUP;
    size_t short_groups = one_group ? 1 : SHORT_GROUPS;
    cl_kernel k = aos_test_client_kernel(src, name, &ctx, &q);
    /* Launches sent one by one are warmed up alone first: on a cold machine the device compiles
     * the kernel's first boxes during its first launches, which then run in several waves. */
    if (!k || (index == 1 && short_mode == SHORT_WAITED && waited_launches(ctx, q, k, WARM_LAUNCHES) != 0) ||
        (index == 1 && one_group && aos_spin_waited_launches(ctx, q, k, WARM_LAUNCHES, 1, LOCAL, SHORT_ROUNDS) != 0) ||
        !aos_test_gate_sync(&gates->start))
        return 3;
    if (index == 0) {
        size_t groups = (size_t)aos_test_compute_units() * LONG_GROUPS_PER_CU;
        cl_mem out = aos_spin_enqueue(ctx, q, k, groups, LOCAL, LONG_ROUNDS);
        if (!out || clFlush(q) != CL_SUCCESS || !aos_test_gate_ready(&gates->launched))
            return 3;
        return aos_spin_check_sample(q, out, groups * LOCAL, LONG_ROUNDS);
    }
    if (!aos_test_gate_sync(&gates->go))
        return 3;
    if (short_mode == SHORT_WAITED) {
        long long solo0 = aos_test_status_solo(getpid());
        int rc = waited_launches(ctx, q, k, WAITED_LAUNCHES);
        if (rc)
            return rc;
        /* While the device waited for it, its launches ran natively: held solo launches. */
        long long solo = aos_test_status_solo(getpid()) - solo0;
        fprintf(stderr, "fair_anticipate: %lld of %d launches sent one by one ran solo\n", solo, WAITED_LAUNCHES);
        return solo >= HELD_SOLO_MIN ? 0 : 7;
    }
    cl_mem outs[SHORT_LAUNCHES > ONE_GROUP_LAUNCHES ? SHORT_LAUNCHES : ONE_GROUP_LAUNCHES];
    int launches = one_group ? ONE_GROUP_LAUNCHES : SHORT_LAUNCHES;
    for (int i = 0; i < launches; i++)
        if (!(outs[i] = aos_spin_enqueue(ctx, q, k, short_groups, LOCAL, SHORT_ROUNDS)))
            return 3;
    if (clFinish(q) != CL_SUCCESS)
        return 3;
    for (int i = 0; i < launches; i++) {
        int rc = aos_spin_check_sample(q, outs[i], short_groups * LOCAL, SHORT_ROUNDS);
        if (rc)
            return rc;
    }
    return 0;
}

/* Runs the two clients (short ones sent as `mode` says) and checks that a slice of the long launch
 * ran between at most max_slices pairs of the short client's `launches` launches after its first
 * `skip` ones, not counting the first `settle` gaps. */
static void expect_few_slices_between(enum short_mode mode, int skip, int launches, int settle, int max_slices)
{
    short_mode = mode;
    bool one_group = mode == SHORT_ONE_GROUP;
    /* Nothing here touches OpenCL before the fork: each child is its own client. The short launches
     * come once the long launch is past its first, measuring waves: its waves are whole slices. */
    struct aos_test_long_short gates;
    long long held_before = aos_test_status_scheduler("held-us");
    long long charged_before = aos_test_status_scheduler("held-charged-us");
    long long holds_before = aos_test_status_scheduler("holds");
    aos_test_long_short_run(client, &gates, 80000);
    /* Each hold is charged to its client at hold_charge_pct of its time (both sums are of whole
     * nanoseconds, printed in whole microseconds). */
    long long held = aos_test_status_scheduler("held-us") - held_before;
    long long charged = aos_test_status_scheduler("held-charged-us") - charged_before;
    long long holds = aos_test_status_scheduler("holds") - holds_before;
    fprintf(stderr, "fair_anticipate: %lld holds kept the device %lld us, charged %lld us\n", holds, held, charged);
    ck_assert_msg(holds >= 1 && held >= 1, "the device was never held (%lld holds, %lld us)", holds, held);
    long long expected = held * HOLD_CHARGE_PCT / 100;
    ck_assert_msg(charged >= expected - 2 && charged <= expected + 2,
                  "%lld us held were charged %lld us, not %d %% of them", held, charged, HOLD_CHARGE_PCT);

    char long_line[4096], line[4096], pattern[64];
    snprintf(pattern, sizeof(pattern), "\"kernel\":\"%s\"", short_kernel[mode]);
    /* This run's: each run has one long launch. */
    ck_assert_msg(trace_find_last(trace_path, "\"kernel\":\"long_launch\"", long_line, sizeof(long_line)),
                  "no trace line for the long launch");
    ck_assert_uint_eq(trace_field(long_line, "virtual_groups_done"), aos_test_compute_units() * LONG_GROUPS_PER_CU);
    unsigned long long long_end = trace_field(long_line, "ended_host_ns"), prev_end = 0;
    int gaps = 0; /* a slice of the long launch ran between two short launches */
    for (int i = 1; i <= launches; i++) {
        ck_assert_msg(trace_find_nth(trace_path, pattern, skip + i, line, sizeof(line)),
                      "no trace line for short launch %d", i);
        ck_assert_uint_eq(trace_field(line, "virtual_groups_done"), one_group ? 1 : SHORT_GROUPS);
        unsigned long long start = trace_first_wave_ns(line), end = trace_field(line, "ended_host_ns");
        if (prev_end && i > settle + 1) {
            fprintf(stderr, "fair_anticipate: short launch %d started %.3f ms after the one before\n", i,
                    (double)(start - prev_end) / 1e6);
            gaps += start >= prev_end + SLICE_MS * 1000000ull / 4;
        }
        prev_end = end;
    }
    fprintf(stderr, "fair_anticipate: the long launch ended %.1f ms after the last short one\n",
            ((double)long_end - (double)prev_end) / 1e6);
    /* The long launch was still running: its waves could have filled the gaps. */
    ck_assert_msg(prev_end < long_end, "the long launch ended %.1f ms before the short ones",
                  (double)(prev_end - long_end) / 1e6);
    ck_assert_msg(gaps <= max_slices, "a slice of the long launch ran between %d of %d pairs of short launches",
                  gaps, launches - 1 - settle);
}

START_TEST(test_queued_launches_keep_the_device)
{
    expect_few_slices_between(SHORT_BURST, 0, SHORT_LAUNCHES, 0, 1);
}
END_TEST

/* Each launch waited for: the next one comes a host round trip after the end. Once the client's
 * gap is known (measured in its warm-up, when it ran alone) and it is behind in virtual time, the
 * device waits for it, and a launch that comes while it waits runs natively (a held solo launch:
 * without them, none of these launches beside the long one runs solo). */
START_TEST(test_launches_sent_one_by_one_keep_the_device)
{
    /* Without it a slice runs between every two; with it, typically after the first (the short
     * client joins level in virtual time) and a few more while a slow round trip outgrows the hold. */
    expect_few_slices_between(SHORT_WAITED, WARM_LAUNCHES, WAITED_LAUNCHES, 0, 4);
}
END_TEST

/* Launches of one work-group use one compute unit of the CPU device. While one runs, a wave of
 * the long launch could start on the others (space sharing); it would then hold the whole device
 * when the short one ends, and the next short launch would wait for it. A wave that short is not
 * worth sharing the device beside: the long launch waits for it. The first two may still gap: on a
 * cold cache under the sanitizers the kernel's time may not be known yet, or its first launches,
 * charged slowly, put the client ahead (a fresh-clone CI run: gaps before launches 2 and 3). */
START_TEST(test_one_group_launches_keep_the_device)
{
    expect_few_slices_between(SHORT_ONE_GROUP, WARM_LAUNCHES, ONE_GROUP_LAUNCHES, 2, 1);
}
END_TEST

int main(void)
{
    char config[160];
    /* A window of 20 ms (1 ms by default): on a loaded machine (a sanitizer build beside another
     * test) a client's round trip between two launches took 2-5 ms for seconds at a time. */
    /* Waves of the long launch a whole slice long beside the short client too (the response floor,
     * 250 µs by default), so that one between two short launches shows in the gaps. */
    /* Holds charged at less than the default's whole time, so that the charge shows the key is read. */
    snprintf(config, sizeof(config), "slice_ms = %d\nanticipate_us = %d\nresponse_floor_us = %d\nhold_charge_pct = %d\n",
             SLICE_MS, ANTICIPATE_US, RESPONSE_FLOOR_US, HOLD_CHARGE_PCT);
    Suite *s = suite_create("fair_anticipate");
    TCase *tc = tcase_create("fair_anticipate");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, test_queued_launches_keep_the_device);
    tcase_add_test(tc, test_launches_sent_one_by_one_keep_the_device);
    tcase_add_test(tc, test_one_group_launches_keep_the_device);
    suite_add_tcase(s, tc);
    return aos_test_run_suite_fair_traced(s, trace_path, config);
}
