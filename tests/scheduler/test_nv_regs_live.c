/* Register counts from a live ptxas run (registered only when ptxas is found at configure
 * time): corpus kernels go through the JIT to PTX as the daemon's twins do, ptxas -v assembles
 * them, and the parser must find a count for every rewritten kernel. Catches a ptxas whose
 * wording has drifted from the saved logs test_nv_regs.c checks. */
#include "accelos/jit.h"
#include "accelos/nv_regs.h"
#include "check_run.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if !defined(AOS_TEST_PTXAS) || !defined(AOS_TEST_KERNELS)
#error "AOS_TEST_PTXAS and AOS_TEST_KERNELS must be defined"
#endif

static const char *const files[] = {
	"multi_kernel.cl", "helper_shared.cl", "helper_nested.cl", "nbody_lite.cl",
	"matmul_tiled.cl", "double_math.cl",   "reduce_local_arg.cl",
};
static const unsigned sms[] = { 80, 90 };

static char dir[64];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "%s", "/tmp/aos-nv-regs-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	ck_assert_ptr_nonnull(buf);
	for (size_t r; (r = fread(buf + n, 1, cap - n, f)) > 0;) {
		n += r;
		if (n == cap) {
			buf = realloc(buf, cap *= 2);
			ck_assert_ptr_nonnull(buf);
		}
	}
	fclose(f);
	*len = n;
	return buf;
}

START_TEST(jit_ptx_through_ptxas)
{
	const char *file = files[_i / 2];
	unsigned sm = sms[_i % 2];
	char path[512], ptx[600], log[600], cmd[2048];
	snprintf(path, sizeof(path), "%s/%s", AOS_TEST_KERNELS, file);
	size_t src_len;
	char *src = read_all(path, &src_len);

	struct aos_jit_options o = { .target = AOS_JIT_TARGET_NVPTX64, .nv_sm = 80, .no_cache = 1 };
	struct aos_jit_result *r = NULL;
	ck_assert_msg(aos_jit_compile(src, src_len, &o, &r) == 0, "%s: JIT failed: %s", file,
		      r && r->build_log ? r->build_log : "");
	snprintf(ptx, sizeof(ptx), "%s/k.ptx", dir);
	snprintf(log, sizeof(log), "%s/k.log", dir);
	FILE *f = fopen(ptx, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(r->binary, 1, r->binary_size, f), r->binary_size);
	fclose(f);
	/* The same -v output NVIDIA's OpenCL puts in the build log for -cl-nv-verbose. */
	snprintf(cmd, sizeof(cmd), "'%s' -v -arch=sm_%u '%s' -o /dev/null 2> '%s'", AOS_TEST_PTXAS, sm, ptx, log);
	ck_assert_msg(system(cmd) == 0, "%s: %s failed", file, cmd);

	size_t log_len;
	char *text = read_all(log, &log_len);
	size_t rewritten = 0;
	for (size_t i = 0; i < r->num_kernels; i++) {
		if (!r->kernels[i].rewritten)
			continue;
		rewritten++;
		uint32_t regs = aos_nv_regs_from_log(text, log_len, r->kernels[i].name);
		printf("%s sm_%u %s: %u registers\n", file, sm, r->kernels[i].name, regs);
		ck_assert_msg(regs > 0 && regs <= 255, "%s sm_%u, kernel %s: %u registers in\n%.*s", file, sm,
			      r->kernels[i].name, regs, (int)log_len, text);
	}
	ck_assert_uint_gt(rewritten, 0);
	/* Callees are in the log too ("Function properties for ..."), never as entries. */
	ck_assert_uint_eq(aos_nv_regs_from_log(text, log_len, "_Z7barrierj"), 0);
	free(text);
	free(src);
	aos_jit_result_destroy(r);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("nv_regs_live");
	TCase *tc = tcase_create("ptxas");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, jit_ptx_through_ptxas, 0,
			    (int)(sizeof(files) / sizeof(files[0]) * sizeof(sms) / sizeof(sms[0])));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return aos_check_run(suite());
}
