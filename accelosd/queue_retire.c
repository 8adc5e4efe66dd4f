/* Retired queues: see queue_retire.h. */
#include "queue_retire.h"

#include <stdlib.h>
#include <time.h>

#include "accelos/log.h"
#include "event_park.h"

#define RETIRED_CAP_MIN 8

/* Releases the queues whose barrier has completed: every command before it ended well, so nothing
 * in them can reach a kept event any more. A failed barrier stays until the session's end (a
 * failed event, ops_event.c), and its queue with it. The list holds only queues released with
 * work in them: short, so each release sweeps it. */
static void sweep(struct aos_retired_queues *r)
{
    uint32_t left = 0;
    for (uint32_t i = 0; i < r->count; i++) {
        struct aos_retired_queue *q = &r->items[i];
        if (q->drained && aos_event_exec_status(q->drained) == CL_COMPLETE) {
            NATIVE(q->drained, clReleaseEvent)(q->drained);
            NATIVE(q->queue, clReleaseCommandQueue)(q->queue);
        } else {
            r->items[left++] = *q;
        }
    }
    r->count = left;
}

void aos_retired_queues_add(struct aos_retired_queues *r, cl_command_queue q, cl_event drained)
{
    sweep(r);
    if (r->count == r->cap) {
        uint32_t cap = r->cap ? r->cap * 2 : RETIRED_CAP_MIN;
        struct aos_retired_queue *grown = realloc(r->items, cap * sizeof(*grown));
        if (!grown) {
            /* Out of memory: leaking the queue is safe, releasing it may not be. */
            aos_log(AOS_LOG_WARN, "queue", "cannot keep a released queue; leaking it");
            if (drained)
                NATIVE(drained, clReleaseEvent)(drained);
            return;
        }
        r->items = grown;
        r->cap = cap;
    }
    /* A barrier: on an out-of-order queue it must come after every command. */
    if (!drained && NATIVE(q, clEnqueueBarrierWithWaitList)(q, 0, NULL, &drained) != CL_SUCCESS)
        drained = NULL;
    if (drained)
        NATIVE(q, clFlush)(q);
    r->items[r->count++] = (struct aos_retired_queue){.queue = q, .drained = drained};
}

uint32_t aos_retired_queues_count(const struct aos_retired_queues *r)
{
    return r->count;
}

/* How long the session's end waits for a released queue's barrier. PoCL 3.1 may never run a
 * command linked behind an event whose failure has already spread (ops_event.c): an unbounded
 * clFinish could hold the session, and all it owns, for good. */
#define RETIRED_DRAIN_WAIT_NS 2000000000ull
#define RETIRED_DRAIN_POLL_NS 1000000

/* Whether barrier b has run or failed, waiting for it at most RETIRED_DRAIN_WAIT_NS. */
static bool barrier_ended(cl_event b)
{
    uint64_t waited = 0;
    while (b && aos_event_exec_status(b) > CL_COMPLETE && waited < RETIRED_DRAIN_WAIT_NS) {
        struct timespec poll = {0, RETIRED_DRAIN_POLL_NS};
        nanosleep(&poll, NULL);
        waited += RETIRED_DRAIN_POLL_NS;
    }
    return b && aos_event_exec_status(b) <= CL_COMPLETE;
}

bool aos_retired_queues_finish(struct aos_retired_queues *r)
{
    bool drained = true;
    for (uint32_t i = 0; i < r->count; i++) {
        if (!barrier_ended(r->items[i].drained)) {
            aos_log(AOS_LOG_WARN, "queue", "a released queue did not drain; its events are kept for good");
            drained = false;
        }
    }
    return drained;
}

bool aos_queue_drain_bounded(cl_command_queue q)
{
    cl_event b = NULL;
    if (NATIVE(q, clEnqueueBarrierWithWaitList)(q, 0, NULL, &b) != CL_SUCCESS)
        return NATIVE(q, clFinish)(q) == CL_SUCCESS; /* no barrier to wait for: the plain wait */
    NATIVE(q, clFlush)(q);
    bool ended = barrier_ended(b);
    if (ended)
        NATIVE(b, clReleaseEvent)(b);
    else
        aos_log(AOS_LOG_WARN, "queue", "a queue of a client that left did not drain; its events are kept for good");
    return ended; /* else b stays referenced: something in the queue may still reach it */
}

void aos_retired_queues_release(struct aos_retired_queues *r, bool release)
{
    for (uint32_t i = 0; release && i < r->count; i++) {
        if (r->items[i].drained)
            NATIVE(r->items[i].drained, clReleaseEvent)(r->items[i].drained);
        NATIVE(r->items[i].queue, clReleaseCommandQueue)(r->items[i].queue);
    }
    free(r->items);
    *r = (struct aos_retired_queues){0};
}
