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
 *   - flags = 0, next = 0, done = 0, stop = 0, static_end = 0, budget = total_groups
 *     (run everything), chunk = 0 (use the kernel's compiled adaptive chunk)
 *     or a forced chunk;
 *   - launch with the same local size and any number of physical groups.
 * Static first chunks (optional, aos_vndrange_static_first): with a forced
 * chunk C, P physical groups (along x) and a start S, the host sets
 * next = static_end = S + P x C. Physical group g then runs the groups
 * [S + g x C, S + (g + 1) x C) below the limit first, with no atomic, and
 * dequeues from `next` afterwards, unless static_end already reached the
 * limit: a launch starts without P atomics on one address at once.
 * Budget and stop hooks: budget is fixed for the length of a launch, and the
 * dequeue never runs a virtual group whose index is >= budget. `stop` may be
 * set while a launch runs (or before it): a master that reads it runs the
 * chunk it took at that dequeue (or its static chunk) and takes nothing more,
 * so the launch ends at virtual-group boundaries, within one chunk per
 * physical group. Either way the groups [0, frontier) ran, all of them, where
 * frontier = min(next, budget, total_groups): `next` may run past the limit,
 * since the dequeue is one fetch-add (aos_vndrange_frontier). A later launch
 * on the same record resumes exactly there with next = frontier, stop = 0,
 * static_end = 0 (or new static chunks) and a higher budget (done kept).
 * `next` and `stop` share one 64-bit word, to which a dequeue adds its chunk,
 * so the add returns `stop` as well; the host sets `stop` with a 4-byte write
 * of its own (a store lands before or after a device atomic on the word, not
 * inside it). `next` stays below 2^32, so no add carries into `stop`.
 * With flags = AOS_VNDRANGE_COUNT_DONE, `done` counts virtual groups completed;
 * each physical group adds its count as it ends, so read it after a launch.
 * Without it (the default, and the daemon's way) `done` stays as the host set it.
 */
#ifndef ACCELOS_VNDRANGE_H
#define ACCELOS_VNDRANGE_H

#ifdef __OPENCL_C_VERSION__
typedef ushort aos_u16;
typedef uint aos_u32;
typedef ulong aos_u64;
#else
#include <stddef.h>
#include <stdint.h>
#include <string.h>
typedef uint16_t aos_u16;
typedef uint32_t aos_u32;
typedef uint64_t aos_u64;
#endif

#define AOS_VNDRANGE_MAX_DIMS 3

/* aos_vndrange.flags: masters add the groups they ran to `done` as they end. Only the diff
 * tester reads `done` (its proof that every virtual group ran once); the daemon leaves the flag
 * off, since the adds go one at a time on the record's line (about 2 ns each on an H200, one
 * per physical group) and the frontier already tells which groups ran. */
#define AOS_VNDRANGE_COUNT_DONE 1u

struct aos_vndrange {
	aos_u16 dims;                 /* work_dim of the original launch, 1..3 */
	aos_u16 flags;                /* AOS_VNDRANGE_COUNT_DONE or 0 */
	aos_u32 chunk;                /* virtual groups per dequeue; 0 = compiled default */
	aos_u64 global_size[3];       /* original global size per dimension */
	aos_u64 local_size[3];        /* original (and physical) local size */
	aos_u64 global_offset[3];     /* original global offset */
	aos_u64 num_groups[3];        /* global_size / local_size */
	aos_u32 total_groups;         /* product of num_groups */
	aos_u32 done;                 /* atomic: virtual groups completed, with COUNT_DONE */
	aos_u32 budget;               /* stop/budget: never hand out index >= budget */
	aos_u32 static_end;           /* 0, or the end of the static first chunks */
	aos_u32 next;                 /* atomic: next virtual group to hand out */
	aos_u32 stop;                 /* non-zero: take no more virtual groups */
};

#define AOS_VNDRANGE_SIZE 128u

#ifdef __OPENCL_C_VERSION__
#define AOS_OFFSETOF(t, f) __builtin_offsetof(t, f)
#else
#define AOS_OFFSETOF(t, f) offsetof(t, f)
#endif
#ifdef __cplusplus
#define _Static_assert static_assert
#endif
_Static_assert(sizeof(struct aos_vndrange) == AOS_VNDRANGE_SIZE, "record size is ABI");
_Static_assert(AOS_OFFSETOF(struct aos_vndrange, flags) == 2, "layout");
_Static_assert(AOS_OFFSETOF(struct aos_vndrange, global_size) == 8, "layout");
_Static_assert(AOS_OFFSETOF(struct aos_vndrange, local_size) == 32, "layout");
_Static_assert(AOS_OFFSETOF(struct aos_vndrange, global_offset) == 56, "layout");
_Static_assert(AOS_OFFSETOF(struct aos_vndrange, num_groups) == 80, "layout");
_Static_assert(AOS_OFFSETOF(struct aos_vndrange, total_groups) == 104, "layout");
_Static_assert(AOS_OFFSETOF(struct aos_vndrange, done) == 108, "layout");
_Static_assert(AOS_OFFSETOF(struct aos_vndrange, budget) == 112, "layout");
_Static_assert(AOS_OFFSETOF(struct aos_vndrange, static_end) == 116, "layout");
_Static_assert(AOS_OFFSETOF(struct aos_vndrange, next) == 120, "layout");
_Static_assert(AOS_OFFSETOF(struct aos_vndrange, stop) == 124, "layout");
/* `next` and `stop` are one little-endian 64-bit word: a dequeue's fetch-add on the word returns
 * `stop` with `next`, so no master reads the record's line a second time (rtlib aos_grab). */
_Static_assert(AOS_OFFSETOF(struct aos_vndrange, stop) == AOS_OFFSETOF(struct aos_vndrange, next) + 4,
	       "next and stop share one 64-bit word");
_Static_assert(AOS_OFFSETOF(struct aos_vndrange, next) % 8 == 0, "the word of next and stop is aligned");
/* A resumed launch rewrites budget, static_end and next with one write. */
_Static_assert(AOS_OFFSETOF(struct aos_vndrange, static_end) == AOS_OFFSETOF(struct aos_vndrange, budget) + 4,
	       "budget and static_end are adjacent");
_Static_assert(AOS_OFFSETOF(struct aos_vndrange, next) == AOS_OFFSETOF(struct aos_vndrange, static_end) + 4,
	       "static_end and next are adjacent");

/* Virtual groups per range at most: a fetch-add that runs `next` past the
 * limit (by at most physical groups x chunk) must not wrap around. */
#define AOS_VNDRANGE_MAX_GROUPS 0x80000000u

#ifndef __OPENCL_C_VERSION__
/*
 * Host: fills a record for a launch of `dims` dimensions (1..3) whose global
 * and local sizes and offset (NULL: zero) are given per used dimension:
 * unused dimensions get size 1 and offset 0, flags = next = done = chunk = static_end = 0 and
 * budget = total_groups (run everything). Returns 0, or -1 when the range is
 * not uniform (a global size that is 0 or not a multiple of its local size)
 * or has more than AOS_VNDRANGE_MAX_GROUPS virtual groups; the record is then
 * unspecified.
 */
static inline int aos_vndrange_fill(struct aos_vndrange *r, aos_u32 dims, const size_t *global,
				    const size_t *local, const size_t *offset)
{
	aos_u64 total = 1;
	if (dims < 1 || dims > AOS_VNDRANGE_MAX_DIMS)
		return -1;
	memset(r, 0, sizeof(*r));
	r->dims = (aos_u16)dims;
	for (aos_u32 d = 0; d < AOS_VNDRANGE_MAX_DIMS; d++) {
		int used = d < dims;
		aos_u64 g = used ? global[d] : 1, l = used ? local[d] : 1;
		if (g == 0 || l == 0 || g % l)
			return -1;
		r->global_size[d] = g;
		r->local_size[d] = l;
		r->global_offset[d] = used && offset ? offset[d] : 0;
		r->num_groups[d] = g / l;
		if (r->num_groups[d] > AOS_VNDRANGE_MAX_GROUPS / total)
			return -1;
		total *= r->num_groups[d];
	}
	r->total_groups = (aos_u32)total;
	r->budget = r->total_groups;
	return 0;
}

/* Host: the end of the prefix of virtual groups that ran (see the header). */
static inline aos_u32 aos_vndrange_frontier(const struct aos_vndrange *r)
{
	aos_u32 f = r->next < r->budget ? r->next : r->budget;
	return f < r->total_groups ? f : r->total_groups;
}
#endif

#ifndef __OPENCL_C_VERSION__
/* Dequeues per physical group the daemon's loop waves aim at (aos_vndrange_spread_chunk). */
#define AOS_VNDRANGE_DEQUEUES_PER_GROUP 2u
/* Fewer physical groups than this do not contend for the atomic: the compiled chunk stays. */
#define AOS_VNDRANGE_SPREAD_MIN_PHYS 32u

/*
 * Host, loop shape: the chunk for `total` virtual groups on `phys` physical groups when the
 * kernel's compiled chunk is `compiled` (0 counts as 1). Every dequeue is an atomic on the
 * one `next` of the record, and atomics on one address run one at a time: on an H200 about
 * 5 ns each, so a launch of 4224 physical groups that took one virtual group per dequeue
 * spent most of its time there. The chunk grows until each physical group dequeues about
 * `dequeues` times (0 counts as 1); fewer dequeues also leave a later stop to the end of
 * a larger chunk. Never below `compiled`, and `compiled` (at least 1) below
 * AOS_VNDRANGE_SPREAD_MIN_PHYS physical groups: a CPU's few groups do not contend, and on
 * PoCL the loop shape ran 1.3-1.6x slower with the larger chunks (histo's kernels).
 */
static inline aos_u32 aos_vndrange_spread_chunk(aos_u32 total, aos_u64 phys, aos_u32 compiled, aos_u32 dequeues)
{
	aos_u32 least = compiled ? compiled : 1u;
	if (phys < AOS_VNDRANGE_SPREAD_MIN_PHYS)
		return least;
	aos_u64 slots = phys * (dequeues ? dequeues : 1u);
	aos_u64 spread = (total + slots - 1) / slots;
	return spread > least ? (aos_u32)spread : least;
}

/* Virtual groups per physical group up to which a loop launch may take them all as static
 * chunks, and the eighths of its physical groups those chunks must keep busy. */
#define AOS_VNDRANGE_ALL_STATIC_MAX 4u
#define AOS_VNDRANGE_ALL_STATIC_BUSY_EIGHTHS 7u

/*
 * Host, loop shape: the chunk for `total` virtual groups on `phys` physical groups, and in
 * *static_first whether their first chunks are static (aos_vndrange_static_first). From
 * AOS_VNDRANGE_SPREAD_MIN_PHYS groups on they are, so a launch starts without a burst of `phys`
 * atomics on one address. Where each group would take at most AOS_VNDRANGE_ALL_STATIC_MAX
 * virtual groups and chunks of total / phys rounded up keep 7/8 of the groups busy, that is
 * the chunk and nothing is dequeued at all: on an H100 a 20 us launch of 16384 groups on 4224
 * ran at 0.46x native with two dequeues per group (the atomics' time), 0.80x so. Fewer busy
 * groups lose more than the atomics: mri-q's 1024 long groups on 792 ran at 0.49x as chunks of
 * 2 on 512 groups, 0.74x dequeued one by one. Below that many groups: the spread chunk, all
 * dequeued.
 */
static inline aos_u32 aos_vndrange_loop_chunk(aos_u32 total, aos_u64 phys, aos_u32 compiled, aos_u32 dequeues,
					      int *static_first)
{
	aos_u32 c = aos_vndrange_spread_chunk(total, phys, compiled, dequeues);
	*static_first = phys >= AOS_VNDRANGE_SPREAD_MIN_PHYS;
	if (*static_first) {
		aos_u64 each = (total + phys - 1) / phys, busy = each ? (total + each - 1) / each : 0;
		if (each <= AOS_VNDRANGE_ALL_STATIC_MAX && each > c &&
		    busy * 8u >= phys * AOS_VNDRANGE_ALL_STATIC_BUSY_EIGHTHS)
			c = (aos_u32)each;
	}
	return c;
}

/*
 * Host, loop shape: static first chunks for a launch (or wave) that starts at virtual group
 * `base` on `phys` physical groups with chunk `chunk` (see the header): sets chunk, next and
 * static_end. Returns 0, or -1 with the record unchanged when chunk or phys is 0 or `next`
 * could wrap (it may run past static_end by phys x chunk).
 */
static inline int aos_vndrange_static_first(struct aos_vndrange *r, aos_u32 base, aos_u64 phys, aos_u32 chunk)
{
	aos_u64 span = phys * chunk, end = (aos_u64)base + span;
	if (!chunk || !phys || end + span > 0xffffffffu)
		return -1;
	r->chunk = chunk;
	r->next = r->static_end = (aos_u32)end;
	return 0;
}
#endif

#ifndef __OPENCL_C_VERSION__
/*
 * Host, direct shape: the box of virtual groups that a wave starting at the
 * linear group `start` (< total_groups) runs when it may take up to `want`
 * groups (0 counts as 1): a run within one row when start is inside a row or
 * fewer than a row are wanted, else whole rows within one plane, else whole
 * planes. The wave is launched over that box (global offset = original offset
 * + origin x local size), so each group's ids come from the device, not from a
 * division.
 * Fills origin and extent in groups; returns the box's group count (>= 1).
 */
static inline aos_u32 aos_vndrange_box(const struct aos_vndrange *r, aos_u32 start, aos_u32 want,
				       aos_u64 origin[3], aos_u64 extent[3])
{
	aos_u64 nx = r->num_groups[0], ny = r->num_groups[1], nz = r->num_groups[2];
	aos_u64 left = r->total_groups - start, n = want < left ? want : left;
	if (n == 0)
		n = 1; /* a wave runs at least one group, so a walk always ends */
	origin[0] = start % nx;
	origin[1] = start / nx % ny;
	origin[2] = start / (nx * ny);
	extent[0] = extent[1] = extent[2] = 1;
	if (origin[0] != 0 || n < nx) {
		extent[0] = n < nx - origin[0] ? n : nx - origin[0];
	} else if (origin[1] != 0 || n < nx * ny) {
		extent[0] = nx;
		extent[1] = n / nx < ny - origin[1] ? n / nx : ny - origin[1];
	} else {
		extent[0] = nx;
		extent[1] = ny;
		extent[2] = n / (nx * ny) < nz - origin[2] ? n / (nx * ny) : nz - origin[2];
	}
	return (aos_u32)(extent[0] * extent[1] * extent[2]);
}

/* Host, direct shape: the NDRange that launches a box (aos_vndrange_box) of
 * record r: global size extent x local size, global offset the original one
 * moved by origin x local size, in all three dimensions. */
static inline void aos_vndrange_box_ndrange(const struct aos_vndrange *r, const aos_u64 origin[3],
					    const aos_u64 extent[3], size_t global[3], size_t offset[3])
{
	for (int d = 0; d < AOS_VNDRANGE_MAX_DIMS; d++) {
		global[d] = (size_t)(extent[d] * r->local_size[d]);
		offset[d] = (size_t)(r->global_offset[d] + origin[d] * r->local_size[d]);
	}
}
#endif


/*
 * Direct shape. On SPIR targets the rewrite also emits, per rewritten kernel
 * K, a loop-free kernel AOS_DIRECT_KERNEL_PREFIX "K" taking K's arguments and
 * the launch's geometry, a struct aos_direct_grid passed by value (below),
 * not the record: it has no dequeue, so it needs none of next, budget, done
 * or stop, and a by-value argument is a constant of the work-group where a
 * record in device memory is not. The host covers
 * the virtual NDRange with waves, each over a box of virtual groups in the
 * original dimensions (aos_vndrange_box) with the original local size and the
 * global offset moved by origin x local size. Each group runs
 * virtual group get_group_id(d) + (get_global_offset(d) - global_offset[d]) /
 * local size; its global ids are the device's own. No atomics or barriers are
 * added, so a CPU device runs it as fast as the original; a wave ends only
 * once all of its groups did.
 */
#define AOS_DIRECT_KERNEL_PREFIX "aos_direct_"

/*
 * The direct kernel's last argument, by value: the original launch's
 * geometry as in its record (local sizes are the device's own), and the
 * wave's box origin in groups (aos_vndrange_box), set for every wave: a
 * group's virtual id is then origin + get_group_id, with no division. Why by
 * value: PoCL keeps a kernel's loads from a buffer inside the work-item loops
 * it wraps around the body (a store to any buffer may alias them), and a
 * kernel that read its global offsets from a buffer ran at 0.85x the native
 * one (mat_2d_offset); a by-value argument is loaded once per work-group.
 */
struct aos_direct_grid {
	aos_u64 global_size[3];
	aos_u64 global_offset[3];
	aos_u64 num_groups[3];
	aos_u32 origin[3];            /* the wave's first group per dimension */
	aos_u32 dims;
};

#define AOS_DIRECT_GRID_SIZE 88u
_Static_assert(sizeof(struct aos_direct_grid) == AOS_DIRECT_GRID_SIZE, "grid size is ABI");
_Static_assert(AOS_OFFSETOF(struct aos_direct_grid, global_offset) == 24, "layout");
_Static_assert(AOS_OFFSETOF(struct aos_direct_grid, num_groups) == 48, "layout");
_Static_assert(AOS_OFFSETOF(struct aos_direct_grid, origin) == 72, "layout");
_Static_assert(AOS_OFFSETOF(struct aos_direct_grid, dims) == 84, "layout");

/*
 * Cuttable direct waves (CPU devices). AOS_CUT_KERNEL_PREFIX "K" is the direct
 * kernel with one more argument, a struct aos_cut in memory the host writes
 * while the wave runs. Each group's linear index g within the wave's box
 * (device group ids, x fastest) is its place in the virtual range after the
 * box's first group. A group runs iff its claim says so:
 *   - `claimed` below AOS_CUT_STOP: the group raises it to at least g + ahead
 *     (one atomic max every `ahead` groups) and runs;
 *   - once the host has set AOS_CUT_STOP (an atomic or), `claimed` is frozen:
 *     groups below it run, the others return at once.
 * So the groups that ran are exactly the box's first min(claimed, box) ones,
 * and a cut wave resumes there. `ahead` bounds the groups that still run after
 * a cut, so the host sizes it to a few microseconds of the kernel's groups.
 */
#define AOS_CUT_KERNEL_PREFIX "aos_cut_"
#define AOS_CUT_STOP 0x80000000u

struct aos_cut {
	aos_u32 claimed;              /* atomic: groups claimed, | AOS_CUT_STOP once cut */
	aos_u32 ahead;                /* groups one claim covers, >= 1 */
};

#ifndef __OPENCL_C_VERSION__
/* Host: the direct kernel's grid argument for the launch of record r, for a wave whose box
 * starts at group `origin` (NULL: the range's first group, as a launch over the whole range). */
static inline void aos_direct_grid_of(const struct aos_vndrange *r, const aos_u64 origin[3],
				      struct aos_direct_grid *g)
{
	memset(g, 0, sizeof(*g));
	for (int d = 0; d < AOS_VNDRANGE_MAX_DIMS; d++) {
		g->global_size[d] = r->global_size[d];
		g->global_offset[d] = r->global_offset[d];
		g->num_groups[d] = r->num_groups[d];
		g->origin[d] = origin ? (aos_u32)origin[d] : 0u; /* < num_groups <= AOS_VNDRANGE_MAX_GROUPS */
	}
	g->dims = r->dims;
}
#endif

/* Private per-work-item scheduling state the rewritten kernel allocates
 * (rtlib owns its layout; the pass only needs its size in 8-byte words). */
#define AOS_RT_WG_WORDS 20u
/* uints per local dequeue slot; the pass allocates two slots per kernel. */
#define AOS_RT_SLOT_WORDS 8u

#endif
