/* Persistent cache: key sensitivity, round trip, corrupt entries, dir choice. */
#include "jit_internal.h"
#include "check_run.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[256];

static void setup(void)
{
	ck_assert_int_eq(aos_scratch_make(dir, sizeof(dir)), 0);
}

static void teardown(void)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(key_depends_on_every_input)
{
	char a[65], b[65];
	aos_cache_key("src", 3, "-DX", AOS_JIT_TARGET_SPIR64, 0, "salt", a);
	ck_assert_int_eq(strlen(a), 64);
	aos_cache_key("src", 3, "-DX", AOS_JIT_TARGET_SPIR64, 0, "salt", b);
	ck_assert_str_eq(a, b);
	aos_cache_key("srd", 3, "-DX", AOS_JIT_TARGET_SPIR64, 0, "salt", b);
	ck_assert_str_ne(a, b);
	aos_cache_key("src", 3, "-DY", AOS_JIT_TARGET_SPIR64, 0, "salt", b);
	ck_assert_str_ne(a, b);
	aos_cache_key("src", 3, "-DX", AOS_JIT_TARGET_NVPTX64, 0, "salt", b);
	ck_assert_str_ne(a, b);
	aos_cache_key("src", 3, "-DX", AOS_JIT_TARGET_SPIR64, 70, "salt", b);
	ck_assert_str_ne(a, b);
	aos_cache_key("src", 3, "-DX", AOS_JIT_TARGET_SPIR64, 0, "other", b);
	ck_assert_str_ne(a, b);
	/* option/source boundary is unambiguous */
	aos_cache_key("Xsrc", 4, "-D", AOS_JIT_TARGET_SPIR64, 0, "salt", b);
	ck_assert_str_ne(a, b);
}
END_TEST

START_TEST(round_trip)
{
	struct aos_jit_kernel ks[2] = {
		{ "k1", 1, 6, 17, 1, NULL },
		{ "k2", 0, 0, 99, 0, "device-side enqueue" },
	};
	uint8_t bin[5] = { 0, 1, 2, '\n', 255 };
	struct aos_jit_result in = { bin, sizeof(bin), "", ks, 2, 0 }, *out;
	char key[65];
	aos_cache_key("s", 1, "", AOS_JIT_TARGET_SPIR64, 0, "salt", key);
	ck_assert_int_eq(aos_cache_load(dir, key, &out), -ENOENT);
	ck_assert_int_eq(aos_cache_store(dir, key, &in), 0);
	ck_assert_int_eq(aos_cache_load(dir, key, &out), 0);
	ck_assert_int_eq(out->from_cache, 1);
	ck_assert_uint_eq(out->binary_size, 5);
	ck_assert_mem_eq(out->binary, bin, 5);
	ck_assert_uint_eq(out->num_kernels, 2);
	ck_assert_str_eq(out->kernels[0].name, "k1");
	ck_assert_uint_eq(out->kernels[0].chunk, 6);
	ck_assert_ptr_null(out->kernels[0].reason);
	ck_assert_str_eq(out->kernels[1].reason, "device-side enqueue");
	ck_assert_int_eq(out->kernels[1].rewritten, 0);
	aos_jit_result_destroy(out);
}
END_TEST

START_TEST(truncated_entry_is_a_miss)
{
	struct aos_jit_result in = { (uint8_t *)"abcdef", 6, "", NULL, 0, 0 }, *out;
	char key[65], path[600];
	aos_cache_key("t", 1, "", AOS_JIT_TARGET_SPIR64, 0, "salt", key);
	ck_assert_int_eq(aos_cache_store(dir, key, &in), 0);
	snprintf(path, sizeof(path), "%s/%.2s/%s.aosjit", dir, key, key);
	ck_assert_int_eq(truncate(path, 30), 0);
	ck_assert_int_eq(aos_cache_load(dir, key, &out), -EINVAL);
}
END_TEST

START_TEST(directory_from_environment)
{
	char d[512];
	setenv("ACCELOS_JIT_CACHE", "/tmp/aos-explicit", 1);
	ck_assert_int_eq(aos_cache_dir(NULL, d, sizeof(d)), 0);
	ck_assert_str_eq(d, "/tmp/aos-explicit");
	ck_assert_int_eq(aos_cache_dir("/o", d, sizeof(d)), 0);
	ck_assert_str_eq(d, "/o");
	unsetenv("ACCELOS_JIT_CACHE");
	setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
	ck_assert_int_eq(aos_cache_dir(NULL, d, sizeof(d)), 0);
	ck_assert_str_eq(d, "/tmp/xdg/accelos/jit");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cache");
	TCase *tc = tcase_create("cache");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, key_depends_on_every_input);
	tcase_add_test(tc, round_trip);
	tcase_add_test(tc, truncated_entry_is_a_miss);
	tcase_add_test(tc, directory_from_environment);
	suite_add_tcase(s, tc);
	return aos_check_run(s);
}
