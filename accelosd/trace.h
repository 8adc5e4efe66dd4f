/*
 * Launch traces (--trace FILE): one JSON line per elastic logical launch when it ends, in the
 * record schema accelos-report reads (docs/bench.md), plus the scheduler's own fields. Times are
 * the device's profiling times of the launch (PoCL: host CLOCK_MONOTONIC) when the application's
 * queue has profiling, else host CLOCK_MONOTONIC; admitted/ended are always host times.
 */
#ifndef ACCELOSD_TRACE_H
#define ACCELOSD_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define AOS_TRACE_HISTORY 32u

struct aos_trace_launch {
    uint64_t client;          /* session serial */
    pid_t pid;
    const char *kernel;
    bool ok;
    int32_t status;           /* CL_COMPLETE (0) or the error the application's event got */
    uint64_t queued_ns, start_ns, end_ns;
    uint64_t device_ns;       /* summed device time of the waves */
    uint64_t charged_ns;      /* what virtual time was charged for them (at the speed alone) */
    uint32_t waves;
    uint32_t physical_groups; /* of the first wave */
    uint32_t virtual_groups;
    uint32_t virtual_groups_done;
    uint32_t chunk;           /* largest virtual groups per dequeue of its loop waves; 0 = direct */
    uint64_t admitted_host_ns, ended_host_ns;
    uint32_t history_n;       /* physical group count over time: when it changed, and to what */
    struct { uint64_t t_ns; uint32_t groups; } history[AOS_TRACE_HISTORY];
};

/* A trace of short launches grows fast (about 400 bytes a launch: 18 MB/s beside Parboil's
 * uniformAdd on two cores), so by default a file that reaches 1 GiB is moved aside (docs/scheduler.md §6). */
#define AOS_TRACE_MAX_MB_DEFAULT 1024u
#define AOS_TRACE_MAX_MB_MAX (1024u * 1024u)

/* Opens (appends to) path; returns 0 or a negative errno. max_bytes > 0: once the file reaches
 * it, it becomes path.1 (replacing the one before) and a new file starts, so the trace takes at
 * most about twice max_bytes; 0: no limit. */
int aos_trace_open(const char *path, const char *config_label, uint64_t max_bytes);
bool aos_trace_enabled(void);
/* Writes one record; safe from any thread. */
void aos_trace_launch(const struct aos_trace_launch *t);
void aos_trace_close(void);

#endif
