/* Policy table (lookup by name and id) and the two policies' plans, including
 * time-slicing through the fair policy with the virtual-time picker. */
#include "accelos/sched.h"
#include "check_run.h"

#include <check.h>
#include <errno.h>
#include <string.h>

static struct aos_sched_device cpu2;

static void setup(void)
{
	ck_assert_int_eq(aos_sched_device_from_arch("cpu", 2, &cpu2), 0);
}

static struct aos_sched_kernel kern(uint32_t w, uint64_t total, uint64_t arrival, double vtime)
{
	return (struct aos_sched_kernel){ .wg_threads = w, .total_groups = total, .weight = 1,
					  .arrival = arrival, .vtime = vtime };
}

START_TEST(lookup)
{
	const struct aos_sched_policy *fair = aos_sched_policy_by_name("fair");
	const struct aos_sched_policy *fifo = aos_sched_policy_by_name("fifo");
	ck_assert_ptr_nonnull(fair);
	ck_assert_ptr_nonnull(fifo);
	ck_assert_int_eq(fair->id, AOS_SCHED_POLICY_FAIR);
	ck_assert_int_eq(fifo->id, AOS_SCHED_POLICY_FIFO);
	ck_assert_int_eq(fair->elastic, 1);
	ck_assert_int_eq(fifo->elastic, 0);
	ck_assert_ptr_eq(aos_sched_policy_get(AOS_SCHED_POLICY_FAIR), fair);
	ck_assert_ptr_eq(aos_sched_policy_get(AOS_SCHED_POLICY_FIFO), fifo);
	ck_assert_str_eq(fair->name, "fair");
	/* Explicit numbers: configuration and logs rely on them. */
	ck_assert_int_eq(AOS_SCHED_POLICY_FAIR, 0);
	ck_assert_int_eq(AOS_SCHED_POLICY_FIFO, 1);

	ck_assert_ptr_null(aos_sched_policy_by_name("FAIR"));
	ck_assert_ptr_null(aos_sched_policy_by_name("lottery"));
	ck_assert_ptr_null(aos_sched_policy_by_name(""));
	ck_assert_ptr_null(aos_sched_policy_by_name(NULL));
	ck_assert_ptr_null(aos_sched_policy_get((enum aos_sched_policy_id)2));
	ck_assert_ptr_null(aos_sched_policy_get((enum aos_sched_policy_id)-1));

	/* The help string names exactly the policies the table has. */
	ck_assert_str_eq(aos_sched_policy_names(), "fair, fifo");
	for (int id = 0; aos_sched_policy_get((enum aos_sched_policy_id)id); id++)
		ck_assert_ptr_nonnull(strstr(aos_sched_policy_names(), aos_sched_policy_get((enum aos_sched_policy_id)id)->name));
}
END_TEST

START_TEST(fair_orders_by_vtime_then_arrival)
{
	/* Virtual times 5, 1, 3, 1: order 1 (vt 1, arrival 1), 3 (vt 1, arrival
	 * 3), 2, 0. Two cores: 1 and 3 run, 2 and 0 wait. */
	const struct aos_sched_policy *p = aos_sched_policy_by_name("fair");
	struct aos_sched_kernel k[4] = { kern(64, 10, 0, 5), kern(64, 10, 1, 1), kern(64, 10, 2, 3),
					 kern(64, 10, 3, 1) };
	struct aos_sched_share o[4];
	size_t order[4];
	ck_assert_int_eq(p->plan(&cpu2, k, 4, order, o), 0);
	ck_assert_uint_eq(order[0], 1);
	ck_assert_uint_eq(order[1], 3);
	ck_assert_uint_eq(order[2], 2);
	ck_assert_uint_eq(order[3], 0);
	ck_assert_int_eq(o[1].status, AOS_SCHED_RUN);
	ck_assert_int_eq(o[3].status, AOS_SCHED_RUN);
	ck_assert_int_eq(o[2].status, AOS_SCHED_WAIT);
	ck_assert_int_eq(o[0].status, AOS_SCHED_WAIT);
	ck_assert_uint_eq(o[1].groups, 1);
	ck_assert_uint_eq(o[3].groups, 1);
}
END_TEST

START_TEST(fifo_is_native_in_arrival_order)
{
	/* Virtual time is ignored; every launch keeps all its groups, even one
	 * the device could not hold (the driver reports that itself). */
	const struct aos_sched_policy *p = aos_sched_policy_by_name("fifo");
	struct aos_sched_kernel k[3] = { kern(64, 500, 7, 0), kern(8192, 3, 2, 100), kern(64, 40, 5, 0) };
	struct aos_sched_share o[3];
	size_t order[3];
	ck_assert_int_eq(p->plan(&cpu2, k, 3, order, o), 0);
	ck_assert_uint_eq(order[0], 1);
	ck_assert_uint_eq(order[1], 2);
	ck_assert_uint_eq(order[2], 0);
	ck_assert_int_eq(o[0].status, AOS_SCHED_RUN);
	ck_assert_uint_eq(o[0].groups, 500);
	ck_assert_int_eq(o[1].status, AOS_SCHED_RUN);
	ck_assert_uint_eq(o[1].groups, 3);
	ck_assert_uint_eq(o[2].groups, 40);

	k[2].total_groups = 0;
	ck_assert_int_eq(p->plan(&cpu2, k, 3, order, o), -EINVAL);
	ck_assert_int_eq(p->plan(NULL, k, 3, order, o), -EINVAL);
	ck_assert_int_eq(aos_sched_policy_by_name("fair")->plan(&cpu2, k, 3, NULL, o), -EINVAL);
}
END_TEST

START_TEST(fair_time_slices_more_kernels_than_cores)
{
	/* Four kernels on two cores (one group each fits two at a time). Each
	 * round: plan with the current virtual times, charge every running
	 * kernel a 4 ms slice at its share (0.5), repeat. The pairs alternate
	 * {0,1}, {2,3}, {0,1}, ... and after 8 rounds all have run 4 times and
	 * hold equal virtual time (4 x 4 ms x 0.5 = 8 ms). */
	const struct aos_sched_policy *p = aos_sched_policy_get(AOS_SCHED_POLICY_FAIR);
	struct aos_sched_vt *vt = aos_sched_vt_new();
	ck_assert_ptr_nonnull(vt);
	struct aos_sched_kernel k[4];
	struct aos_sched_share o[4];
	size_t order[4];
	int runs[4] = { 0, 0, 0, 0 };
	for (uint64_t i = 0; i < 4; i++) {
		ck_assert_int_eq(aos_sched_vt_join(vt, i, 1), 0);
		k[i] = kern(64, 1000000, 0, 0);
	}
	for (int round = 0; round < 8; round++) {
		for (uint64_t i = 0; i < 4; i++)
			ck_assert_int_eq(aos_sched_vt_get(vt, i, &k[i].vtime, &k[i].arrival), 0);
		ck_assert_int_eq(p->plan(&cpu2, k, 4, order, o), 0);
		size_t first = round % 2 ? 2 : 0;
		for (size_t i = 0; i < 4; i++) {
			int expect_run = i == first || i == first + 1;
			ck_assert_int_eq(o[i].status, expect_run ? AOS_SCHED_RUN : AOS_SCHED_WAIT);
			if (o[i].status != AOS_SCHED_RUN)
				continue;
			runs[i]++;
			ck_assert_double_eq_tol(o[i].share, 0.5, 1e-12);
			ck_assert_int_eq(aos_sched_vt_charge(vt, i, 4000000, o[i].share), 0);
		}
	}
	for (uint64_t i = 0; i < 4; i++) {
		double v;
		ck_assert_int_eq(runs[i], 4);
		ck_assert_int_eq(aos_sched_vt_get(vt, i, &v, NULL), 0);
		ck_assert_double_eq_tol(v, 8000000.0, 1e-6);
	}
	aos_sched_vt_destroy(vt);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sched-policy");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, lookup);
	tcase_add_test(tc, fair_orders_by_vtime_then_arrival);
	tcase_add_test(tc, fifo_is_native_in_arrival_order);
	tcase_add_test(tc, fair_time_slices_more_kernels_than_cores);
	suite_add_tcase(s, tc);
	return aos_check_run(s);
}
