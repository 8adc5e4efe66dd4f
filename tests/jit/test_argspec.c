/* --arg SPEC parsing and seeded fills. */
#include "argspec.h"
#include "check_run.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static int parse(const char *s, struct aos_argspec *a)
{
	char err[256];
	return aos_argspec_parse(s, a, err, sizeof(err));
}

START_TEST(buffers)
{
	struct aos_argspec a;
	ck_assert_int_eq(parse("buf:float4:100", &a), 0);
	ck_assert_int_eq(a.kind, AOS_ARG_BUFFER);
	ck_assert_uint_eq(a.bytes, 1600);
	ck_assert_int_eq(parse("buf:uchar:7:mod5", &a), 0);
	ck_assert_uint_eq(a.bytes, 7);
	ck_assert_int_eq(a.fill, AOS_FILL_MOD);
	ck_assert_int_eq(parse("buf:double3:2:zero", &a), 0);
	ck_assert_uint_eq(a.bytes, 64); /* 3-vectors take 4 lanes */
	ck_assert_int_ne(parse("buf:float5:2", &a), 0);
	ck_assert_int_ne(parse("buf:quad:2", &a), 0);
	ck_assert_int_ne(parse("buf:int:0", &a), 0);
}
END_TEST

START_TEST(values)
{
	struct aos_argspec a;
	ck_assert_int_eq(parse("int:-5", &a), 0);
	ck_assert_uint_eq(a.bytes, 4);
	int v;
	memcpy(&v, a.value, 4);
	ck_assert_int_eq(v, -5);
	ck_assert_int_eq(parse("float2:1.5,2", &a), 0);
	float f[2];
	memcpy(f, a.value, 8);
	ck_assert_float_eq(f[0], 1.5f);
	ck_assert_float_eq(f[1], 2.0f);
	ck_assert_int_eq(parse("raw:int=3,float=0.5,char=1", &a), 0);
	ck_assert_uint_eq(a.bytes, 9);
	ck_assert_int_eq(parse("local:256", &a), 0);
	ck_assert_int_eq(a.kind, AOS_ARG_LOCAL);
	ck_assert_int_eq(parse("sampler:clamp:nearest:unnorm", &a), 0);
	ck_assert_int_eq(parse("image2d:4:4", &a), 0);
	ck_assert_uint_eq(a.bytes, 256);
	ck_assert_int_ne(parse("nonsense", &a), 0);
}
END_TEST

START_TEST(fill_is_seeded)
{
	struct aos_argspec a;
	ck_assert_int_eq(parse("buf:int:64:mod10", &a), 0);
	int x[64], y[64], z[64];
	aos_argspec_fill(&a, 0, 7, x);
	aos_argspec_fill(&a, 0, 7, y);
	aos_argspec_fill(&a, 1, 7, z);
	ck_assert_mem_eq(x, y, sizeof(x));
	ck_assert_int_ne(memcmp(x, z, sizeof(x)), 0);
	for (int i = 0; i < 64; i++)
		ck_assert(x[i] >= 0 && x[i] < 10);
	ck_assert_int_eq(parse("buf:float:64", &a), 0);
	float f[64];
	aos_argspec_fill(&a, 0, 1, f);
	for (int i = 0; i < 64; i++)
		ck_assert(f[i] >= 0.0f && f[i] < 1.0f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("argspec");
	TCase *tc = tcase_create("parse");
	tcase_add_test(tc, buffers);
	tcase_add_test(tc, values);
	tcase_add_test(tc, fill_is_seeded);
	suite_add_tcase(s, tc);
	return aos_check_run(s);
}
