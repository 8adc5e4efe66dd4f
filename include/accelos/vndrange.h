/*
 * Virtual NDRange record, shared by the host (scheduler, diff tester) and the
 * device runtime library (rtlib/, compiled as OpenCL C).
 *
 * One record describes one original kernel launch. A rewritten kernel runs on
 * fewer physical work-groups; each group's master work-item takes the next
 * virtual groups from `next` with an atomic and the group executes them. The
 * record lives in a global buffer passed as the kernel's last argument.
 *
 * Layout rules: fixed-width fields only, no pointers, 64-bit fields 8-byte
 * aligned, so host C and device OpenCL C agree byte for byte (checked by the
 * _Static_asserts below on both sides).
 *
 * Host protocol for one launch (see docs/jit.md):
 *   - fill dims, global_size, local_size, global_offset, num_groups (unused
 *     dimensions: size 1, offset 0), total_groups = product of num_groups;
 *   - next = 0, done = 0, budget = total_groups (run everything), chunk = 0
 *     (use the kernel's compiled adaptive chunk) or a forced chunk;
 *   - launch with the same local size and any number of physical groups.
 * Stop/budget hook: the dequeue never hands out a virtual group whose index is
 * >= budget, and re-reads budget at every dequeue. Lowering budget makes the
 * running launch end early; a later launch on the same record (next and done
 * kept) with a higher budget resumes exactly where the first one stopped.
 * `done` counts virtual groups whose execution has completed.
 */
#ifndef ACCELOS_VNDRANGE_H
#define ACCELOS_VNDRANGE_H

#ifdef __OPENCL_C_VERSION__
typedef uint aos_u32;
typedef ulong aos_u64;
#else
#include <stddef.h>
#include <stdint.h>
#include <string.h>
typedef uint32_t aos_u32;
typedef uint64_t aos_u64;
#endif

#define AOS_VNDRANGE_MAX_DIMS 3

struct aos_vndrange {
	aos_u32 dims;                 /* work_dim of the original launch, 1..3 */
	aos_u32 chunk;                /* virtual groups per dequeue; 0 = compiled default */
	aos_u64 global_size[3];       /* original global size per dimension */
	aos_u64 local_size[3];        /* original (and physical) local size */
	aos_u64 global_offset[3];     /* original global offset */
	aos_u64 num_groups[3];        /* global_size / local_size */
	aos_u32 total_groups;         /* product of num_groups */
	aos_u32 next;                 /* atomic: next virtual group to hand out */
	aos_u32 budget;               /* stop/budget: never hand out index >= budget */
	aos_u32 done;                 /* atomic: virtual groups completed */
	/* Direct shape: aos_div_magic() of num_groups[0] and of num_groups[0] *
	 * num_groups[1], so a group splits its index into x/y/z without a division. */
	aos_u64 div_magic[2];
};

#define AOS_VNDRANGE_SIZE 136u

#ifdef __OPENCL_C_VERSION__
#define AOS_OFFSETOF(t, f) __builtin_offsetof(t, f)
#else
#define AOS_OFFSETOF(t, f) offsetof(t, f)
#endif
#ifdef __cplusplus
#define _Static_assert static_assert
#endif
_Static_assert(sizeof(struct aos_vndrange) == AOS_VNDRANGE_SIZE, "record size is ABI");
_Static_assert(AOS_OFFSETOF(struct aos_vndrange, global_size) == 8, "layout");
_Static_assert(AOS_OFFSETOF(struct aos_vndrange, local_size) == 32, "layout");
_Static_assert(AOS_OFFSETOF(struct aos_vndrange, global_offset) == 56, "layout");
_Static_assert(AOS_OFFSETOF(struct aos_vndrange, num_groups) == 80, "layout");
_Static_assert(AOS_OFFSETOF(struct aos_vndrange, total_groups) == 104, "layout");
_Static_assert(AOS_OFFSETOF(struct aos_vndrange, next) == 108, "layout");
_Static_assert(AOS_OFFSETOF(struct aos_vndrange, budget) == 112, "layout");
_Static_assert(AOS_OFFSETOF(struct aos_vndrange, done) == 116, "layout");
_Static_assert(AOS_OFFSETOF(struct aos_vndrange, div_magic) == 120, "layout");

/*
 * Division by a launch constant d as a multiply (Lemire, Kaser and Kurz,
 * "Faster remainder by direct computation", 2019): with m = ceil(2^64 / d),
 * n / d is the high 64 bits of n * m for every 32-bit n and 1 < d < 2^32.
 * d == 1 gets m = 0, for which aos_fastdiv returns n. A hardware
 * division may trap, so the compiler must keep it where the program put it,
 * inside the work-item loop PoCL wraps around the kernel; a multiply it can
 * hoist out of that loop. One definition for the host, its tests and rtlib.
 */
static inline aos_u64 aos_div_magic(aos_u64 d)
{
	return d > 1 ? ~(aos_u64)0 / d + 1 : 0;
}

/* Host: fills div_magic from num_groups (after num_groups is set). */
static inline void aos_vndrange_set_div_magic(struct aos_vndrange *r)
{
	r->div_magic[0] = aos_div_magic(r->num_groups[0]);
	r->div_magic[1] = aos_div_magic(r->num_groups[0] * r->num_groups[1]);
}

#ifndef __OPENCL_C_VERSION__
/*
 * Host: fills a record for a launch of `dims` dimensions (1..3) whose global
 * and local sizes and offset (NULL: zero) are given per used dimension:
 * unused dimensions get size 1 and offset 0, next = done = chunk = 0 and
 * budget = total_groups (run everything). Returns 0, or -1 when the range is
 * not uniform (a global size that is 0 or not a multiple of its local size)
 * or has 2^32 virtual groups or more; the record is then unspecified.
 */
static inline int aos_vndrange_fill(struct aos_vndrange *r, aos_u32 dims, const size_t *global,
				    const size_t *local, const size_t *offset)
{
	aos_u64 total = 1;
	if (dims < 1 || dims > AOS_VNDRANGE_MAX_DIMS)
		return -1;
	memset(r, 0, sizeof(*r));
	r->dims = dims;
	for (aos_u32 d = 0; d < AOS_VNDRANGE_MAX_DIMS; d++) {
		int used = d < dims;
		aos_u64 g = used ? global[d] : 1, l = used ? local[d] : 1;
		if (g == 0 || l == 0 || g % l)
			return -1;
		r->global_size[d] = g;
		r->local_size[d] = l;
		r->global_offset[d] = used && offset ? offset[d] : 0;
		r->num_groups[d] = g / l;
		if (r->num_groups[d] > UINT32_MAX / total)
			return -1;
		total *= r->num_groups[d];
	}
	r->total_groups = (aos_u32)total;
	r->budget = r->total_groups;
	aos_vndrange_set_div_magic(r);
	return 0;
}
#endif

static inline aos_u32 aos_fastdiv(aos_u32 n, aos_u64 m)
{
	/* High 64 bits of the 96-bit n * m, from two 32x32->64 products; the sum
	 * stays below 2^64 because n * (m >> 32) <= (2^32 - 1)^2. */
	aos_u64 lo = ((aos_u64)n * (m & 0xffffffffu)) >> 32;
	aos_u64 hi = (aos_u64)n * (m >> 32);
	aos_u32 q = (aos_u32)((hi + lo) >> 32);
	/* Branch free, so the compiler sees one block it may hoist whole. */
	return q + (m ? 0u : n);
}

/*
 * Direct shape. On SPIR targets the rewrite also emits, per rewritten kernel
 * K, a loop-free kernel AOS_DIRECT_KERNEL_PREFIX "K" taking K's arguments, the
 * record (read only: next, budget and done are not used) and a uint `base`.
 * Each physical group runs the one virtual group base + get_group_id(0); the
 * host covers the virtual NDRange with waves of 1-D physical group counts
 * (dimension 0; the local size and the global offset are the original ones),
 * raising base by the wave's group count. No atomics or barriers are added, so a CPU device runs
 * it as fast as the original; a wave ends only once all of its groups did.
 */
#define AOS_DIRECT_KERNEL_PREFIX "aos_direct_"

/* Private per-work-item scheduling state the rewritten kernel allocates
 * (rtlib owns its layout; the pass only needs its size in 8-byte words). */
#define AOS_RT_WG_WORDS 20u
/* uints per local dequeue slot; the pass allocates two slots per kernel. */
#define AOS_RT_SLOT_WORDS 8u

#endif
