/*
 * The stop bit of a cut wave's claim record and the asks again (include/accelos/cut_stop.h):
 * record states as a table, then the asks a wave whose claims never show gets over a slice.
 */
#include "accelos/cut_stop.h"
#include "accelos/vndrange.h"
#include "check_run.h"

#include <check.h>

struct stop_case {
	const char *what;
	uint32_t claimed;
	bool proven;
	bool stopped;            /* expected: this call set the stop bit */
	uint32_t claimed_after;  /* expected record */
	bool proven_after;
};

static const struct stop_case stop_cases[] = {
	{"no claim yet, none shown before: not yet", 0, false, false, 0, false},
	{"no claim yet, claims shown before", 0, true, true, AOS_CUT_STOP, true},
	{"claims show: they prove the launch", 0x14, false, true, AOS_CUT_STOP | 0x14, true},
	{"claims show, proven before", 0x14, true, true, AOS_CUT_STOP | 0x14, true},
	{"stopped already: not again", AOS_CUT_STOP | 7, true, false, AOS_CUT_STOP | 7, true},
	{"stopped already, its claims prove", AOS_CUT_STOP | 7, false, false, AOS_CUT_STOP | 7, true},
	{"stopped before any claim", AOS_CUT_STOP, true, false, AOS_CUT_STOP, true},
};

START_TEST(stop_bit_table)
{
	const struct stop_case *c = &stop_cases[_i];
	uint32_t claimed = c->claimed;
	bool proven = c->proven;
	bool stopped = aos_cut_stop(&claimed, &proven);
	ck_assert_msg(stopped == c->stopped, "%s: stopped %d", c->what, stopped);
	ck_assert_msg(claimed == c->claimed_after, "%s: claimed %#x", c->what, claimed);
	ck_assert_msg(proven == c->proven_after, "%s: proven %d", c->what, proven);
}
END_TEST

/* The case of session 44: asked before the first claim, asked again once it shows. */
START_TEST(asked_again_once_the_first_claim_shows)
{
	uint32_t claimed = 0;
	bool proven = false;
	ck_assert(!aos_cut_stop(&claimed, &proven));
	claimed = 6; /* the device's first claim */
	ck_assert(aos_cut_stop(&claimed, &proven));
	ck_assert_uint_eq(claimed, AOS_CUT_STOP | 6);
	/* The launch's next wave: its record re-armed, cut before its first claim. */
	claimed = 0;
	ck_assert(aos_cut_stop(&claimed, &proven));
	ck_assert_uint_eq(claimed, AOS_CUT_STOP);
}
END_TEST

struct retry_case {
	uint64_t age_ns, retry_ns;
};

static const struct retry_case retry_cases[] = {
	{0, AOS_CUT_RETRY_NS},         {40000, AOS_CUT_RETRY_NS},   {200000, AOS_CUT_RETRY_NS},
	{200004, 50001},               {1000000, 250000},           {16000000, 4000000},
};

START_TEST(retry_table)
{
	const struct retry_case *c = &retry_cases[_i];
	ck_assert_uint_eq(aos_cut_retry_in_ns(c->age_ns), c->retry_ns);
}
END_TEST

/* A device whose claims never show (no zero-copy): a few dozen asks over a 16 ms wave. */
START_TEST(asks_back_off_over_a_wave)
{
	unsigned asks = 0;
	for (uint64_t age = 0; age < 16000000; age += aos_cut_retry_in_ns(age))
		asks++;
	ck_assert_uint_ge(asks, 10);
	ck_assert_uint_le(asks, 32);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sched-cut-stop");
	TCase *tc = tcase_create("cut_stop");
	tcase_add_loop_test(tc, stop_bit_table, 0, (int)(sizeof(stop_cases) / sizeof(stop_cases[0])));
	tcase_add_test(tc, asked_again_once_the_first_claim_shows);
	tcase_add_loop_test(tc, retry_table, 0, (int)(sizeof(retry_cases) / sizeof(retry_cases[0])));
	tcase_add_test(tc, asks_back_off_over_a_wave);
	suite_add_tcase(s, tc);
	return aos_check_run(s);
}
