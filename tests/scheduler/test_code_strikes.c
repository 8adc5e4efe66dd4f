/*
 * Which code may still run solo (include/accelos/code_strikes.h): sequences of events on a few
 * codes as tables, then the ring's behaviour when more codes than it holds have strikes.
 */
#include "accelos/code_strikes.h"
#include "check_run.h"

#include <check.h>
#include <string.h>

enum event { OVERRAN, ON_TIME, RAN_AWAY };

struct step {
	enum event event;
	uint64_t key;
	uint32_t times;
};

/* Runs steps on a fresh record and returns it. */
static struct aos_code_strikes run(const struct step *steps, size_t n)
{
	struct aos_code_strikes t;
	memset(&t, 0, sizeof(t));
	for (size_t i = 0; i < n; i++)
		for (uint32_t k = 0; k < steps[i].times; k++) {
			if (steps[i].event == OVERRAN)
				aos_code_strikes_overran(&t, steps[i].key);
			else if (steps[i].event == ON_TIME)
				aos_code_strikes_on_time(&t, steps[i].key);
			else
				aos_code_strikes_ran_away(&t, steps[i].key);
		}
	return t;
}

#define F AOS_CODE_STRIKES_FORGIVEN_AFTER

START_TEST(sequences)
{
	static const struct {
		const char *what;
		struct step steps[5];
		size_t n;
		bool unpredictable_7, unpredictable_9;
	} rows[] = {
		{ "no event", { { ON_TIME, 7, 1 } }, 0, false, false },
		{ "one overrun is a strike, not a verdict", { { OVERRAN, 7, 1 } }, 1, false, false },
		{ "two overruns", { { OVERRAN, 7, 2 } }, 1, true, false },
		{ "codes count apart", { { OVERRAN, 7, 1 }, { OVERRAN, 9, 1 } }, 2, false, false },
		{ "a runaway at once", { { RAN_AWAY, 9, 1 } }, 1, false, true },
		{ "on time just short of a pardon", { { OVERRAN, 7, 1 }, { ON_TIME, 7, F - 1 }, { OVERRAN, 7, 1 } }, 3, true,
		  false },
		{ "another code's launches pardon nothing", { { OVERRAN, 7, 1 }, { ON_TIME, 9, F }, { OVERRAN, 7, 1 } }, 3,
		  true, false },
		{ "a pardon", { { OVERRAN, 7, 1 }, { ON_TIME, 7, F }, { OVERRAN, 7, 1 } }, 3, false, false },
		{ "a strike restarts the count", { { OVERRAN, 7, 1 }, { ON_TIME, 7, F }, { OVERRAN, 7, 1 },
		  { ON_TIME, 7, F - 1 }, { OVERRAN, 7, 1 } }, 5, true, false },
		{ "unpredictable code is not pardoned", { { OVERRAN, 7, 2 }, { ON_TIME, 7, 4 * F } }, 2, true, false },
		{ "nor code that ran away", { { RAN_AWAY, 9, 1 }, { ON_TIME, 9, 4 * F } }, 2, false, true },
		{ "key 0 is no code", { { OVERRAN, 0, 3 }, { RAN_AWAY, 0, 1 } }, 2, false, false },
	};
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		struct aos_code_strikes t = run(rows[r].steps, rows[r].n);
		ck_assert_msg(aos_code_strikes_unpredictable(&t, 7) == rows[r].unpredictable_7, "%s: code 7", rows[r].what);
		ck_assert_msg(aos_code_strikes_unpredictable(&t, 9) == rows[r].unpredictable_9, "%s: code 9", rows[r].what);
		ck_assert_msg(!aos_code_strikes_unpredictable(&t, 0), "%s: key 0", rows[r].what);
	}
}
END_TEST

START_TEST(overran_says_when_it_decides)
{
	struct aos_code_strikes t;
	memset(&t, 0, sizeof(t));
	ck_assert(!aos_code_strikes_overran(&t, 5));
	ck_assert(aos_code_strikes_overran(&t, 5));
	ck_assert(!aos_code_strikes_overran(&t, 5)); /* already decided */
	ck_assert(aos_code_strikes_unpredictable(&t, 5));
}
END_TEST

START_TEST(ring_forgets_the_oldest)
{
	struct aos_code_strikes t;
	memset(&t, 0, sizeof(t));
	for (uint64_t key = 1; key <= AOS_CODE_STRIKES_CODES; key++)
		aos_code_strikes_ran_away(&t, key);
	for (uint64_t key = 1; key <= AOS_CODE_STRIKES_CODES; key++)
		ck_assert(aos_code_strikes_unpredictable(&t, key));
	aos_code_strikes_ran_away(&t, 1000);
	ck_assert(aos_code_strikes_unpredictable(&t, 1000));
	ck_assert(!aos_code_strikes_unpredictable(&t, 1));
	ck_assert(aos_code_strikes_unpredictable(&t, 2));
	/* A pardoned code's slot is reused before the oldest record is forgotten. */
	aos_code_strikes_overran(&t, 3000);
	ck_assert(!aos_code_strikes_unpredictable(&t, 2)); /* the ring was full: 2 went */
	for (uint32_t i = 0; i < F; i++)
		aos_code_strikes_on_time(&t, 3000);
	aos_code_strikes_ran_away(&t, 4000);
	ck_assert(aos_code_strikes_unpredictable(&t, 4000));
	ck_assert(aos_code_strikes_unpredictable(&t, 3)); /* took 3000's emptied slot, not 3's */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sched-code-strikes");
	TCase *tc = tcase_create("code_strikes");
	tcase_add_test(tc, sequences);
	tcase_add_test(tc, overran_says_when_it_decides);
	tcase_add_test(tc, ring_forgets_the_oldest);
	suite_add_tcase(s, tc);
	return aos_check_run(s);
}
