/* What the scheduler remembers per kernel: a set-associative table (include/accelos/estimates.h). */
#include "accelos/estimates.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#define SETS (AOS_ESTIMATES_SLOTS / AOS_ESTIMATES_WAYS)

static struct aos_estimate *set_of(const struct aos_estimates *t, uint64_t key)
{
	return (struct aos_estimate *)&t->slots[(key % SETS) * AOS_ESTIMATES_WAYS];
}

static const struct aos_estimate *find(const struct aos_estimates *t, uint64_t key)
{
	if (!key)
		return NULL;
	const struct aos_estimate *set = set_of(t, key);
	for (uint32_t i = 0; i < AOS_ESTIMATES_WAYS; i++)
		if (set[i].key == key)
			return &set[i];
	return NULL;
}

/* key's slot, made from an empty one or the set's least recently written; marked written now. */
static struct aos_estimate *claim(struct aos_estimates *t, uint64_t key)
{
	struct aos_estimate *e = (struct aos_estimate *)find(t, key);
	if (!e) {
		struct aos_estimate *set = set_of(t, key);
		e = &set[0];
		for (uint32_t i = 0; i < AOS_ESTIMATES_WAYS && e->key; i++)
			if (!set[i].key || set[i].used < e->used)
				e = &set[i];
		*e = (struct aos_estimate){ .key = key };
	}
	e->used = ++t->clock;
	return e;
}

static bool usable(double v)
{
	return v > 0 && isfinite(v);
}

double aos_estimates_one(const struct aos_estimates *t, uint64_t key)
{
	const struct aos_estimate *e = find(t, key);
	return e ? e->ns_per_vgroup_one : 0.0;
}

double aos_estimates_alone(const struct aos_estimates *t, uint64_t key)
{
	const struct aos_estimate *e = find(t, key);
	return e && e->alone_measures >= AOS_ESTIMATES_ALONE_TRUSTED ? e->alone_one : 0.0;
}

uint32_t aos_estimates_alone_measures(const struct aos_estimates *t, uint64_t key)
{
	const struct aos_estimate *e = find(t, key);
	return e ? e->alone_measures : 0;
}

void aos_estimates_put(struct aos_estimates *t, uint64_t key, double v)
{
	if (key && usable(v))
		claim(t, key)->ns_per_vgroup_one = v;
}

void aos_estimates_put_alone(struct aos_estimates *t, uint64_t key, double v)
{
	if (!key || !usable(v))
		return;
	struct aos_estimate *e = claim(t, key);
	if (!(e->ns_per_vgroup_one > 0))
		e->ns_per_vgroup_one = v;
	e->alone_one = e->alone_measures ? 0.75 * e->alone_one + 0.25 * v : v;
	e->alone_measures++;
}
