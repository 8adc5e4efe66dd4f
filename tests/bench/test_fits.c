/* A dataset too large for the device is refused before anything is generated, with a message
 * that names the sizes; datasets that fit are accepted. Every benchmark's footprint is checked. */
#include "aos_bench.h"
#include "check_run.h"
#include <check.h>
#include <errno.h>
#include <string.h>

#define MIB (1024ull * 1024ull)

START_TEST(test_every_small_dataset_fits_a_1gib_device)
{
	char msg[512] = "";
	for (int i = 0; i < aos_bench_count(); i++) {
		const struct aos_bench_desc *d = aos_bench_at(i);
		ck_assert_msg(aos_bench_run_fits(d, AOS_SIZE_SMALL, 1024 * MIB, 256 * MIB, msg, sizeof(msg)) == 0,
			      "%s small: %s", d->name, msg);
	}
}
END_TEST

START_TEST(test_medium_lbm_refused_on_a_tiny_device)
{
	char msg[512] = "";
	const struct aos_bench_desc *d = aos_bench_find("lbm");
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(aos_bench_run_fits(d, AOS_SIZE_MEDIUM, 64 * MIB, 16 * MIB, msg, sizeof(msg)), -E2BIG);
	ck_assert_ptr_nonnull(strstr(msg, "lbm medium needs"));
	ck_assert_ptr_nonnull(strstr(msg, "the device has 64.0 MiB"));
	ck_assert_ptr_nonnull(strstr(msg, "not starting"));
}
END_TEST

START_TEST(test_largest_buffer_limit_alone_refuses)
{
	char msg[512] = "";
	const struct aos_bench_desc *d = aos_bench_find("sgemm");
	ck_assert_ptr_nonnull(d);
	/* Plenty of memory in total, but no single allocation may exceed 1 KiB. */
	ck_assert_int_eq(aos_bench_run_fits(d, AOS_SIZE_SMALL, 1024 * MIB, 1024, msg, sizeof(msg)), -E2BIG);
	ck_assert_ptr_nonnull(strstr(msg, "max allocation 0.0 MiB"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fits");
	TCase *tc = tcase_create("fits");
	tcase_add_test(tc, test_every_small_dataset_fits_a_1gib_device);
	tcase_add_test(tc, test_medium_lbm_refused_on_a_tiny_device);
	tcase_add_test(tc, test_largest_buffer_limit_alone_refuses);
	suite_add_tcase(s, tc);
	return aos_check_run(s);
}
