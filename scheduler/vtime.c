/*
 * Virtual-time picker for time-slicing, after the fair-queueing part of
 * Neon's Disengaged Fair Queueing (Menychtas et al.):
 *   1. each active entity's virtual time advances by its resource use in the
 *      last interval; here use = device time x fraction of the device held,
 *      divided by the entity's weight;
 *   2. the system virtual time is the oldest virtual time among active
 *      entities; an entity that (re)joins behind it is moved forward to it,
 *      less the lag it had when it left, at most the rejoin credit: time
 *      spent idle earns no credit, so an idle client cannot hoard and then
 *      burst. Without keeping the lag, a client that leaves between launches
 *      (host work, a blocking read) for longer than the device waits for it
 *      lost the lag it had at every such gap to a tenant that never leaves;
 *   3. the next to run is the active entity furthest behind.
 * An entity that leaves keeps its virtual time (remembered until forget), so
 * leaving and rejoining cannot shed a debt either. Entities are few (active
 * clients or kernels), so a flat array and linear scans are enough.
 */
#include "accelos/sched.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

struct vt_entry {
	uint64_t id;
	double weight;
	double vtime;
	uint64_t arrival;
	double lag; /* behind the system virtual time when it left */
	int active;
};

struct aos_sched_vt {
	struct vt_entry *e;
	size_t n, cap;
	uint64_t next_arrival;
	double now; /* system virtual time, never decreases */
	double rejoin_credit; /* how far behind `now` a returning entity may stay */
};

static double weight_or_1(double w)
{
	return w > 0 && isfinite(w) ? w : 1.0;
}

struct aos_sched_vt *aos_sched_vt_new(void)
{
	return calloc(1, sizeof(struct aos_sched_vt));
}

void aos_sched_vt_destroy(struct aos_sched_vt *vt)
{
	if (!vt)
		return;
	free(vt->e);
	free(vt);
}

static struct vt_entry *find(const struct aos_sched_vt *vt, uint64_t id)
{
	for (size_t i = 0; vt && i < vt->n; i++)
		if (vt->e[i].id == id)
			return &vt->e[i];
	return NULL;
}

/* System virtual time follows the slowest active entity, forward only. */
static void advance(struct aos_sched_vt *vt)
{
	int any = 0;
	double min = 0;
	for (size_t i = 0; i < vt->n; i++) {
		if (!vt->e[i].active)
			continue;
		if (!any || vt->e[i].vtime < min)
			min = vt->e[i].vtime;
		any = 1;
	}
	if (any && min > vt->now)
		vt->now = min;
}

int aos_sched_vt_set_rejoin_credit(struct aos_sched_vt *vt, uint64_t credit_ns)
{
	if (!vt)
		return -EINVAL;
	vt->rejoin_credit = (double)credit_ns;
	return 0;
}

/* Where an inactive entity comes back: behind by the lag it left with, at most the credit (time
 * away earns nothing), and no less far ahead than it was (no debt is forgiven). */
static double rejoin_vtime(const struct aos_sched_vt *vt, const struct vt_entry *e)
{
	double keep = e->lag < vt->rejoin_credit ? e->lag : vt->rejoin_credit;
	return e->vtime < vt->now - keep ? vt->now - keep : e->vtime;
}

int aos_sched_vt_join(struct aos_sched_vt *vt, uint64_t id, double weight)
{
	if (!vt)
		return -EINVAL;
	struct vt_entry *e = find(vt, id);
	if (e && e->active)
		return -EEXIST;
	if (!e) {
		if (vt->n == vt->cap) {
			size_t cap = vt->cap ? vt->cap * 2 : 16;
			struct vt_entry *ne = realloc(vt->e, cap * sizeof(*ne));
			if (!ne)
				return -ENOMEM;
			vt->e = ne;
			vt->cap = cap;
		}
		e = &vt->e[vt->n++];
		*e = (struct vt_entry){ .id = id, .vtime = vt->now };
	}
	e->weight = weight_or_1(weight);
	e->vtime = rejoin_vtime(vt, e);
	e->arrival = vt->next_arrival++;
	e->active = 1;
	advance(vt);
	return 0;
}

int aos_sched_vt_leave(struct aos_sched_vt *vt, uint64_t id)
{
	struct vt_entry *e = find(vt, id);
	if (!e || !e->active)
		return -ENOENT;
	e->active = 0;
	advance(vt);
	e->lag = vt->now > e->vtime ? vt->now - e->vtime : 0;
	return 0;
}

int aos_sched_vt_forget(struct aos_sched_vt *vt, uint64_t id)
{
	struct vt_entry *e = find(vt, id);
	if (!e)
		return -ENOENT;
	*e = vt->e[--vt->n];
	advance(vt);
	return 0;
}

int aos_sched_vt_set_weight(struct aos_sched_vt *vt, uint64_t id, double weight)
{
	struct vt_entry *e = find(vt, id);
	if (!e)
		return -ENOENT;
	e->weight = weight_or_1(weight);
	return 0;
}

int aos_sched_vt_charge(struct aos_sched_vt *vt, uint64_t id, uint64_t device_ns, double share)
{
	struct vt_entry *e = find(vt, id);
	if (!e)
		return -ENOENT;
	if (!(share >= 0 && share <= 1))
		return -EINVAL;
	e->vtime += (double)device_ns * share / e->weight;
	advance(vt);
	return 0;
}

/* Strict total order among active entities: arrival numbers are unique. */
static int before(const struct vt_entry *a, const struct vt_entry *b)
{
	return a->vtime < b->vtime || (a->vtime == b->vtime && a->arrival < b->arrival);
}

size_t aos_sched_vt_order(const struct aos_sched_vt *vt, uint64_t *ids, size_t cap)
{
	size_t active = 0;
	const struct vt_entry *prev = NULL;
	if (!vt)
		return 0;
	for (size_t i = 0; i < vt->n; i++)
		active += vt->e[i].active != 0;
	/* Selection without scratch memory: each round takes the smallest entry
	 * after the previous one. O(n * cap); n is the number of clients. */
	for (size_t k = 0; ids && k < cap && k < active; k++) {
		const struct vt_entry *best = NULL;
		for (size_t i = 0; i < vt->n; i++) {
			const struct vt_entry *e = &vt->e[i];
			if (!e->active || (prev && !before(prev, e)))
				continue;
			if (!best || before(e, best))
				best = e;
		}
		ids[k] = best->id;
		prev = best;
	}
	return active;
}

int aos_sched_vt_pick(const struct aos_sched_vt *vt, uint64_t *id)
{
	uint64_t first;
	if (aos_sched_vt_order(vt, &first, 1) == 0)
		return -ENOENT;
	if (id)
		*id = first;
	return 0;
}

int aos_sched_vt_get(const struct aos_sched_vt *vt, uint64_t id, double *vtime, uint64_t *arrival)
{
	const struct vt_entry *e = find(vt, id);
	if (!e)
		return -ENOENT;
	if (vtime)
		*vtime = e->vtime;
	if (arrival)
		*arrival = e->arrival;
	return 0;
}

double aos_sched_vt_joining(const struct aos_sched_vt *vt, uint64_t id)
{
	const struct vt_entry *e = find(vt, id);
	if (!e)
		return vt ? vt->now : 0;
	return e->active ? e->vtime : rejoin_vtime(vt, e);
}

double aos_sched_vt_now(const struct aos_sched_vt *vt)
{
	return vt ? vt->now : 0;
}

size_t aos_sched_vt_count(const struct aos_sched_vt *vt)
{
	return vt ? vt->n : 0;
}

uint64_t aos_sched_slice_vgroups(double ns_per_vgroup, uint64_t slice_ns, uint64_t remaining, uint64_t probe)
{
	uint64_t n;
	if (remaining == 0)
		return 0;
	if (!(ns_per_vgroup > 0) || !isfinite(ns_per_vgroup)) {
		n = probe;
	} else {
		double q = floor((double)slice_ns / ns_per_vgroup);
		n = q >= (double)remaining ? remaining : (uint64_t)q;
	}
	if (n < 1)
		n = 1;
	return n > remaining ? remaining : n;
}

uint64_t aos_sched_whole_rounds(uint64_t vgroups, uint64_t groups, uint64_t remaining)
{
	if (groups > 1 && vgroups % groups) {
		uint64_t short_of = groups - vgroups % groups;
		vgroups = vgroups > UINT64_MAX - short_of ? UINT64_MAX : vgroups + short_of;
	}
	return vgroups < remaining ? vgroups : remaining;
}

uint64_t aos_sched_with_tail(uint64_t vgroups, uint64_t remaining)
{
	if (vgroups >= remaining)
		return remaining;
	return remaining - vgroups <= vgroups / AOS_SCHED_TAIL_DIV ? remaining : vgroups;
}

uint64_t aos_sched_progress_charge(uint64_t device_ns, double alone_one, uint64_t ran, uint64_t together)
{
	if (!(alone_one > 0) || !isfinite(alone_one) || ran == 0 || together == 0)
		return device_ns;
	double alone_ns = alone_one * (double)ran / (double)together;
	if (alone_ns >= (double)device_ns)
		return device_ns;
	uint64_t half = device_ns / 2;
	return alone_ns <= (double)half ? half : (uint64_t)alone_ns;
}

uint64_t aos_sched_response_slice(uint64_t slice_ns, uint64_t shortest_ns, uint32_t others,
				  uint64_t floor_one_ns)
{
	if (others == 0 || shortest_ns == 0 || floor_one_ns == 0)
		return slice_ns;
	uint64_t floor_ns = floor_one_ns > slice_ns / others ? slice_ns : floor_one_ns * others;
	uint64_t s = shortest_ns > floor_ns ? shortest_ns : floor_ns;
	return s < slice_ns ? s : slice_ns;
}

bool aos_sched_hold_allowed(double client_vtime, double next_vtime, bool next_queued, uint64_t lead_ns)
{
	double limit = next_vtime + (next_queued ? (double)lead_ns : 0.0);
	return client_vtime <= limit;
}

uint64_t aos_sched_lone_slice(uint64_t slice_ns, uint64_t lone_ns)
{
	return lone_ns > slice_ns ? lone_ns : slice_ns;
}

uint32_t aos_sched_direct_width(uint32_t compute_units, double ns_per_vgroup_one, uint64_t slice_ns,
				bool others_present, uint64_t remaining)
{
	uint32_t width = compute_units ? compute_units : 1;
	if (others_present && width > 1 && isfinite(ns_per_vgroup_one) && ns_per_vgroup_one > (double)slice_ns)
		width--;
	if (remaining < width)
		width = (uint32_t)remaining;
	return width;
}

size_t aos_sched_hold_ahead(const struct aos_sched_kernel *k, size_t n, const bool *running, double window,
			    bool *held)
{
	double lowest = INFINITY;
	for (size_t i = 0; i < n; i++)
		if (k[i].vtime < lowest)
			lowest = k[i].vtime;
	if (!(window >= 0))
		window = 0;
	size_t count = 0;
	for (size_t i = 0; i < n; i++) {
		held[i] = !(running && running[i]) && k[i].vtime > lowest + window;
		count += held[i];
	}
	return count;
}
