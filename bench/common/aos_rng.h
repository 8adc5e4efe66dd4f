#ifndef AOS_RNG_H
#define AOS_RNG_H
#include <stdint.h>
/* splitmix64: tiny, seedable, identical output on every platform, so a
 * seed fully determines a generated dataset. */
struct aos_rng { uint64_t s; };
void aos_rng_seed(struct aos_rng *r, uint64_t seed);
uint64_t aos_rng_u64(struct aos_rng *r);
uint32_t aos_rng_below(struct aos_rng *r, uint32_t n); /* [0, n) */
float aos_rng_unit(struct aos_rng *r);                 /* [0, 1) */
float aos_rng_range(struct aos_rng *r, float lo, float hi);
#endif
