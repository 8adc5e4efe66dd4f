#ifndef AOS_CLOCK_H
#define AOS_CLOCK_H
#include <stdint.h>
/* CLOCK_MONOTONIC in nanoseconds: shared by all processes on the host,
 * so tenants' timestamps can be compared directly. */
uint64_t aos_clock_now_ns(void);
#endif
