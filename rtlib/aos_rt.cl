/*
 * accelOS device runtime: virtual-group dequeue and the grid built-ins of a
 * rewritten kernel. Compiled to bitcode per target at build time and linked,
 * then inlined, into every rewritten module (passes/aos_link.cpp).
 *
 * Entry points use untyped pointers (global void *, private void *) so the
 * pass can declare them without knowing the struct types.
 *
 * One barrier per dequeue: the master writes the grabbed range into slot
 * (phase & 1) of a two-slot local array. Slot k is rewritten two dequeues
 * later, after a barrier every work-item passed only once its read was done.
 *
 * The master also splits the first virtual group's linear index into x/y/z
 * group coordinates (the only divisions), and stores them in the slot; the
 * work-items then step through the chunk by incrementing the coordinates.
 * Divisions per work-item per group would dominate small kernels.
 */
#include "accelos/vndrange.h"

typedef struct {
	ulong group[3];       /* current virtual group id */
	ulong num_groups[3];
	ulong global_size[3];
	ulong offset[3];
	ulong local_size[3];
	uint dims;
	uint phase;           /* dequeue counter, selects the local slot */
	uint base;            /* first virtual group of the current chunk */
	uint prev;            /* groups in the current chunk */
	uint completed;       /* master: groups this physical group ran, added to done at its end */
	uint direct;          /* 1 in a direct kernel: a constant once inlined */
	uint stopping;        /* master: saw `stop`, takes no more groups */
} aos_wg;

_Static_assert(sizeof(aos_wg) <= AOS_RT_WG_WORDS * 8, "AOS_RT_WG_WORDS too small");

/* Local slot layout, AOS_RT_SLOT_WORDS uints per slot, two slots. */
enum { AOS_SLOT_BASE, AOS_SLOT_COUNT, AOS_SLOT_GX, AOS_SLOT_GY, AOS_SLOT_GZ };
_Static_assert(AOS_SLOT_GZ < AOS_RT_SLOT_WORDS, "slot too small");

static bool aos_is_master(void)
{
	return get_local_id(0) == 0 && get_local_id(1) == 0 && get_local_id(2) == 0;
}

/* The dequeue state of a group that has taken nothing yet, in either shape. */
static void aos_wg_start(aos_wg *wg, uint direct)
{
	wg->phase = 0;
	wg->base = 0;
	wg->prev = 0;
	wg->completed = 0;
	wg->direct = direct;
	wg->stopping = 0;
}

void aos_rt_init(global void *rtv, void *wgv)
{
	global struct aos_vndrange *rt = rtv;
	aos_wg *wg = wgv;
	for (int d = 0; d < 3; d++) {
		wg->group[d] = 0;
		wg->num_groups[d] = rt->num_groups[d];
		wg->global_size[d] = rt->global_size[d];
		wg->offset[d] = rt->global_offset[d];
		wg->local_size[d] = rt->local_size[d];
	}
	wg->dims = rt->dims;
	aos_wg_start(wg, 0);
}

/* A direct wave's origin along d. A wave launched at global offset 0 starts at the range's first
 * group (its offset is the original one plus origin x local size, neither negative), and PoCL
 * builds a kernel of its own for launches at offset 0 in which get_global_offset is 0: there the
 * origin folds away with its load, a dependent load per group that cost a kernel of one-item
 * groups 6 % (large_grid, bench/RESULTS.md §3, session 34). Not on NVPTX, where
 * get_global_offset reads 0 whatever the launch's offset (aos_direct_id_in_wave). */
static ulong aos_direct_origin(const struct aos_direct_grid *g, uint d)
{
#ifdef __NVPTX__
	return g->origin[d];
#else
	return get_global_offset(d) ? g->origin[d] : 0u;
#endif
}

/*
 * Direct shape (AOS_DIRECT_KERNEL_PREFIX kernels): no loop, no dequeue. The
 * host launches the virtual NDRange as a series of waves, each over a box of
 * virtual groups in the original dimensions, with the global offset moved by
 * the box's origin (aos_vndrange_box). A group's virtual id is then its
 * physical id plus the box's origin, which the host passes with each wave:
 * no division, no split of a linear index. The geometry comes by value
 * (struct aos_direct_grid), so every field is a constant of the work-group,
 * outside PoCL's work-item loops.
 */
void aos_rt_direct_init(const void *gridv, void *wgv)
{
	const struct aos_direct_grid *g = gridv;
	aos_wg *wg = wgv;
	for (int d = 0; d < 3; d++) {
		wg->num_groups[d] = g->num_groups[d];
		wg->global_size[d] = g->global_size[d];
		wg->offset[d] = g->global_offset[d];
		wg->local_size[d] = get_local_size(d);
		wg->group[d] = aos_direct_origin(g, d) + get_group_id(d);
	}
	wg->dims = g->dims;
	aos_wg_start(wg, 1);
}

/* Cuttable direct waves (accelos/vndrange.h, struct aos_cut): whether this group runs. Every
 * work-item asks, with the same answer: a group that raised `claimed` past itself runs whatever
 * comes later, and once the stop bit is set `claimed` no longer moves. No barrier, so PoCL's
 * work-item loops stay as in the direct kernel. */
uint aos_rt_cut_claim(global void *cutv)
{
	volatile global struct aos_cut *cut = cutv;
	uint g = (uint)(get_group_id(0) + get_num_groups(0) * (get_group_id(1) + get_num_groups(1) * get_group_id(2)));
	uint seen = cut->claimed;
	if (seen & AOS_CUT_STOP)
		return g < (seen & ~AOS_CUT_STOP);
	if (seen > g)
		return 1;
	uint ahead = cut->ahead;
	uint old = atomic_max((volatile global uint *)&cut->claimed, g + (ahead ? ahead : 1u));
	return !(old & AOS_CUT_STOP) || g < (old & ~AOS_CUT_STOP);
}

/* Direct shape: the device's id within the wave's range, which the compiler folds to group x
 * local size + local id (the device's offset cancels), and the wave's shift from the original
 * range (its origin in items): the same for the whole wave. On NVPTX the device's ids do not
 * hold the launch's global offset (libclc reads none: NVIDIA passes it to its own compiler's
 * code only), so ids there come from the group and local ids. */
static ulong aos_direct_id_in_wave(uint d)
{
#ifdef __NVPTX__
	return get_group_id(d) * get_local_size(d) + get_local_id(d);
#else
	return get_global_id(d) - get_global_offset(d);
#endif
}

static ulong aos_direct_shift(const aos_wg *wg, uint d)
{
	return (wg->group[d] - get_group_id(d)) * get_local_size(d);
}

/* Master only: grab up to `chunk` groups below min(total, budget). One
 * fetch-add, no compare-and-swap loop: on a GPU hundreds of masters dequeue at
 * once, and a CAS loop serialises them on round trips (on an H100, a 1D loop
 * kernel of 16384 groups ran at 0.003x native with it, 0.17x without). The add
 * may carry `next` past the limit; the groups beyond it are never run, so
 * after a launch the groups [0, min(next, limit)) ran, all of them
 * (accelos/vndrange.h). The add is on the 64-bit word of `next` and `stop`, so
 * it returns `stop` too: a master that sees it runs the chunk it has just
 * taken and takes nothing more, which leaves no hole either.
 *
 * Accesses to the record's line run one at a time (about 2 ns each on an
 * H200), so those that are not needed are not made: with static first chunks
 * a group computes its first chunk, and a master whose chunk reached the limit
 * takes nothing more (its next grab could only come back empty). */
static uint aos_grab(global struct aos_vndrange *rt, aos_wg *wg, uint chunk, uint *count)
{
	uint limit = min(rt->total_groups, rt->budget);
	if (wg->stopping) {
		*count = 0;
		return limit;
	}
	uint static_end = rt->static_end;
	if (wg->phase == 1u && static_end) {
		/* The first chunk is static: this group's place among the physical groups
		 * (along x) from where the host started them (accelos/vndrange.h). */
		uint first = static_end - (uint)get_num_groups(0) * chunk + (uint)get_group_id(0) * chunk;
		/* `stop` only where a grab may follow, so that a launch stopped before it starts
		 * runs one chunk per group: where the static chunks reach the limit, every master
		 * would read the line at once and learn nothing (bench/RESULTS.md §3, session 33). */
		wg->stopping = static_end >= limit || *(volatile global uint *)&rt->stop;
		*count = first < limit ? min(chunk, limit - first) : 0u;
		return first;
	}
	/* __sync: an atomicrmw the back end lowers to one 64-bit add (libclc has no 64-bit atom_add);
	 * `next` stays below 2^32, so the add never carries into `stop`. */
	ulong word = __sync_fetch_and_add((global ulong *)&rt->next, (ulong)chunk);
	uint old = (uint)word;
	wg->stopping = (uint)(word >> 32) != 0u || old + chunk >= limit;
	*count = old < limit ? min(chunk, limit - old) : 0u;
	return old;
}

uint aos_rt_dequeue(global void *rtv, local void *sdv, void *wgv, uint dflt_chunk)
{
	global struct aos_vndrange *rt = rtv;
	local uint *sd = sdv;
	aos_wg *wg = wgv;
	uint slot = (wg->phase & 1u) * AOS_RT_SLOT_WORDS;
	wg->phase++;
	if (aos_is_master()) {
		uint chunk = rt->chunk ? rt->chunk : dflt_chunk;
		uint count;
		uint base = aos_grab(rt, wg, chunk ? chunk : 1u, &count);
		ulong nx = wg->num_groups[0], ny = wg->num_groups[1];
		sd[slot + AOS_SLOT_BASE] = base;
		sd[slot + AOS_SLOT_COUNT] = count;
		sd[slot + AOS_SLOT_GX] = (uint)(base % nx);
		sd[slot + AOS_SLOT_GY] = (uint)((base / nx) % ny);
		sd[slot + AOS_SLOT_GZ] = (uint)(base / (nx * ny));
	}
	barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
	/* Every work-item finished the previous chunk before this barrier. `done`
	 * is read after the launch only, and only when the host asked for it: one
	 * add per physical group, at its end, keeps it off the atomics' one cache
	 * line while groups still dequeue (accelos/vndrange.h, COUNT_DONE). */
	wg->completed += wg->prev;
	wg->base = sd[slot + AOS_SLOT_BASE];
	wg->prev = sd[slot + AOS_SLOT_COUNT];
	if (aos_is_master() && !wg->prev && wg->completed && (rt->flags & AOS_VNDRANGE_COUNT_DONE))
		atomic_add(&rt->done, wg->completed);
	wg->group[0] = sd[slot + AOS_SLOT_GX];
	wg->group[1] = sd[slot + AOS_SLOT_GY];
	wg->group[2] = sd[slot + AOS_SLOT_GZ];
	return wg->prev;
}

/* Called with index 0, 1, ... for the groups of the current chunk. */
void aos_rt_enter(void *wgv, uint index)
{
	aos_wg *wg = wgv;
	if (index == 0)
		return;
	if (++wg->group[0] < wg->num_groups[0])
		return;
	wg->group[0] = 0;
	if (++wg->group[1] < wg->num_groups[1])
		return;
	wg->group[1] = 0;
	wg->group[2]++;
}

/* Field v[d] as an element of a vector value, not by indexing memory: with a d known only at
 * run time an indexed field (or selects, which clang turns into a load through a phi of field
 * addresses) keeps the whole context in memory, which PoCL then keeps per work-item (a store
 * and load per work-item of every field); the vector stays in registers. A constant d folds. */
static ulong aos_by_dim(const ulong *v, uint d, ulong beyond)
{
	ulong4 all = (ulong4)(v[0], v[1], v[2], beyond);
	return all[d < 3u ? d : 3u];
}

ulong aos_rt_group_id(void *wgv, uint d)
{
	aos_wg *wg = wgv;
	return aos_by_dim(wg->group, d, 0);
}

ulong aos_rt_num_groups(void *wgv, uint d)
{
	aos_wg *wg = wgv;
	return aos_by_dim(wg->num_groups, d, 1);
}

ulong aos_rt_global_size(void *wgv, uint d)
{
	aos_wg *wg = wgv;
	return aos_by_dim(wg->global_size, d, 1);
}

ulong aos_rt_global_offset(void *wgv, uint d)
{
	aos_wg *wg = wgv;
	return aos_by_dim(wg->offset, d, 0);
}

ulong aos_rt_global_id(void *wgv, uint d)
{
	aos_wg *wg = wgv;
	if (d >= 3)
		return 0;
#ifndef __NVPTX__
	/* A direct wave's global ids are the original ones: the device's own (not on NVPTX:
	 * aos_direct_id_in_wave). */
	if (wg->direct)
		return get_global_id(d);
#endif
	/* get_local_size, not the record's copy: the physical local size is the
	 * original one, and PoCL compiles it as a constant. */
	return aos_by_dim(wg->group, d, 0) * get_local_size(d) + get_local_id(d) +
	       aos_by_dim(wg->offset, d, 0);
}

/* get_global_id(d) - get_global_offset(d), as the pass finds it written: the id within the
 * range, in either shape, with no offset to subtract. */
ulong aos_rt_global_id_in_range(void *wgv, uint d)
{
	aos_wg *wg = wgv;
	return aos_by_dim(wg->group, d, 0) * get_local_size(d) + get_local_id(d);
}

/* NVPTX only (libclc has none of these three): the launch keeps the original
 * dimensions and local size, so each equals its physical value; a record's
 * range is uniform, so the enqueued local size is the local size. */
uint aos_rt_work_dim(void *wgv)
{
	aos_wg *wg = wgv;
	return wg->dims;
}

ulong aos_rt_local_linear_id(void *wgv)
{
	(void)wgv;
	return (get_local_id(2) * get_local_size(1) + get_local_id(1)) * get_local_size(0) +
	       get_local_id(0);
}

ulong aos_rt_enqueued_local_size(void *wgv, uint d)
{
	(void)wgv;
	return get_local_size(d);
}

ulong aos_rt_global_linear_id(void *wgv)
{
	aos_wg *wg = wgv;
	if (wg->direct) {
		/* The shifts summed once, so that no work-item subtracts the record's offsets:
		 * the vectorizer paired those per work-item. */
		ulong base = (aos_direct_shift(wg, 2) * wg->global_size[1] + aos_direct_shift(wg, 1)) *
				     wg->global_size[0] + aos_direct_shift(wg, 0);
		ulong x = aos_direct_id_in_wave(0), y = aos_direct_id_in_wave(1), z = aos_direct_id_in_wave(2);
		return (z * wg->global_size[1] + y) * wg->global_size[0] + x + base;
	}
	ulong x = aos_rt_global_id(wgv, 0) - wg->offset[0];
	ulong y = aos_rt_global_id(wgv, 1) - wg->offset[1];
	ulong z = aos_rt_global_id(wgv, 2) - wg->offset[2];
	return (z * wg->global_size[1] + y) * wg->global_size[0] + x;
}

#ifdef __NVPTX__
#include "nvptx_native_math.cl"
#include "nvptx_trig.cl"
#endif
