/* clBuildProgram option splitting and the allow-list. */
#include "jit_internal.h"
#include "check_run.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>

START_TEST(splits_and_unquotes)
{
	char **argv, *log;
	int argc;
	ck_assert_int_eq(aos_build_options_parse("-D X=1  -DNAME=\"a b\" -I inc -cl-fast-relaxed-math",
						 &argv, &argc, &log), 0);
	ck_assert_int_eq(argc, 6);
	ck_assert_str_eq(argv[0], "-D");
	ck_assert_str_eq(argv[1], "X=1");
	ck_assert_str_eq(argv[2], "-DNAME=a b");
	ck_assert_str_eq(argv[4], "inc");
	ck_assert_str_eq(argv[5], "-cl-fast-relaxed-math");
	ck_assert_ptr_null(argv[6]);
	aos_build_options_free(argv);
}
END_TEST

START_TEST(refuses_dangerous_options)
{
	const char *bad[] = { "-o /etc/x", "-Xclang -load", "-fplugin=x.so", "foo.cl", "-D" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char **argv = NULL, *log = NULL;
		int argc;
		ck_assert_int_eq(aos_build_options_parse(bad[i], &argv, &argc, &log), -EINVAL);
		ck_assert_ptr_nonnull(log);
		ck_assert_ptr_nonnull(strstr(log, "error:"));
		free(log);
	}
}
END_TEST

START_TEST(empty_is_fine)
{
	char **argv, *log;
	int argc = -1;
	ck_assert_int_eq(aos_build_options_parse(NULL, &argv, &argc, &log), 0);
	ck_assert_int_eq(argc, 0);
	aos_build_options_free(argv);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("build_options");
	TCase *tc = tcase_create("parse");
	tcase_add_test(tc, splits_and_unquotes);
	tcase_add_test(tc, refuses_dangerous_options);
	tcase_add_test(tc, empty_is_fine);
	suite_add_tcase(s, tc);
	return aos_check_run(s);
}
