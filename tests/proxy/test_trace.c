/* Unit tests of the daemon's launch trace file (accelosd/trace.c): its size limit. */
#include <check.h>
#include "check_run.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace.h"

static char dir[] = "/tmp/aos-test-trace-XXXXXX";
static char path[PATH_MAX], old[PATH_MAX];

static void setup(void)
{
	strcpy(dir, "/tmp/aos-test-trace-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/trace.jsonl", dir);
	snprintf(old, sizeof(old), "%s/trace.jsonl.1", dir);
}

static void teardown(void)
{
	aos_trace_close();
	unlink(path);
	unlink(old);
	rmdir(dir);
}

static void write_records(int n)
{
	for (int i = 0; i < n; i++) {
		struct aos_trace_launch t = { .client = 1, .pid = 42, .kernel = "k", .ok = true, .waves = 1,
					      .virtual_groups = (uint32_t)i };
		aos_trace_launch(&t);
	}
}

/* Complete records in a file, -1 when it does not exist; every line must end its record. */
static int records_in(const char *p, off_t *size)
{
	FILE *f = fopen(p, "r");
	if (!f)
		return -1;
	char line[4096];
	int n = 0;
	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);
		ck_assert_msg(len >= 3 && strcmp(line + len - 3, "]}\n") == 0, "cut record: %s", line);
		n++;
	}
	fclose(f);
	struct stat st;
	ck_assert_int_eq(stat(p, &st), 0);
	*size = st.st_size;
	return n;
}

START_TEST(a_full_trace_moves_aside_and_a_new_one_starts)
{
	const uint64_t limit = 4000; /* about a dozen records */
	ck_assert_int_eq(aos_trace_open(path, "accelosd-fair", limit), 0);
	write_records(40);
	off_t cur_size, old_size;
	int cur = records_in(path, &cur_size), moved = records_in(old, &old_size);
	/* A file ends with the record that takes it to the limit: .1 holds the last full file, the
	 * current one what came after it, and the full files before it were replaced. */
	ck_assert_int_gt(moved, 0);
	ck_assert_int_gt(cur, 0);
	ck_assert_int_le(cur, moved);
	ck_assert_uint_ge((uint64_t)old_size, limit);
	ck_assert_uint_lt((uint64_t)old_size, limit + 1000); /* one record past the limit at most */
	ck_assert_uint_lt((uint64_t)cur_size, limit);
	int replaced = 40 - cur - moved;
	ck_assert_int_ge(replaced, moved); /* 40 records fill more than two files */
	FILE *f = fopen(old, "r");
	char line[4096], want[64];
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	fclose(f);
	snprintf(want, sizeof(want), "\"virtual_groups\":%d,", replaced);
	ck_assert_msg(strstr(line, want), "%s does not start with record %d: %s", old, replaced, line);
}
END_TEST

START_TEST(no_limit_keeps_one_file)
{
	ck_assert_int_eq(aos_trace_open(path, "accelosd-fair", 0), 0);
	write_records(40);
	off_t size;
	ck_assert_int_eq(records_in(path, &size), 40);
	ck_assert_int_eq(records_in(old, &size), -1);
}
END_TEST

START_TEST(an_existing_trace_is_appended_to)
{
	ck_assert_int_eq(aos_trace_open(path, "accelosd-fair", 0), 0);
	write_records(3);
	aos_trace_close();
	ck_assert_int_eq(aos_trace_open(path, "accelosd-fair", 0), 0);
	write_records(2);
	off_t size;
	ck_assert_int_eq(records_in(path, &size), 5);
}
END_TEST

START_TEST(a_trace_that_cannot_be_opened_is_an_error)
{
	char missing[PATH_MAX + 32];
	snprintf(missing, sizeof(missing), "%s/no-such-dir/trace.jsonl", dir);
	ck_assert_int_eq(aos_trace_open(missing, "accelosd-fair", 0), -ENOENT);
	ck_assert(!aos_trace_enabled());
}
END_TEST

int main(void)
{
	Suite *s = suite_create("trace");
	TCase *tc = tcase_create("file");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, a_full_trace_moves_aside_and_a_new_one_starts);
	tcase_add_test(tc, no_limit_keeps_one_file);
	tcase_add_test(tc, an_existing_trace_is_appended_to);
	tcase_add_test(tc, a_trace_that_cannot_be_opened_is_an_error);
	suite_add_tcase(s, tc);
	return aos_check_run(s);
}
