/*
 * Events the daemon may never release: PoCL frees a failed event in ways that make a later
 * release unsafe (ops_event.c), so an event of the daemon's own that ended in failure is parked,
 * its reference kept, until the owner of the park releases everything at shutdown (or never).
 * The device schedulers park their failed user events and gates; the solo launches their failed
 * user events.
 */
#ifndef ACCELOSD_EVENT_PARK_H
#define ACCELOSD_EVENT_PARK_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "native.h"

struct aos_event_park {
    pthread_mutex_t lock;
    cl_event *events;
    size_t count, cap;
};

#define AOS_EVENT_PARK_INIT {.lock = PTHREAD_MUTEX_INITIALIZER}

/* ev's execution status; CL_INVALID_EVENT when it cannot be read. Any thread. */
cl_int aos_event_exec_status(cl_event ev);
/* Whether ev has ended in failure (a negative execution status). Any thread. */
bool aos_event_failed(cl_event ev);
/* Releases ev (one reference) when it completed successfully, else keeps it in p. Any thread. */
void aos_event_release_or_park(struct aos_event_park *p, cl_event ev);
/* Events kept in p. */
size_t aos_event_park_count(struct aos_event_park *p);
/* Releases every event kept in p: only once nothing can reach them any more (shutdown). */
void aos_event_park_release_all(struct aos_event_park *p);

#endif
