#ifndef AOS_TRACE_MIXES_H
#define AOS_TRACE_MIXES_H
/* Daemon traces (accelosd --trace) hold one record per launch and know
 * neither mixes nor isolated times. This derives both, per configuration:
 *
 * - A *burst* is one client's run of launches with no idle gap of gap_ns
 *   or more between one launch's end and the next one's arrival: one
 *   request of that client (a tenant's timed run, its warm-up, ...).
 * - A *busy period* is a maximal set of bursts whose [start, end)
 *   intervals chain into one another.
 * - A period with one client is an isolated run. Its launches give each
 *   kernel name isolated samples: end minus the later of its arrival and
 *   the previous launch's end (time spent on it alone, not queued behind
 *   its own predecessors). A kernel's isolated time is the median.
 * - A period with several clients is a mix (numbered 1, 2, ... in time
 *   order) whose tenants are its bursts (numbered per configuration); each
 *   launch's iso_ns is its kernel's isolated time, so a burst's isolated
 *   turnaround is the sum over its launches.
 *
 * Isolated periods are then dropped from the set, and so are mixes with a
 * kernel that never ran alone (noted, since no slowdown can be computed).
 * Records that are not traces are left untouched. */
#include <stdio.h>

#include "aos_record.h"

/* Default burst gap: longer than a tenant's host work between launches. */
#define AOS_TRACE_GAP_NS 5e6

struct aos_trace_summary {
	long periods;        /* busy periods, all configurations */
	long alone;          /* ... with one client */
	long mixes;          /* ... with several clients, kept as mixes */
	long skipped;        /* ... with several clients, dropped: a kernel never ran alone */
	long kernels_alone;  /* kernel names with isolated samples */
};

/* Rewrites set in place as above; notes (may be NULL) gets one line per
 * configuration and one per skipped mix. Returns 0 or -ENOMEM. */
int aos_trace_mixes(struct aos_recordset *set, double gap_ns, FILE *notes, struct aos_trace_summary *sum);
#endif
