#ifndef AOS_MIXSTATS_H
#define AOS_MIXSTATS_H
/* Turns records into per-mix metrics for one configuration, and groups
 * them by tenant count. A (mix, run) with any failed tenant is excluded
 * from the metrics and counted as failed; per-mix values are means over
 * the mix's successful runs, as the paper averages its 20 repetitions. */
#include "aos_record.h"

struct aos_mix_result {
	long mix;
	int ntenants;
	int runs, failed_runs;
	double unfairness;  /* max IS / min IS */
	double overlap;     /* T(all) / T(any) */
	double stp;         /* sum T_iso / T_shared */
	double antt;        /* mean IS */
	double is_max;      /* worst tenant slowdown */
	double makespan_ns; /* first arrival to last completion */
	double speedup;     /* sum T_iso / makespan: vs. running back to back */
	char kernels[512];  /* "k1,k2,..." in tenant order */
};

struct aos_group_result {
	int ntenants;
	int mixes, failed_mixes;
	double unfairness, stp, antt, speedup; /* geomeans over mixes */
	double worst_antt;                     /* max ANTT over mixes */
	double overlap;                        /* arithmetic mean (may be 0) */
};

/* Computes results for config, sorted by mix id. Caller frees *out.
 * Returns the number of mixes (including fully failed ones) or -errno. */
long aos_mixstats_compute(const struct aos_recordset *set, const char *config,
			  struct aos_mix_result **out);
/* Groups results by tenant count, ascending. Caller frees *out. */
long aos_mixstats_group(const struct aos_mix_result *mixes, long n, struct aos_group_result **out);
#endif
