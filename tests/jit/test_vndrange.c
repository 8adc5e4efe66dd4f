/* The virtual NDRange record: host layout, and the device's view of it
 * (rtlib compiled for spir64 must read the fields at the same offsets). */
#include "accelos/vndrange.h"

#include <check.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

START_TEST(host_layout)
{
	ck_assert_uint_eq(sizeof(struct aos_vndrange), AOS_VNDRANGE_SIZE);
	ck_assert_uint_eq(offsetof(struct aos_vndrange, chunk), 4);
	ck_assert_uint_eq(offsetof(struct aos_vndrange, next), 108);
	ck_assert_uint_eq(offsetof(struct aos_vndrange, budget), 112);
	ck_assert_uint_eq(offsetof(struct aos_vndrange, done), 116);
	ck_assert_uint_eq(offsetof(struct aos_vndrange, div_magic), 120);
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
	ck_assert_uint_eq(r.next + r.done + r.chunk, 0);
	ck_assert_uint_eq(r.div_magic[0], aos_div_magic(3));
	ck_assert_uint_eq(r.div_magic[1], aos_div_magic(15));

	ck_assert_int_eq(aos_vndrange_fill(&r, 3, global, local, NULL), 0);
	ck_assert_uint_eq(r.total_groups, 30);
	ck_assert_uint_eq(r.global_offset[0], 0);

	const size_t ragged[3] = { 50, 20, 6 }, empty[3] = { 0, 20, 6 }, zero_local[3] = { 16, 0, 3 };
	ck_assert_int_eq(aos_vndrange_fill(&r, 1, ragged, local, NULL), -1);
	ck_assert_int_eq(aos_vndrange_fill(&r, 1, empty, local, NULL), -1);
	ck_assert_int_eq(aos_vndrange_fill(&r, 2, global, zero_local, NULL), -1);
	ck_assert_int_eq(aos_vndrange_fill(&r, 0, global, local, NULL), -1);
	ck_assert_int_eq(aos_vndrange_fill(&r, 4, global, local, NULL), -1);

	/* 2^32 - 1 groups is the most; 2^32 is refused, even when the product
	 * of two dimensions would wrap a 64-bit count. */
	const size_t one[3] = { 1, 1, 1 };
	const size_t most[3] = { UINT32_MAX, 1, 1 }, too_many[3] = { 1ull << 16, 1ull << 16, 1 };
	const size_t wraps[3] = { 1ull << 32, 1ull << 32, 1 };
	ck_assert_int_eq(aos_vndrange_fill(&r, 1, most, one, NULL), 0);
	ck_assert_uint_eq(r.total_groups, UINT32_MAX);
	ck_assert_int_eq(aos_vndrange_fill(&r, 2, too_many, one, NULL), -1);
	ck_assert_int_eq(aos_vndrange_fill(&r, 2, wraps, one, NULL), -1);
}
END_TEST

static void check_fastdiv(uint32_t n, uint32_t d)
{
	uint32_t q = aos_fastdiv(n, aos_div_magic(d));
	if (q != n / d)
		ck_abort_msg("aos_fastdiv(%u, magic(%u)) = %u, want %u", n, d, q, n / d);
}

/* The direct shape's group split: exact for every 32-bit dividend, at the
 * edges (0, multiples of d and their neighbours, UINT32_MAX) and at random. */
START_TEST(fastdiv_exact)
{
	const uint32_t divisors[] = { 1, 2, 3, 5, 7, 16, 80, 641, 1000003, 65535, 65536, 65537,
				      0x7fffffffu, 0x80000000u, 0x80000001u, 0xfffffffeu, 0xffffffffu };
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < sizeof(divisors) / sizeof(divisors[0]); i++) {
		uint32_t d = divisors[i];
		const uint32_t edges[] = { 0, 1, d - 1, d, d + 1, 2 * d - 1, 2 * d, UINT32_MAX,
					   UINT32_MAX - 1, UINT32_MAX / d * d, UINT32_MAX / d * d - 1 };
		for (size_t j = 0; j < sizeof(edges) / sizeof(edges[0]); j++)
			check_fastdiv(edges[j], d);
		for (int r = 0; r < 100000; r++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			check_fastdiv((uint32_t)x, d);
		}
	}
	for (uint32_t d = 1; d < 5000; d++) {
		for (uint32_t n = 0; n < 3 * d + 2; n++)
			check_fastdiv(n, d);
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		check_fastdiv((uint32_t)x, d);
		check_fastdiv((uint32_t)(x >> 32), (uint32_t)x | 1u);
	}
	ck_assert_uint_eq(aos_div_magic(1), 0);
	ck_assert_uint_eq(aos_div_magic(0), 0);
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
	tcase_add_test(tc, fastdiv_exact);
	tcase_add_test(tc, fill_geometry);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
