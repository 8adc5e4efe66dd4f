/* Target table: what each kind of device report selects. */
#include "accelos/jit.h"
#include "check_run.h"

#include <check.h>
#include <stdlib.h>

START_TEST(pocl_spir)
{
	struct aos_jit_device_desc d = { "GenuineIntel",
					 "cl_khr_byte_addressable_store cl_khr_spir cl_khr_fp64",
					 NULL, 0 };
	ck_assert_int_eq(aos_jit_target_for_device(&d), AOS_JIT_TARGET_SPIR64);
}
END_TEST

START_TEST(nvidia_ptx)
{
	struct aos_jit_device_desc d = { "NVIDIA Corporation", "cl_khr_fp64 cl_khr_il_program", NULL, 80 };
	ck_assert_int_eq(aos_jit_target_for_device(&d), AOS_JIT_TARGET_NVPTX64);
}
END_TEST

START_TEST(il_program_spirv)
{
	struct aos_jit_device_desc d = { "Some GPU vendor", "cl_khr_il_program", NULL, 0 };
	ck_assert_int_eq(aos_jit_target_for_device(&d), AOS_JIT_TARGET_SPIRV);
	struct aos_jit_device_desc e = { "Other", "", "SPIR-V_1.2", 0 };
	ck_assert_int_eq(aos_jit_target_for_device(&e), AOS_JIT_TARGET_SPIRV);
}
END_TEST

START_TEST(extension_must_match_whole_word)
{
	struct aos_jit_device_desc d = { "X", "cl_khr_spirx cl_khr_spir_like", NULL, 0 };
	ck_assert_int_eq(aos_jit_target_for_device(&d), AOS_JIT_TARGET_NONE);
	ck_assert_int_eq(aos_jit_target_for_device(NULL), AOS_JIT_TARGET_NONE);
}
END_TEST

START_TEST(direct_shape_on_every_target)
{
	ck_assert(aos_jit_target_has_direct(AOS_JIT_TARGET_SPIR64));
	ck_assert(aos_jit_target_has_direct(AOS_JIT_TARGET_SPIRV));
	ck_assert(aos_jit_target_has_direct(AOS_JIT_TARGET_NVPTX64));
	ck_assert(!aos_jit_target_has_direct(AOS_JIT_TARGET_NONE));
}
END_TEST

START_TEST(names_round_trip)
{
	for (int t = AOS_JIT_TARGET_SPIR64; t <= AOS_JIT_TARGET_SPIRV; t++)
		ck_assert_int_eq(aos_jit_target_parse(aos_jit_target_name(t)), t);
	ck_assert_int_eq(aos_jit_target_parse("nvptx64-nvidia-nvcl"), AOS_JIT_TARGET_NVPTX64);
	ck_assert_int_eq(aos_jit_target_parse("x86"), AOS_JIT_TARGET_NONE);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("target");
	TCase *tc = tcase_create("table");
	tcase_add_test(tc, pocl_spir);
	tcase_add_test(tc, nvidia_ptx);
	tcase_add_test(tc, il_program_spirv);
	tcase_add_test(tc, extension_must_match_whole_word);
	tcase_add_test(tc, direct_shape_on_every_target);
	tcase_add_test(tc, names_round_trip);
	suite_add_tcase(s, tc);
	return aos_check_run(s);
}
