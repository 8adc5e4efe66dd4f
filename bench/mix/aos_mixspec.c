#include "aos_mixspec.h"
#include "aos_rng.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int aos_spec_resolve(const char *spec, const struct aos_bench_desc **d, int *kidx, char *msg, size_t len)
{
	char name[AOS_SPEC_LEN];
	const char *colon = strchr(spec, ':');
	size_t n = colon ? (size_t)(colon - spec) : strlen(spec), off;
	snprintf(name, sizeof(name), "%.*s", (int)(n < sizeof(name) ? n : sizeof(name) - 1), spec);
	*d = aos_bench_find(name);
	*kidx = AOS_BENCH_ALL_KERNELS;
	if (!*d) {
		off = (size_t)snprintf(msg, len, "unknown benchmark \"%s\"; valid:", name);
		for (int i = 0; i < aos_bench_count() && off < len; i++)
			off += (size_t)snprintf(msg + off, len - off, " %s", aos_bench_at(i)->name);
		return -ENOENT;
	}
	if (colon) {
		*kidx = aos_bench_kernel_index(*d, colon + 1);
		if (*kidx < 0) {
			off = (size_t)snprintf(msg, len, "benchmark %s has no kernel \"%s\"; valid:", name, colon + 1);
			for (int k = 0; k < (*d)->nkernels && off < len; k++)
				off += (size_t)snprintf(msg + off, len - off, " %s:%s", name, (*d)->kernels[k]);
			return -ENOENT;
		}
	}
	return 0;
}

int aos_spec_all_kernels(char specs[][AOS_SPEC_LEN], int max)
{
	int n = 0;
	for (int i = 0; i < aos_bench_count(); i++) {
		const struct aos_bench_desc *d = aos_bench_at(i);
		for (int k = 0; k < d->nkernels && n < max; k++)
			snprintf(specs[n++], AOS_SPEC_LEN, "%s:%s", d->name, d->kernels[k]);
	}
	return n;
}

int aos_mix_from_list(const char *list, struct aos_mix *mix, char *msg, size_t len)
{
	const char *p = list;
	memset(mix, 0, sizeof(*mix));
	while (*p) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		const struct aos_bench_desc *d;
		int kidx;
		if (mix->ntenants == AOS_MIX_MAX_SPECS || n == 0 || n >= AOS_SPEC_LEN) {
			snprintf(msg, len, "bad tenant list \"%s\" (1..%d comma-separated specs)", list, AOS_MIX_MAX_SPECS);
			return -EINVAL;
		}
		memcpy(mix->specs[mix->ntenants], p, n);
		mix->specs[mix->ntenants][n] = 0;
		if (aos_spec_resolve(mix->specs[mix->ntenants], &d, &kidx, msg, len))
			return -EINVAL;
		mix->ntenants++;
		p += n + (comma ? 1 : 0);
	}
	if (!mix->ntenants) {
		snprintf(msg, len, "empty tenant list");
		return -EINVAL;
	}
	return 0;
}

int aos_mix_all_pairs(struct aos_mix **mixes)
{
	char specs[64][AOS_SPEC_LEN];
	int n = aos_spec_all_kernels(specs, 64), m = 0;
	*mixes = calloc((size_t)n * (n + 1) / 2, sizeof(**mixes));
	if (!*mixes)
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		for (int j = i; j < n; j++) {
			(*mixes)[m].ntenants = 2;
			strcpy((*mixes)[m].specs[0], specs[i]);
			strcpy((*mixes)[m].specs[1], specs[j]);
			m++;
		}
	return m;
}

int aos_mix_random(int k, int count, uint64_t seed, struct aos_mix **mixes)
{
	char specs[64][AOS_SPEC_LEN];
	int n = aos_spec_all_kernels(specs, 64);
	struct aos_rng rng;
	if (k < 1 || k > AOS_MIX_MAX_SPECS || count < 1)
		return -EINVAL;
	*mixes = calloc(count, sizeof(**mixes));
	if (!*mixes)
		return -ENOMEM;
	aos_rng_seed(&rng, seed);
	for (int c = 0; c < count; c++) {
		(*mixes)[c].ntenants = k;
		for (int t = 0; t < k; t++)
			strcpy((*mixes)[c].specs[t], specs[aos_rng_below(&rng, n)]);
	}
	return count;
}
