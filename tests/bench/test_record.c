/* Unit tests of the strict JSON-lines record reader. */
#include "aos_json.h"
#include "aos_record.h"
#include "check_run.h"
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define GOOD "{\"config\":\"pocl\",\"mix\":3,\"tenant\":1,\"kernel\":\"sgemm:mysgemmNT\"," \
	     "\"arrival_ns\":100,\"start_ns\":150,\"end_ns\":400,\"iso_ns\":125}"

START_TEST(parses_a_mix_record)
{
	struct aos_record r;
	char err[256];
	ck_assert_int_eq(aos_record_parse(GOOD, &r, err, sizeof(err)), 0);
	ck_assert_str_eq(r.config, "pocl");
	ck_assert_str_eq(r.kernel, "sgemm:mysgemmNT");
	ck_assert_int_eq(r.mix, 3);
	ck_assert_int_eq(r.tenant, 1);
	ck_assert_int_eq(r.run, 0);
	ck_assert_int_eq(r.failed, 0);
	ck_assert_double_eq(r.arrival_ns, 100);
	ck_assert_double_eq(r.end_ns, 400);
	ck_assert_double_eq(r.iso_ns, 125);
}
END_TEST

START_TEST(parses_a_daemon_trace_record)
{
	struct aos_record r;
	char err[256];
	const char *t = "{\"type\":\"trace\",\"config\":\"accelos\",\"mix\":0,\"client\":4,\"kernel\":\"k\","
			"\"start_ns\":5,\"end_ns\":9,\"iso_ns\":2,\"future_field\":[1,{\"x\":null}]}";
	ck_assert_int_eq(aos_record_parse(t, &r, err, sizeof(err)), 0);
	ck_assert_int_eq(r.tenant, 4);
	ck_assert_double_eq(r.arrival_ns, 5); /* defaults to start */
	ck_assert_int_eq(r.trace, 0);         /* it carries its isolated time: taken as it is */
}
END_TEST

START_TEST(a_trace_record_needs_no_mix_or_isolated_time)
{
	struct aos_record r;
	char err[256];
	const char *t = "{\"type\":\"trace\",\"config\":\"a\",\"client\":2,\"kernel\":\"k\","
			"\"arrival_ns\":1,\"start_ns\":5,\"end_ns\":9}";
	ck_assert_int_eq(aos_record_parse(t, &r, err, sizeof(err)), 0);
	ck_assert_int_eq(r.trace, 1);
	ck_assert_double_eq(r.iso_ns, 0);
	/* The harness's records still need both. */
	const char *e = "{\"config\":\"a\",\"tenant\":2,\"kernel\":\"k\",\"mix\":0,\"start_ns\":5,\"end_ns\":9}";
	ck_assert_int_eq(aos_record_parse(e, &r, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "iso_ns"));
	const char *m = "{\"config\":\"a\",\"tenant\":2,\"kernel\":\"k\",\"start_ns\":5,\"end_ns\":9,\"iso_ns\":1}";
	ck_assert_int_eq(aos_record_parse(m, &r, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "mix"));
}
END_TEST

START_TEST(round_trips_through_the_writer)
{
	struct aos_record r, back;
	char buf[1024], err[256];
	ck_assert_int_eq(aos_record_parse(GOOD, &r, err, sizeof(err)), 0);
	r.failed = 1;
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	aos_record_write(f, &r, "procs");
	fclose(f);
	ck_assert_int_eq(aos_record_parse(buf, &back, err, sizeof(err)), 0);
	ck_assert_int_eq(back.failed, 1);
	ck_assert_int_eq(back.mix, 3);
	ck_assert_double_eq(back.start_ns, 150);
}
END_TEST

START_TEST(round_trips_corun_executions)
{
	struct aos_record r, back;
	char buf[1024], err[256];
	ck_assert_int_eq(aos_record_parse(GOOD, &r, err, sizeof(err)), 0);
	ck_assert_int_eq(r.corun_execs, 0);
	r.execs = 7;
	r.corun_execs = 12;
	r.corun_end_ns = 900;
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	aos_record_write(f, &r, "procs");
	fclose(f);
	ck_assert_int_eq(aos_record_parse(buf, &back, err, sizeof(err)), 0);
	ck_assert_int_eq(back.execs, 7);
	ck_assert_int_eq(back.corun_execs, 12);
	ck_assert_double_eq(back.corun_end_ns, 900);
	/* Busy until before its own counted end: a record that contradicts itself. */
	const char *bad = "{\"config\":\"a\",\"mix\":0,\"tenant\":0,\"kernel\":\"k\",\"start_ns\":5,"
			  "\"end_ns\":9,\"iso_ns\":1,\"corun_execs\":3,\"corun_end_ns\":8}";
	ck_assert_int_eq(aos_record_parse(bad, &back, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "corun_end_ns"));
}
END_TEST

START_TEST(rejects_malformed_json)
{
	struct aos_json *v;
	char err[256];
	const char *bad[] = { "{\"a\":1,}", "{\"a\":NaN}", "[1 2]", "{\"a\":01}", "{\"a\":1} x",
			      "{'a':1}", "{\"a\":\"\\q\"}", "{\"a\":tru}", "", "{\"a\":1e}" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(aos_json_parse(bad[i], &v, err, sizeof(err)) != 0, "accepted %s", bad[i]);
		ck_assert_ptr_null(v);
	}
	ck_assert_int_eq(aos_json_parse("{\"s\":\"a\\u00e9\\n\",\"n\":-1.5e2}", &v, err, sizeof(err)), 0);
	ck_assert_str_eq(aos_json_get(v, "s")->string, "a\xc3\xa9\n");
	ck_assert_double_eq(aos_json_get(v, "n")->number, -150.0);
	aos_json_free(v);
}
END_TEST

START_TEST(rejects_bad_fields)
{
	struct aos_record r;
	char err[256];
	ck_assert_int_ne(aos_record_parse("{\"config\":\"c\",\"mix\":1,\"tenant\":0,\"kernel\":\"k\",\"end_ns\":1,\"iso_ns\":1}",
					  &r, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "start_ns"));
	ck_assert_int_ne(aos_record_parse("{\"config\":\"c\",\"mix\":1.5,\"tenant\":0,\"kernel\":\"k\",\"start_ns\":0,"
					  "\"end_ns\":1,\"iso_ns\":1}", &r, err, sizeof(err)), 0);
	ck_assert_int_ne(aos_record_parse("{\"config\":\"c\",\"mix\":1,\"tenant\":0,\"kernel\":\"k\",\"start_ns\":5,"
					  "\"end_ns\":1,\"iso_ns\":1}", &r, err, sizeof(err)), 0);
	ck_assert_int_ne(aos_record_parse("{\"config\":\"c\",\"mix\":1,\"tenant\":0,\"kernel\":\"k\",\"start_ns\":0,"
					  "\"end_ns\":1,\"iso_ns\":1,\"status\":\"meh\"}", &r, err, sizeof(err)), 0);
	ck_assert_int_ne(aos_record_parse("[1]", &r, err, sizeof(err)), 0);
}
END_TEST

START_TEST(malformed_line_reports_line_number)
{
	char text[2048], err[256];
	snprintf(text, sizeof(text), "%s\n\n%s\n{\"config\":\"pocl\",\"mix\":3,,}\n%s\n", GOOD, GOOD, GOOD);
	FILE *f = fmemopen(text, strlen(text), "r");
	struct aos_recordset set = { 0 };
	ck_assert_int_ne(aos_recordset_load(&set, f, "runs.jsonl", err, sizeof(err)), 0);
	fclose(f);
	ck_assert_msg(strncmp(err, "runs.jsonl:4:", 13) == 0, "got \"%s\"", err);
	ck_assert_int_eq(set.count, 2);
	aos_recordset_free(&set);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bench-record");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, parses_a_mix_record);
	tcase_add_test(tc, parses_a_daemon_trace_record);
	tcase_add_test(tc, a_trace_record_needs_no_mix_or_isolated_time);
	tcase_add_test(tc, round_trips_through_the_writer);
	tcase_add_test(tc, round_trips_corun_executions);
	tcase_add_test(tc, rejects_malformed_json);
	tcase_add_test(tc, rejects_bad_fields);
	tcase_add_test(tc, malformed_line_reports_line_number);
	suite_add_tcase(s, tc);
	return aos_check_run(s);
}
