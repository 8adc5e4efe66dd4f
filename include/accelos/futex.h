/* Cross-process futex wait/wake on 32-bit words in shared memory. */
#ifndef ACCELOS_FUTEX_H
#define ACCELOS_FUTEX_H

#include <stdatomic.h>
#include <stdint.h>

/* Sleeps while *word == expected, at most timeout_ns (negative: no limit).
 * Returns 0 when woken or the value differed, -ETIMEDOUT, or -EINTR. */
int aos_futex_wait(_Atomic uint32_t *word, uint32_t expected, int64_t timeout_ns);
/* Wakes up to n sleepers on word. */
void aos_futex_wake(_Atomic uint32_t *word, int n);

/* Monotonic clock in nanoseconds. */
uint64_t aos_now_ns(void);

#endif
