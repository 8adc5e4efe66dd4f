/* SHA-256 against FIPS 180-4 test vectors, including multi-block input. */
#include "sha256.h"
#include "check_run.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static void digest(const char *msg, size_t len, char hex[65])
{
	struct aos_sha256 s;
	aos_sha256_init(&s);
	aos_sha256_update(&s, msg, len);
	aos_sha256_final_hex(&s, hex);
}

START_TEST(empty)
{
	char hex[65];
	digest("", 0, hex);
	ck_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}
END_TEST

START_TEST(abc)
{
	char hex[65];
	digest("abc", 3, hex);
	ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}
END_TEST

START_TEST(two_blocks)
{
	const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	char hex[65];
	digest(m, strlen(m), hex);
	ck_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}
END_TEST

START_TEST(million_a_in_pieces)
{
	struct aos_sha256 s;
	char chunk[1000], hex[65];
	memset(chunk, 'a', sizeof(chunk));
	aos_sha256_init(&s);
	for (int i = 0; i < 1000; i++)
		aos_sha256_update(&s, chunk, sizeof(chunk));
	aos_sha256_final_hex(&s, hex);
	ck_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sha256");
	TCase *tc = tcase_create("vectors");
	tcase_add_test(tc, empty);
	tcase_add_test(tc, abc);
	tcase_add_test(tc, two_blocks);
	tcase_add_test(tc, million_a_in_pieces);
	suite_add_tcase(s, tc);
	return aos_check_run(s);
}
