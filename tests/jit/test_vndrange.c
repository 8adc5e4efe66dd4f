/* The virtual NDRange record: host layout, and the device's view of it
 * (rtlib compiled for spir64 must read the fields at the same offsets). */
#include "accelos/vndrange.h"

#include <check.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

START_TEST(host_layout)
{
	ck_assert_uint_eq(sizeof(struct aos_vndrange), AOS_VNDRANGE_SIZE);
	ck_assert_uint_eq(offsetof(struct aos_vndrange, chunk), 4);
	ck_assert_uint_eq(offsetof(struct aos_vndrange, next), 108);
	ck_assert_uint_eq(offsetof(struct aos_vndrange, budget), 112);
	ck_assert_uint_eq(offsetof(struct aos_vndrange, done), 116);
}
END_TEST

START_TEST(device_layout_matches)
{
	/* Compile the header as OpenCL C; its _Static_asserts must hold there. */
	char cmd[1024];
	snprintf(cmd, sizeof(cmd),
		 "echo '#include \"accelos/vndrange.h\"' | %s -x cl -cl-std=CL1.2 -target spir64 "
		 "-fsyntax-only -I%s - && echo '#include \"accelos/vndrange.h\"' | %s -x cl "
		 "-cl-std=CL1.2 -target nvptx64-nvidia-nvcl -fsyntax-only -I%s -",
		 AOS_TEST_CLANG, AOS_TEST_INCLUDE, AOS_TEST_CLANG, AOS_TEST_INCLUDE);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vndrange");
	TCase *tc = tcase_create("layout");
	tcase_add_test(tc, host_layout);
	tcase_add_test(tc, device_layout_matches);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
