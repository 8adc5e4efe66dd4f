#ifndef AOS_MIXRUN_H
#define AOS_MIXRUN_H
/* Running mixes: each tenant as its own process (the default, like real
 * applications) or as threads with separate queues on one shared context
 * (the --shared-context baseline). A sweep measures isolated times first
 * (cached), then runs every mix `repeat` times and writes one record per
 * tenant per run. */
#include "aos_barrier.h"
#include "aos_bench.h"
#include "aos_mixspec.h"
#include <stdio.h>

struct aos_mixopts {
	const char *label;
	const char *platform;
	enum aos_size size;
	int loop;
	double seconds;
	int repeat;
	int iso_reps;
	const char *iso_cache;
	FILE *out;
	int quiet;
	int shared_ctx;
	int crash_tenant; /* test hook, -1 = none */
	long mix_base;    /* first mix id, so separate sweeps can be merged */
	const char *self_exe;
};

/* One run of mix m. Fills slots[0..m->ntenants) and *go_ns (0 if the gate
 * never opened). Returns 0, or -errno when the harness itself failed. */
int aos_mixrun_procs(const struct aos_mixopts *o, const struct aos_mix *m, struct aos_tenant_slot *slots,
		     uint64_t *go_ns);
int aos_mixrun_shared(const struct aos_mixopts *o, const struct aos_mix *m, struct aos_tenant_slot *slots,
		      uint64_t *go_ns);
/* Isolated times + all runs + records. Returns the number of failed runs
 * (>= 0) or -errno. */
int aos_mixrun_sweep(const struct aos_mixopts *o, const struct aos_mix *mixes, int nmixes);
#endif
