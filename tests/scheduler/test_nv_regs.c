/* Register counts from ptxas verbose logs (accelos/nv_regs.h): real logs
 * saved from ptxas on the JIT's PTX (data/README.md), then hostile text. */
#include "accelos/nv_regs.h"
#include "accelos/sched.h"
#include "check_run.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef AOS_NV_REGS_DATA
#error "AOS_NV_REGS_DATA (the fixture directory) must be defined"
#endif

/* The whole file in a buffer of exactly its size: no NUL after the text, so
 * a parser reading past `len` reads past the allocation. */
static char *slurp(const char *name, size_t *len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", AOS_NV_REGS_DATA, name);
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	long size = ftell(f);
	ck_assert_int_gt(size, 0);
	rewind(f);
	char *buf = malloc((size_t)size);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	*len = (size_t)size;
	return buf;
}

/* A copy of the first len bytes of s, not NUL-terminated. */
static char *exact(const char *s, size_t len)
{
	char *buf = malloc(len ? len : 1);
	ck_assert_ptr_nonnull(buf);
	memcpy(buf, s, len);
	return buf;
}

static uint32_t regs(const char *text, const char *kernel)
{
	size_t len = strlen(text);
	char *buf = exact(text, len);
	uint32_t v = aos_nv_regs_from_log(buf, len, kernel);
	free(buf);
	return v;
}

/* ---- Real ptxas logs ---------------------------------------------------------------------- */

/* ptxas 13.0 (V13.0.88) -v on `accelos-jit transform --target nvptx64 --sm 80` output of
 * tests/kernels/<name>.cl: the rewritten twin kernels, as the daemon builds them. */
static const struct {
	const char *file;
	const char *kernel;
	uint32_t regs;
} real[] = {
	{ "ptxas_multi_kernel_sm80.log", "scale", 29 },
	{ "ptxas_multi_kernel_sm80.log", "shift", 29 },
	{ "ptxas_multi_kernel_sm90.log", "scale", 28 },
	{ "ptxas_multi_kernel_sm90.log", "shift", 28 },
	{ "ptxas_helper_shared_sm80.log", "first", 29 },
	{ "ptxas_helper_shared_sm80.log", "second", 32 },
	/* The same PTX assembled relocatable (-c): other counts, callees compiled on their own. */
	{ "ptxas_helper_shared_sm80_reloc.log", "first", 37 },
	{ "ptxas_helper_shared_sm80_reloc.log", "second", 46 },
	{ "ptxas_helper_nested_sm80.log", "helper_nested", 30 },
	{ "ptxas_nbody_lite_sm80.log", "nbody_lite", 42 },
	{ "ptxas_double_math_sm80.log", "double_math", 37 },
	/* Names in the logs that are not entries, or not whole entry names. */
	{ "ptxas_helper_shared_sm80.log", "where", 0 },             /* the helper, inlined */
	{ "ptxas_helper_shared_sm80.log", "_Z3minjj", 0 },          /* a callee's "Function properties" */
	{ "ptxas_helper_shared_sm80_reloc.log", "_Z7barrierj", 0 }, /* a callee compiled on its own */
	{ "ptxas_helper_shared_sm80.log", "firs", 0 },
	{ "ptxas_helper_shared_sm80.log", "first2", 0 },
	{ "ptxas_helper_shared_sm80.log", "sm_80", 0 },
	{ "ptxas_multi_kernel_sm80.log", "helper_nested", 0 },
	{ "ptxas_nbody_lite_sm80.log", "nbody", 0 },
};

START_TEST(real_logs)
{
	size_t len;
	char *log = slurp(real[_i].file, &len);
	uint32_t got = aos_nv_regs_from_log(log, len, real[_i].kernel);
	ck_assert_msg(got == real[_i].regs, "%s, kernel %s: %u registers, expected %u", real[_i].file,
		      real[_i].kernel, got, real[_i].regs);
	free(log);
}
END_TEST

/* Every prefix of a real log: a kernel's count appears only once "Used N register" is whole
 * inside the prefix (the number cannot be cut short any more), and is never wrong before. */
START_TEST(real_log_truncated_at_every_length)
{
	size_t len;
	char *log = slurp("ptxas_helper_shared_sm80.log", &len);
	char *copy = malloc(len + 1);
	ck_assert_ptr_nonnull(copy);
	memcpy(copy, log, len);
	copy[len] = '\0';
	static const struct { const char *kernel, *used; uint32_t regs; } k[] = {
		{ "second", "Used 32 register", 32 },
		{ "first", "Used 29 register", 29 },
	};
	for (size_t j = 0; j < sizeof(k) / sizeof(k[0]); j++) {
		char entry[64];
		snprintf(entry, sizeof(entry), "entry function '%s'", k[j].kernel);
		const char *e = strstr(copy, entry);
		ck_assert_ptr_nonnull(e);
		const char *u = strstr(e, k[j].used);
		ck_assert_ptr_nonnull(u);
		size_t complete = (size_t)(u - copy) + strlen(k[j].used);
		for (size_t n = 0; n <= len; n++) {
			char *buf = exact(log, n);
			uint32_t got = aos_nv_regs_from_log(buf, n, k[j].kernel);
			ck_assert_msg(got == (n >= complete ? k[j].regs : 0), "%s, %zu of %zu bytes: %u", k[j].kernel, n,
				      len, got);
			free(buf);
		}
	}
	free(copy);
	free(log);
}
END_TEST

/* What the daemon does with a count: the solver's input. nbody_lite's 42 registers on an A100
 * (sm_80, 108 SMs) with 256 work-items per group: 42 x 32 = 1344 per warp, allocated as 1536,
 * 8 warps = 12288 per group, so 65536 / 12288 = 5 groups per SM instead of the 8 that threads
 * allow. multi_kernel's 29 (1024 per warp, 8192 per group) still leaves threads binding. */
START_TEST(counts_bind_in_the_solver)
{
	struct aos_sched_device a100;
	ck_assert_int_eq(aos_sched_device_from_arch("sm_80", 108, &a100), 0);
	size_t len;
	char *log = slurp("ptxas_nbody_lite_sm80.log", &len);
	struct aos_sched_kernel k = { .wg_threads = 256, .total_groups = 100000,
				      .regs_per_thread = aos_nv_regs_from_log(log, len, "nbody_lite") };
	free(log);
	enum aos_sched_limit why;
	ck_assert_uint_eq(aos_sched_kernel_occupancy(&a100, &k, &why), 5 * 108);
	ck_assert_int_eq(why, AOS_SCHED_LIMIT_REGISTERS);
	k.regs_per_thread = 0; /* unknown: registers do not bind */
	ck_assert_uint_eq(aos_sched_kernel_occupancy(&a100, &k, &why), 8 * 108);
	ck_assert_int_eq(why, AOS_SCHED_LIMIT_THREADS);
	log = slurp("ptxas_multi_kernel_sm80.log", &len);
	k.regs_per_thread = aos_nv_regs_from_log(log, len, "scale");
	free(log);
	ck_assert_uint_eq(aos_sched_kernel_occupancy(&a100, &k, &why), 8 * 108);
	ck_assert_int_eq(why, AOS_SCHED_LIMIT_THREADS);
}
END_TEST

/* ---- Hand-written text -------------------------------------------------------------------- */

#define ENTRY(name) "ptxas info    : Compiling entry function '" name "' for 'sm_80'\n"
#define PROPS(name)                                     \
	"ptxas info    : Function properties for " name "\n" \
	"    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
#define USED(n) "ptxas info    : Used " n " registers, 380 bytes cmem[0]\n"

static const struct {
	const char *what;
	const char *log;
	const char *kernel;
	uint32_t regs;
} cases[] = {
	/* The format of the issue (older ptxas: no barriers/smem fields). */
	{ "brief format", "ptxas info    : 0 bytes gmem\n" ENTRY("vec_add") PROPS("vec_add") USED("10"), "vec_add", 10 },
	{ "no trailing newline", ENTRY("k") "ptxas info    : Used 12 registers", "k", 12 },
	{ "CRLF lines", "ptxas info    : Compiling entry function 'k' for 'sm_80'\r\n"
			"ptxas info    : Used 12 registers, 380 bytes cmem[0]\r\n", "k", 12 },
	{ "singular register", ENTRY("k") "ptxas info    : Used 1 register, 8 bytes cmem[0]\n", "k", 1 },
	/* Names: exact, both ways round. */
	{ "prefix: foo after foo2", ENTRY("foo2") USED("40") ENTRY("foo") USED("12"), "foo", 12 },
	{ "prefix: foo2 before foo", ENTRY("foo2") USED("40") ENTRY("foo") USED("12"), "foo2", 40 },
	{ "prefix: only foo2", ENTRY("foo2") USED("40"), "foo", 0 },
	{ "prefix: only foo", ENTRY("foo") USED("12"), "foo2", 0 },
	{ "suffix: xfoo", ENTRY("xfoo") USED("40"), "foo", 0 },
	{ "case differs", ENTRY("Foo") USED("40"), "foo", 0 },
	{ "name with a quote", ENTRY("k") USED("12"), "k' for 'sm_80", 0 },
	{ "empty name", ENTRY("") USED("12"), "", 0 },
	/* Which Used line. */
	{ "missing Used, next entry has one", ENTRY("a") PROPS("a") ENTRY("b") PROPS("b") USED("20"), "a", 0 },
	{ "missing Used, the other entry", ENTRY("a") PROPS("a") ENTRY("b") PROPS("b") USED("20"), "b", 20 },
	{ "Used before any entry", USED("20") ENTRY("a") PROPS("a"), "a", 0 },
	{ "Used line of the entry before", ENTRY("a") USED("20") ENTRY("b"), "b", 0 },
	{ "ends at Compile time", ENTRY("k") PROPS("k") "ptxas info    : Compile time = 9.1 ms\n"
		PROPS("_Z3minjj") USED("20"), "k", 0 },
	{ "callee properties before the count", ENTRY("k") PROPS("k") PROPS("helper") USED("10"), "k", 10 },
	{ "callee properties after the count", ENTRY("k") PROPS("k") USED("10") PROPS("helper") USED("50"), "k", 10 },
	{ "properties are not an entry", PROPS("helper") USED("7") ENTRY("k") PROPS("k") USED("10"), "helper", 0 },
	{ "non-entry function", "ptxas info    : Compiling function 'helper' for 'sm_80'\n" USED("7")
		ENTRY("k") USED("10"), "helper", 0 },
	{ "non-entry function ends the entry", ENTRY("k") PROPS("k")
		"ptxas info    : Compiling function 'helper' for 'sm_80'\n" USED("7"), "k", 0 },
	{ "entry twice: first wins", ENTRY("k") USED("10") ENTRY("k") USED("20"), "k", 10 },
	{ "entry name inside another line", "ptxas warning : 'k' is odd\n" USED("20"), "k", 0 },
	/* Numbers. */
	{ "limit", ENTRY("k") USED("65536"), "k", 65536 },
	{ "above the limit", ENTRY("k") USED("65537"), "k", 0 },
	{ "huge", ENTRY("k") USED("99999999999999999999999999999999"), "k", 0 },
	{ "wraps 32 bits", ENTRY("k") USED("4294967306"), "k", 0 },
	{ "wraps 64 bits", ENTRY("k") USED("18446744073709551626"), "k", 0 },
	{ "zero", ENTRY("k") USED("0"), "k", 0 },
	{ "leading zeros", ENTRY("k") USED("0012"), "k", 12 },
	{ "negative", ENTRY("k") USED("-5"), "k", 0 },
	{ "no digits", ENTRY("k") USED(""), "k", 0 },
	{ "two spaces", ENTRY("k") USED(" 12"), "k", 0 },
	{ "hex", ENTRY("k") USED("0x20"), "k", 0 },
	{ "not registers", ENTRY("k") "ptxas info    : Used 12 barriers\n", "k", 0 },
	{ "malformed Used then a good one", ENTRY("k") USED("12x") USED("14"), "k", 0 },
	/* Text. */
	{ "empty", "", "k", 0 },
	{ "only newlines", "\n\n\n", "k", 0 },
	{ "unrelated text", "error: ptxas not found\n", "k", 0 },
};

START_TEST(hand_written)
{
	uint32_t got = regs(cases[_i].log, cases[_i].kernel);
	ck_assert_msg(got == cases[_i].regs, "%s: %u registers, expected %u", cases[_i].what, got, cases[_i].regs);
}
END_TEST

START_TEST(null_and_empty_arguments)
{
	const char *log = ENTRY("k") USED("12");
	ck_assert_uint_eq(aos_nv_regs_from_log(NULL, 100, "k"), 0);
	ck_assert_uint_eq(aos_nv_regs_from_log(log, strlen(log), NULL), 0);
	ck_assert_uint_eq(aos_nv_regs_from_log(log, 0, "k"), 0);
	ck_assert_uint_eq(aos_nv_regs_from_log(log, strlen(log), "k"), 12);
	ck_assert_uint_eq(aos_nv_regs_from_log(log, strlen(log) + 1, "k"), 12); /* NUL included */
}
END_TEST

/* len shorter than the buffer: what lies past len does not exist. */
START_TEST(length_bounds_the_text)
{
	static const char text[] = ENTRY("k") "ptxas info    : Used 123 registers, 8 bytes cmem[0]\n";
	const char *used = strstr(text, "Used 123");
	size_t at_digits = (size_t)(used - text) + strlen("Used ");
	ck_assert_uint_eq(aos_nv_regs_from_log(text, sizeof(text) - 1, "k"), 123);
	/* Cut inside the number: "Used 1" or "Used 12" must not read on. */
	ck_assert_uint_eq(aos_nv_regs_from_log(text, at_digits + 1, "k"), 0);
	ck_assert_uint_eq(aos_nv_regs_from_log(text, at_digits + 2, "k"), 0);
	ck_assert_uint_eq(aos_nv_regs_from_log(text, at_digits + 3, "k"), 0);
	/* Cut inside " registers" and right after it. */
	ck_assert_uint_eq(aos_nv_regs_from_log(text, at_digits + 3 + strlen(" regis"), "k"), 0);
	ck_assert_uint_eq(aos_nv_regs_from_log(text, at_digits + 3 + strlen(" register"), "k"), 123);
	/* Cut inside the entry name: 'k' without its closing quote. */
	const char *q = strstr(text, "'k'");
	ck_assert_uint_eq(aos_nv_regs_from_log(text, (size_t)(q - text) + 2, "k"), 0);
}
END_TEST

/* A NUL byte ends the text even when len goes on (CL_PROGRAM_BUILD_LOG sizes include it). */
START_TEST(nul_ends_the_text)
{
	static const char text[] = ENTRY("k") "\0" USED("12");
	ck_assert_uint_eq(aos_nv_regs_from_log(text, sizeof(text) - 1, "k"), 0);
	static const char text2[] = ENTRY("k") USED("12") "\0" ENTRY("j") USED("14");
	ck_assert_uint_eq(aos_nv_regs_from_log(text2, sizeof(text2) - 1, "k"), 12);
	ck_assert_uint_eq(aos_nv_regs_from_log(text2, sizeof(text2) - 1, "j"), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("nv_regs");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, real_logs, 0, (int)(sizeof(real) / sizeof(real[0])));
	tcase_add_test(tc, real_log_truncated_at_every_length);
	tcase_add_test(tc, counts_bind_in_the_solver);
	tcase_add_loop_test(tc, hand_written, 0, (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, null_and_empty_arguments);
	tcase_add_test(tc, length_bounds_the_text);
	tcase_add_test(tc, nul_ends_the_text);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return aos_check_run(suite());
}
