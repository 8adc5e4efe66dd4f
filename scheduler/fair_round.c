/*
 * One scheduling round of the fair policy: the share solver (share.c) over the kernels that
 * Neon's denial rule (aos_sched_hold_ahead) does not hold back. When the kernels left cannot
 * fill the device (each one is short of virtual groups rather than of room), the held ones take
 * part after all: holding back shares out time, it must never idle the device.
 */
#include "accelos/sched.h"

#include <errno.h>
#include <stdlib.h>

/* True when no kernel that got groups was stopped by the device's room. */
static bool room_left(const struct aos_sched_share *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (out[i].status == AOS_SCHED_RUN && out[i].limit != AOS_SCHED_LIMIT_VGROUPS)
			return false;
	return true;
}

int aos_sched_fair_round(const struct aos_sched_device *dev, const struct aos_sched_kernel *k, size_t n,
			 const size_t *order, const bool *running, double window, struct aos_sched_share *out)
{
	if (!dev || !k || !out)
		return -EINVAL;
	if (n == 0)
		return 0;
	bool *held = calloc(n, sizeof(*held));
	struct aos_sched_kernel *sub_k = malloc(n * sizeof(*sub_k));
	size_t *sub_of = malloc(n * sizeof(*sub_of));  /* kernel index -> its index in the subset */
	size_t *sub_order = malloc(n * sizeof(*sub_order));
	struct aos_sched_share *sub_out = malloc(n * sizeof(*sub_out));
	int rc = -ENOMEM;
	if (!held || !sub_k || !sub_of || !sub_order || !sub_out)
		goto done;
	if (aos_sched_hold_ahead(k, n, running, window, held) == 0) {
		rc = aos_sched_share_solve(dev, k, n, order, out);
		goto done;
	}
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		sub_of[i] = held[i] ? n : m;
		if (!held[i])
			sub_k[m++] = k[i];
	}
	size_t placed = 0;
	for (size_t p = 0; p < n; p++) {
		size_t i = order ? order[p] : p;
		if (i >= n) {
			rc = -EINVAL;
			goto done;
		}
		if (!held[i])
			sub_order[placed++] = sub_of[i];
	}
	rc = placed == m ? aos_sched_share_solve(dev, sub_k, m, sub_order, sub_out) : -EINVAL;
	if (rc != 0)
		goto done;
	if (room_left(sub_out, m)) {
		rc = aos_sched_share_solve(dev, k, n, order, out);
		goto done;
	}
	for (size_t i = 0; i < n; i++)
		out[i] = held[i] ? (struct aos_sched_share){.status = AOS_SCHED_WAIT, .limit = AOS_SCHED_LIMIT_NONE}
				 : sub_out[sub_of[i]];
done:
	free(held);
	free(sub_k);
	free(sub_of);
	free(sub_order);
	free(sub_out);
	return rc;
}
