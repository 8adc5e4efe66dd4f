#include "aos_plot.h"
#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

extern char **environ;

static FILE *open_in(const char *dir, const char *name, const char *ext, char *path, size_t len)
{
	snprintf(path, len, "%s/%s.%s", dir, name, ext);
	return fopen(path, "w");
}

/* gnuplot strings are single-quoted and the terminal is noenhanced, so
 * only quotes and newlines in user-supplied labels need dropping. */
static void put_label(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		if (*s != '\'' && *s != '\n')
			fputc(*s, f);
	fputc('\'', f);
}

static int run_gnuplot(const char *script)
{
	char *argv[] = { "gnuplot", (char *)script, NULL };
	pid_t pid;
	int status;
	if (posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ) != 0)
		return -ENOENT;
	if (waitpid(pid, &status, 0) < 0)
		return -EIO;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return -ENOENT;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

static void preamble(FILE *gp, const char *dir, const char *name, const char *title)
{
	fprintf(gp, "set terminal pngcairo noenhanced size 1000,%d\n", 480);
	fprintf(gp, "set output '%s/%s.png'\n", dir, name);
	fputs("set title ", gp);
	put_label(gp, title);
	fputs("\nset grid ytics\nset key outside right top\n", gp);
}

int aos_plot_timeline(const char *dir, const struct aos_recordset *set, const char *config, long mix)
{
	char name[160], dat[512], gpath[512], title[256];
	double t0 = INFINITY;
	long lanes = 0;
	snprintf(name, sizeof(name), "timeline-mix%ld", mix);
	for (size_t i = 0; i < set->count; i++) {
		const struct aos_record *r = &set->items[i];
		if (strcmp(r->config, config) == 0 && r->mix == mix && r->run == 0) {
			t0 = fmin(t0, r->arrival_ns);
			lanes = r->tenant + 1 > lanes ? r->tenant + 1 : lanes;
		}
	}
	if (!lanes)
		return -ENODATA;
	FILE *d = open_in(dir, name, "dat", dat, sizeof(dat));
	FILE *gp = open_in(dir, name, "gp", gpath, sizeof(gpath));
	if (!d || !gp) {
		if (d) fclose(d);
		if (gp) fclose(gp);
		return -errno;
	}
	/* Columns: lane, arrival ms, start ms, end ms, label. */
	for (size_t i = 0; i < set->count; i++) {
		const struct aos_record *r = &set->items[i];
		if (strcmp(r->config, config) == 0 && r->mix == mix && r->run == 0)
			fprintf(d, "%ld %.6f %.6f %.6f \"%ld %s%s\"\n", r->tenant, (r->arrival_ns - t0) / 1e6,
				(r->start_ns - t0) / 1e6, (r->end_ns - t0) / 1e6, r->tenant, r->kernel,
				r->failed ? " FAILED" : "");
	}
	fclose(d);
	snprintf(title, sizeof(title), "%s mix %ld: kernel executions per tenant (run 0)", config, mix);
	preamble(gp, dir, name, title);
	fprintf(gp, "set xlabel 'time since first arrival (ms)'\nset yrange [-0.6:%ld.6]\n", lanes - 1);
	/* Lane labels are "tenant kernel"; leave room for them. */
	fputs("set style fill solid 0.8 border -1\nset ytics nomirror\nset lmargin 38\n", gp);
	fprintf(gp, "plot '%s' using 1:1:ytic(5) with points pt -1 notitle, \\\n"
		    "     '' using (($2+$3)/2):1:(($3-$2)/2):(0.08) with boxxyerrorbars lc rgb '#bbbbbb' title 'waiting', \\\n"
		    "     '' using (($3+$4)/2):1:(($4-$3)/2):(0.3) with boxxyerrorbars lc rgb '#3366cc' title 'executing'\n",
		dat);
	fclose(gp);
	return run_gnuplot(gpath);
}

int aos_plot_unfairness(const char *dir, const char *ca, const struct aos_mix_result *a, long na,
			const char *cb, const struct aos_mix_result *b, long nb)
{
	char dat[512], gpath[512], title[256];
	FILE *d = open_in(dir, "unfairness", "dat", dat, sizeof(dat));
	FILE *gp = open_in(dir, "unfairness", "gp", gpath, sizeof(gpath));
	if (!d || !gp) {
		if (d) fclose(d);
		if (gp) fclose(gp);
		return -errno;
	}
	for (long i = 0; i < na; i++)
		for (long j = 0; j < nb; j++)
			if (a[i].mix == b[j].mix && a[i].runs && b[j].runs && strcmp(a[i].kernels, b[j].kernels) == 0)
				fprintf(d, "%ld %.6f %.6f\n", a[i].mix, a[i].unfairness, b[j].unfairness);
	fclose(d);
	snprintf(title, sizeof(title), "Unfairness per mix (lower is better)");
	preamble(gp, dir, "unfairness", title);
	fputs("set style data histograms\nset style histogram clustered gap 1\n"
	      "set style fill solid 0.8 border -1\nset logscale y\nset xlabel 'mix'\nset ylabel 'unfairness U'\n", gp);
	fprintf(gp, "plot '%s' using 2:xtic(1) title ", dat);
	put_label(gp, ca);
	fputs(", '' using 3 title ", gp);
	put_label(gp, cb);
	fputc('\n', gp);
	fclose(gp);
	return run_gnuplot(gpath);
}

static int dbl_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

int aos_plot_improvement(const char *dir, const double *impr, long n, const char *ca, const char *cb)
{
	char dat[512], gpath[512], title[256];
	double *v = malloc((n + 1) * sizeof(double));
	FILE *d = open_in(dir, "improvement", "dat", dat, sizeof(dat));
	FILE *gp = open_in(dir, "improvement", "gp", gpath, sizeof(gpath));
	if (!v || !d || !gp) {
		free(v);
		if (d) fclose(d);
		if (gp) fclose(gp);
		return -ENOMEM;
	}
	memcpy(v, impr, n * sizeof(double));
	qsort(v, n, sizeof(double), dbl_cmp);
	for (long i = 0; i < n; i++)
		fprintf(d, "%ld %.6f\n", i, v[i]);
	fclose(d);
	free(v);
	snprintf(title, sizeof(title), "Fairness improvement U(%s) / U(%s), mixes sorted", ca, cb);
	preamble(gp, dir, "improvement", title);
	fputs("set logscale y\nset xlabel 'mix (sorted by improvement)'\nset ylabel 'fairness improvement'\n"
	      "set style fill solid 0.8 border -1\nset boxwidth 0.8\n", gp);
	fprintf(gp, "plot '%s' using 1:2 with boxes lc rgb '#3366cc' notitle, 1 with lines lc rgb 'black' dt 2 title 'no change'\n",
		dat);
	fclose(gp);
	return run_gnuplot(gpath);
}
