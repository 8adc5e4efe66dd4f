/*
 * Solo launches in tests (docs/scheduler.md §6, *Solo launches*): the first launches of a kernel
 * measure it in waves, and only then may it run solo. These helpers launch the spin kernel
 * (spin_kernel.h) until the daemon reports a solo launch of the calling process.
 */
#ifndef ACCELOS_TEST_SOLO_TRAIN_H
#define ACCELOS_TEST_SOLO_TRAIN_H

#include <unistd.h>

#include "daemon_status.h"
#include "spin_kernel.h"

/* Short launches: a few groups of spin work, microseconds each. */
enum { AOS_SOLO_LOCAL = 16, AOS_SOLO_GROUPS = 4, AOS_SOLO_ROUNDS = 50, AOS_SOLO_TRAIN_MAX = 100 };

/* Launches the spin kernel k `n` times over AOS_SOLO_GROUPS groups, each waited for and checked:
 * 0, or 1 wrong results, 3 a failed step. */
static inline int aos_test_short_launches(cl_context ctx, cl_command_queue q, cl_kernel k, int n, cl_uint rounds)
{
    return aos_spin_waited_launches(ctx, q, k, n, AOS_SOLO_GROUPS, AOS_SOLO_LOCAL, rounds);
}

/* Launches k (`rounds` per item) until one runs solo: the first launches measure the code in
 * waves, and while the device still compiles it (a slow build, a cold cache) that takes a few. 0, 4
 * when none ran solo in AOS_SOLO_TRAIN_MAX launches, else what aos_test_short_launches says. */
static inline int aos_test_train_until_solo_at(cl_context ctx, cl_command_queue q, cl_kernel k, cl_uint rounds)
{
    long long solo0 = aos_test_status_solo(getpid());
    for (int i = 0; i < AOS_SOLO_TRAIN_MAX; i++) {
        int rc = aos_test_short_launches(ctx, q, k, 1, rounds);
        if (rc)
            return rc;
        if (aos_test_status_solo(getpid()) > solo0)
            return 0;
    }
    return 4;
}

/* The same at AOS_SOLO_ROUNDS: launches of microseconds. */
static inline int aos_test_train_until_solo(cl_context ctx, cl_command_queue q, cl_kernel k)
{
    return aos_test_train_until_solo_at(ctx, q, k, AOS_SOLO_ROUNDS);
}

#endif
