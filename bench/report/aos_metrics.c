#include "aos_metrics.h"
#include <math.h>
#include <stdlib.h>

double aos_metric_unfairness(const double *is, size_t n)
{
	double lo = INFINITY, hi = 0;
	for (size_t i = 0; i < n; i++) {
		lo = is[i] < lo ? is[i] : lo;
		hi = is[i] > hi ? is[i] : hi;
	}
	return n && lo > 0 ? hi / lo : 0;
}

double aos_metric_stp(const double *is, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += is[i] > 0 ? 1 / is[i] : 0;
	return s;
}

double aos_metric_antt(const double *is, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += is[i];
	return n ? s / n : 0;
}

double aos_metric_geomean(const double *v, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++) {
		if (!(v[i] > 0))
			return 0;
		s += log(v[i]);
	}
	return n ? exp(s / n) : 0;
}

struct edge {
	double t;
	int tenant;
	int delta;
};

static int edge_cmp(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->delta - y->delta; /* ends before starts at equal times */
}

double aos_metric_overlap(const double *start, const double *end, const int *tenant,
			  size_t n, int ntenants)
{
	struct edge *e = malloc(2 * n * sizeof(*e));
	int *depth = calloc(ntenants > 0 ? ntenants : 1, sizeof(int));
	double any = 0, all = 0;
	int active = 0;
	if (!e || !depth || ntenants <= 0) {
		free(e);
		free(depth);
		return 0;
	}
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (!(end[i] > start[i]) || tenant[i] < 0 || tenant[i] >= ntenants)
			continue;
		e[m++] = (struct edge){ start[i], tenant[i], +1 };
		e[m++] = (struct edge){ end[i], tenant[i], -1 };
	}
	qsort(e, m, sizeof(*e), edge_cmp);
	/* Sweep: a tenant counts as active while any of its intervals is open,
	 * so a tenant's own overlapping intervals are merged. */
	for (size_t i = 0; i < m; i++) {
		if (i > 0) {
			double dt = e[i].t - e[i - 1].t;
			if (active > 0)
				any += dt;
			if (active == ntenants)
				all += dt;
		}
		int before = depth[e[i].tenant];
		depth[e[i].tenant] += e[i].delta;
		if (before == 0 && depth[e[i].tenant] > 0)
			active++;
		else if (before > 0 && depth[e[i].tenant] == 0)
			active--;
	}
	free(e);
	free(depth);
	return any > 0 ? all / any : 0;
}
