#ifndef AOS_PLOT_H
#define AOS_PLOT_H
/* Plots rendered by gnuplot (pngcairo). Each function writes
 * DIR/<name>.dat and DIR/<name>.gp, runs gnuplot on the script and leaves
 * DIR/<name>.png. Returns 0, -ENOENT when gnuplot cannot be run, or -EIO
 * when it fails. */
#include "aos_mixstats.h"
#include "aos_record.h"

int aos_plot_timeline(const char *dir, const struct aos_recordset *set, const char *config, long mix);
int aos_plot_unfairness(const char *dir, const char *config_a, const struct aos_mix_result *a, long na,
			const char *config_b, const struct aos_mix_result *b, long nb);
int aos_plot_improvement(const char *dir, const double *improvement, long n,
			 const char *config_a, const char *config_b);
#endif
