/*
 * Events. A client event id maps to a real "status" event (what waits and wait lists use) and a
 * "profiling" event (usually the same). Commands with a host step are the exception: their status
 * event is a real user event that completes only when the client reports that its host part is
 * done, while profiling comes from the device command.
 *
 * Nothing here blocks the service thread: waits, finishes and blocking transfers are answered
 * from real event callbacks, which hold a session reference so a late callback never writes into
 * an unmapped region.
 */
#include <errno.h>
#include <stdlib.h>

#include "accelos/wire_event.h"
#include "ops.h"

struct event_extra {
    cl_event profiling;      /* retained separately when it differs from the status event */
    bool host_step;          /* status event is a user event completed by the client */
    bool host_step_done;
    bool host_step_ref;      /* our own reference, so the client may release before reporting */
};

static void event_dtor(struct aos_handle *h)
{
    struct event_extra *x = h->extra;
    cl_event ev = h->object;
    if (x && x->host_step && !x->host_step_done) {
        /* The client is gone before finishing its part: fail the event so nothing waits forever. */
        NATIVE(ev, clSetUserEventStatus)(ev, CL_OUT_OF_RESOURCES);
    }
    if (x && x->profiling && x->profiling != ev)
        NATIVE(x->profiling, clReleaseEvent)(x->profiling);
    free(x);
    NATIVE(ev, clReleaseEvent)(ev);
}

int aos_event_register(struct aos_session *s, uint64_t id, cl_event status_event, cl_event profiling_event)
{
    struct event_extra *x = calloc(1, sizeof(*x));
    if (!x) {
        NATIVE(status_event, clReleaseEvent)(status_event);
        if (profiling_event != status_event)
            NATIVE(profiling_event, clReleaseEvent)(profiling_event);
        return -ENOMEM;
    }
    x->profiling = profiling_event;
    int rc = aos_handles_add(&s->handles, id, AOS_OBJ_EVENT, status_event, x);
    if (rc < 0) {
        struct aos_handle tmp = {.object = status_event, .extra = x};
        event_dtor(&tmp);
    }
    return rc;
}

void aos_event_register_failed(struct aos_session *s, uint64_t id, cl_context ctx, cl_int err)
{
    cl_int rc;
    cl_event ev = ctx ? NATIVE(ctx, clCreateUserEvent)(ctx, &rc) : NULL;
    if (!ev) {
        aos_session_kill(s, "an event could not be recorded");
        return;
    }
    NATIVE(ev, clSetUserEventStatus)(ev, err < 0 ? err : CL_INVALID_OPERATION);
    if (aos_event_register(s, id, ev, ev) < 0)
        aos_session_kill(s, "reused an event id");
}

cl_event aos_event_profiling(struct aos_session *s, uint64_t id)
{
    struct aos_handle *h = aos_handles_find(&s->handles, id, AOS_OBJ_EVENT);
    if (!h)
        return NULL;
    struct event_extra *x = h->extra;
    return x && x->profiling ? x->profiling : h->object;
}

static void flush_event_queue(cl_event ev)
{
    cl_command_queue q = NULL;
    if (NATIVE(ev, clGetEventInfo)(ev, CL_EVENT_COMMAND_QUEUE, sizeof(q), &q, NULL) == CL_SUCCESS && q)
        NATIVE(q, clFlush)(q);
}

/* ---- Completion plumbing ------------------------------------------------------------------- */

struct slot_waiter {
    struct aos_session *s;
    uint32_t slot;
    _Atomic int remaining;
    _Atomic int failed;
};

static void CL_CALLBACK waiter_callback(cl_event ev, cl_int status, void *data)
{
    (void)ev;
    struct slot_waiter *w = data;
    if (status < 0)
        atomic_store(&w->failed, 1);
    if (atomic_fetch_sub(&w->remaining, 1) != 1)
        return;
    aos_reply_status(w->s, w->slot, atomic_load(&w->failed) ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST : CL_SUCCESS);
    aos_session_unref(w->s);
    free(w);
}

/* Answers slot once every event has ended; an event whose callback cannot be set counts as
 * failed. Always answers the slot, so it returns CL_SUCCESS unless out of memory. */
static cl_int reply_when_all_complete(struct aos_session *s, uint32_t slot, cl_event *events, cl_uint n)
{
    struct slot_waiter *w = calloc(1, sizeof(*w));
    if (!w)
        return CL_OUT_OF_HOST_MEMORY;
    w->s = s;
    w->slot = slot;
    /* One extra count held while callbacks are being set, so none can finish the waiter early. */
    atomic_init(&w->remaining, (int)n + 1);
    aos_session_ref(s);
    for (cl_uint i = 0; i < n; i++) {
        flush_event_queue(events[i]);
        if (NATIVE(events[i], clSetEventCallback)(events[i], CL_COMPLETE, waiter_callback, w) != CL_SUCCESS)
            waiter_callback(events[i], CL_INVALID_EVENT, w);
    }
    waiter_callback(NULL, CL_COMPLETE, w);
    return CL_SUCCESS;
}

cl_int aos_reply_when_complete(struct aos_session *s, uint32_t slot, cl_event ev)
{
    return reply_when_all_complete(s, slot, &ev, 1);
}

/* ---- Enqueue helpers ------------------------------------------------------------------------ */

cl_int aos_enqueue_parse(struct aos_session *s, const void *payload, struct aos_tail *tail, uint32_t slot,
                         struct aos_enqueue *e, bool *proto)
{
    const struct aos_enqueue_hdr *h = payload;
    *proto = false;
    *e = (struct aos_enqueue){.event_id = h->event, .blocking = h->blocking != 0, .slot = slot};
    if (h->num_wait > AOS_MAX_WAIT_LIST || (h->blocking != 0) != (slot != AOS_NO_SLOT)) {
        *proto = true;
        return CL_INVALID_VALUE;
    }
    const uint64_t *ids = aos_tail_take(tail, (uint64_t)h->num_wait * sizeof(uint64_t));
    if (!ids) {
        *proto = true;
        return CL_INVALID_VALUE;
    }
    if (e->event_id && aos_handles_find(&s->handles, e->event_id, AOS_OBJ_NONE)) {
        *proto = true; /* the client must choose fresh ids */
        return CL_INVALID_VALUE;
    }
    e->queue = aos_handles_object(&s->handles, h->queue, AOS_OBJ_QUEUE);
    if (!e->queue)
        return CL_INVALID_COMMAND_QUEUE;
    NATIVE(e->queue, clGetCommandQueueInfo)(e->queue, CL_QUEUE_CONTEXT, sizeof(e->context), &e->context, NULL);
    if (h->num_wait) {
        e->wait = malloc(h->num_wait * sizeof(cl_event));
        if (!e->wait)
            return CL_OUT_OF_HOST_MEMORY;
        for (uint32_t i = 0; i < h->num_wait; i++) {
            e->wait[i] = aos_handles_object(&s->handles, ids[i], AOS_OBJ_EVENT);
            if (!e->wait[i]) {
                free(e->wait);
                e->wait = NULL;
                return CL_INVALID_EVENT_WAIT_LIST;
            }
        }
        e->num_wait = h->num_wait;
    }
    return CL_SUCCESS;
}

void aos_enqueue_done(struct aos_session *s, struct aos_enqueue *e, cl_int err, cl_event ev)
{
    free(e->wait);
    e->wait = NULL;
    if (err != CL_SUCCESS) {
        if (ev)
            NATIVE(ev, clReleaseEvent)(ev);
        if (e->event_id)
            aos_event_register_failed(s, e->event_id, e->context, err);
        if (e->blocking)
            aos_reply_status(s, e->slot, err);
        else if (!e->event_id)
            aos_async_error(s, "enqueue", err);
        return;
    }
    if (e->blocking) {
        NATIVE(e->queue, clFlush)(e->queue);
        cl_int rc = aos_reply_when_complete(s, e->slot, ev);
        if (rc != CL_SUCCESS)
            aos_reply_status(s, e->slot, rc);
    }
    if (e->event_id) {
        if (aos_event_register(s, e->event_id, ev, ev) < 0)
            aos_session_kill(s, "reused an event id");
    } else {
        NATIVE(ev, clReleaseEvent)(ev);
    }
}

struct host_step_watch {
    struct aos_session *s;
    uint64_t event_id;
    uint64_t token;
};

static void CL_CALLBACK host_step_callback(cl_event ev, cl_int status, void *data)
{
    (void)ev;
    struct host_step_watch *w = data;
    struct aos_note_host_step note = {.event = w->event_id, .token = w->token, .status = status};
    aos_note_send(w->s, AOS_NOTE_HOST_STEP, &note, sizeof(note));
    aos_session_unref(w->s);
    free(w);
}

cl_int aos_host_step_begin(struct aos_session *s, struct aos_enqueue *e, cl_event dev_event, uint64_t token)
{
    free(e->wait);
    e->wait = NULL;
    cl_int err;
    struct host_step_watch *w = malloc(sizeof(*w));
    cl_event user = w ? NATIVE(e->context, clCreateUserEvent)(e->context, &err) : NULL;
    if (!user) {
        free(w);
        NATIVE(dev_event, clReleaseEvent)(dev_event);
        aos_event_register_failed(s, e->event_id, e->context, CL_OUT_OF_HOST_MEMORY);
        return CL_OUT_OF_HOST_MEMORY;
    }
    NATIVE(dev_event, clRetainEvent)(dev_event);
    if (aos_event_register(s, e->event_id, user, dev_event) < 0) {
        NATIVE(dev_event, clReleaseEvent)(dev_event);
        free(w);
        aos_session_kill(s, "reused an event id");
        return CL_INVALID_VALUE;
    }
    struct event_extra *x = aos_handles_find(&s->handles, e->event_id, AOS_OBJ_EVENT)->extra;
    x->host_step = true;
    x->host_step_ref = aos_handles_retain(&s->handles, e->event_id, AOS_OBJ_EVENT) == 0;
    *w = (struct host_step_watch){.s = s, .event_id = e->event_id, .token = token};
    aos_session_ref(s);
    NATIVE(e->queue, clFlush)(e->queue);
    err = NATIVE(dev_event, clSetEventCallback)(dev_event, CL_COMPLETE, host_step_callback, w);
    NATIVE(dev_event, clReleaseEvent)(dev_event);
    if (err != CL_SUCCESS) {
        aos_session_unref(s);
        free(w);
        x->host_step_done = true;
        NATIVE(user, clSetUserEventStatus)(user, err);
        if (x->host_step_ref) {
            x->host_step_ref = false;
            aos_handles_release(&s->handles, e->event_id, AOS_OBJ_EVENT);
        }
    }
    return err;
}

/* ---- Requests ------------------------------------------------------------------------------- */

static int op_wait_events(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    const struct aos_req_wait_events *r = payload;
    struct aos_tail tail;
    aos_tail_init(&tail, payload, len, sizeof(*r));
    if (r->num == 0 || r->num > AOS_MAX_WAIT_LIST)
        return -EPROTO;
    const uint64_t *ids = aos_tail_take(&tail, (uint64_t)r->num * sizeof(uint64_t));
    if (!ids)
        return -EPROTO;
    cl_event *events = malloc(r->num * sizeof(cl_event));
    if (!events) {
        aos_reply_status(s, slot, CL_OUT_OF_HOST_MEMORY);
        return 0;
    }
    cl_int err = CL_SUCCESS;
    for (uint32_t i = 0; i < r->num && err == CL_SUCCESS; i++)
        if (!(events[i] = aos_handles_object(&s->handles, ids[i], AOS_OBJ_EVENT)))
            err = CL_INVALID_EVENT;
    if (err == CL_SUCCESS)
        err = reply_when_all_complete(s, slot, events, r->num);
    if (err != CL_SUCCESS)
        aos_reply_status(s, slot, err);
    free(events);
    return 0;
}

static int op_create_user_event(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    (void)slot, (void)len;
    const struct aos_req_create_user_event *r = payload;
    cl_context ctx = aos_context_lookup(s, r->context);
    if (!ctx || aos_handles_find(&s->handles, r->id, AOS_OBJ_NONE))
        return -EPROTO;
    cl_int err;
    cl_event ev = NATIVE(ctx, clCreateUserEvent)(ctx, &err);
    if (!ev) {
        aos_event_register_failed(s, r->id, ctx, err);
        return 0;
    }
    return aos_event_register(s, r->id, ev, ev) < 0 ? -EPROTO : 0;
}

static int op_set_user_event_status(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    (void)slot, (void)len;
    const struct aos_req_event_status *r = payload;
    struct aos_handle *h = aos_handles_find(&s->handles, r->event, AOS_OBJ_EVENT);
    if (!h)
        return -EPROTO;
    cl_int err = NATIVE(h->object, clSetUserEventStatus)(h->object, r->status);
    if (err != CL_SUCCESS)
        aos_async_error(s, "set_user_event_status", err);
    return 0;
}

static int op_complete_host_step(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    (void)slot, (void)len;
    const struct aos_req_event_status *r = payload;
    struct aos_handle *h = aos_handles_find(&s->handles, r->event, AOS_OBJ_EVENT);
    struct event_extra *x = h ? h->extra : NULL;
    if (!x || !x->host_step)
        return -EPROTO;
    if (x->host_step_done)
        return 0;
    x->host_step_done = true;
    NATIVE(h->object, clSetUserEventStatus)(h->object, r->status < 0 ? r->status : CL_COMPLETE);
    if (x->host_step_ref) {
        x->host_step_ref = false;
        aos_handles_release(&s->handles, r->event, AOS_OBJ_EVENT);
    }
    return 0;
}

static int enqueue_sync_point(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len, bool barrier)
{
    struct aos_tail tail;
    aos_tail_init(&tail, payload, len, sizeof(struct aos_req_enqueue_sync));
    struct aos_enqueue e;
    bool proto;
    cl_int err = aos_enqueue_parse(s, payload, &tail, slot, &e, &proto);
    if (proto)
        return -EPROTO;
    cl_event ev = NULL;
    if (err == CL_SUCCESS)
        err = barrier ? NATIVE(e.queue, clEnqueueBarrierWithWaitList)(e.queue, e.num_wait, e.wait, &ev)
                      : NATIVE(e.queue, clEnqueueMarkerWithWaitList)(e.queue, e.num_wait, e.wait, &ev);
    aos_enqueue_done(s, &e, err, ev);
    return 0;
}

static int op_enqueue_marker(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    return enqueue_sync_point(s, slot, payload, len, false);
}

static int op_enqueue_barrier(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    return enqueue_sync_point(s, slot, payload, len, true);
}

struct callback_watch {
    struct aos_session *s;
    uint64_t event_id;
    uint64_t token;
};

static void CL_CALLBACK event_callback(cl_event ev, cl_int status, void *data)
{
    (void)ev;
    struct callback_watch *w = data;
    struct aos_note_event_callback note = {.event = w->event_id, .token = w->token, .status = status};
    aos_note_send(w->s, AOS_NOTE_EVENT_CALLBACK, &note, sizeof(note));
    aos_session_unref(w->s);
    free(w);
}

static int op_set_event_callback(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    (void)slot, (void)len;
    const struct aos_req_event_callback *r = payload;
    cl_event ev = aos_handles_object(&s->handles, r->event, AOS_OBJ_EVENT);
    if (!ev)
        return -EPROTO;
    struct callback_watch *w = malloc(sizeof(*w));
    if (!w)
        return 0;
    *w = (struct callback_watch){.s = s, .event_id = r->event, .token = r->token};
    aos_session_ref(s);
    cl_int err = NATIVE(ev, clSetEventCallback)(ev, r->callback_type, event_callback, w);
    if (err != CL_SUCCESS) {
        /* The client validated the type; tell it anyway so its callback record is not lost. */
        struct aos_note_event_callback note = {.event = r->event, .token = r->token, .status = err};
        aos_note_send(s, AOS_NOTE_EVENT_CALLBACK, &note, sizeof(note));
        aos_session_unref(s);
        free(w);
    }
    return 0;
}

void aos_ops_event_init(void)
{
    aos_handles_set_dtor(AOS_OBJ_EVENT, event_dtor);
}

const struct aos_op_entry aos_ops_event[] = {
    {AOS_OP_WAIT_EVENTS, sizeof(struct aos_req_wait_events), true, op_wait_events, "wait_events"},
    {AOS_OP_CREATE_USER_EVENT, sizeof(struct aos_req_create_user_event), false, op_create_user_event, "create_user_event"},
    {AOS_OP_SET_USER_EVENT_STATUS, sizeof(struct aos_req_event_status), false, op_set_user_event_status, "set_user_event_status"},
    {AOS_OP_ENQUEUE_MARKER, sizeof(struct aos_req_enqueue_sync), false, op_enqueue_marker, "enqueue_marker"},
    {AOS_OP_ENQUEUE_BARRIER, sizeof(struct aos_req_enqueue_sync), false, op_enqueue_barrier, "enqueue_barrier"},
    {AOS_OP_SET_EVENT_CALLBACK, sizeof(struct aos_req_event_callback), false, op_set_event_callback, "set_event_callback"},
    {AOS_OP_COMPLETE_HOST_STEP, sizeof(struct aos_req_event_status), false, op_complete_host_step, "complete_host_step"},
    {0, 0, false, NULL, NULL},
};
