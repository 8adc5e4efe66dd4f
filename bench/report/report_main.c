/* accelos-report: reads JSON-lines execution records (accelos-mix output
 * or daemon traces) and prints the paper's fairness and throughput
 * metrics per mix and per tenant count; --compare A B sets two
 * configurations side by side; --plot-dir renders plots with gnuplot. */
#include "aos_iso_pool.h"
#include "aos_metrics.h"
#include "aos_mixstats.h"
#include "aos_plot.h"
#include "aos_record.h"
#include "aos_trace_mixes.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { EXIT_BAD_INPUT = 1, EXIT_USAGE = 2 };

struct options {
	const char *config, *cmp_a, *cmp_b, *plot_dir;
	long timeline;
	int have_timeline;
	int common_iso;
	double trace_gap_ms;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: accelos-report [--config LABEL] [--plot-dir DIR] [--timeline MIX] [--trace-gap-ms MS]\n"
		   "                      [--common-iso] FILE...\n"
		   "       accelos-report --compare BASELINE CONFIG [--plot-dir DIR] [--trace-gap-ms MS] [--common-iso]\n"
		   "                      FILE...\n"
		   "FILE is a JSON-lines record file, or - for standard input. Records of accelos-mix carry\n"
		   "their mixes and isolated times; daemon traces (accelosd --trace) are split into busy\n"
		   "periods: one client alone gives isolated times, several clients make a mix. A client's\n"
		   "launches belong to one request while no idle gap of MS (default 5) separates them.\n"
		   "--common-iso scores every record against its kernel's median isolated time over all\n"
		   "the files, so runs that measured their own isolated times compare on the same ones.\n");
}

static int has_config(const struct aos_recordset *set, const char *c)
{
	for (size_t i = 0; i < set->count; i++)
		if (strcmp(set->items[i].config, c) == 0)
			return 1;
	return 0;
}

static void list_configs(const struct aos_recordset *set, FILE *f)
{
	for (size_t i = 0; i < set->count; i++) {
		int seen = 0;
		for (size_t j = 0; j < i && !seen; j++)
			seen = strcmp(set->items[j].config, set->items[i].config) == 0;
		if (!seen)
			fprintf(f, "  %s\n", set->items[i].config);
	}
}

static void print_config(const struct aos_mix_result *m, long n, const char *config)
{
	struct aos_group_result *g;
	long ng = aos_mixstats_group(m, n, &g);
	printf("configuration %s: %ld mixes\n", config, n);
	printf("%6s %4s %5s %9s %7s %7s %8s %8s %8s  %s\n", "mix", "ten", "runs", "unfair", "overlap", "STP",
	       "ANTT", "max IS", "speedup", "kernels");
	for (long i = 0; i < n; i++) {
		if (!m[i].runs) {
			printf("%6ld %4d %5d   FAILED (%d of %d runs failed)  %s\n", m[i].mix, m[i].ntenants, 0,
			       m[i].failed_runs, m[i].failed_runs, m[i].kernels);
			continue;
		}
		printf("%6ld %4d %5d %9.3f %7.3f %7.3f %8.3f %8.3f %8.3f  %s%s\n", m[i].mix, m[i].ntenants,
		       m[i].runs, m[i].unfairness, m[i].overlap, m[i].stp, m[i].antt, m[i].is_max, m[i].speedup,
		       m[i].kernels, m[i].failed_runs ? "  (some runs failed)" : "");
	}
	printf("by tenant count (geomean over mixes; overlap is the mean; W.ANTT is the worst mix ANTT):\n");
	printf("%4s %6s %6s %9s %7s %7s %8s %8s %8s\n", "ten", "mixes", "failed", "unfair", "overlap", "STP",
	       "ANTT", "W.ANTT", "speedup");
	for (long i = 0; i < ng; i++)
		printf("%4d %6d %6d %9.3f %7.3f %7.3f %8.3f %8.3f %8.3f\n", g[i].ntenants, g[i].mixes,
		       g[i].failed_mixes, g[i].unfairness, g[i].overlap, g[i].stp, g[i].antt, g[i].worst_antt,
		       g[i].speedup);
	free(g);
}

static int report_one(const struct aos_recordset *set, const char *config, const struct options *o)
{
	struct aos_mix_result *m;
	long n = aos_mixstats_compute(set, config, &m);
	if (n < 0)
		return EXIT_BAD_INPUT;
	print_config(m, n, config);
	if (o->plot_dir) {
		long which = o->have_timeline ? o->timeline : (n ? m[0].mix : -1);
		int rc = which >= 0 ? aos_plot_timeline(o->plot_dir, set, config, which) : -ENODATA;
		if (rc)
			fprintf(stderr, "accelos-report: timeline plot of mix %ld: %s\n", which, strerror(-rc));
		else
			printf("plot: %s/timeline-mix%ld.png\n", o->plot_dir, which);
	}
	free(m);
	return 0;
}

static int report_compare(const struct aos_recordset *set, const struct options *o)
{
	struct aos_mix_result *a, *b;
	long na = aos_mixstats_compute(set, o->cmp_a, &a), nb = aos_mixstats_compute(set, o->cmp_b, &b);
	double *impr = calloc(na + 1, sizeof(double)), *spd = calloc(na + 1, sizeof(double));
	int *tens = calloc(na + 1, sizeof(int));
	long k = 0;
	if (na < 0 || nb < 0 || !impr || !spd || !tens)
		return EXIT_BAD_INPUT;
	printf("comparison: baseline %s vs %s (fairness improvement = U_base/U_x, speedup = makespan_base/makespan_x)\n",
	       o->cmp_a, o->cmp_b);
	printf("%6s %4s %9s %9s %9s %11s %11s %8s\n", "mix", "ten", "U_base", "U_x", "improve", "make_base", "make_x",
	       "speedup");
	for (long i = 0; i < na; i++)
		for (long j = 0; j < nb; j++) {
			/* Same id and same tenants: the same workload in both runs. */
			if (a[i].mix != b[j].mix || strcmp(a[i].kernels, b[j].kernels) != 0)
				continue;
			if (!a[i].runs || !b[j].runs) {
				printf("%6ld %4d   FAILED in %s\n", a[i].mix, a[i].ntenants, a[i].runs ? o->cmp_b : o->cmp_a);
				continue;
			}
			impr[k] = b[j].unfairness > 0 ? a[i].unfairness / b[j].unfairness : 0;
			spd[k] = b[j].makespan_ns > 0 ? a[i].makespan_ns / b[j].makespan_ns : 0;
			tens[k] = a[i].ntenants;
			printf("%6ld %4d %9.3f %9.3f %9.3f %9.3fms %9.3fms %8.3f\n", a[i].mix, a[i].ntenants,
			       a[i].unfairness, b[j].unfairness, impr[k], a[i].makespan_ns / 1e6, b[j].makespan_ns / 1e6,
			       spd[k]);
			k++;
		}
	printf("by tenant count (geomeans):\n%4s %6s %12s %9s\n", "ten", "mixes", "improvement", "speedup");
	for (int t = 1; t <= 4096; t++) {
		double vi[k + 1], vs[k + 1];
		long m = 0;
		for (long i = 0; i < k; i++)
			if (tens[i] == t) {
				vi[m] = impr[i];
				vs[m++] = spd[i];
			}
		if (m)
			printf("%4d %6ld %12.3f %9.3f\n", t, m, aos_metric_geomean(vi, m), aos_metric_geomean(vs, m));
	}
	putchar('\n');
	print_config(a, na, o->cmp_a);
	putchar('\n');
	print_config(b, nb, o->cmp_b);
	if (o->plot_dir) {
		int rc = aos_plot_unfairness(o->plot_dir, o->cmp_a, a, na, o->cmp_b, b, nb);
		if (rc == 0)
			rc = aos_plot_improvement(o->plot_dir, impr, k, o->cmp_a, o->cmp_b);
		if (rc)
			fprintf(stderr, "accelos-report: plotting failed: %s\n", strerror(-rc));
		else
			printf("plots: %s/unfairness.png %s/improvement.png\n", o->plot_dir, o->plot_dir);
	}
	free(a);
	free(b);
	free(impr);
	free(spd);
	free(tens);
	return 0;
}

int main(int argc, char **argv)
{
	struct options o = { .trace_gap_ms = AOS_TRACE_GAP_NS / 1e6 };
	struct aos_recordset set = { 0 };
	char err[512];
	int nfiles = 0, status = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--config") == 0 && i + 1 < argc) {
			o.config = argv[++i];
		} else if (strcmp(a, "--compare") == 0 && i + 2 < argc) {
			o.cmp_a = argv[++i];
			o.cmp_b = argv[++i];
		} else if (strcmp(a, "--plot-dir") == 0 && i + 1 < argc) {
			o.plot_dir = argv[++i];
			/* Create the directory (one level) so a fresh run needs no mkdir. */
			if (mkdir(o.plot_dir, 0755) < 0 && errno != EEXIST) {
				fprintf(stderr, "accelos-report: %s: %s\n", o.plot_dir, strerror(errno));
				return EXIT_BAD_INPUT;
			}
		} else if (strcmp(a, "--timeline") == 0 && i + 1 < argc) {
			o.timeline = strtol(argv[++i], NULL, 10);
			o.have_timeline = 1;
		} else if (strcmp(a, "--trace-gap-ms") == 0 && i + 1 < argc) {
			char *end;
			o.trace_gap_ms = strtod(argv[++i], &end);
			if (*end || !(o.trace_gap_ms >= 0 && o.trace_gap_ms <= 1e6)) {
				fprintf(stderr, "accelos-report: --trace-gap-ms takes milliseconds, 0 to 1000000\n");
				return EXIT_USAGE;
			}
		} else if (strcmp(a, "--common-iso") == 0) {
			o.common_iso = 1;
		} else if (strcmp(a, "--help") == 0) {
			usage(stdout);
			return 0;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "accelos-report: unknown or incomplete option %s\n", a);
			usage(stderr);
			return EXIT_USAGE;
		} else {
			FILE *f = strcmp(a, "-") == 0 ? stdin : fopen(a, "r");
			if (!f) {
				fprintf(stderr, "accelos-report: %s: %s\n", a, strerror(errno));
				aos_recordset_free(&set);
				return EXIT_BAD_INPUT;
			}
			int rc = aos_recordset_load(&set, f, strcmp(a, "-") == 0 ? "<stdin>" : a, err, sizeof(err));
			if (f != stdin)
				fclose(f);
			if (rc) {
				fprintf(stderr, "accelos-report: %s\n", err);
				aos_recordset_free(&set);
				return EXIT_BAD_INPUT;
			}
			nfiles++;
		}
	}
	if (!nfiles) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (aos_trace_mixes(&set, o.trace_gap_ms * 1e6, stdout, NULL) < 0) {
		fprintf(stderr, "accelos-report: out of memory\n");
		aos_recordset_free(&set);
		return EXIT_BAD_INPUT;
	}
	if (o.common_iso && aos_iso_pool(&set) < 0) {
		fprintf(stderr, "accelos-report: out of memory\n");
		aos_recordset_free(&set);
		return EXIT_BAD_INPUT;
	}
	const char *need[] = { o.config, o.cmp_a, o.cmp_b };
	for (int i = 0; i < 3; i++)
		if (need[i] && !has_config(&set, need[i])) {
			fprintf(stderr, "accelos-report: no records for configuration \"%s\"; present:\n", need[i]);
			list_configs(&set, stderr);
			aos_recordset_free(&set);
			return EXIT_USAGE;
		}
	if (o.cmp_a) {
		status = report_compare(&set, &o);
	} else if (o.config) {
		status = report_one(&set, o.config, &o);
	} else {
		/* Every configuration present, in first-seen order. */
		for (size_t i = 0; i < set.count && !status; i++) {
			int seen = 0;
			for (size_t j = 0; j < i && !seen; j++)
				seen = strcmp(set.items[j].config, set.items[i].config) == 0;
			if (!seen)
				status = report_one(&set, set.items[i].config, &o);
		}
	}
	aos_recordset_free(&set);
	return status;
}
