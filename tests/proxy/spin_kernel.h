/* The busy kernel of the scheduler tests: every item hashes its index `rounds` times, so one
 * argument sets the work per item and every result can be checked on the host. */
#ifndef ACCELOS_TEST_SPIN_KERNEL_H
#define ACCELOS_TEST_SPIN_KERNEL_H

#include <stdint.h>

/* One dependent step on h in round r: OpenCL C, and the same in aos_spin_expect(). */
#define AOS_SPIN_STEP "h = (h ^ (h >> 15)) * 2246822519u + r;"

/* kernel void name(global uint *out, uint rounds): out[i] = the hash of i after `rounds` steps. */
#define AOS_SPIN_KERNEL(name)                                                                       \
    "kernel void " name "(global uint *out, uint rounds)\n"                                         \
    "{ size_t i = get_global_id(0); uint h = (uint)i;\n"                                            \
    "  for (uint r = 0; r < rounds; r++) " AOS_SPIN_STEP "\n"                                       \
    "  out[i] = h; }\n"

/* What AOS_SPIN_STEP leaves in h, starting from `start`, after `rounds` steps. */
static inline uint32_t aos_spin_expect(uint32_t start, uint32_t rounds)
{
    uint32_t h = start;
    for (uint32_t r = 0; r < rounds; r++)
        h = (h ^ (h >> 15)) * 2246822519u + r;
    return h;
}

#endif
