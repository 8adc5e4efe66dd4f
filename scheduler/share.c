/*
 * Share solver: how many physical work-groups each concurrent kernel gets
 * (accelOS paper, §3).
 *
 * The paper balances three resources across K kernels, each constraint solved
 * approximately as x_i = T/(K w_i) (threads), y_i = L/(K m_i) (local memory),
 * z_i = R/(K r_i) (registers), and takes min(x_i, y_i, z_i); the remainder is
 * handed out greedily until the device is saturated. Here:
 *   - 1/K becomes weight_i / sum(weights), so equal weights give the paper;
 *   - resident work-groups are a fourth resource, g_i = G f_i (a CPU device
 *     holds one group per core, a Kepler SMX sixteen);
 *   - each kernel is also capped by its virtual groups (more physical groups
 *     than virtual ones would only idle) and by its own occupancy (per-CU
 *     packing: a group never spans compute units, which device-wide sums
 *     alone would miss);
 *   - the greedy fill is progressive filling: the next group goes to the
 *     kernel with the smallest dominant share / weight that still fits, so
 *     it stays fair in the sense of the paper's min |x_i w_i - x_j w_j|;
 *   - kernels that cannot all hold one group wait, in fair order (the caller
 *     time-slices them with the virtual-time picker).
 * Sums are device-wide (compute units x per-CU values), as in the paper; this
 * can over-estimate when two kernels' groups would fragment the CUs, which
 * the per-kernel occupancy cap limits to the mixed case.
 */
#include "accelos/sched.h"

#include <errno.h>
#include <math.h>

/* One work-group's footprint in device units. */
struct fp {
	uint64_t threads; /* rounded up to the thread granule */
	uint64_t local;   /* bytes */
	uint64_t regs;    /* 0 = unknown */
};

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	if (a && b > UINT64_MAX / a)
		return UINT64_MAX;
	return a * b;
}

static uint64_t round_up(uint64_t v, uint64_t unit)
{
	uint64_t q = v / unit + (v % unit != 0);
	return sat_mul(q, unit);
}

static void footprint(const struct aos_sched_device *dev, const struct aos_sched_kernel *k, struct fp *f)
{
	uint64_t g = dev->thread_granule;
	uint64_t units = ((uint64_t)k->wg_threads + g - 1) / g;
	f->threads = units * g;
	f->local = k->local_mem;
	f->regs = 0;
	if (k->regs_per_thread) {
		/* NVIDIA allocates registers per warp, rounded to the granule. */
		uint64_t per_unit = round_up((uint64_t)k->regs_per_thread * g, dev->reg_granule);
		f->regs = sat_mul(units, per_unit);
	}
}

const char *aos_sched_limit_name(enum aos_sched_limit l)
{
	switch (l) {
	case AOS_SCHED_LIMIT_NONE: return "none";
	case AOS_SCHED_LIMIT_THREADS: return "threads";
	case AOS_SCHED_LIMIT_LOCAL_MEM: return "local-memory";
	case AOS_SCHED_LIMIT_REGISTERS: return "registers";
	case AOS_SCHED_LIMIT_GROUPS: return "resident-groups";
	case AOS_SCHED_LIMIT_WG_SIZE: return "work-group-size";
	case AOS_SCHED_LIMIT_VGROUPS: return "virtual-groups";
	}
	return "?";
}

const char *aos_sched_status_name(enum aos_sched_status s)
{
	switch (s) {
	case AOS_SCHED_RUN: return "run";
	case AOS_SCHED_WAIT: return "wait";
	case AOS_SCHED_UNFIT: return "unfit";
	}
	return "?";
}

/* 0 with *why when one group cannot fit a compute unit; else groups per CU. */
static uint64_t per_cu_occupancy(const struct aos_sched_device *dev, const struct aos_sched_kernel *k,
				 const struct fp *f, enum aos_sched_limit *why)
{
	if (k->wg_threads > dev->wg_max_threads)
		return *why = AOS_SCHED_LIMIT_WG_SIZE, 0;
	if (f->threads > dev->cu_threads)
		return *why = AOS_SCHED_LIMIT_THREADS, 0;
	if (f->local > dev->wg_max_local_mem || f->local > dev->cu_local_mem)
		return *why = AOS_SCHED_LIMIT_LOCAL_MEM, 0;
	if (f->regs && ((dev->wg_max_registers && f->regs > dev->wg_max_registers) ||
			(dev->cu_registers && f->regs > dev->cu_registers)))
		return *why = AOS_SCHED_LIMIT_REGISTERS, 0;

	/* Ties keep the earlier resource: threads, local memory, registers, groups. */
	uint64_t n = dev->cu_threads / f->threads;
	*why = AOS_SCHED_LIMIT_THREADS;
	if (f->local && dev->cu_local_mem / f->local < n) {
		n = dev->cu_local_mem / f->local;
		*why = AOS_SCHED_LIMIT_LOCAL_MEM;
	}
	if (f->regs && dev->cu_registers && dev->cu_registers / f->regs < n) {
		n = dev->cu_registers / f->regs;
		*why = AOS_SCHED_LIMIT_REGISTERS;
	}
	if (dev->cu_groups < n) {
		n = dev->cu_groups;
		*why = AOS_SCHED_LIMIT_GROUPS;
	}
	return n;
}

uint64_t aos_sched_kernel_occupancy(const struct aos_sched_device *dev, const struct aos_sched_kernel *k,
				    enum aos_sched_limit *why)
{
	enum aos_sched_limit l = AOS_SCHED_LIMIT_NONE;
	uint64_t n = 0;
	if (dev && k && aos_sched_device_check(dev) == 0 && k->wg_threads > 0) {
		struct fp f;
		footprint(dev, k, &f);
		n = per_cu_occupancy(dev, k, &f, &l) * dev->compute_units;
	}
	if (why)
		*why = l;
	return n;
}

static double weight_of(const struct aos_sched_kernel *k)
{
	return k->weight > 0 && isfinite(k->weight) ? k->weight : 1.0;
}

/* Largest fraction of any device-wide resource that g groups occupy. */
static double dominant(const struct fp *f, uint64_t g, const struct aos_sched_totals *t)
{
	double d = (double)g * (double)f->threads / (double)t->threads;
	if (f->local && t->local_mem)
		d = fmax(d, (double)g * (double)f->local / (double)t->local_mem);
	if (f->regs && t->registers)
		d = fmax(d, (double)g * (double)f->regs / (double)t->registers);
	return fmax(d, (double)g / (double)t->groups);
}

struct usage {
	uint64_t threads, local, regs, groups;
};

static void usage_add(struct usage *u, const struct fp *f, uint64_t g)
{
	u->threads += g * f->threads;
	u->local += g * f->local;
	u->regs += f->regs ? g * f->regs : 0;
	u->groups += g;
}

static void usage_sub(struct usage *u, const struct fp *f, uint64_t g)
{
	u->threads -= g * f->threads;
	u->local -= g * f->local;
	u->regs -= f->regs ? g * f->regs : 0;
	u->groups -= g;
}

/* The first resource, in the fixed order, that cannot take `extra` more
 * groups of footprint f; NONE if all can. Unknown registers never bind. */
static enum aos_sched_limit blocking(const struct usage *u, const struct fp *f, uint64_t extra,
				     const struct aos_sched_totals *t)
{
	if (u->threads + extra * f->threads > t->threads)
		return AOS_SCHED_LIMIT_THREADS;
	if (u->local + extra * f->local > t->local_mem)
		return AOS_SCHED_LIMIT_LOCAL_MEM;
	if (t->registers && u->regs + extra * f->regs > t->registers)
		return AOS_SCHED_LIMIT_REGISTERS;
	if (u->groups + extra > t->groups)
		return AOS_SCHED_LIMIT_GROUPS;
	return AOS_SCHED_LIMIT_NONE;
}

/* floor() that forgives the last bits of rounding: 2.9999999999999996 -> 3. */
static uint64_t floor_u64(double v)
{
	v = floor(v * (1.0 + 1e-12));
	if (!(v > 0))
		return 0;
	return v >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)v;
}

/* min(x_i, y_i, z_i, g_i) for fraction `frac` of the device. */
static uint64_t equation(const struct fp *f, double frac, const struct aos_sched_totals *t,
			 enum aos_sched_limit *lim)
{
	uint64_t e = floor_u64(frac * (double)t->threads / (double)f->threads);
	*lim = AOS_SCHED_LIMIT_THREADS;
	if (f->local) {
		uint64_t y = floor_u64(frac * (double)t->local_mem / (double)f->local);
		if (y < e)
			e = y, *lim = AOS_SCHED_LIMIT_LOCAL_MEM;
	}
	if (f->regs && t->registers) {
		uint64_t z = floor_u64(frac * (double)t->registers / (double)f->regs);
		if (z < e)
			e = z, *lim = AOS_SCHED_LIMIT_REGISTERS;
	}
	uint64_t g = floor_u64(frac * (double)t->groups);
	if (g < e)
		e = g, *lim = AOS_SCHED_LIMIT_GROUPS;
	return e;
}

static uint64_t cap_of(const struct aos_sched_device *dev, const struct aos_sched_kernel *k,
		       enum aos_sched_limit *why)
{
	uint64_t occ = aos_sched_kernel_occupancy(dev, k, why);
	if (k->total_groups <= occ) {
		*why = AOS_SCHED_LIMIT_VGROUPS;
		return k->total_groups;
	}
	return occ;
}

static int check_args(const struct aos_sched_device *dev, const struct aos_sched_kernel *k, size_t n,
		      const size_t *order, struct aos_sched_share *out)
{
	if (!dev || (n && (!k || !out)) || aos_sched_device_check(dev))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (k[i].wg_threads == 0 || k[i].total_groups == 0)
			return -EINVAL;
	if (!order)
		return 0;
	/* Permutation check, using out[].groups as the "seen" mark. */
	int rc = 0;
	for (size_t i = 0; i < n; i++)
		out[i].groups = 0;
	for (size_t p = 0; p < n && !rc; p++) {
		if (order[p] >= n || out[order[p]].groups)
			rc = -EINVAL;
		else
			out[order[p]].groups = 1;
	}
	return rc;
}

int aos_sched_share_solve(const struct aos_sched_device *dev, const struct aos_sched_kernel *k, size_t n,
			  const size_t *order, struct aos_sched_share *out)
{
	int rc = check_args(dev, k, n, order, out);
	if (rc)
		return rc;
#define IDX(p) (order ? order[p] : (p))

	struct aos_sched_totals t;
	aos_sched_device_totals(dev, &t);
	struct usage used = { 0, 0, 0, 0 };
	struct fp f;
	enum aos_sched_limit why;

	/* 1. Unfit kernels aside; admit in order while one group each fits. */
	int blocked = 0;
	double wsum = 0;
	for (size_t p = 0; p < n; p++) {
		size_t i = IDX(p);
		struct aos_sched_share *o = &out[i];
		*o = (struct aos_sched_share){ .status = AOS_SCHED_WAIT };
		if (aos_sched_kernel_occupancy(dev, &k[i], &why) == 0) {
			o->status = AOS_SCHED_UNFIT;
			o->limit = why;
			continue;
		}
		footprint(dev, &k[i], &f);
		o->limit = blocking(&used, &f, 1, &t);
		if (blocked || o->limit != AOS_SCHED_LIMIT_NONE) {
			blocked = 1; /* no overtaking: everyone after the first waiter waits */
			continue;
		}
		o->status = AOS_SCHED_RUN;
		usage_add(&used, &f, 1);
		wsum += weight_of(&k[i]);
	}

	/* 2. The equations, clamped to [1, cap]. */
	used = (struct usage){ 0, 0, 0, 0 };
	for (size_t p = 0; p < n; p++) {
		size_t i = IDX(p);
		struct aos_sched_share *o = &out[i];
		if (o->status != AOS_SCHED_RUN)
			continue;
		footprint(dev, &k[i], &f);
		o->eq_groups = equation(&f, weight_of(&k[i]) / wsum, &t, &o->eq_limit);
		uint64_t cap = cap_of(dev, &k[i], &why);
		o->groups = o->eq_groups < 1 ? 1 : o->eq_groups;
		if (o->groups > cap)
			o->groups = cap;
		usage_add(&used, &f, o->groups);
	}

	/* Forced single groups can overflow a resource the others filled: take
	 * back from whoever holds the most per unit of weight (later on ties). */
	while (blocking(&used, &(struct fp){ 0, 0, 0 }, 0, &t) != AOS_SCHED_LIMIT_NONE) {
		size_t victim = n;
		double worst = 0;
		for (size_t p = 0; p < n; p++) {
			size_t i = IDX(p);
			if (out[i].status != AOS_SCHED_RUN || out[i].groups <= 1)
				continue;
			footprint(dev, &k[i], &f);
			double key = dominant(&f, out[i].groups, &t) / weight_of(&k[i]);
			if (victim == n || key >= worst)
				victim = i, worst = key;
		}
		if (victim == n)
			break; /* cannot happen: admission checked one group each */
		footprint(dev, &k[victim], &f);
		out[victim].groups--;
		usage_sub(&used, &f, 1);
	}

	/* 3. Greedy fill: smallest dominant share per weight first, earlier on ties. */
	for (;;) {
		size_t best = n;
		double best_key = 0;
		for (size_t p = 0; p < n; p++) {
			size_t i = IDX(p);
			if (out[i].status != AOS_SCHED_RUN || out[i].groups >= cap_of(dev, &k[i], &why))
				continue;
			footprint(dev, &k[i], &f);
			if (blocking(&used, &f, 1, &t) != AOS_SCHED_LIMIT_NONE)
				continue;
			double key = dominant(&f, out[i].groups, &t) / weight_of(&k[i]);
			if (best == n || key < best_key * (1.0 - 1e-12))
				best = i, best_key = key;
		}
		if (best == n)
			break;
		footprint(dev, &k[best], &f);
		out[best].groups++;
		usage_add(&used, &f, 1);
	}

	/* Why each kernel got no more, and what it holds. */
	for (size_t i = 0; i < n; i++) {
		struct aos_sched_share *o = &out[i];
		if (o->status != AOS_SCHED_RUN)
			continue;
		footprint(dev, &k[i], &f);
		if (o->groups >= cap_of(dev, &k[i], &why))
			o->limit = why;
		else
			o->limit = blocking(&used, &f, 1, &t);
		o->share = dominant(&f, o->groups, &t);
	}
#undef IDX
	return 0;
}
