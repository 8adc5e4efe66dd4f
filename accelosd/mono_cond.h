/*
 * Condition variables timed on the monotonic clock (aos_now_ns), and detached helper threads: the
 * daemon's pollers (the device schedulers, the event watcher, the solo watchdog) wait this way, so
 * that a change of the wall clock never stretches or cuts a poll.
 */
#ifndef ACCELOSD_MONO_COND_H
#define ACCELOSD_MONO_COND_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <time.h>

#include "accelos/futex.h"

static inline void aos_cond_init_monotonic(pthread_cond_t *c)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(c, &attr);
    pthread_condattr_destroy(&attr);
}

/* The absolute time ns from now, for pthread_cond_timedwait on such a condition variable. */
static inline void aos_deadline_in(struct timespec *ts, uint64_t ns)
{
    uint64_t t = aos_now_ns() + ns;
    ts->tv_sec = (time_t)(t / 1000000000ull);
    ts->tv_nsec = (long)(t % 1000000000ull);
}

/* Names the calling thread (at most 15 bytes show): `top -H` and /proc/PID/task/TID/comm tell
 * the daemon's threads apart, and tests count one thread's wake-ups. */
static inline void aos_thread_name(const char *name)
{
    prctl(PR_SET_NAME, name, 0, 0, 0);
}

/* Starts fn(arg) on a thread nobody joins; false when it could not start. */
static inline bool aos_thread_start_detached(void *(*fn)(void *), void *arg)
{
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    bool ok = pthread_create(&t, &attr, fn, arg) == 0;
    pthread_attr_destroy(&attr);
    return ok;
}

/* Starts a poller on first use: its monotonic condition variable, then fn on a detached thread.
 * The caller holds the lock that guards *started; true once the thread runs. */
static inline bool aos_poller_start_locked(bool *started, pthread_cond_t *cond, void *(*fn)(void *))
{
    if (*started)
        return true;
    aos_cond_init_monotonic(cond);
    *started = aos_thread_start_detached(fn, NULL);
    return *started;
}

#endif
