/*
 * Fair rounds: Neon's denial rule (aos_sched_hold_ahead) on top of the share
 * solver (aos_sched_fair_round), as tables and as a simulated run of many time
 * slices with the real virtual-time picker.
 */
#include "accelos/sched.h"
#include "check_run.h"

#include <check.h>
#include <errno.h>
#include <math.h>

static struct aos_sched_device cpu2;

static void setup(void)
{
	ck_assert_int_eq(aos_sched_device_from_arch("cpu", 2, &cpu2), 0);
}

static struct aos_sched_kernel kern(double vtime, double weight, uint64_t total)
{
	return (struct aos_sched_kernel){ .wg_threads = 64, .total_groups = total, .weight = weight, .vtime = vtime };
}

START_TEST(hold_ahead_table)
{
	static const struct {
		double vt[3];
		bool running[3];
		double window;
		bool held[3];
		size_t count;
	} rows[] = {
		{ { 0, 1.5, 3 }, { 0, 0, 0 }, 2, { 0, 0, 1 }, 1 },
		{ { 0, 1.5, 3 }, { 0, 0, 1 }, 2, { 0, 0, 0 }, 0 },  /* running: keeps its place */
		{ { 5, 5, 5 }, { 0, 0, 0 }, 0, { 0, 0, 0 }, 0 },    /* ties are never ahead */
		{ { 7, 2, 9 }, { 0, 0, 0 }, 0, { 1, 0, 1 }, 2 },
		{ { 0, 1, 2 }, { 0, 0, 0 }, -1, { 0, 1, 1 }, 2 },   /* a negative window counts as 0 */
		{ { 0, 1, 2 }, { 0, 0, 0 }, NAN, { 0, 1, 1 }, 2 },
		{ { 0, 1e9, 2 }, { 0, 0, 0 }, INFINITY, { 0, 0, 0 }, 0 },
	};
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		struct aos_sched_kernel k[3];
		for (int i = 0; i < 3; i++)
			k[i] = kern(rows[r].vt[i], 1, 10);
		bool held[3] = { true, true, true };
		ck_assert_uint_eq(aos_sched_hold_ahead(k, 3, rows[r].running, rows[r].window, held), rows[r].count);
		for (int i = 0; i < 3; i++)
			ck_assert_msg(held[i] == rows[r].held[i], "row %zu kernel %d", r, i);
	}
}
END_TEST

START_TEST(held_kernel_waits_and_the_rest_fill_the_device)
{
	struct aos_sched_kernel k[3] = { kern(0, 4, 100), kern(10, 1, 100), kern(11, 1, 100) };
	struct aos_sched_share out[3];
	ck_assert_int_eq(aos_sched_fair_round(&cpu2, k, 3, NULL, NULL, 5, out), 0);
	ck_assert_int_eq(out[0].status, AOS_SCHED_RUN);
	ck_assert_uint_eq(out[0].groups, 2); /* alone on both cores */
	for (int i = 1; i < 3; i++) {
		ck_assert_int_eq(out[i].status, AOS_SCHED_WAIT);
		ck_assert_uint_eq(out[i].groups, 0);
		ck_assert_int_eq(out[i].limit, AOS_SCHED_LIMIT_NONE);
	}
	/* Without the rule (or with a wide window) the solver gives one core each to the first two. */
	ck_assert_int_eq(aos_sched_fair_round(&cpu2, k, 3, NULL, NULL, 100, out), 0);
	ck_assert_uint_eq(out[0].groups, 1);
	ck_assert_uint_eq(out[1].groups, 1);
	ck_assert_int_eq(out[2].status, AOS_SCHED_WAIT);
}
END_TEST

START_TEST(never_idles_the_device)
{
	/* The one kernel not held has a single virtual group left: the others join after all. */
	struct aos_sched_kernel k[3] = { kern(0, 4, 1), kern(10, 1, 100), kern(11, 1, 100) };
	struct aos_sched_share out[3];
	ck_assert_int_eq(aos_sched_fair_round(&cpu2, k, 3, NULL, NULL, 5, out), 0);
	ck_assert_int_eq(out[0].status, AOS_SCHED_RUN);
	ck_assert_uint_eq(out[0].groups, 1);
	ck_assert_int_eq(out[1].status, AOS_SCHED_RUN);
	ck_assert_uint_eq(out[0].groups + out[1].groups, 2);
}
END_TEST

START_TEST(running_kernel_keeps_its_share)
{
	/* Far ahead but running: it still counts, so the device is never promised twice. */
	struct aos_sched_kernel k[2] = { kern(0, 1, 100), kern(50, 1, 100) };
	bool running[2] = { false, true };
	struct aos_sched_share out[2];
	ck_assert_int_eq(aos_sched_fair_round(&cpu2, k, 2, NULL, running, 5, out), 0);
	ck_assert_uint_eq(out[0].groups, 1);
	ck_assert_uint_eq(out[1].groups, 1);
}
END_TEST

START_TEST(bad_arguments)
{
	struct aos_sched_kernel k[2] = { kern(0, 1, 100), kern(50, 1, 100) };
	struct aos_sched_share out[2];
	size_t bad_order[2] = { 0, 7 };
	ck_assert_int_eq(aos_sched_fair_round(&cpu2, k, 2, bad_order, NULL, 5, out), -EINVAL);
	ck_assert_int_eq(aos_sched_fair_round(NULL, k, 2, NULL, NULL, 5, out), -EINVAL);
	ck_assert_int_eq(aos_sched_fair_round(&cpu2, NULL, 2, NULL, NULL, 5, out), -EINVAL);
	ck_assert_int_eq(aos_sched_fair_round(&cpu2, k, 0, NULL, NULL, 5, out), 0);
}
END_TEST

/*
 * Time-slices three always-backlogged clients, weights 4:1:1, on two cores for
 * many rounds, charging each slice to the virtual-time picker as the daemon
 * does. Returns the fraction of core time the heavy client got.
 */
static double heavy_fraction(double window)
{
	static const double weight[3] = { 4, 1, 1 };
	const uint64_t slice_ns = 4000000;
	struct aos_sched_vt *vt = aos_sched_vt_new();
	ck_assert_ptr_nonnull(vt);
	for (uint64_t c = 0; c < 3; c++)
		ck_assert_int_eq(aos_sched_vt_join(vt, c, weight[c]), 0);
	double service[3] = { 0 };
	for (int round = 0; round < 3000; round++) {
		struct aos_sched_kernel k[3];
		for (uint64_t c = 0; c < 3; c++) {
			k[c] = kern(0, weight[c], 1000);
			ck_assert_int_eq(aos_sched_vt_get(vt, c, &k[c].vtime, &k[c].arrival), 0);
		}
		size_t order[3] = { 0, 1, 2 };
		for (int a = 0; a < 3; a++) /* fair order, as the daemon sorts it */
			for (int b = a + 1; b < 3; b++)
				if (k[order[b]].vtime < k[order[a]].vtime) {
					size_t t = order[a];
					order[a] = order[b];
					order[b] = t;
				}
		struct aos_sched_share out[3];
		ck_assert_int_eq(aos_sched_fair_round(&cpu2, k, 3, order, NULL, window, out), 0);
		for (uint64_t c = 0; c < 3; c++)
			if (out[c].status == AOS_SCHED_RUN && out[c].groups) {
				service[c] += (double)out[c].groups * (double)slice_ns;
				ck_assert_int_eq(aos_sched_vt_charge(vt, c, slice_ns, out[c].share), 0);
			}
	}
	aos_sched_vt_destroy(vt);
	return service[0] / (service[0] + service[1] + service[2]);
}

START_TEST(weights_hold_under_time_slicing)
{
	/* With the rule the heavy client gets its 4/6; without it, never more than one core in two. */
	double with_rule = heavy_fraction(4000000);
	double without = heavy_fraction(INFINITY);
	ck_assert_msg(fabs(with_rule - 4.0 / 6.0) < 0.02, "heavy got %.3f of the device", with_rule);
	ck_assert_msg(fabs(without - 0.5) < 0.02, "heavy got %.3f without the rule", without);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sched-fair-round");
	TCase *tc = tcase_create("fair_round");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, hold_ahead_table);
	tcase_add_test(tc, held_kernel_waits_and_the_rest_fill_the_device);
	tcase_add_test(tc, never_idles_the_device);
	tcase_add_test(tc, running_kernel_keeps_its_share);
	tcase_add_test(tc, bad_arguments);
	tcase_add_test(tc, weights_hold_under_time_slicing);
	suite_add_tcase(s, tc);
	return aos_check_run(s);
}
