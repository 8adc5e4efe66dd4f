#include "aos_mixstats.h"
#include "aos_metrics.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int rec_cmp(const void *a, const void *b)
{
	const struct aos_record *x = *(const struct aos_record *const *)a, *y = *(const struct aos_record *const *)b;
	if (x->mix != y->mix) return x->mix < y->mix ? -1 : 1;
	if (x->run != y->run) return x->run < y->run ? -1 : 1;
	if (x->tenant != y->tenant) return x->tenant < y->tenant ? -1 : 1;
	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

struct run_metrics {
	double unfairness, overlap, stp, antt, is_max, makespan, speedup;
};

/* Metrics of one (mix, run): recs[0..n) sorted by tenant. Returns 0, or
 * -1 when the run failed or is incomplete. */
static int run_compute(struct aos_record *const *recs, size_t n, struct run_metrics *m, int *ntenants,
		       char *kernels, size_t klen)
{
	double *is = calloc(n, sizeof(double)), *st = calloc(n, sizeof(double)), *en = calloc(n, sizeof(double));
	int *who = calloc(n, sizeof(int)), k = 0, rc = 0;
	*ntenants = 0;
	double first = INFINITY, last = 0, work = 0;
	long expect = 0;
	if (!is || !st || !en || !who) {
		rc = -1;
		goto out;
	}
	kernels[0] = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		double arrival = INFINITY, end = 0, iso = 0;
		long execs = 0, corun = 0;
		for (; j < n && recs[j]->tenant == recs[i]->tenant; j++) {
			if (recs[j]->failed)
				rc = -1;
			arrival = fmin(arrival, recs[j]->arrival_ns);
			end = fmax(end, recs[j]->end_ns);
			iso += recs[j]->iso_ns;
			execs += recs[j]->execs;
			corun += recs[j]->corun_execs;
			st[j] = recs[j]->start_ns;
			en[j] = fmax(recs[j]->end_ns, recs[j]->corun_end_ns); /* busy, for overlap */
			who[j] = k;
			if (recs[j]->tenants > expect)
				expect = recs[j]->tenants;
		}
		/* Loop mode: one record covers several executions of one kernel,
		 * and the executions it ran after them, while others still counted,
		 * are work within the makespan too. */
		double t_shared = end - arrival, t_iso = iso;
		if (j - i == 1 && execs > 1)
			t_shared /= (double)execs;
		if (j - i == 1)
			work += iso * (double)((execs > 1 ? execs : 1) + corun);
		else
			work += iso;
		is[k] = t_iso > 0 ? t_shared / t_iso : 0;
		first = fmin(first, arrival);
		last = fmax(last, end);
		size_t used = strlen(kernels);
		snprintf(kernels + used, klen - used, "%s%s", k ? "," : "", recs[i]->kernel);
		k++;
		i = j;
	}
	*ntenants = k > expect ? k : (int)expect;
	if (k < expect)
		rc = -1; /* a tenant never reported: it crashed without a record */
	if (rc == 0) {
		m->unfairness = aos_metric_unfairness(is, k);
		m->stp = aos_metric_stp(is, k);
		m->antt = aos_metric_antt(is, k);
		m->overlap = aos_metric_overlap(st, en, who, n, k);
		m->is_max = 0;
		for (int t = 0; t < k; t++)
			m->is_max = fmax(m->is_max, is[t]);
		m->makespan = last - first;
		m->speedup = m->makespan > 0 ? work / m->makespan : 0;
	}
out:
	free(is);
	free(st);
	free(en);
	free(who);
	return rc;
}

long aos_mixstats_compute(const struct aos_recordset *set, const char *config, struct aos_mix_result **out)
{
	struct aos_record **recs = malloc((set->count + 1) * sizeof(*recs));
	struct aos_mix_result *res = NULL;
	size_t n = 0;
	long nmix = 0;
	*out = NULL;
	if (!recs)
		return -ENOMEM;
	for (size_t i = 0; i < set->count; i++)
		if (strcmp(set->items[i].config, config) == 0)
			recs[n++] = &set->items[i];
	qsort(recs, n, sizeof(*recs), rec_cmp);
	res = calloc(n + 1, sizeof(*res));
	if (!res) {
		free(recs);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n;) {
		struct aos_mix_result *mr = &res[nmix++];
		mr->mix = recs[i]->mix;
		size_t j = i;
		while (j < n && recs[j]->mix == mr->mix) {
			size_t k = j;
			struct run_metrics m = { 0 };
			char kernels[sizeof(mr->kernels)];
			int nt = 0;
			while (k < n && recs[k]->mix == mr->mix && recs[k]->run == recs[j]->run)
				k++;
			int bad = run_compute(&recs[j], k - j, &m, &nt, kernels, sizeof(kernels));
			if (nt > mr->ntenants)
				mr->ntenants = nt;
			if (!mr->kernels[0])
				strcpy(mr->kernels, kernels);
			if (bad) {
				mr->failed_runs++;
			} else {
				mr->runs++;
				mr->unfairness += m.unfairness;
				mr->overlap += m.overlap;
				mr->stp += m.stp;
				mr->antt += m.antt;
				mr->is_max += m.is_max;
				mr->makespan_ns += m.makespan;
				mr->speedup += m.speedup;
			}
			j = k;
		}
		if (mr->runs) {
			double r = mr->runs;
			mr->unfairness /= r;
			mr->overlap /= r;
			mr->stp /= r;
			mr->antt /= r;
			mr->is_max /= r;
			mr->makespan_ns /= r;
			mr->speedup /= r;
		}
		i = j;
	}
	free(recs);
	*out = res;
	return nmix;
}

long aos_mixstats_group(const struct aos_mix_result *mixes, long n, struct aos_group_result **out)
{
	struct aos_group_result *g = calloc(n + 1, sizeof(*g));
	double *u = malloc((n + 1) * sizeof(double)), *s = malloc((n + 1) * sizeof(double));
	double *a = malloc((n + 1) * sizeof(double)), *sp = malloc((n + 1) * sizeof(double));
	long ng = 0;
	*out = NULL;
	if (!g || !u || !s || !a || !sp) {
		free(g); free(u); free(s); free(a); free(sp);
		return -ENOMEM;
	}
	for (int t = 1; t <= 4096; t++) {
		long k = 0, seen = 0, failed = 0;
		double ov = 0, worst = 0;
		for (long i = 0; i < n; i++) {
			if (mixes[i].ntenants != t)
				continue;
			seen++;
			if (!mixes[i].runs) {
				failed++;
				continue;
			}
			u[k] = mixes[i].unfairness;
			s[k] = mixes[i].stp;
			a[k] = mixes[i].antt;
			sp[k] = mixes[i].speedup;
			ov += mixes[i].overlap;
			worst = fmax(worst, mixes[i].antt);
			k++;
		}
		if (!seen)
			continue;
		struct aos_group_result *gr = &g[ng++];
		gr->ntenants = t;
		gr->mixes = (int)k;
		gr->failed_mixes = (int)failed;
		gr->unfairness = aos_metric_geomean(u, k);
		gr->stp = aos_metric_geomean(s, k);
		gr->antt = aos_metric_geomean(a, k);
		gr->speedup = aos_metric_geomean(sp, k);
		gr->worst_antt = worst;
		gr->overlap = k ? ov / k : 0;
	}
	free(u); free(s); free(a); free(sp);
	*out = g;
	return ng;
}
