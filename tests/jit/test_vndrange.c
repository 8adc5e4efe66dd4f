/* The virtual NDRange record: host layout, and the device's view of it
 * (rtlib compiled for spir64 must read the fields at the same offsets). */
#include "accelos/vndrange.h"
#include "check_run.h"

#include <check.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

START_TEST(host_layout)
{
	ck_assert_uint_eq(sizeof(struct aos_vndrange), AOS_VNDRANGE_SIZE);
	ck_assert_uint_eq(offsetof(struct aos_vndrange, flags), 2);
	ck_assert_uint_eq(offsetof(struct aos_vndrange, chunk), 4);
	ck_assert_uint_eq(offsetof(struct aos_vndrange, done), 108);
	ck_assert_uint_eq(offsetof(struct aos_vndrange, budget), 112);
	ck_assert_uint_eq(offsetof(struct aos_vndrange, static_end), 116);
	ck_assert_uint_eq(offsetof(struct aos_vndrange, next), 120);
	ck_assert_uint_eq(offsetof(struct aos_vndrange, stop), 124);
}
END_TEST

/* The host's record fill: geometry, defaults, and every range it refuses. */
START_TEST(fill_geometry)
{
	struct aos_vndrange r;
	const size_t global[3] = { 48, 20, 6 }, local[3] = { 16, 4, 3 }, offset[3] = { 5, 7, 9 };
	ck_assert_int_eq(aos_vndrange_fill(&r, 2, global, local, offset), 0);
	ck_assert_uint_eq(r.dims, 2);
	ck_assert_uint_eq(r.num_groups[0], 3);
	ck_assert_uint_eq(r.num_groups[1], 5);
	ck_assert_uint_eq(r.num_groups[2], 1); /* unused: size 1, offset 0 */
	ck_assert_uint_eq(r.global_size[2], 1);
	ck_assert_uint_eq(r.local_size[2], 1);
	ck_assert_uint_eq(r.global_offset[1], 7);
	ck_assert_uint_eq(r.global_offset[2], 0);
	ck_assert_uint_eq(r.total_groups, 15);
	ck_assert_uint_eq(r.budget, 15);
	ck_assert_uint_eq(r.next + r.done + r.chunk + r.stop + r.static_end + r.flags, 0);

	ck_assert_int_eq(aos_vndrange_fill(&r, 3, global, local, NULL), 0);
	ck_assert_uint_eq(r.total_groups, 30);
	ck_assert_uint_eq(r.global_offset[0], 0);

	const size_t ragged[3] = { 50, 20, 6 }, empty[3] = { 0, 20, 6 }, zero_local[3] = { 16, 0, 3 };
	ck_assert_int_eq(aos_vndrange_fill(&r, 1, ragged, local, NULL), -1);
	ck_assert_int_eq(aos_vndrange_fill(&r, 1, empty, local, NULL), -1);
	ck_assert_int_eq(aos_vndrange_fill(&r, 2, global, zero_local, NULL), -1);
	ck_assert_int_eq(aos_vndrange_fill(&r, 0, global, local, NULL), -1);
	ck_assert_int_eq(aos_vndrange_fill(&r, 4, global, local, NULL), -1);

	/* 2^31 groups is the most (the dequeue's fetch-add may run past the
	 * limit without wrapping); more is refused, even when the product of two
	 * dimensions would wrap a 64-bit count. */
	const size_t one[3] = { 1, 1, 1 };
	const size_t most[3] = { 1ull << 31, 1, 1 }, too_many[3] = { 1ull << 16, 1ull << 15, 2 };
	const size_t wraps[3] = { 1ull << 32, 1ull << 32, 1 };
	ck_assert_int_eq(aos_vndrange_fill(&r, 1, most, one, NULL), 0);
	ck_assert_uint_eq(r.total_groups, AOS_VNDRANGE_MAX_GROUPS);
	ck_assert_int_eq(aos_vndrange_fill(&r, 3, too_many, one, NULL), -1);
	ck_assert_int_eq(aos_vndrange_fill(&r, 2, wraps, one, NULL), -1);
}
END_TEST

/* The frontier: the prefix that ran, whether next stopped short of the
 * budget (a stop), ran past it (the fetch-add) or past the whole range. */
START_TEST(frontier_is_the_prefix_that_ran)
{
	struct aos_vndrange r;
	const size_t global[1] = { 64 }, local[1] = { 4 };
	ck_assert_int_eq(aos_vndrange_fill(&r, 1, global, local, NULL), 0);
	ck_assert_uint_eq(aos_vndrange_frontier(&r), 0);
	r.budget = 10;
	r.next = 7;
	ck_assert_uint_eq(aos_vndrange_frontier(&r), 7);
	r.next = 26;
	ck_assert_uint_eq(aos_vndrange_frontier(&r), 10);
	r.budget = 100;
	ck_assert_uint_eq(aos_vndrange_frontier(&r), 16);
}
END_TEST

/* The loop shape's chunk: about `dequeues` grabs per physical group where virtual groups far
 * outnumber many physical ones, never below the compiled chunk, zeros counting as one; the
 * compiled chunk for a CPU's few physical groups. */
START_TEST(spread_chunk_bounds_the_dequeues)
{
	ck_assert_uint_eq(aos_vndrange_spread_chunk(262144, 4224, 1, 2), 32); /* H200, 64-item groups */
	ck_assert_uint_eq(aos_vndrange_spread_chunk(1048576, 4224, 8, 2), 125);
	ck_assert_uint_eq(aos_vndrange_spread_chunk(16384, 4224, 1, 2), 2);   /* rounded up */
	ck_assert_uint_eq(aos_vndrange_spread_chunk(1024, 1024, 1, 2), 1);    /* one group each */
	ck_assert_uint_eq(aos_vndrange_spread_chunk(10000, 100, 8, 2), 50);
	ck_assert_uint_eq(aos_vndrange_spread_chunk(1000, 100, 8, 2), 8);     /* the compiled floor */
	ck_assert_uint_eq(aos_vndrange_spread_chunk(1000, 32, 0, 1), 32);
	ck_assert_uint_eq(aos_vndrange_spread_chunk(1000, 31, 0, 1), 1);      /* few groups: compiled */
	ck_assert_uint_eq(aos_vndrange_spread_chunk(4096, 8, 6, 2), 6);       /* PoCL, 4 x 2 units */
	ck_assert_uint_eq(aos_vndrange_spread_chunk(5, 0, 0, 0), 1);
	ck_assert_uint_eq(aos_vndrange_spread_chunk(0, 64, 0, 2), 1);
	ck_assert_uint_eq(aos_vndrange_spread_chunk(5000, 64, 3, 0), 79);    /* zero grabs count as one */
	/* With the chunk it returns, the grabs that find groups never exceed phys x dequeues. */
	for (aos_u32 total = 1; total < 5000; total += 37)
		for (aos_u64 phys = AOS_VNDRANGE_SPREAD_MIN_PHYS; phys < 300; phys += 13) {
			aos_u32 c = aos_vndrange_spread_chunk(total, phys, 1, 2);
			ck_assert_uint_le((total + c - 1) / c, phys * 2);
			ck_assert_uint_ge(c, 1);
		}
	ck_assert_uint_eq(aos_vndrange_spread_chunk(AOS_VNDRANGE_MAX_GROUPS, 64, 1, 1), AOS_VNDRANGE_MAX_GROUPS / 64);
}
END_TEST

/* The loop shape's plan: static first chunks from many physical groups on, every chunk static
 * where each group would take at most AOS_VNDRANGE_ALL_STATIC_MAX virtual groups, dequeued
 * chunks only on a CPU's few groups. */
START_TEST(loop_chunk_static_first)
{
	int st = -1;
	ck_assert_uint_eq(aos_vndrange_loop_chunk(16384, 4224, 1, 2, &st), 4); /* H100: all static */
	ck_assert_int_eq(st, 1);
	ck_assert_uint_eq(aos_vndrange_loop_chunk(262144, 4224, 1, 2, &st), 32); /* the spread */
	ck_assert_int_eq(st, 1);
	ck_assert_uint_eq(aos_vndrange_loop_chunk(1024, 792, 1, 2, &st), 1); /* chunks of 2 would idle 280 */
	ck_assert_uint_eq(aos_vndrange_loop_chunk(1000, 100, 8, 2, &st), 8); /* the compiled floor; static, then dequeued */
	ck_assert_uint_eq(aos_vndrange_loop_chunk(300, 100, 8, 2, &st), 8);  /* the compiled floor covers it */
	ck_assert_uint_eq(aos_vndrange_loop_chunk(4096, 8, 6, 2, &st), 6);   /* PoCL: all dequeued */
	ck_assert_int_eq(st, 0);
	/* Static chunks that cover the range keep 7/8 of the groups busy; where each group takes
	 * few virtual groups and that many stay busy, they do cover it. */
	for (aos_u32 total = 1; total < 3000; total += 7)
		for (aos_u64 phys = AOS_VNDRANGE_SPREAD_MIN_PHYS; phys < 400; phys += 11) {
			aos_u32 c = aos_vndrange_loop_chunk(total, phys, 1, 2, &st);
			aos_u64 each = (total + phys - 1) / phys, busy = (total + c - 1) / c;
			ck_assert_int_eq(st, 1);
			if (phys * c >= total && c > 1)
				ck_assert_uint_ge(busy * 8, phys * 7);
			if (each <= AOS_VNDRANGE_ALL_STATIC_MAX && (total + each - 1) / each * 8 >= phys * 7)
				ck_assert_uint_ge(phys * c, total);
		}
}
END_TEST

START_TEST(static_first_sets_next_and_end)
{
	struct aos_vndrange r;
	const size_t global[1] = { 64 * 100 }, local[1] = { 64 };
	ck_assert_int_eq(aos_vndrange_fill(&r, 1, global, local, NULL), 0);
	ck_assert_int_eq(aos_vndrange_static_first(&r, 40, 7, 3), 0);
	ck_assert_uint_eq(r.chunk, 3);
	ck_assert_uint_eq(r.next, 40 + 21);
	ck_assert_uint_eq(r.static_end, 40 + 21);
	ck_assert_uint_eq(aos_vndrange_frontier(&r), 61);
	/* Refused, the record unchanged: no chunk, no groups, a counter that could wrap. */
	ck_assert_int_eq(aos_vndrange_static_first(&r, 0, 7, 0), -1);
	ck_assert_int_eq(aos_vndrange_static_first(&r, 0, 0, 3), -1);
	ck_assert_int_eq(aos_vndrange_static_first(&r, AOS_VNDRANGE_MAX_GROUPS - 1, 1u << 20, 2048), -1);
	ck_assert_uint_eq(r.next, 61);
	ck_assert_uint_eq(r.chunk, 3);
}
END_TEST

/* Direct waves as boxes: walking a grid with aos_vndrange_box from group 0
 * covers every group once, in linear order, and each box is the linear range
 * [start, start + count) laid out in the original dimensions, within the grid
 * and no larger than wanted, launched over its own items from the original
 * offset; for every grid up to 5x4x3 and every wave size. */
START_TEST(box_walk_covers_the_range)
{
	for (size_t nx = 1; nx <= 5; nx++)
		for (size_t ny = 1; ny <= 4; ny++)
			for (size_t nz = 1; nz <= 3; nz++) {
				const size_t global[3] = { nx * 2, ny, nz * 3 }, local[3] = { 2, 1, 3 };
				const size_t offset[3] = { 5, 7, 9 };
				struct aos_vndrange r;
				ck_assert_int_eq(aos_vndrange_fill(&r, 3, global, local, offset), 0);
				for (aos_u32 want = 1; want <= r.total_groups + 1; want++) {
					aos_u32 start = 0, boxes = 0;
					while (start < r.total_groups) {
						aos_u64 o[3], e[3];
						aos_u32 n = aos_vndrange_box(&r, start, want, o, e);
						ck_assert_uint_ge(n, 1);
						ck_assert_uint_le(n, want);
						ck_assert_uint_eq(n, e[0] * e[1] * e[2]);
						ck_assert_uint_le(o[0] + e[0], nx);
						ck_assert_uint_le(o[1] + e[1], ny);
						ck_assert_uint_le(o[2] + e[2], nz);
						/* Its NDRange: the box's items, from its first item. */
						size_t g[3], off[3];
						aos_vndrange_box_ndrange(&r, o, e, g, off);
						for (int d = 0; d < 3; d++) {
							ck_assert_uint_eq(g[d], e[d] * local[d]);
							ck_assert_uint_eq(off[d], offset[d] + o[d] * local[d]);
						}
						/* Linear order inside the box is the original one. */
						aos_u32 at = start;
						for (aos_u64 z = o[2]; z < o[2] + e[2]; z++)
							for (aos_u64 y = o[1]; y < o[1] + e[1]; y++)
								for (aos_u64 x = o[0]; x < o[0] + e[0]; x++)
									ck_assert_uint_eq((z * ny + y) * nx + x, at++);
						start += n;
						boxes++;
					}
					ck_assert_uint_eq(start, r.total_groups);
					if (want >= r.total_groups)
						ck_assert_uint_eq(boxes, 1); /* a whole-range wave is the original launch */
				}
				aos_u64 o[3], e[3];
				ck_assert_uint_eq(aos_vndrange_box(&r, 0, 0, o, e), 1); /* never an empty wave */
			}
}
END_TEST

/* The direct kernel's grid: layout (the pass builds the same struct type) and the fields it
 * takes from a record; nothing of the record's dequeue state. */
START_TEST(direct_grid_from_record)
{
	ck_assert_uint_eq(sizeof(struct aos_direct_grid), AOS_DIRECT_GRID_SIZE);
	ck_assert_uint_eq(offsetof(struct aos_direct_grid, global_offset), 24);
	ck_assert_uint_eq(offsetof(struct aos_direct_grid, num_groups), 48);
	ck_assert_uint_eq(offsetof(struct aos_direct_grid, origin), 72);
	ck_assert_uint_eq(offsetof(struct aos_direct_grid, dims), 84);
	struct aos_vndrange r;
	const size_t global[3] = { 48, 20, 6 }, local[3] = { 16, 4, 3 }, offset[3] = { 5, 7, 9 };
	ck_assert_int_eq(aos_vndrange_fill(&r, 2, global, local, offset), 0);
	r.next = r.done = r.stop = 3;
	struct aos_direct_grid g;
	memset(&g, 0xff, sizeof(g));
	aos_direct_grid_of(&r, NULL, &g);
	ck_assert_uint_eq(g.dims, 2);
	const aos_u64 want_size[3] = { 48, 20, 1 }, want_offset[3] = { 5, 7, 0 }, want_groups[3] = { 3, 5, 1 };
	for (int d = 0; d < 3; d++) {
		ck_assert_uint_eq(g.global_size[d], want_size[d]);
		ck_assert_uint_eq(g.global_offset[d], want_offset[d]);
		ck_assert_uint_eq(g.num_groups[d], want_groups[d]);
		ck_assert_uint_eq(g.origin[d], 0); /* a launch over the whole range */
	}
	/* A wave's box: its origin, the geometry unchanged. */
	aos_u64 origin[3], extent[3];
	ck_assert_uint_eq(aos_vndrange_box(&r, 6, 8, origin, extent), 6); /* rows 2 and 3, 3 groups each */
	aos_direct_grid_of(&r, origin, &g);
	ck_assert_uint_eq(g.origin[0], 0);
	ck_assert_uint_eq(g.origin[1], 2);
	ck_assert_uint_eq(g.origin[2], 0);
	ck_assert_uint_eq(g.global_offset[1], 7);
}
END_TEST

START_TEST(device_layout_matches)
{
	/* Compile the header as OpenCL C; its _Static_asserts must hold there. */
	char cmd[1024];
	snprintf(cmd, sizeof(cmd),
		 "echo '#include \"accelos/vndrange.h\"' | %s -x cl -cl-std=CL1.2 -target spir64 "
		 "-fsyntax-only -I%s - && echo '#include \"accelos/vndrange.h\"' | %s -x cl "
		 "-cl-std=CL1.2 -target nvptx64-nvidia-nvcl -fsyntax-only -I%s -",
		 AOS_TEST_CLANG, AOS_TEST_INCLUDE, AOS_TEST_CLANG, AOS_TEST_INCLUDE);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vndrange");
	TCase *tc = tcase_create("layout");
	tcase_add_test(tc, host_layout);
	tcase_add_test(tc, device_layout_matches);
	tcase_add_test(tc, fill_geometry);
	tcase_add_test(tc, frontier_is_the_prefix_that_ran);
	tcase_add_test(tc, spread_chunk_bounds_the_dequeues);
	tcase_add_test(tc, loop_chunk_static_first);
	tcase_add_test(tc, static_first_sets_next_and_end);
	tcase_add_test(tc, box_walk_covers_the_range);
	tcase_add_test(tc, direct_grid_from_record);
	suite_add_tcase(s, tc);
	return aos_check_run(s);
}
