#include "aos_trace_mixes.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Isolated samples of one kernel name within one configuration. */
struct iso_kernel {
	const char *kernel;
	double *samples;
	size_t n, cap;
	double median;
};

struct iso_table {
	struct iso_kernel *items;
	size_t n, cap;
};

static int by_arrival(const void *a, const void *b)
{
	const struct aos_record *x = *(const struct aos_record *const *)a, *y = *(const struct aos_record *const *)b;
	if (x->arrival_ns != y->arrival_ns)
		return x->arrival_ns < y->arrival_ns ? -1 : 1;
	return x->end_ns < y->end_ns ? -1 : x->end_ns > y->end_ns;
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static struct iso_kernel *iso_find(struct iso_table *t, const char *kernel)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->items[i].kernel, kernel) == 0)
			return &t->items[i];
	return NULL;
}

static int iso_add(struct iso_table *t, const char *kernel, double sample)
{
	struct iso_kernel *k = iso_find(t, kernel);
	if (!k) {
		if (t->n == t->cap) {
			size_t cap = t->cap ? 2 * t->cap : 16;
			struct iso_kernel *grown = realloc(t->items, cap * sizeof(*grown));
			if (!grown)
				return -ENOMEM;
			t->items = grown;
			t->cap = cap;
		}
		k = &t->items[t->n++];
		*k = (struct iso_kernel){ .kernel = kernel };
	}
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 8;
		double *grown = realloc(k->samples, cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		k->samples = grown;
		k->cap = cap;
	}
	k->samples[k->n++] = sample;
	return 0;
}

static void iso_finish(struct iso_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		struct iso_kernel *k = &t->items[i];
		qsort(k->samples, k->n, sizeof(double), by_double);
		k->median = k->n % 2 ? k->samples[k->n / 2] : 0.5 * (k->samples[k->n / 2 - 1] + k->samples[k->n / 2]);
	}
}

static void iso_free(struct iso_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->items[i].samples);
	free(t->items);
}

/* A failed launch may carry no meaningful end: it still occupies [arrival, max(arrival, end)). */
static double end_of(const struct aos_record *r)
{
	return fmax(r->end_ns, r->arrival_ns);
}

static int by_period_arrival(const void *a, const void *b)
{
	const struct aos_record *x = *(const struct aos_record *const *)a, *y = *(const struct aos_record *const *)b;
	if (x->mix != y->mix)
		return x->mix < y->mix ? -1 : 1;
	return by_arrival(a, b);
}

static int by_client_arrival(const void *a, const void *b)
{
	const struct aos_record *x = *(const struct aos_record *const *)a, *y = *(const struct aos_record *const *)b;
	if (x->tenant != y->tenant)
		return x->tenant < y->tenant ? -1 : 1;
	return by_arrival(a, b);
}

struct burst {
	double start, end;
	long period;
};

static int burst_by_start(const void *a, const void *b)
{
	const struct burst *x = *(const struct burst *const *)a, *y = *(const struct burst *const *)b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Splits recs[0..n) into bursts (one client's launches, no idle gap of gap_ns or more) and the
 * bursts into busy periods (bursts whose intervals chain). Leaves recs sorted by (period,
 * arrival) with mix = period and run = burst number. Returns the number of periods, or -ENOMEM. */
static long split_periods(struct aos_record **recs, size_t n, double gap_ns)
{
	struct burst *bursts = calloc(n + 1, sizeof(*bursts));
	struct burst **order = calloc(n + 1, sizeof(*order));
	long nb = 0, np = 0;
	if (!bursts || !order) {
		np = -ENOMEM;
		goto out;
	}
	qsort(recs, n, sizeof(*recs), by_client_arrival);
	for (size_t i = 0; i < n; i++) {
		struct burst *b = nb ? &bursts[nb - 1] : NULL;
		if (!b || recs[i]->tenant != recs[i - 1]->tenant || recs[i]->arrival_ns >= b->end + gap_ns) {
			b = &bursts[nb++];
			b->start = recs[i]->arrival_ns;
			b->end = end_of(recs[i]);
		}
		b->end = fmax(b->end, end_of(recs[i]));
		recs[i]->run = nb - 1;
	}
	for (long b = 0; b < nb; b++)
		order[b] = &bursts[b];
	qsort(order, (size_t)nb, sizeof(*order), burst_by_start);
	double horizon = -INFINITY;
	for (long b = 0; b < nb; b++) {
		if (order[b]->start >= horizon)
			np++;
		order[b]->period = np - 1;
		horizon = fmax(horizon, order[b]->end);
	}
	for (size_t i = 0; i < n; i++)
		recs[i]->mix = bursts[recs[i]->run].period;
	qsort(recs, n, sizeof(*recs), by_period_arrival);
out:
	free(bursts);
	free(order);
	return np;
}

/* End of the period that starts at recs[i]. */
static size_t period_end(struct aos_record *const *recs, size_t n, size_t i)
{
	size_t j = i;
	while (j < n && recs[j]->mix == recs[i]->mix)
		j++;
	return j;
}

static int by_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return x < y ? -1 : x > y;
}

/* Distinct clients (or bursts) among recs[0..n), or -ENOMEM. */
static long count_distinct(struct aos_record *const *recs, size_t n, bool bursts)
{
	long *ids = malloc((n + 1) * sizeof(*ids)), clients = 0;
	if (!ids)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		ids[i] = bursts ? recs[i]->run : recs[i]->tenant;
	qsort(ids, n, sizeof(*ids), by_long);
	for (size_t i = 0; i < n; i++)
		clients += i == 0 || ids[i] != ids[i - 1];
	free(ids);
	return clients;
}

/* Isolated samples of one single-client period. */
static int sample_alone(struct iso_table *t, struct aos_record *const *recs, size_t n)
{
	double previous_end = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		const struct aos_record *r = recs[i];
		if (!r->failed) {
			double sample = r->end_ns - fmax(r->arrival_ns, previous_end);
			if (sample > 0 && iso_add(t, r->kernel, sample))
				return -ENOMEM;
		}
		previous_end = fmax(previous_end, end_of(r));
	}
	return 0;
}

/* A derived trace record that leaves the set: an isolated run, or a mix that cannot be computed. */
#define DROPPED (-1)

/* One configuration's trace records, recs[0..n). Sets each one's mix, or DROPPED. */
static int derive_config(struct aos_record **recs, size_t n, double gap_ns, FILE *notes,
			 struct aos_trace_summary *sum)
{
	struct iso_table iso = { 0 };
	int rc = 0;
	long nperiods = split_periods(recs, n, gap_ns);
	long alone = 0, mixes = 0, skipped = 0;
	if (nperiods < 0)
		return (int)nperiods;
	/* Pass 1: isolated samples; every period is seen before any mix is set, since a kernel may
	 * run alone only after the mix it is in. */
	for (size_t i = 0, j; i < n && !rc; i = j) {
		j = period_end(recs, n, i);
		long clients = count_distinct(&recs[i], j - i, false);
		if (clients < 0) {
			rc = -ENOMEM;
		} else if (clients == 1) {
			alone++;
			rc = sample_alone(&iso, &recs[i], j - i);
			for (size_t k = i; k < j; k++)
				recs[k]->mix = DROPPED;
		}
	}
	iso_finish(&iso);
	/* Pass 2: every shared period becomes a mix. */
	for (size_t i = 0, j; i < n && !rc; i = j) {
		j = period_end(recs, n, i);
		if (recs[i]->mix == DROPPED)
			continue;
		long clients = count_distinct(&recs[i], j - i, false);
		long tenants = count_distinct(&recs[i], j - i, true);
		if (clients < 0 || tenants < 0) {
			rc = -ENOMEM;
			break;
		}
		const char *missing = NULL;
		for (size_t k = i; k < j && !missing; k++) {
			struct iso_kernel *ik = iso_find(&iso, recs[k]->kernel);
			if (ik)
				recs[k]->iso_ns = ik->median;
			else if (!recs[k]->failed)
				missing = recs[k]->kernel;
		}
		if (missing) {
			skipped++;
			if (notes)
				fprintf(notes, "accelos-report: trace %s: a busy period of %ld clients skipped: kernel %s never ran alone\n",
					recs[i]->config, clients, missing);
		} else {
			mixes++;
		}
		for (size_t k = i; k < j; k++) {
			recs[k]->mix = missing ? DROPPED : mixes;
			recs[k]->tenant = recs[k]->run; /* the burst: one request of its client */
			recs[k]->run = 0;
			recs[k]->tenants = tenants;
		}
	}
	if (notes && !rc)
		fprintf(notes,
			"accelos-report: trace %s: %ld busy periods: %ld alone (isolated times of %zu kernels), "
			"%ld mixes, %ld skipped\n",
			recs[0]->config, nperiods, alone, iso.n, mixes, skipped);
	sum->periods += nperiods;
	sum->alone += alone;
	sum->mixes += mixes;
	sum->skipped += skipped;
	sum->kernels_alone += (long)iso.n;
	iso_free(&iso);
	return rc;
}

int aos_trace_mixes(struct aos_recordset *set, double gap_ns, FILE *notes, struct aos_trace_summary *sum)
{
	struct aos_trace_summary ignored;
	if (!sum)
		sum = &ignored;
	memset(sum, 0, sizeof(*sum));
	struct aos_record **recs = malloc((set->count + 1) * sizeof(*recs));
	char *done = calloc(set->count + 1, 1);
	int rc = 0;
	if (!recs || !done) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t first = 0; first < set->count && !rc; first++) {
		if (!set->items[first].trace || done[first])
			continue;
		size_t n = 0;
		for (size_t i = first; i < set->count; i++)
			if (set->items[i].trace && strcmp(set->items[i].config, set->items[first].config) == 0) {
				recs[n++] = &set->items[i];
				done[i] = 1;
			}
		rc = derive_config(recs, n, gap_ns, notes, sum);
	}
	if (!rc) {
		size_t kept = 0;
		for (size_t i = 0; i < set->count; i++)
			if (!set->items[i].trace || set->items[i].mix != DROPPED)
				set->items[kept++] = set->items[i];
		set->count = kept;
	}
out:
	free(recs);
	free(done);
	return rc;
}
