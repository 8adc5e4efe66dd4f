/* Parked events: see event_park.h. */
#include "event_park.h"

#include <stdlib.h>

cl_int aos_event_exec_status(cl_event ev)
{
    cl_int status = CL_INVALID_EVENT;
    if (NATIVE(ev, clGetEventInfo)(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL) !=
        CL_SUCCESS)
        return CL_INVALID_EVENT;
    return status;
}

bool aos_event_failed(cl_event ev)
{
    cl_int status = aos_event_exec_status(ev);
    return status < 0 && status != CL_INVALID_EVENT;
}

void aos_event_release_or_park(struct aos_event_park *p, cl_event ev)
{
    if (aos_event_exec_status(ev) == CL_COMPLETE) {
        NATIVE(ev, clReleaseEvent)(ev);
        return;
    }
    pthread_mutex_lock(&p->lock);
    if (p->count == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 16;
        cl_event *grown = realloc(p->events, cap * sizeof(*grown));
        if (grown) {
            p->events = grown;
            p->cap = cap;
        }
    }
    if (p->count < p->cap)
        p->events[p->count++] = ev;
    /* else out of memory: leaking one reference is safe, releasing it is not */
    pthread_mutex_unlock(&p->lock);
}

size_t aos_event_park_count(struct aos_event_park *p)
{
    pthread_mutex_lock(&p->lock);
    size_t n = p->count;
    pthread_mutex_unlock(&p->lock);
    return n;
}

void aos_event_park_release_all(struct aos_event_park *p)
{
    pthread_mutex_lock(&p->lock);
    for (size_t i = 0; i < p->count; i++)
        NATIVE(p->events[i], clReleaseEvent)(p->events[i]);
    free(p->events);
    p->events = NULL;
    p->count = p->cap = 0;
    pthread_mutex_unlock(&p->lock);
}
