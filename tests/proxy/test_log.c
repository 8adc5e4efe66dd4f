/* Unit tests of the shared logger (common/log.c): levels, the line format, and the monotonic
 * clock on debug lines, which is how a wave, a hold and a cut are put in order with the trace. */
#include <check.h>
#include "check_run.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accelos/futex.h"
#include "accelos/log.h"

/* Runs the logger with stderr sent to a temporary file and returns what it wrote. */
static char captured[4096];

static void capture_begin(FILE **f, int *saved)
{
    fflush(stderr);
    *f = tmpfile();
    ck_assert_ptr_nonnull(*f);
    *saved = dup(STDERR_FILENO);
    ck_assert_int_ge(*saved, 0);
    ck_assert_int_ge(dup2(fileno(*f), STDERR_FILENO), 0);
}

static const char *capture_end(FILE *f, int saved)
{
    fflush(stderr);
    ck_assert_int_ge(dup2(saved, STDERR_FILENO), 0);
    close(saved);
    rewind(f);
    size_t n = fread(captured, 1, sizeof(captured) - 1, f);
    captured[n] = '\0';
    fclose(f);
    return captured;
}

START_TEST(test_levels_above_the_current_are_silent)
{
    FILE *f;
    int saved;
    aos_log_set_level(AOS_LOG_INFO);
    capture_begin(&f, &saved);
    aos_log(AOS_LOG_DEBUG, "sched", "not shown %d", 1);
    aos_log(AOS_LOG_INFO, "sched", "shown %d", 2);
    aos_log(AOS_LOG_ERROR, "server", "shown %d", 3);
    const char *text = capture_end(f, saved);
    ck_assert_str_eq(text, "accelos[sched] info: shown 2\naccelos[server] error: shown 3\n");
    aos_log_set_level(-1);
    capture_begin(&f, &saved);
    aos_log(AOS_LOG_ERROR, "server", "off");
    ck_assert_str_eq(capture_end(f, saved), "");
}
END_TEST

START_TEST(test_debug_lines_carry_the_monotonic_clock)
{
    FILE *f;
    int saved;
    aos_log_set_level(AOS_LOG_DEBUG);
    double before = (double)aos_now_ns() / 1e9;
    capture_begin(&f, &saved);
    aos_log(AOS_LOG_DEBUG, "sched", "first %s", "wave");
    usleep(2000);
    aos_log(AOS_LOG_DEBUG, "sched", "second");
    aos_log(AOS_LOG_INFO, "sched", "plain");
    const char *text = capture_end(f, saved);
    double after = (double)aos_now_ns() / 1e9;
    double t1 = 0, t2 = 0;
    char msg1[64] = "", msg2[64] = "", frac1[16] = "", frac2[16] = "";
    long long s1 = 0, s2 = 0;
    /* "accelos[sched] debug: SECONDS.MICROS message" */
    ck_assert_int_eq(sscanf(text, "accelos[sched] debug: %lld.%15[0-9] %63[^\n]", &s1, frac1, msg1), 3);
    const char *line2 = strchr(text, '\n');
    ck_assert_ptr_nonnull(line2);
    ck_assert_int_eq(sscanf(line2 + 1, "accelos[sched] debug: %lld.%15[0-9] %63[^\n]", &s2, frac2, msg2), 3);
    ck_assert_str_eq(msg1, "first wave");
    ck_assert_str_eq(msg2, "second");
    ck_assert_uint_eq(strlen(frac1), 6); /* microseconds, zero-padded */
    ck_assert_uint_eq(strlen(frac2), 6);
    t1 = (double)s1 + atof(frac1) / 1e6;
    t2 = (double)s2 + atof(frac2) / 1e6;
    ck_assert_msg(t1 >= before - 1e-6 && t2 <= after + 1e-6, "stamps %.6f %.6f outside [%.6f, %.6f]", t1, t2,
                  before, after);
    ck_assert_msg(t2 - t1 >= 0.0019, "second line %.6f s after the first, slept 2 ms", t2 - t1);
    /* Lines at other levels stay as they were. */
    ck_assert_ptr_nonnull(strstr(text, "\naccelos[sched] info: plain\n"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("log");
    TCase *tc = tcase_create("log");
    tcase_add_test(tc, test_levels_above_the_current_are_silent);
    tcase_add_test(tc, test_debug_lines_carry_the_monotonic_clock);
    suite_add_tcase(s, tc);
    return aos_check_run(s);
}
