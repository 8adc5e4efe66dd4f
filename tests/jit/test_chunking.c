/* Adaptive chunking thresholds of §6.4, at and around every boundary. */
#include "chunking.h"
#include "check_run.h"

#include <check.h>
#include <stdlib.h>

START_TEST(thresholds)
{
	ck_assert_uint_eq(aos_chunk_for_inst_count(0), 8);
	ck_assert_uint_eq(aos_chunk_for_inst_count(9), 8);
	ck_assert_uint_eq(aos_chunk_for_inst_count(10), 6);
	ck_assert_uint_eq(aos_chunk_for_inst_count(19), 6);
	ck_assert_uint_eq(aos_chunk_for_inst_count(20), 4);
	ck_assert_uint_eq(aos_chunk_for_inst_count(29), 4);
	ck_assert_uint_eq(aos_chunk_for_inst_count(30), 2);
	ck_assert_uint_eq(aos_chunk_for_inst_count(39), 2);
	ck_assert_uint_eq(aos_chunk_for_inst_count(40), 1);
	ck_assert_uint_eq(aos_chunk_for_inst_count(100000), 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("chunking");
	TCase *tc = tcase_create("table");
	tcase_add_test(tc, thresholds);
	suite_add_tcase(s, tc);
	return aos_check_run(s);
}
