/*
 * What the scheduler remembers per kernel (accelosd/device_sched.c, docs/scheduler.md §6): the
 * time per virtual group on one compute unit, and the same measured while the kernel's client had
 * the device to itself (its speed alone, which the progress charge uses). Keyed by
 * aos_elastic_estimate_key() (code and work-group size). Pure bookkeeping in caller-owned memory,
 * no locking (the caller holds its own lock), tested with tables (tests/scheduler/test_estimates.c).
 *
 * Set-associative: a key may take any of AOS_ESTIMATES_WAYS slots of its set, and a new key takes
 * the set's least recently written one. Until session 43 the table was direct-mapped, so two
 * kernels of one mix whose keys met in a slot kept wiping each other's measures.
 */
#ifndef ACCELOS_ESTIMATES_H
#define ACCELOS_ESTIMATES_H

#include <stdint.h>

#define AOS_ESTIMATES_SLOTS 256u
#define AOS_ESTIMATES_WAYS 8u
/* Measures alone before the speed alone is trusted: one slowed or sped up by the host must not set
 * a kernel's charges. */
#define AOS_ESTIMATES_ALONE_TRUSTED 4u

struct aos_estimate {
	uint64_t key;  /* 0: an empty slot */
	uint64_t used; /* the table's clock at the last write: the least recent goes first */
	double ns_per_vgroup_one;
	double alone_one;    /* smoothed, 1/4 per measure */
	uint32_t alone_measures;
};

/* Zero-initialised: empty. */
struct aos_estimates {
	struct aos_estimate slots[AOS_ESTIMATES_SLOTS];
	uint64_t clock;
};

/* key's time per virtual group on one compute unit, 0 when none is remembered. */
double aos_estimates_one(const struct aos_estimates *t, uint64_t key);

/* key's speed alone once AOS_ESTIMATES_ALONE_TRUSTED measures have set it, else 0. */
double aos_estimates_alone(const struct aos_estimates *t, uint64_t key);

/* key's measures alone so far (0 when none or forgotten), for the log. */
uint32_t aos_estimates_alone_measures(const struct aos_estimates *t, uint64_t key);

/* Remembers v ns per virtual group for key (v > 0). */
void aos_estimates_put(struct aos_estimates *t, uint64_t key, double v);

/* One measure of key's time per virtual group while alone (v > 0). A key new to the table also
 * takes v as its time per virtual group. */
void aos_estimates_put_alone(struct aos_estimates *t, uint64_t key, double v);

#endif
