/* Stand-ins for failed events in wait lists: see standin.h. */
#include "standin.h"

#include <stdlib.h>

#include "event_park.h"

static struct aos_event_park parked = AOS_EVENT_PARK_INIT;

cl_int aos_standins_take(struct aos_standins *st, cl_context ctx, cl_event *wait, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (!aos_event_failed(wait[i]))
            continue;
        if (st->n == st->cap) {
            uint32_t cap = st->cap ? st->cap * 2 : 4;
            cl_event *grown = realloc(st->events, cap * sizeof(*grown));
            if (!grown)
                return CL_OUT_OF_HOST_MEMORY;
            st->events = grown;
            st->cap = cap;
        }
        cl_int err;
        cl_event user = NATIVE(ctx, clCreateUserEvent)(ctx, &err);
        if (err != CL_SUCCESS)
            return err;
        st->events[st->n++] = user;
        wait[i] = user;
    }
    return CL_SUCCESS;
}

void aos_standins_fail(struct aos_standins *st)
{
    for (uint32_t i = 0; i < st->n; i++) {
        NATIVE(st->events[i], clSetUserEventStatus)(st->events[i], CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        aos_event_release_or_park(&parked, st->events[i]);
    }
    st->n = 0;
}

size_t aos_standins_parked(void)
{
    return aos_event_park_count(&parked);
}

void aos_standins_free(struct aos_standins *st)
{
    aos_standins_fail(st); /* none is left between requests; this is for a request cut short */
    free(st->events);
    *st = (struct aos_standins){0};
}
