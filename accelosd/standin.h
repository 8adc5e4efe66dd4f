/*
 * Stand-ins for failed events in wait lists. PoCL 3.1 neither runs nor fails a command enqueued
 * behind an event that has already failed: the command stays queued, and clFinish on its queue
 * never returns, the application's and the daemon's own at the session's end. So the daemon puts
 * a new user event in the failed event's place and fails it once the command is enqueued; PoCL
 * then fails the command as it does for a failure that comes after the enqueue.
 */
#ifndef ACCELOSD_STANDIN_H
#define ACCELOSD_STANDIN_H

#include <stdint.h>

#include "native.h"

struct aos_standins {
    cl_event *events; /* not yet failed */
    uint32_t n, cap;
};

/* Replaces each event of wait[0..n) that has failed by a new user event of ctx, kept in st.
 * CL_SUCCESS, or CL_OUT_OF_HOST_MEMORY (wait may then hold some stand-ins, kept in st too). */
cl_int aos_standins_take(struct aos_standins *st, cl_context ctx, cl_event *wait, uint32_t n);
/* Fails every stand-in in st with CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST: after the
 * request that took them has enqueued its command. They are kept, never released (a failed
 * event, event_park.h). */
void aos_standins_fail(struct aos_standins *st);
/* Stand-ins failed so far, all sessions. */
size_t aos_standins_parked(void);
void aos_standins_free(struct aos_standins *st);

#endif
