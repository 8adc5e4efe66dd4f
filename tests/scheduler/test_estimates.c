/*
 * What the scheduler remembers per kernel (include/accelos/estimates.h): reads and writes as
 * tables, the speed alone's smoothing and trust, and keys that meet in one set.
 */
#include "accelos/estimates.h"
#include "check_run.h"

#include <check.h>
#include <math.h>
#include <string.h>


static struct aos_estimates table;

static void setup(void)
{
	memset(&table, 0, sizeof(table));
}

START_TEST(put_and_read)
{
	static const struct {
		uint64_t key;
		double put, one;
	} rows[] = {
		{ 7, 100, 100 },
		{ 7, 250, 250 },       /* the latest time */
		{ 9, 40, 40 },
		{ 0, 5, 0 },           /* key 0 is no kernel */
		{ 11, -1, 0 },         /* nonsense times are not remembered */
		{ 12, NAN, 0 },
		{ 13, INFINITY, 0 },
		{ 14, 0, 0 },
	};
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		aos_estimates_put(&table, rows[r].key, rows[r].put);
		ck_assert_msg(aos_estimates_one(&table, rows[r].key) == rows[r].one, "row %zu", r);
	}
	ck_assert(aos_estimates_one(&table, 7) == 250);
	ck_assert(aos_estimates_one(&table, 8) == 0);
}
END_TEST

START_TEST(alone_trusted_after_enough_measures)
{
	aos_estimates_put(&table, 7, 500);
	for (uint32_t i = 1; i < AOS_ESTIMATES_ALONE_TRUSTED; i++) {
		aos_estimates_put_alone(&table, 7, 100);
		ck_assert(aos_estimates_alone(&table, 7) == 0);
		ck_assert_uint_eq(aos_estimates_alone_measures(&table, 7), i);
	}
	aos_estimates_put_alone(&table, 7, 200);
	/* 100 three times, then 200 smoothed in by a quarter. */
	ck_assert(fabs(aos_estimates_alone(&table, 7) - 125.0) < 1e-9);
	ck_assert(aos_estimates_one(&table, 7) == 500); /* the time beside others is its own */
	/* A key first measured alone also takes that as its time per virtual group. */
	aos_estimates_put_alone(&table, 9, 80);
	ck_assert(aos_estimates_one(&table, 9) == 80);
	aos_estimates_put_alone(&table, 9, -3);
	ck_assert_uint_eq(aos_estimates_alone_measures(&table, 9), 1);
}
END_TEST

/* Keys a table of AOS_ESTIMATES_SLOTS slots would map to one slot. */
static uint64_t meeting_key(uint64_t i)
{
	return 3 + i * AOS_ESTIMATES_SLOTS;
}

START_TEST(keys_that_meet_keep_their_own)
{
	/* Eight kernels of one mix whose keys meet: none wipes another's (a direct-mapped table kept
	 * only the last one written). */
	for (uint64_t i = 1; i <= 8; i++)
		aos_estimates_put(&table, meeting_key(i), (double)i);
	for (uint64_t i = 1; i <= 8; i++)
		ck_assert_msg(aos_estimates_one(&table, meeting_key(i)) == (double)i, "key %llu", (unsigned long long)i);
}
END_TEST

START_TEST(a_full_set_forgets_the_least_recently_written)
{
	for (uint64_t i = 1; i <= AOS_ESTIMATES_WAYS; i++)
		aos_estimates_put(&table, meeting_key(i), (double)i);
	/* Rewrite all but the first: one more key takes its slot. */
	for (uint64_t i = 2; i <= AOS_ESTIMATES_WAYS; i++)
		aos_estimates_put_alone(&table, meeting_key(i), 1.0);
	aos_estimates_put(&table, meeting_key(100), 42);
	ck_assert(aos_estimates_one(&table, meeting_key(100)) == 42);
	ck_assert(aos_estimates_one(&table, meeting_key(1)) == 0);
	for (uint64_t i = 2; i <= AOS_ESTIMATES_WAYS; i++)
		ck_assert(aos_estimates_one(&table, meeting_key(i)) == (double)i);
	/* Other sets are untouched. */
	aos_estimates_put(&table, 4, 9);
	ck_assert(aos_estimates_one(&table, 4) == 9);
	ck_assert(aos_estimates_one(&table, meeting_key(100)) == 42);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sched-estimates");
	TCase *tc = tcase_create("estimates");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, put_and_read);
	tcase_add_test(tc, alone_trusted_after_enough_measures);
	tcase_add_test(tc, keys_that_meet_keep_their_own);
	tcase_add_test(tc, a_full_set_forgets_the_least_recently_written);
	suite_add_tcase(s, tc);
	return aos_check_run(s);
}
