#include "accelos/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

static int current_level = -1;
static const char *const level_names[] = {"error", "warn", "info", "debug"};

void aos_log_set_level(int level) { current_level = level; }
int aos_log_level(void) { return current_level; }

void aos_log(int level, const char *subsys, const char *fmt, ...)
{
    if (level > current_level || level < 0 || level > AOS_LOG_DEBUG)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    /* One fprintf per line so concurrent threads do not interleave inside a line. Debug lines carry
     * the monotonic clock (seconds), so that a wave, a hold and a cut can be put in order. */
    if (level == AOS_LOG_DEBUG) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        fprintf(stderr, "accelos[%s] %s: %lld.%06ld %s\n", subsys, level_names[level], (long long)ts.tv_sec,
                ts.tv_nsec / 1000, line);
        return;
    }
    fprintf(stderr, "accelos[%s] %s: %s\n", subsys, level_names[level], line);
}
