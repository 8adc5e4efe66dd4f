/* Unit tests of deriving mixes and isolated times from daemon traces (aos_trace_mixes.h). */
#include "aos_mixstats.h"
#include "aos_record.h"
#include "aos_trace_mixes.h"
#include "check_run.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add(struct aos_recordset *set, const char *line)
{
	struct aos_record r;
	char err[256];
	ck_assert_msg(aos_record_parse(line, &r, err, sizeof(err)) == 0, "%s: %s", line, err);
	ck_assert_int_eq(aos_recordset_add(set, &r), 0);
}

#define TRACE(client, kernel, arrival, start, end)                                                       \
	"{\"type\":\"trace\",\"config\":\"t\",\"mix\":0,\"client\":" #client ",\"kernel\":\"" kernel "\"," \
	"\"status\":\"ok\",\"arrival_ns\":" #arrival ",\"start_ns\":" #start ",\"end_ns\":" #end "}"

/* Two clients alone (A: 100; B twice back to back: 50 each), one mix of both, and a mix with a
 * kernel that never ran alone; plus a harness record of another configuration. */
static void load_fixture(struct aos_recordset *set)
{
	add(set, TRACE(1, "A", 0, 10, 100));
	add(set, TRACE(2, "B", 200, 200, 250));
	add(set, TRACE(2, "B", 200, 250, 300)); /* queued behind its own launch: 50 alone, not 100 */
	add(set, TRACE(3, "A", 1000, 1000, 1300));
	add(set, TRACE(4, "B", 1000, 1010, 1100));
	add(set, TRACE(4, "B", 1000, 1100, 1200));
	add(set, TRACE(5, "C", 2000, 2000, 2100));
	add(set, TRACE(6, "A", 2050, 2050, 2200));
	add(set, "{\"config\":\"h\",\"mix\":7,\"tenant\":0,\"kernel\":\"x\",\"start_ns\":1,\"end_ns\":2,\"iso_ns\":1}");
}

START_TEST(derives_mixes_and_isolated_times)
{
	struct aos_recordset set = { 0 };
	struct aos_trace_summary sum;
	load_fixture(&set);
	ck_assert_int_eq(aos_trace_mixes(&set, 10, NULL, &sum), 0);
	ck_assert_int_eq(sum.periods, 4);
	ck_assert_int_eq(sum.alone, 2);
	ck_assert_int_eq(sum.mixes, 1);
	ck_assert_int_eq(sum.skipped, 1);
	ck_assert_int_eq(sum.kernels_alone, 2);
	/* Left: the harness record and the three launches of the one mix. */
	ck_assert_uint_eq(set.count, 4);
	int mixed = 0;
	long tenant_a = -1, tenant_b = -1;
	for (size_t i = 0; i < set.count; i++) {
		const struct aos_record *r = &set.items[i];
		if (!r->trace) {
			ck_assert_int_eq(r->mix, 7); /* untouched */
			continue;
		}
		mixed++;
		ck_assert_int_eq(r->mix, 1);
		ck_assert_int_eq(r->tenants, 2);
		int is_a = strcmp(r->kernel, "A") == 0;
		ck_assert_double_eq(r->iso_ns, is_a ? 100 : 50);
		long *tenant = is_a ? &tenant_a : &tenant_b;
		if (*tenant >= 0)
			ck_assert_int_eq(r->tenant, *tenant); /* B's two launches: one request */
		*tenant = r->tenant;
	}
	ck_assert_int_eq(mixed, 3);
	ck_assert_int_ne(tenant_a, tenant_b);
	/* Client 3: 300 / 100 = 3. Client 4: (1200 - 1000) / (50 + 50) = 2. */
	struct aos_mix_result *m = NULL;
	ck_assert_int_eq(aos_mixstats_compute(&set, "t", &m), 1);
	ck_assert_int_eq(m[0].runs, 1);
	ck_assert_int_eq(m[0].ntenants, 2);
	ck_assert_double_eq_tol(m[0].unfairness, 1.5, 1e-9);
	ck_assert_double_eq_tol(m[0].antt, 2.5, 1e-9);
	free(m);
	aos_recordset_free(&set);
}
END_TEST

START_TEST(a_failed_launch_fails_its_mix)
{
	struct aos_recordset set = { 0 };
	add(&set, TRACE(1, "A", 0, 0, 100));
	add(&set, TRACE(2, "A", 1000, 1000, 1100));
	add(&set, "{\"type\":\"trace\",\"config\":\"t\",\"client\":3,\"kernel\":\"A\",\"status\":\"failed\","
		  "\"arrival_ns\":1050,\"start_ns\":1050,\"end_ns\":1080}");
	ck_assert_int_eq(aos_trace_mixes(&set, 10, NULL, NULL), 0);
	ck_assert_uint_eq(set.count, 2);
	struct aos_mix_result *m = NULL;
	ck_assert_int_eq(aos_mixstats_compute(&set, "t", &m), 1);
	ck_assert_int_eq(m[0].runs, 0);
	ck_assert_int_eq(m[0].failed_runs, 1);
	free(m);
	aos_recordset_free(&set);
}
END_TEST

/* A and B alone, then a mix in which client 4's second launch follows 50 ns of idle time. */
static void load_gap_fixture(struct aos_recordset *set)
{
	add(set, TRACE(1, "A", 0, 0, 100));
	add(set, TRACE(2, "B", 200, 200, 250));
	add(set, TRACE(3, "A", 1000, 1000, 1300));
	add(set, TRACE(4, "B", 1000, 1000, 1100));
	add(set, TRACE(4, "B", 1150, 1150, 1200));
}

START_TEST(an_idle_gap_splits_a_client_into_two_requests)
{
	struct aos_recordset set = { 0 };
	load_gap_fixture(&set); /* 50 idle >= a 10 ns gap: a second request */
	ck_assert_int_eq(aos_trace_mixes(&set, 10, NULL, NULL), 0);
	ck_assert_uint_eq(set.count, 3);
	struct aos_mix_result *m = NULL;
	ck_assert_int_eq(aos_mixstats_compute(&set, "t", &m), 1);
	ck_assert_int_eq(m[0].ntenants, 3);
	/* Slowdowns 300/100, 100/50 and 50/50. */
	ck_assert_double_eq_tol(m[0].unfairness, 3.0, 1e-9);
	ck_assert_double_eq_tol(m[0].antt, 2.0, 1e-9);
	free(m);
	aos_recordset_free(&set);
	/* With a longer gap, client 4's launches are one request again: slowdown 200/100. */
	load_gap_fixture(&set);
	ck_assert_int_eq(aos_trace_mixes(&set, 100, NULL, NULL), 0);
	ck_assert_int_eq(aos_mixstats_compute(&set, "t", &m), 1);
	ck_assert_int_eq(m[0].ntenants, 2);
	ck_assert_double_eq_tol(m[0].unfairness, 1.5, 1e-9);
	free(m);
	aos_recordset_free(&set);
}
END_TEST

START_TEST(only_alone_periods_leave_no_mix)
{
	struct aos_recordset set = { 0 };
	struct aos_trace_summary sum;
	add(&set, TRACE(1, "A", 0, 0, 100));
	add(&set, TRACE(1, "A", 50, 100, 200)); /* chained: one period, one client */
	ck_assert_int_eq(aos_trace_mixes(&set, 10, NULL, &sum), 0);
	ck_assert_int_eq(sum.periods, 1);
	ck_assert_int_eq(sum.alone, 1);
	ck_assert_int_eq(sum.mixes, 0);
	ck_assert_uint_eq(set.count, 0);
	aos_recordset_free(&set);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bench-trace-mixes");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, derives_mixes_and_isolated_times);
	tcase_add_test(tc, a_failed_launch_fails_its_mix);
	tcase_add_test(tc, an_idle_gap_splits_a_client_into_two_requests);
	tcase_add_test(tc, only_alone_periods_leave_no_mix);
	suite_add_tcase(s, tc);
	return aos_check_run(s);
}
