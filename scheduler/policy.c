/*
 * Scheduling policies: a policy orders the active launches and decides each
 * one's physical work-groups. Adding one (e.g. priority classes: order by
 * class, then virtual time, and solve shares within the admitted set) is a
 * new plan function and a new row in the table; nothing else changes.
 */
#include "accelos/sched.h"

#include <errno.h>
#include <string.h>

/* Insertion sort of indices: n is the number of active launches (small), and
 * a stable sort keeps equal keys in input order. */
static void sort_indices(const struct aos_sched_kernel *k, size_t n, size_t *order,
			 int (*less)(const struct aos_sched_kernel *, const struct aos_sched_kernel *))
{
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = 1; i < n; i++) {
		size_t v = order[i], j = i;
		for (; j > 0 && less(&k[v], &k[order[j - 1]]); j--)
			order[j] = order[j - 1];
		order[j] = v;
	}
}

static int by_arrival(const struct aos_sched_kernel *a, const struct aos_sched_kernel *b)
{
	return a->arrival < b->arrival;
}

static int by_vtime(const struct aos_sched_kernel *a, const struct aos_sched_kernel *b)
{
	return a->vtime < b->vtime || (a->vtime == b->vtime && a->arrival < b->arrival);
}

static int plan_fair(const struct aos_sched_device *dev, const struct aos_sched_kernel *k, size_t n,
		     size_t *order, struct aos_sched_share *out)
{
	if (n && (!k || !order))
		return -EINVAL;
	sort_indices(k, n, order, by_vtime);
	return aos_sched_share_solve(dev, k, n, order, out);
}

/* No transformation: every launch runs natively with all its groups, in
 * arrival order; the hardware (or driver) serializes them as it would
 * without accelOS. Nothing is UNFIT here: the driver reports its own errors. */
static int plan_fifo(const struct aos_sched_device *dev, const struct aos_sched_kernel *k, size_t n,
		     size_t *order, struct aos_sched_share *out)
{
	if (!dev || (n && (!k || !order || !out)))
		return -EINVAL;
	sort_indices(k, n, order, by_arrival);
	for (size_t i = 0; i < n; i++) {
		if (k[i].wg_threads == 0 || k[i].total_groups == 0)
			return -EINVAL;
		out[i] = (struct aos_sched_share){
			.status = AOS_SCHED_RUN,
			.groups = k[i].total_groups,
			.eq_groups = k[i].total_groups,
			.eq_limit = AOS_SCHED_LIMIT_NONE,
			.limit = AOS_SCHED_LIMIT_VGROUPS,
			.share = 1.0,
		};
	}
	return 0;
}

static const struct aos_sched_policy policies[] = {
	[AOS_SCHED_POLICY_FAIR] = { AOS_SCHED_POLICY_FAIR, "fair", 1, plan_fair },
	[AOS_SCHED_POLICY_FIFO] = { AOS_SCHED_POLICY_FIFO, "fifo", 0, plan_fifo },
};
#define NPOLICIES (sizeof(policies) / sizeof(policies[0]))

const struct aos_sched_policy *aos_sched_policy_get(enum aos_sched_policy_id id)
{
	return (unsigned)id < NPOLICIES ? &policies[id] : NULL;
}

const struct aos_sched_policy *aos_sched_policy_by_name(const char *name)
{
	for (size_t i = 0; name && i < NPOLICIES; i++)
		if (strcmp(policies[i].name, name) == 0)
			return &policies[i];
	return NULL;
}

const char *aos_sched_policy_names(void)
{
	return "fair, fifo";
}
