/* Reading the daemon's --trace file in tests: one JSON line per logical launch. */
#ifndef ACCELOS_TEST_TRACE_READ_H
#define ACCELOS_TEST_TRACE_READ_H

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Waits (up to 5 s: records are written when a launch ends) for the nth line (from 1) containing
 * needle. */
static inline bool trace_find_nth(const char *path, const char *needle, int nth, char *line, size_t size)
{
    for (int i = 0; i < 500; i++) {
        FILE *f = fopen(path, "r");
        if (f) {
            int seen = 0;
            while (fgets(line, (int)size, f))
                if (strstr(line, needle) && ++seen == nth) {
                    fclose(f);
                    return true;
                }
            fclose(f);
        }
        usleep(10000);
    }
    return false;
}

/* The last line containing needle as the file stands now (no wait). */
static inline bool trace_find_last(const char *path, const char *needle, char *line, size_t size)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char *buf = malloc(size);
    bool found = false;
    while (buf && fgets(buf, (int)size, f))
        if (strstr(buf, needle)) {
            memcpy(line, buf, size);
            found = true;
        }
    free(buf);
    fclose(f);
    return found;
}

static inline bool trace_find(const char *path, const char *needle, char *line, size_t size)
{
    return trace_find_nth(path, needle, 1, line, size);
}

static inline unsigned long long trace_field(const char *line, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof(pat), "\"%s\":", key);
    const char *p = strstr(line, pat);
    ck_assert_msg(p != NULL, "no %s in %s", key, line);
    return strtoull(p + strlen(pat), NULL, 10);
}

/* The in-flight window (admitted_host_ns, ended_host_ns) of the nth launch (from 1) whose line
 * contains needle; fails the test when it has no line. */
static inline void trace_span_nth(const char *path, const char *needle, int nth, unsigned long long *admitted,
                                  unsigned long long *ended)
{
    char line[4096];
    ck_assert_msg(trace_find_nth(path, needle, nth, line, sizeof(line)), "no trace line %d with %s", nth, needle);
    *admitted = trace_field(line, "admitted_host_ns");
    *ended = trace_field(line, "ended_host_ns");
}

static inline long long trace_signed(const char *line, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof(pat), "\"%s\":", key);
    const char *p = strstr(line, pat);
    ck_assert_msg(p != NULL, "no %s in %s", key, line);
    return strtoll(p + strlen(pat), NULL, 10);
}

/* Host time (CLOCK_MONOTONIC ns) the launch's first wave started: the first pair of
 * "groups_over_time". */
static inline unsigned long long trace_first_wave_ns(const char *line)
{
    const char *p = strstr(line, "\"groups_over_time\":[[");
    ck_assert_msg(p != NULL, "no wave in %s", line);
    return strtoull(p + strlen("\"groups_over_time\":[["), NULL, 10);
}

/* The physical group counts of "groups_over_time":[[t,g],...], in order; returns how many. */
static inline size_t trace_groups(const char *line, unsigned *groups, size_t cap)
{
    const char *p = strstr(line, "\"groups_over_time\":[");
    ck_assert_msg(p != NULL, "no groups_over_time in %s", line);
    p += strlen("\"groups_over_time\":[");
    size_t n = 0;
    while (*p == '[' && n < cap) {
        const char *comma = strchr(p, ',');
        if (!comma)
            break;
        groups[n++] = (unsigned)strtoul(comma + 1, NULL, 10);
        p = strchr(comma, ']');
        if (!p)
            break;
        p++;
        if (*p == ',')
            p++;
    }
    return n;
}

#endif
