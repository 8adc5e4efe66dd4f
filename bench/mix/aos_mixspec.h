#ifndef AOS_MIXSPEC_H
#define AOS_MIXSPEC_H
/* Which tenants run together. A tenant spec is "bench" (the whole
 * benchmark pipeline) or "bench:kernel" (one Parboil kernel replayed on
 * the data its pipeline produced). */
#include "aos_bench.h"
#include <stdint.h>

#define AOS_SPEC_LEN 96
#define AOS_MIX_MAX_SPECS 64

struct aos_mix {
	int ntenants;
	char specs[AOS_MIX_MAX_SPECS][AOS_SPEC_LEN];
};

/* Resolves a spec; on failure writes the valid names into msg. */
int aos_spec_resolve(const char *spec, const struct aos_bench_desc **d, int *kidx, char *msg, size_t len);
/* All 25 "bench:kernel" specs, in registry order; returns the count. */
int aos_spec_all_kernels(char specs[][AOS_SPEC_LEN], int max);
/* "a,b,c" -> one mix. Returns 0 or -EINVAL with msg. */
int aos_mix_from_list(const char *list, struct aos_mix *mix, char *msg, size_t len);
/* Every unordered pair (with repeats) of the 25 kernels. Caller frees. */
int aos_mix_all_pairs(struct aos_mix **mixes);
/* count seeded random samples of k kernels (with replacement). */
int aos_mix_random(int k, int count, uint64_t seed, struct aos_mix **mixes);
#endif
