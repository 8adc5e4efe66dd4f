/* Common isolated times (aos_iso_pool.h): every record of a kernel ends with the median of the
 * values the runs measured, each run's value counted once; failed and trace-only records keep
 * theirs. */
#include <check.h>
#include "check_run.h"
#include <string.h>

#include "aos_iso_pool.h"

static void add(struct aos_recordset *set, const char *config, long mix, const char *kernel, double iso, int failed)
{
	struct aos_record r = { .mix = mix, .tenants = 2, .iso_ns = iso, .failed = failed, .end_ns = 10 };
	strcpy(r.config, config);
	strcpy(r.kernel, kernel);
	ck_assert_int_eq(aos_recordset_add(set, &r), 0);
}

START_TEST(each_kernel_gets_the_median_of_its_runs)
{
	struct aos_recordset set = { 0 };
	add(&set, "run1", 0, "histo", 0.9e6, 0);
	add(&set, "run1", 0, "histo", 0.9e6, 0); /* the same run's value again: counted once */
	add(&set, "run1", 0, "histo", 0.9e6, 0);
	add(&set, "run2", 0, "histo", 3.1e6, 0);
	add(&set, "run3", 0, "histo", 1.0e6, 0);
	add(&set, "run1", 0, "lbm", 20e6, 0);
	add(&set, "run2", 0, "lbm", 24e6, 0);
	add(&set, "run2", 1, "lbm", 0, 1);      /* failed, no isolated time */
	add(&set, "run3", 0, "tpacf", 0, 0);    /* a trace record without one */
	ck_assert_int_eq(aos_iso_pool(&set), 2);
	for (size_t i = 0; i < 5; i++)
		ck_assert_double_eq_tol(set.items[i].iso_ns, 1.0e6, 1.0);
	ck_assert_double_eq_tol(set.items[5].iso_ns, 22e6, 1.0); /* two runs: their mean */
	ck_assert_double_eq_tol(set.items[6].iso_ns, 22e6, 1.0);
	ck_assert_double_eq(set.items[7].iso_ns, 0);
	ck_assert_double_eq(set.items[8].iso_ns, 0);
	aos_recordset_free(&set);
}
END_TEST

START_TEST(an_empty_set_pools_nothing)
{
	struct aos_recordset set = { 0 };
	ck_assert_int_eq(aos_iso_pool(&set), 0);
	aos_recordset_free(&set);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("iso_pool");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, each_kernel_gets_the_median_of_its_runs);
	tcase_add_test(tc, an_empty_set_pools_nothing);
	suite_add_tcase(s, tc);
	return aos_check_run(s);
}
