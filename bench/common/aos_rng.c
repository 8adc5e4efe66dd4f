#include "aos_rng.h"

void aos_rng_seed(struct aos_rng *r, uint64_t seed)
{
	r->s = seed ^ 0x5eed0ccel;
}

uint64_t aos_rng_u64(struct aos_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint32_t aos_rng_below(struct aos_rng *r, uint32_t n)
{
	return n ? (uint32_t)((aos_rng_u64(r) >> 32) % n) : 0;
}

float aos_rng_unit(struct aos_rng *r)
{
	return (float)(aos_rng_u64(r) >> 40) * (1.0f / 16777216.0f);
}

float aos_rng_range(struct aos_rng *r, float lo, float hi)
{
	return lo + (hi - lo) * aos_rng_unit(r);
}
