/*
 * Launch traces (--trace FILE): one JSON line per elastic logical launch when it completes, in the
 * record schema accelos-report reads (docs/bench.md), plus the scheduler's own fields. Times are
 * the device's profiling times of the launch (PoCL: host CLOCK_MONOTONIC).
 */
#ifndef ACCELOSD_TRACE_H
#define ACCELOSD_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct aos_trace_launch {
    uint64_t client;          /* session serial */
    pid_t pid;
    const char *kernel;
    bool ok;
    uint64_t queued_ns, start_ns, end_ns;
    uint32_t physical_groups;
    uint32_t virtual_groups;
};

/* Opens (appends to) path; returns 0 or a negative errno. */
int aos_trace_open(const char *path, const char *config_label);
bool aos_trace_enabled(void);
/* Writes one record; safe from any thread. */
void aos_trace_launch(const struct aos_trace_launch *t);
void aos_trace_close(void);

#endif
