/*
 * Resource model: what one compute unit holds at once, per device.
 *
 * OpenCL reports per-work-group limits (CL_DEVICE_MAX_WORK_GROUP_SIZE,
 * CL_DEVICE_LOCAL_MEM_SIZE) but not residency, i.e. how many work-items,
 * work-groups, bytes of local memory and registers a compute unit holds
 * across all its resident groups. The share equations need residency, so it
 * comes from a small table of known architectures (NVIDIA "Technical
 * Specifications per Compute Capability"). Where no row applies we guess on
 * the low side: under-filling costs throughput, over-filling costs fairness
 * (groups that are not resident queue behind other kernels in hardware).
 */
#include "accelos/sched.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define KIB 1024u

struct arch_row {
	const char *name;
	unsigned sm;           /* compute capability x 10; 0 = not an NVIDIA row */
	uint32_t cu_threads;
	uint32_t cu_groups;
	uint64_t cu_local_mem;
	uint32_t cu_registers;
	uint32_t wg_max_registers;
	uint32_t thread_granule;
	uint32_t reg_granule;
	uint32_t wg_max_threads;   /* used only by aos_sched_device_from_arch() */
	uint64_t wg_max_local_mem; /* likewise */
};

/* Sorted by sm within each major (the nearest-lower lookup relies on it).
 * Local memory per SM is the largest shared-memory carve-out; one OpenCL
 * work-group still gets at most CL_DEVICE_LOCAL_MEM_SIZE (48 KiB on NVIDIA). */
static const struct arch_row arch_table[] = {
	{ "sm_35", 35, 2048, 16, 48 * KIB, 65536, 65536, 32, 256, 1024, 48 * KIB },  /* Kepler GK110: K20m, K40 */
	{ "sm_37", 37, 2048, 16, 112 * KIB, 131072, 65536, 32, 256, 1024, 48 * KIB }, /* Kepler GK210: K80 */
	{ "sm_50", 50, 2048, 32, 64 * KIB, 65536, 65536, 32, 256, 1024, 48 * KIB },  /* Maxwell GM107 */
	{ "sm_52", 52, 2048, 32, 96 * KIB, 65536, 65536, 32, 256, 1024, 48 * KIB },  /* Maxwell GM20x */
	{ "sm_60", 60, 2048, 32, 64 * KIB, 65536, 65536, 32, 256, 1024, 48 * KIB },  /* Pascal P100 */
	{ "sm_61", 61, 2048, 32, 96 * KIB, 65536, 65536, 32, 256, 1024, 48 * KIB },  /* Pascal GP10x */
	{ "sm_70", 70, 2048, 32, 96 * KIB, 65536, 65536, 32, 256, 1024, 48 * KIB },  /* Volta V100 */
	{ "sm_75", 75, 1024, 16, 64 * KIB, 65536, 65536, 32, 256, 1024, 48 * KIB },  /* Turing */
	{ "sm_80", 80, 2048, 32, 164 * KIB, 65536, 65536, 32, 256, 1024, 48 * KIB }, /* Ampere A100 */
	{ "sm_86", 86, 1536, 16, 100 * KIB, 65536, 65536, 32, 256, 1024, 48 * KIB }, /* Ampere GA10x */
	{ "sm_89", 89, 1536, 24, 100 * KIB, 65536, 65536, 32, 256, 1024, 48 * KIB }, /* Ada */
	{ "sm_90", 90, 2048, 32, 228 * KIB, 65536, 65536, 32, 256, 1024, 48 * KIB }, /* Hopper H100 */
	/* PoCL's CPU device: one work-group per core at a time (its work-group
	 * executor runs a group to completion on one thread). */
	{ "cpu", 0, 4096, 1, 2048 * KIB, 0, 0, 1, 1, 4096, 2048 * KIB },
};
#define ARCH_ROWS (sizeof(arch_table) / sizeof(arch_table[0]))

/* Sizes above these make no sense for any device and would let the solver's
 * products overflow 64 bits; a model outside them is rejected. */
#define MAX_CU (1u << 20)
#define MAX_CU_THREADS (1u << 20)
#define MAX_CU_GROUPS (1u << 16)
#define MAX_CU_LOCAL (UINT64_C(1) << 36)
#define MAX_CU_REGS (1u << 26)
#define MAX_THREAD_GRANULE 1024u
#define MAX_REG_GRANULE (1u << 16)

const char *aos_sched_arch_name(size_t i)
{
	return i < ARCH_ROWS ? arch_table[i].name : NULL;
}

static void apply_row(struct aos_sched_device *dev, const struct arch_row *r)
{
	dev->cu_threads = r->cu_threads;
	dev->cu_groups = r->cu_groups;
	dev->cu_local_mem = r->cu_local_mem;
	dev->cu_registers = r->cu_registers;
	dev->wg_max_registers = r->wg_max_registers;
	dev->thread_granule = r->thread_granule;
	dev->reg_granule = r->reg_granule;
	snprintf(dev->arch, sizeof(dev->arch), "%s", r->name);
}

static const struct arch_row *row_by_name(const char *name)
{
	for (size_t i = 0; name && i < ARCH_ROWS; i++)
		if (strcmp(arch_table[i].name, name) == 0)
			return &arch_table[i];
	return NULL;
}

/* Exact sm, else the nearest lower minor of the same major (sm_87 -> sm_86):
 * within a major, residency does not grow with the minor in a way that would
 * make the lower row over-commit. */
static const struct arch_row *row_by_sm(unsigned sm, int *exact)
{
	const struct arch_row *best = NULL;
	for (size_t i = 0; i < ARCH_ROWS; i++) {
		const struct arch_row *r = &arch_table[i];
		if (!r->sm || r->sm / 10 != sm / 10 || r->sm > sm)
			continue;
		if (!best || r->sm > best->sm)
			best = r;
	}
	*exact = best && best->sm == sm;
	return best;
}

int aos_sched_device_from_arch(const char *arch, uint32_t compute_units, struct aos_sched_device *dev)
{
	const struct arch_row *r = row_by_name(arch);
	if (!dev || compute_units == 0)
		return -EINVAL;
	if (!r)
		return -ENOENT;
	memset(dev, 0, sizeof(*dev));
	dev->kind = r->sm ? AOS_SCHED_DEV_GPU : AOS_SCHED_DEV_CPU;
	dev->compute_units = compute_units;
	dev->wg_max_threads = r->wg_max_threads;
	dev->wg_max_local_mem = r->wg_max_local_mem;
	apply_row(dev, r);
	dev->arch_exact = 1;
	return 0;
}

static enum aos_sched_dev_kind kind_of(uint64_t type)
{
	if (type & AOS_SCHED_CL_TYPE_GPU)
		return AOS_SCHED_DEV_GPU;
	if (type & AOS_SCHED_CL_TYPE_CPU)
		return AOS_SCHED_DEV_CPU;
	if (type & AOS_SCHED_CL_TYPE_ACCELERATOR)
		return AOS_SCHED_DEV_ACCELERATOR;
	return AOS_SCHED_DEV_OTHER;
}

static uint32_t clamp_u32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

int aos_sched_device_from_info(const struct aos_sched_device_info *info, struct aos_sched_device *dev)
{
	if (!info || !dev || info->compute_units == 0 || info->max_work_group_size == 0)
		return -EINVAL;
	memset(dev, 0, sizeof(*dev));
	dev->kind = kind_of(info->type);
	dev->compute_units = info->compute_units;
	dev->wg_max_threads = clamp_u32(info->max_work_group_size);
	dev->wg_max_local_mem = info->local_mem_size;

	int nvidia = info->vendor && strstr(info->vendor, "NVIDIA") != NULL;
	const struct arch_row *row = NULL;
	int exact = 0;
	if (nvidia && dev->kind == AOS_SCHED_DEV_GPU && info->nv_cc_major)
		row = row_by_sm(info->nv_cc_major * 10 + info->nv_cc_minor, &exact);

	if (row) {
		apply_row(dev, row);
		dev->arch_exact = exact;
		if (info->nv_regs_per_block)
			dev->wg_max_registers = info->nv_regs_per_block;
		if (info->nv_warp_size)
			dev->thread_granule = info->nv_warp_size;
	} else if (dev->kind == AOS_SCHED_DEV_GPU) {
		/* Unknown GPU: assume room for one largest work-group per CU and at
		 * most 16 resident groups (the smallest limit in the table). */
		dev->cu_threads = dev->wg_max_threads;
		dev->cu_groups = 16;
		dev->cu_local_mem = info->local_mem_size;
		dev->cu_registers = 0;
		dev->wg_max_registers = info->nv_regs_per_block;
		dev->thread_granule = info->nv_warp_size ? info->nv_warp_size : 1;
		dev->reg_granule = 1;
		snprintf(dev->arch, sizeof(dev->arch), "gpu-generic");
		dev->arch_exact = 0;
	} else {
		/* CPU, accelerator or unknown type (PoCL and friends): one resident
		 * work-group per compute unit. */
		dev->cu_threads = dev->wg_max_threads;
		dev->cu_groups = 1;
		dev->cu_local_mem = info->local_mem_size;
		dev->cu_registers = 0;
		dev->wg_max_registers = 0;
		dev->thread_granule = 1;
		dev->reg_granule = 1;
		snprintf(dev->arch, sizeof(dev->arch), "cpu");
		dev->arch_exact = dev->kind == AOS_SCHED_DEV_CPU;
	}
	/* A device whose per-group limit exceeds the table's per-CU figure (a
	 * newer carve-out than the table knows) is taken at its word. */
	if (dev->cu_local_mem < dev->wg_max_local_mem)
		dev->cu_local_mem = dev->wg_max_local_mem;
	return aos_sched_device_check(dev);
}

int aos_sched_device_check(const struct aos_sched_device *dev)
{
	if (!dev)
		return -EINVAL;
	if (dev->compute_units == 0 || dev->compute_units > MAX_CU)
		return -EINVAL;
	if (dev->cu_threads == 0 || dev->cu_threads > MAX_CU_THREADS)
		return -EINVAL;
	if (dev->cu_groups == 0 || dev->cu_groups > MAX_CU_GROUPS)
		return -EINVAL;
	if (dev->cu_local_mem > MAX_CU_LOCAL || dev->cu_registers > MAX_CU_REGS)
		return -EINVAL;
	if (dev->wg_max_threads == 0)
		return -EINVAL;
	if (dev->thread_granule == 0 || dev->thread_granule > MAX_THREAD_GRANULE)
		return -EINVAL;
	if (dev->reg_granule == 0 || dev->reg_granule > MAX_REG_GRANULE)
		return -EINVAL;
	return 0;
}

void aos_sched_device_totals(const struct aos_sched_device *dev, struct aos_sched_totals *t)
{
	uint64_t cu = dev->compute_units;
	t->threads = cu * dev->cu_threads;
	t->local_mem = cu * dev->cu_local_mem;
	t->registers = cu * dev->cu_registers;
	t->groups = cu * dev->cu_groups;
}
