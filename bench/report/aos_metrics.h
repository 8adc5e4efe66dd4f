#ifndef AOS_METRICS_H
#define AOS_METRICS_H
/* The multi-program metrics of the accelOS paper (section 7.4), as pure
 * functions so they can be unit-tested against hand-computed values.
 * IS_i = T_shared_i / T_isolated_i is each tenant's individual slowdown. */
#include <stddef.h>

double aos_metric_unfairness(const double *is, size_t n); /* max IS / min IS */
double aos_metric_stp(const double *is, size_t n);        /* sum of 1 / IS_i */
double aos_metric_antt(const double *is, size_t n);       /* mean of IS_i */
double aos_metric_geomean(const double *v, size_t n);     /* 0 if any v <= 0 */

/* Execution overlap O = T(all tenants executing) / T(at least one
 * executing). Intervals [start[i], end[i]) belong to tenant[i] (0-based,
 * < ntenants); one tenant may own several intervals. Returns 0 when no
 * tenant ever executes. */
double aos_metric_overlap(const double *start, const double *end, const int *tenant,
			  size_t nintervals, int ntenants);
#endif
