/* Command queues: creation in the shared real context, flush, and a finish that never blocks the
 * client's service thread (a marker's completion answers the call). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "accelos/log.h"
#include "fail_gate.h"
#include "ops.h"
#include "queue_retire.h"
#include "vendor.h"

/* extra: the session. The client has released the queue; the daemon keeps it while commands may
 * still be in it (queue_retire.h). */
static void queue_dtor(struct aos_handle *h)
{
    struct aos_session *s = h->extra;
    cl_event drained; /* NULL when no marker could be made: the queue's own barrier then */
    aos_fail_gate_marker(s, h->object, 0, NULL, &drained);
    cl_command_queue markers = aos_fail_gate_forget_queue(s, h->object);
    aos_retired_queues_add(&s->retired_queues, h->object, drained);
    if (markers)
        aos_retired_queues_add(&s->own_queues, markers, NULL);
    atomic_store(&s->released_queues_kept, aos_retired_queues_count(&s->retired_queues));
}

/* A device-side queue on a device that has none is the spec's CL_INVALID_QUEUE_PROPERTIES, checked
 * here because PoCL 3.1 ends the whole process on any request for one (POCL_ABORT_UNIMPLEMENTED):
 * one client's call must not take the daemon down. */
static bool device_queue_unsupported(cl_device_id dev, cl_command_queue_properties props)
{
    if (!(props & (CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT)))
        return false;
    cl_uint max_queues = 0;
    if (NATIVE(dev, clGetDeviceInfo)(dev, CL_DEVICE_MAX_ON_DEVICE_QUEUES, sizeof(max_queues), &max_queues, NULL) !=
        CL_SUCCESS)
        return true;
    return max_queues == 0;
}

static int op_create_queue(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    const struct aos_req_create_queue *r = payload;
    struct aos_tail tail;
    aos_tail_init(&tail, payload, len, sizeof(*r));
    if (r->num_props > 16)
        return -EPROTO;
    const uint64_t *pairs = aos_tail_take(&tail, (uint64_t)r->num_props * 2 * sizeof(uint64_t));
    if (!pairs)
        return -EPROTO;
    cl_context ctx = aos_context_lookup(s, r->context);
    const struct aos_device *d = aos_device_by_id(r->device);
    if (!ctx || !d) {
        aos_reply_status(s, slot, !ctx ? CL_INVALID_CONTEXT : CL_INVALID_DEVICE);
        return 0;
    }
    cl_queue_properties props[2 * 16 + 1];
    cl_uint n = 0;
    cl_command_queue_properties legacy = 0, requested = 0; /* requested: every CL_QUEUE_PROPERTIES value */
    for (uint32_t i = 0; i < r->num_props; i++) {
        props[n++] = (cl_queue_properties)pairs[2 * i];
        props[n++] = (cl_queue_properties)pairs[2 * i + 1];
        if (pairs[2 * i] == CL_QUEUE_PROPERTIES) {
            legacy = (cl_command_queue_properties)pairs[2 * i + 1];
            requested |= legacy;
        }
    }
    props[n] = 0;
    if (device_queue_unsupported(d->device, requested)) {
        aos_reply_status(s, slot, CL_INVALID_QUEUE_PROPERTIES);
        return 0;
    }
    /* The device's queue is out-of-order where it may be: the daemon writes the client's order
     * into the wait lists itself (fail_gate.h). */
    cl_command_queue_properties ordered = aos_fail_gate_queue_props(d->device, requested);
    bool have_props = false;
    for (cl_uint i = 0; i + 1 < n; i += 2)
        if (props[i] == CL_QUEUE_PROPERTIES) {
            props[i + 1] = (cl_queue_properties)ordered;
            have_props = true;
        }
    if (!have_props && ordered != requested && n + 2 < sizeof(props) / sizeof(props[0])) {
        props[n++] = CL_QUEUE_PROPERTIES;
        props[n++] = (cl_queue_properties)ordered;
        props[n] = 0;
    }
    cl_int err = CL_SUCCESS;
    cl_command_queue q;
    if (NATIVE(ctx, clCreateCommandQueueWithProperties))
        q = NATIVE(ctx, clCreateCommandQueueWithProperties)(ctx, d->device, n ? props : NULL, &err);
    else
        q = NATIVE(ctx, clCreateCommandQueue)(ctx, d->device, ordered, &err);
    if (err == CL_SUCCESS && aos_handles_add(&s->handles, r->id, AOS_OBJ_QUEUE, q, s) < 0) {
        NATIVE(q, clReleaseCommandQueue)(q);
        return -EPROTO;
    }
    if (err == CL_SUCCESS && aos_fail_gate_queue_add(s, q, requested) != CL_SUCCESS)
        aos_log(AOS_LOG_WARN, "queue", "client %llu: cannot record a queue's order", (unsigned long long)s->serial);
    aos_reply_status(s, slot, err);
    return 0;
}

static int op_flush(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    (void)slot, (void)len;
    const struct aos_req_queue *r = payload;
    cl_command_queue q = aos_handles_object(&s->handles, r->queue, AOS_OBJ_QUEUE);
    if (!q)
        return -EPROTO;
    cl_int err = NATIVE(q, clFlush)(q);
    if (err != CL_SUCCESS)
        aos_async_error(s, "flush", err);
    return 0;
}

static int op_finish(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    (void)len;
    const struct aos_req_queue *r = payload;
    cl_command_queue q = aos_handles_object(&s->handles, r->queue, AOS_OBJ_QUEUE);
    if (!q) {
        aos_reply_status(s, slot, CL_INVALID_COMMAND_QUEUE);
        return 0;
    }
    /* The queue's order (fail_gate.h): its last command, or every unfinished one. */
    cl_uint n = 0;
    cl_event *events = aos_fail_gate_finish_events(s, q, &n);
    if (events || n) {
        /* Answered at once when nothing is left to wait for. */
        cl_int err = events ? aos_reply_when_all_complete(s, slot, events, n) : CL_OUT_OF_HOST_MEMORY;
        for (cl_uint i = 0; events && i < n; i++)
            NATIVE(events[i], clReleaseEvent)(events[i]);
        free(events);
        if (err != CL_SUCCESS)
            aos_reply_status(s, slot, err);
        return 0;
    }
    cl_event marker;
    /* A barrier, not a marker: on an out-of-order queue it must cover every earlier command. */
    cl_int err = NATIVE(q, clEnqueueBarrierWithWaitList)(q, 0, NULL, &marker);
    if (err == CL_SUCCESS) {
        err = aos_reply_when_complete(s, slot, marker);
        aos_event_drop(s, marker);
        if (err == CL_SUCCESS)
            return 0;
    }
    aos_reply_status(s, slot, err);
    return 0;
}

const struct aos_op_entry aos_ops_queue[] = {
    {AOS_OP_CREATE_QUEUE, sizeof(struct aos_req_create_queue), true, op_create_queue, "create_queue"},
    {AOS_OP_FLUSH, sizeof(struct aos_req_queue), false, op_flush, "flush"},
    {AOS_OP_FINISH, sizeof(struct aos_req_queue), true, op_finish, "finish"},
    {0, 0, false, NULL, NULL},
};

void aos_ops_queue_init(void);
void aos_ops_queue_init(void)
{
    aos_handles_set_dtor(AOS_OBJ_QUEUE, queue_dtor);
}
