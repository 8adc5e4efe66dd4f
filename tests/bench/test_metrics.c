/* Unit tests of the fairness/throughput metrics against hand-computed
 * examples (worked out in the comments). */
#include "aos_metrics.h"
#include "aos_mixstats.h"
#include "aos_record.h"
#include "check_run.h"
#include <check.h>
#include <stdlib.h>
#include <string.h>

START_TEST(unfairness_is_max_over_min)
{
	double is[] = { 2.0, 5.0, 4.0 };
	ck_assert_double_eq_tol(aos_metric_unfairness(is, 3), 2.5, 1e-12);
	double fair[] = { 3.0, 3.0 };
	ck_assert_double_eq_tol(aos_metric_unfairness(fair, 2), 1.0, 1e-12);
}
END_TEST

START_TEST(stp_and_antt)
{
	/* IS = {2, 5}: STP = 1/2 + 1/5 = 0.7, ANTT = (2 + 5) / 2 = 3.5. */
	double is[] = { 2.0, 5.0 };
	ck_assert_double_eq_tol(aos_metric_stp(is, 2), 0.7, 1e-12);
	ck_assert_double_eq_tol(aos_metric_antt(is, 2), 3.5, 1e-12);
}
END_TEST

START_TEST(geomean)
{
	double a[] = { 1.0, 4.0 }, b[] = { 2.0, 8.0, 4.0 }, z[] = { 1.0, 0.0 };
	ck_assert_double_eq_tol(aos_metric_geomean(a, 2), 2.0, 1e-12);
	ck_assert_double_eq_tol(aos_metric_geomean(b, 3), 4.0, 1e-12);
	ck_assert_double_eq(aos_metric_geomean(z, 2), 0.0);
}
END_TEST

START_TEST(overlap_two_tenants)
{
	/* [0,10) and [5,20): both run for 5 of the 20 busy units. */
	double s[] = { 0, 5 }, e[] = { 10, 20 };
	int who[] = { 0, 1 };
	ck_assert_double_eq_tol(aos_metric_overlap(s, e, who, 2, 2), 0.25, 1e-12);
	/* Back to back: never co-executing. */
	double s2[] = { 0, 10 }, e2[] = { 10, 20 };
	ck_assert_double_eq_tol(aos_metric_overlap(s2, e2, who, 2, 2), 0.0, 1e-12);
}
END_TEST

START_TEST(overlap_merges_a_tenants_intervals)
{
	/* t0: [0,4) and [6,10); t1: [2,8); t2: [3,9). Busy [0,10) = 10;
	 * all three active on [3,4) and [6,8) = 3, so O = 0.3. */
	double s[] = { 0, 6, 2, 3 }, e[] = { 4, 10, 8, 9 };
	int who[] = { 0, 0, 1, 2 };
	ck_assert_double_eq_tol(aos_metric_overlap(s, e, who, 4, 3), 0.3, 1e-12);
	/* A tenant that never runs makes "all co-executing" impossible. */
	ck_assert_double_eq_tol(aos_metric_overlap(s, e, who, 4, 4), 0.0, 1e-12);
}
END_TEST

static void add(struct aos_recordset *set, const char *cfg, long mix, long tenant, double arr, double start,
		double end, double iso, int failed)
{
	struct aos_record r;
	memset(&r, 0, sizeof(r));
	strcpy(r.config, cfg);
	snprintf(r.kernel, sizeof(r.kernel), "k%ld", tenant);
	r.mix = mix;
	r.tenant = tenant;
	r.tenants = 2;
	r.arrival_ns = arr;
	r.start_ns = start;
	r.end_ns = end;
	r.iso_ns = iso;
	r.execs = 1;
	r.failed = failed;
	ck_assert_int_eq(aos_recordset_add(set, &r), 0);
}

START_TEST(mixstats_per_mix_and_group)
{
	struct aos_recordset set = { 0 };
	struct aos_mix_result *m;
	struct aos_group_result *g;
	/* Mix 0: T_shared = {10, 20}, T_iso = {5, 4} -> IS = {2, 5}:
	 * U = 2.5, STP = 0.7, ANTT = 3.5, O = 5/20, makespan 20,
	 * speedup = (5 + 4) / 20 = 0.45. */
	add(&set, "A", 0, 0, 0, 0, 10, 5, 0);
	add(&set, "A", 0, 1, 0, 5, 20, 4, 0);
	/* Mix 1: IS = {1, 1} -> U = 1, ANTT = 1, STP = 2. */
	add(&set, "A", 1, 0, 100, 100, 110, 10, 0);
	add(&set, "A", 1, 1, 100, 100, 110, 10, 0);
	/* Mix 2: one tenant crashed. */
	add(&set, "A", 2, 0, 0, 0, 10, 5, 1);
	add(&set, "A", 2, 1, 0, 0, 10, 5, 0);
	/* Another configuration must not leak in. */
	add(&set, "B", 0, 0, 0, 0, 1000, 1, 0);
	long n = aos_mixstats_compute(&set, "A", &m);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(m[0].runs, 1);
	ck_assert_double_eq_tol(m[0].unfairness, 2.5, 1e-12);
	ck_assert_double_eq_tol(m[0].stp, 0.7, 1e-12);
	ck_assert_double_eq_tol(m[0].antt, 3.5, 1e-12);
	ck_assert_double_eq_tol(m[0].overlap, 0.25, 1e-12);
	ck_assert_double_eq_tol(m[0].makespan_ns, 20, 1e-12);
	ck_assert_double_eq_tol(m[0].speedup, 0.45, 1e-12);
	ck_assert_str_eq(m[0].kernels, "k0,k1");
	ck_assert_double_eq_tol(m[1].unfairness, 1.0, 1e-12);
	ck_assert_double_eq_tol(m[1].stp, 2.0, 1e-12);
	ck_assert_int_eq(m[2].runs, 0);
	ck_assert_int_eq(m[2].failed_runs, 1);
	/* Group of 2 tenants: geomean U = sqrt(2.5 * 1), worst ANTT = 3.5. */
	long ng = aos_mixstats_group(m, n, &g);
	ck_assert_int_eq(ng, 1);
	ck_assert_int_eq(g[0].ntenants, 2);
	ck_assert_int_eq(g[0].mixes, 2);
	ck_assert_int_eq(g[0].failed_mixes, 1);
	ck_assert_double_eq_tol(g[0].unfairness, 1.5811388300841898, 1e-9);
	ck_assert_double_eq_tol(g[0].antt, 1.8708286933869707, 1e-9);
	ck_assert_double_eq_tol(g[0].worst_antt, 3.5, 1e-12);
	ck_assert_double_eq_tol(g[0].overlap, (0.25 + 1.0) / 2, 1e-12);
	free(m);
	free(g);
	aos_recordset_free(&set);
}
END_TEST

/* Loop mode: tenant 0 counts 10 executions of 2 (iso 1) in [0, 20) and runs
 * 30 more while tenant 1 still counts its 2 executions of 30 (iso 15) in
 * [0, 60): IS = {2, 2}. The makespan is 60; the work in it is 10 + 30
 * executions of 1 plus 2 of 15, so the work rate is 70 / 60. Tenant 0 kept
 * the device busy until 58, so both executed together for 58 of 60. */
START_TEST(mixstats_loop_mode_counts_corun_work)
{
	struct aos_recordset set = { 0 };
	struct aos_mix_result *m;
	add(&set, "A", 0, 0, 0, 0, 20, 1, 0);
	set.items[0].execs = 10;
	set.items[0].corun_execs = 30;
	set.items[0].corun_end_ns = 58;
	add(&set, "A", 0, 1, 0, 0, 60, 15, 0);
	set.items[1].execs = 2;
	set.items[1].end_ns = 60;
	set.items[1].iso_ns = 15;
	long n = aos_mixstats_compute(&set, "A", &m);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(m[0].runs, 1);
	ck_assert_double_eq_tol(m[0].unfairness, 1.0, 1e-12);
	ck_assert_double_eq_tol(m[0].antt, 2.0, 1e-12);
	ck_assert_double_eq_tol(m[0].makespan_ns, 60, 1e-12);
	ck_assert_double_eq_tol(m[0].speedup, (10 + 30 + 2 * 15) / 60.0, 1e-12);
	ck_assert_double_eq_tol(m[0].overlap, 58 / 60.0, 1e-12);
	free(m);
	aos_recordset_free(&set);
}
END_TEST

START_TEST(mixstats_missing_tenant_fails_run)
{
	struct aos_recordset set = { 0 };
	struct aos_mix_result *m;
	add(&set, "A", 7, 0, 0, 0, 10, 5, 0); /* tenants = 2, only one record */
	long n = aos_mixstats_compute(&set, "A", &m);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(m[0].runs, 0);
	ck_assert_int_eq(m[0].failed_runs, 1);
	free(m);
	aos_recordset_free(&set);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bench-metrics");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, unfairness_is_max_over_min);
	tcase_add_test(tc, stp_and_antt);
	tcase_add_test(tc, geomean);
	tcase_add_test(tc, overlap_two_tenants);
	tcase_add_test(tc, overlap_merges_a_tenants_intervals);
	tcase_add_test(tc, mixstats_per_mix_and_group);
	tcase_add_test(tc, mixstats_missing_tenant_fails_run);
	tcase_add_test(tc, mixstats_loop_mode_counts_corun_work);
	suite_add_tcase(s, tc);
	return aos_check_run(s);
}
