/* The main of a Check unit-test program: runs its suite with the normal output and exits 0 only
 * when every test passed (ctest reads the status). */
#ifndef ACCELOS_TESTS_CHECK_RUN_H
#define ACCELOS_TESTS_CHECK_RUN_H

#include <check.h>

static inline int aos_check_run(Suite *suite)
{
	SRunner *runner = srunner_create(suite);
	srunner_run_all(runner, CK_NORMAL);
	int failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? 1 : 0;
}

#endif
