/* Worker process: exit codes, output capture, wall timeout, limits, crashes. */
#include "worker.h"
#include "check_run.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct aos_worker_limits lim = { 5000, 10, 1ull << 30 };

START_TEST(captures_output)
{
	char *argv[] = { "/bin/sh", "-c", "echo out; echo err >&2", NULL }, *log;
	ck_assert_int_eq(aos_worker_run(argv, &lim, &log), 0);
	ck_assert_ptr_nonnull(strstr(log, "out\n"));
	ck_assert_ptr_nonnull(strstr(log, "err\n"));
	free(log);
}
END_TEST

START_TEST(nonzero_exit)
{
	char *argv[] = { "/bin/sh", "-c", "echo bad; exit 3", NULL }, *log;
	ck_assert_int_eq(aos_worker_run(argv, &lim, &log), -ENOEXEC);
	ck_assert_ptr_nonnull(strstr(log, "bad"));
	free(log);
}
END_TEST

START_TEST(wall_timeout_kills)
{
	struct aos_worker_limits l = { 300, 10, 0 };
	char *argv[] = { "/bin/sh", "-c", "exec sleep 20", NULL }, *log;
	ck_assert_int_eq(aos_worker_run(argv, &l, &log), -ETIMEDOUT);
	ck_assert_ptr_nonnull(strstr(log, "timed out"));
	free(log);
}
END_TEST

START_TEST(timeout_after_output_closed)
{
	struct aos_worker_limits l = { 300, 10, 0 };
	char *argv[] = { "/bin/sh", "-c", "exec >&- 2>&-; exec sleep 20", NULL }, *log;
	ck_assert_int_eq(aos_worker_run(argv, &l, &log), -ETIMEDOUT);
	free(log);
}
END_TEST

START_TEST(crash_is_reported)
{
	char *argv[] = { "/bin/sh", "-c", "kill -SEGV $$", NULL }, *log;
	ck_assert_int_eq(aos_worker_run(argv, &lim, &log), -ECANCELED);
	ck_assert_ptr_nonnull(strstr(log, "signal 11"));
	free(log);
}
END_TEST

START_TEST(cpu_limit_applies)
{
	struct aos_worker_limits l = { 20000, 1, 0 };
	char *argv[] = { "/bin/sh", "-c", "while :; do :; done", NULL }, *log;
	ck_assert_int_eq(aos_worker_run(argv, &l, &log), -ECANCELED);
	ck_assert_ptr_nonnull(strstr(log, "CPU time limit"));
	free(log);
}
END_TEST

START_TEST(missing_tool)
{
	char *argv[] = { "/nonexistent/clang", NULL }, *log;
	ck_assert_int_eq(aos_worker_run(argv, &lim, &log), -ENOENT);
	ck_assert_ptr_nonnull(strstr(log, "cannot execute"));
	free(log);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("worker");
	TCase *tc = tcase_create("run");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, captures_output);
	tcase_add_test(tc, nonzero_exit);
	tcase_add_test(tc, wall_timeout_kills);
	tcase_add_test(tc, timeout_after_output_closed);
	tcase_add_test(tc, crash_is_reported);
	tcase_add_test(tc, cpu_limit_applies);
	tcase_add_test(tc, missing_tool);
	suite_add_tcase(s, tc);
	return aos_check_run(s);
}
