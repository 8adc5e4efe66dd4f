/* Common isolated times across a record set (aos_iso_pool.h). */
#include "aos_iso_pool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Whether an earlier record of the same kernel, configuration and mix carried the same value. */
static int seen_before(const struct aos_recordset *set, size_t i)
{
	const struct aos_record *r = &set->items[i];
	for (size_t j = 0; j < i; j++) {
		const struct aos_record *o = &set->items[j];
		if (!o->failed && o->iso_ns == r->iso_ns && o->mix == r->mix && !strcmp(o->kernel, r->kernel) &&
		    !strcmp(o->config, r->config))
			return 1;
	}
	return 0;
}

int aos_iso_pool(struct aos_recordset *set)
{
	double *vals = malloc((set->count ? set->count : 1) * sizeof(*vals));
	char *done = calloc(set->count ? set->count : 1, 1);
	int kernels = 0;
	if (!vals || !done) {
		free(vals);
		free(done);
		return -ENOMEM;
	}
	for (size_t i = 0; i < set->count; i++) {
		const struct aos_record *r = &set->items[i];
		if (done[i] || r->failed || !(r->iso_ns > 0))
			continue;
		size_t n = 0;
		for (size_t j = i; j < set->count; j++) {
			const struct aos_record *o = &set->items[j];
			if (!o->failed && o->iso_ns > 0 && !strcmp(o->kernel, r->kernel) && !seen_before(set, j))
				vals[n++] = o->iso_ns;
		}
		qsort(vals, n, sizeof(*vals), cmp_double);
		double median = n % 2 ? vals[n / 2] : 0.5 * (vals[n / 2 - 1] + vals[n / 2]);
		char kernel[AOS_RECORD_STR];
		memcpy(kernel, r->kernel, sizeof(kernel));
		for (size_t j = i; j < set->count; j++) {
			struct aos_record *o = &set->items[j];
			if (!o->failed && o->iso_ns > 0 && !strcmp(o->kernel, kernel)) {
				o->iso_ns = median;
				done[j] = 1;
			}
		}
		kernels++;
	}
	free(vals);
	free(done);
	return kernels;
}
