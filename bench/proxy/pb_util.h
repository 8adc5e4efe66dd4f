/* Clock, sleep and median shared by accelos-proxy-bench's parts. */
#ifndef PB_UTIL_H
#define PB_UTIL_H

#include <stdint.h>

/* How blocking calls follow each other in a round-trip measurement (see proxy_bench.c). */
enum pb_regime {
    PB_BACK_TO_BACK, /* the next call at once: the daemon is still polling */
    PB_ASLEEP,       /* a pause before each call: both sides sleep on futexes */
    PB_BUSY,         /* the same pause, while another thread keeps the daemon serving */
    PB_REGIME_COUNT
};

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t pb_now_ns(void);
/* Sleeps ns nanoseconds, resuming after signals. */
void pb_sleep_ns(uint64_t ns);
/* Median of v[0..n) (0 when n <= 0); v is left as it was. Exits on allocation failure. */
double pb_median(const double *v, int n);

#endif
