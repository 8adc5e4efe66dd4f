/* Scheduler configuration parser: a good file, every error with its line
 * number and reason, error collection, file loading, weight lookup. */
#include "accelos/sched_config.h"
#include "check_run.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct aos_sched_config cfg;
static struct aos_sched_config_errors errs;

static void setup(void)
{
	aos_sched_config_init(&cfg);
	memset(&errs, 0, sizeof(errs));
}

static void teardown(void)
{
	aos_sched_config_release(&cfg);
}

static int parse(const char *text)
{
	return aos_sched_config_parse(&cfg, text, strlen(text), &errs);
}

START_TEST(defaults)
{
	ck_assert_int_eq(cfg.policy, AOS_SCHED_POLICY_FAIR);
	ck_assert_uint_eq(cfg.slice_ms, 4);
	ck_assert_uint_eq(cfg.max_inflight_per_client, 64);
	ck_assert_uint_eq(cfg.vgroup_timeout_ms, 10000);
	ck_assert_uint_eq(cfg.anticipate_us, 1000);
	ck_assert_uint_eq(cfg.anticipate_lead_us, 500);
	ck_assert_uint_eq(cfg.hold_charge_pct, 100);
	ck_assert_uint_eq(cfg.response_floor_us, 60);
	ck_assert_uint_eq(cfg.lone_slice_ms, 16);
	ck_assert_uint_eq(aos_sched_config_lone_ns(&cfg), 16000000u);
	ck_assert_uint_eq(cfg.solo_native_us, 2000);
	ck_assert_uint_eq(cfg.rejoin_credit_us, 16000);
	ck_assert_uint_eq(cfg.cpu_loop_align, 32);
	ck_assert_uint_eq(cfg.cut_quantum_us, 1000);
	ck_assert_uint_eq(cfg.n_weights, 0);
	ck_assert_ptr_null(cfg.weights);
	ck_assert_int_eq(parse(""), 0);
	ck_assert_int_eq(parse("\n\n# only comments\n   \n"), 0);
	ck_assert_uint_eq(cfg.slice_ms, 4);
}
END_TEST

START_TEST(good_file)
{
	const char *text = "# accelosd scheduler\n"
			   "\n"
			   "policy = fifo\n"
			   "  slice_ms=12   # inline comment\n"
			   "max_inflight_per_client = 0\r\n"
			   "vgroup_timeout_ms\t=\t2500\n"
			   "anticipate_us = 0\n"
			   "anticipate_lead_us = 0\n"
			   "hold_charge_pct = 25\n"
			   "response_floor_us = 0\n"
			   "lone_slice_ms = 0\n"
			   "solo_native_us = 500\n"
			   "rejoin_credit_us = 0\n"
			   "cpu_loop_align = 0\n"
			   "cut_quantum_us = 0\n"
			   "wave_shape = loop\n"
			   "weight.1000 = 3\n"
			   "weight.render-farm = 7\n"
			   "weight.007 = 2"; /* no final newline; "007" is uid 7 */
	ck_assert_int_eq(parse(text), 0);
	ck_assert_uint_eq(errs.count, 0);
	ck_assert_int_eq(cfg.policy, AOS_SCHED_POLICY_FIFO);
	ck_assert_uint_eq(cfg.slice_ms, 12);
	ck_assert_uint_eq(cfg.max_inflight_per_client, 0);
	ck_assert_uint_eq(cfg.vgroup_timeout_ms, 2500);
	ck_assert_uint_eq(cfg.anticipate_us, 0);
	ck_assert_uint_eq(cfg.anticipate_lead_us, 0);
	ck_assert_uint_eq(cfg.hold_charge_pct, 25);
	ck_assert_uint_eq(cfg.response_floor_us, 0);
	ck_assert_uint_eq(cfg.lone_slice_ms, 0);
	ck_assert_uint_eq(aos_sched_config_lone_ns(&cfg), 12000000u); /* off: the 12 ms slice */
	ck_assert_uint_eq(cfg.solo_native_us, 500);
	ck_assert_uint_eq(cfg.rejoin_credit_us, 0);
	ck_assert_uint_eq(cfg.cpu_loop_align, 0);
	ck_assert_uint_eq(cfg.cut_quantum_us, 0);
	ck_assert_uint_eq(cfg.n_weights, 3);
	ck_assert_str_eq(cfg.weights[0].client, "1000");
	ck_assert_uint_eq(cfg.weights[0].weight, 3);
	ck_assert_int_eq(cfg.wave_shape, AOS_WAVE_SHAPE_LOOP);
	ck_assert_uint_eq(cfg.weights[0].line, 17);
	ck_assert_str_eq(cfg.weights[1].client, "render-farm");
	ck_assert_str_eq(cfg.weights[2].client, "7");
	ck_assert_uint_eq(cfg.weights[2].line, 19);
}
END_TEST

START_TEST(shipped_example_parses)
{
	ck_assert_int_eq(aos_sched_config_load(&cfg, AOS_SCHED_EXAMPLE_CONF, &errs), 0);
	ck_assert_uint_eq(errs.count, 0);
	ck_assert_int_eq(cfg.policy, AOS_SCHED_POLICY_FAIR);
	ck_assert_uint_eq(cfg.slice_ms, 4);
	ck_assert_uint_eq(cfg.max_inflight_per_client, 64);
	ck_assert_uint_eq(cfg.vgroup_timeout_ms, 10000);
	ck_assert_uint_eq(cfg.anticipate_us, 1000);
	ck_assert_uint_eq(cfg.anticipate_lead_us, 500);
	ck_assert_uint_eq(cfg.hold_charge_pct, 100);
	ck_assert_uint_eq(cfg.response_floor_us, 60);
	ck_assert_uint_eq(cfg.lone_slice_ms, 16);
	ck_assert_uint_eq(cfg.solo_native_us, 2000);
	ck_assert_uint_eq(cfg.rejoin_credit_us, 16000);
	ck_assert_uint_eq(cfg.cpu_loop_align, 32);
	ck_assert_int_eq(cfg.wave_shape, AOS_WAVE_SHAPE_AUTO);
}
END_TEST

START_TEST(cpu_loop_aligns)
{
	static const unsigned good[] = { 0, 16, 32, 64, 128 };
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		char line[64];
		struct aos_sched_config one;
		aos_sched_config_init(&one);
		snprintf(line, sizeof(line), "cpu_loop_align = %u\n", good[i]);
		ck_assert_int_eq(aos_sched_config_parse(&one, line, strlen(line), &errs), 0);
		ck_assert_uint_eq(one.cpu_loop_align, good[i]);
		aos_sched_config_release(&one);
	}
}
END_TEST

START_TEST(wave_shapes)
{
	ck_assert_int_eq(cfg.wave_shape, AOS_WAVE_SHAPE_AUTO);
	ck_assert_int_eq(parse("wave_shape = direct\n"), 0);
	ck_assert_int_eq(cfg.wave_shape, AOS_WAVE_SHAPE_DIRECT);
	ck_assert_int_eq(parse("wave_shape = auto\n"), 0);
	ck_assert_int_eq(cfg.wave_shape, AOS_WAVE_SHAPE_AUTO);
}
END_TEST

/* The shape each setting gives a CPU and a GPU: auto is direct on CPUs only. */
START_TEST(wave_shape_per_device)
{
	static const struct {
		enum aos_wave_shape shape;
		int on_cpu, on_gpu;
	} want[] = {
		{ AOS_WAVE_SHAPE_AUTO, 1, 0 },
		{ AOS_WAVE_SHAPE_LOOP, 0, 0 },
		{ AOS_WAVE_SHAPE_DIRECT, 1, 1 },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		ck_assert_int_eq(aos_wave_shape_runs_direct(want[i].shape, 1), want[i].on_cpu);
		ck_assert_int_eq(aos_wave_shape_runs_direct(want[i].shape, 0), want[i].on_gpu);
	}
}
END_TEST

/* Each bad line after two good ones, so every error is on line 3. */
static const struct {
	const char *line;
	const char *reason; /* substring of the message */
} bad_lines[] = {
	{ "policy = lottery", "unknown policy 'lottery' (expected one of: fair, fifo)" },
	{ "policy = FAIR", "unknown policy 'FAIR'" },
	{ "slice_ms = 0", "'slice_ms' must be an integer from 1 to 60000, got '0'" },
	{ "slice_ms = 60001", "from 1 to 60000, got '60001'" },
	{ "slice_ms = abc", "got 'abc'" },
	{ "slice_ms = -5", "got '-5'" },
	{ "slice_ms = +5", "got '+5'" },
	{ "slice_ms = 4 ms", "got '4 ms'" },
	{ "slice_ms = 99999999999", "got '99999999999'" },
	{ "max_inflight_per_client = 1000001", "from 0 to 1000000 (0 = unlimited)" },
	{ "vgroup_timeout_ms = 3600001", "from 0 to 3600000 (0 = no timeout)" },
	{ "anticipate_us = 1000001", "'anticipate_us' must be an integer from 0 to 1000000 (0 = off)" },
	{ "anticipate_lead_us = 1000001", "'anticipate_lead_us' must be an integer from 0 to 1000000, got" },
	{ "hold_charge_pct = 0", "'hold_charge_pct' must be an integer from 1 to 100, got '0'" },
	{ "hold_charge_pct = 101", "'hold_charge_pct' must be an integer from 1 to 100, got '101'" },
	{ "response_floor_us = 1000001", "'response_floor_us' must be an integer from 0 to 1000000 (0 = off)" },
	{ "lone_slice_ms = 60001", "'lone_slice_ms' must be an integer from 0 to 60000 (0 = off)" },
	{ "rejoin_credit_us = 1000001", "'rejoin_credit_us' must be an integer from 0 to 1000000 (0 = none)" },
	{ "solo_native_us = -1", "'solo_native_us' must be an integer from 0 to 1000000 (0 = off)" },
	{ "cpu_loop_align = 24", "'cpu_loop_align' must be 0 (LLVM's own) or a power of two from 16 to 128, got '24'" },
	{ "cpu_loop_align = 8", "power of two from 16 to 128, got '8'" },
	{ "cpu_loop_align = 256", "power of two from 16 to 128, got '256'" },
	{ "cpu_loop_align = 32b", "'cpu_loop_align' must be an integer from 0 to 128 (0 = LLVM's own), got '32b'" },
	{ "wave_shape = persistent", "unknown wave_shape 'persistent' (expected one of: auto loop direct)" },
	{ "bogus = 1", "unknown key 'bogus'" },
	{ "Policy = fair", "unknown key 'Policy'" },
	{ "just some words", "expected 'key = value', got 'just some words'" },
	{ "= 5", "missing key before '='" },
	{ "slice_ms =", "missing value for 'slice_ms'" },
	{ "slice_ms = # none", "missing value for 'slice_ms'" },
	{ "slice ms = 4", "key 'slice ms' contains whitespace" },
	{ "weight. = 2", "missing uid or client name after 'weight.'" },
	{ "weight.bob = 0", "'weight.bob' must be an integer from 1 to 1000, got '0'" },
	{ "weight.bob = 1001", "got '1001'" },
	{ "weight.99999999999 = 2", "uid '99999999999' is out of range" },
	{ "weight.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa = 2", "is longer than 63 bytes" },
	{ "slice_ms = 8", "duplicate key 'slice_ms' (first set on line 2)" },
	{ "weight.7 = 3", "duplicate key 'weight.7' (first set on line 1)" },
};

START_TEST(each_error_has_line_and_reason)
{
	char text[256];
	snprintf(text, sizeof(text), "weight.0007 = 2\nslice_ms = 5\n%s\n", bad_lines[_i].line);
	ck_assert_int_eq(parse(text), -EINVAL);
	ck_assert_uint_eq(errs.count, 1);
	ck_assert_uint_eq(errs.e[0].line, 3);
	if (!strstr(errs.e[0].reason, bad_lines[_i].reason))
		ck_abort_msg("line '%s': reason '%s' lacks '%s'", bad_lines[_i].line, errs.e[0].reason,
			     bad_lines[_i].reason);
	/* A failed parse changes nothing. */
	ck_assert_uint_eq(cfg.slice_ms, 4);
	ck_assert_uint_eq(cfg.n_weights, 0);
}
END_TEST

START_TEST(nul_byte)
{
	static const char text[] = "policy = fair\nslice_ms = 4\0\n";
	ck_assert_int_eq(aos_sched_config_parse(&cfg, text, sizeof(text) - 1, &errs), -EINVAL);
	ck_assert_uint_eq(errs.count, 1);
	ck_assert_uint_eq(errs.e[0].line, 2);
	ck_assert_str_eq(errs.e[0].reason, "NUL byte in line");
}
END_TEST

START_TEST(all_errors_reported)
{
	const char *text = "policy = fair\n"
			   "slice_ms = 0\n"   /* 2 */
			   "# fine\n"
			   "color = blue\n"   /* 4 */
			   "weight.x = 2\n"
			   "weight.x = 3\n";  /* 6 */
	ck_assert_int_eq(parse(text), -EINVAL);
	ck_assert_uint_eq(errs.count, 3);
	ck_assert_uint_eq(errs.e[0].line, 2);
	ck_assert_uint_eq(errs.e[1].line, 4);
	ck_assert_uint_eq(errs.e[2].line, 6);
	ck_assert_ptr_nonnull(strstr(errs.e[2].reason, "first set on line 5"));
	ck_assert_uint_eq(cfg.n_weights, 0);

	/* More than fit: all counted, the first 16 kept. */
	char many[1024] = "";
	for (int i = 0; i < 20; i++)
		strcat(many, "nope = 1\n");
	ck_assert_int_eq(parse(many), -EINVAL);
	ck_assert_uint_eq(errs.count, 20);
	ck_assert_uint_eq(errs.e[AOS_SCHED_CONFIG_MAX_ERRORS - 1].line, AOS_SCHED_CONFIG_MAX_ERRORS);

	/* errs may be NULL. */
	ck_assert_int_eq(aos_sched_config_parse(&cfg, "x", 1, NULL), -EINVAL);
	ck_assert_int_eq(aos_sched_config_parse(NULL, "x", 1, NULL), -EINVAL);
}
END_TEST

START_TEST(load_files)
{
	/* A missing file is line 0 with the system's reason. */
	ck_assert_int_eq(aos_sched_config_load(&cfg, "/nonexistent/accelosd.conf", &errs), -ENOENT);
	ck_assert_uint_eq(errs.count, 1);
	ck_assert_uint_eq(errs.e[0].line, 0);
	ck_assert_ptr_nonnull(strstr(errs.e[0].reason, "cannot open '/nonexistent/accelosd.conf'"));

	ck_assert_int_eq(aos_sched_config_load(&cfg, "/", &errs), -EINVAL);
	ck_assert_ptr_nonnull(strstr(errs.e[0].reason, "not a regular file"));

	/* A file with an error on line 3. */
	char path[] = "/tmp/aos-sched-config-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	const char *text = "policy = fifo\n\nslice_ms = 0\n";
	ck_assert_int_eq(write(fd, text, strlen(text)), (int)strlen(text));
	close(fd);
	ck_assert_int_eq(aos_sched_config_load(&cfg, path, &errs), -EINVAL);
	ck_assert_uint_eq(errs.count, 1);
	ck_assert_uint_eq(errs.e[0].line, 3);
	ck_assert_int_eq(cfg.policy, AOS_SCHED_POLICY_FAIR);
	unlink(path);
}
END_TEST

START_TEST(weight_lookup)
{
	ck_assert_int_eq(parse("weight.1000 = 3\nweight.alice = 5\nweight.bob = 2\n"), 0);
	ck_assert_uint_eq(aos_sched_config_weight(&cfg, 1000, "alice"), 3); /* uid first */
	ck_assert_uint_eq(aos_sched_config_weight(&cfg, 1001, "alice"), 5);
	ck_assert_uint_eq(aos_sched_config_weight(&cfg, 1001, "bob"), 2);
	ck_assert_uint_eq(aos_sched_config_weight(&cfg, 1001, "carol"), 1);
	ck_assert_uint_eq(aos_sched_config_weight(&cfg, 1001, NULL), 1);
	ck_assert_uint_eq(aos_sched_config_weight(NULL, 1000, NULL), 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sched-config");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, defaults);
	tcase_add_test(tc, good_file);
	tcase_add_test(tc, shipped_example_parses);
	tcase_add_test(tc, cpu_loop_aligns);
	tcase_add_test(tc, wave_shapes);
	tcase_add_test(tc, wave_shape_per_device);
	tcase_add_loop_test(tc, each_error_has_line_and_reason, 0, (int)(sizeof(bad_lines) / sizeof(bad_lines[0])));
	tcase_add_test(tc, nul_byte);
	tcase_add_test(tc, all_errors_reported);
	tcase_add_test(tc, load_files);
	tcase_add_test(tc, weight_lookup);
	suite_add_tcase(s, tc);
	return aos_check_run(s);
}
