/* Events: waits, user events, markers, barriers, profiling and callbacks (run in this process by
 * the notification thread). */
#include "event.h"

#include <stdlib.h>
#include <string.h>

#include "accelos/wire_event.h"
#include "conn.h"
#include "enqueue.h"
#include "notify.h"

struct aos_event_cb {
    struct aos_event_cb *next;
    void(CL_CALLBACK *fn)(cl_event, cl_int, void *);
    void *user_data;
    cl_event event;
    uint64_t token;
};

static pthread_mutex_t callbacks_lock = PTHREAD_MUTEX_INITIALIZER;
static struct aos_event_cb *pending_callbacks;
static uint64_t next_callback_token = 1;

static void event_cleanup(struct aos_object *obj)
{
    cl_event ev = (cl_event)obj;
    pthread_mutex_destroy(&ev->lock);
    if (ev->queue)
        aos_object_unhold(ev->queue);
    aos_object_unhold(ev->context);
}

cl_event aos_event_new(cl_context context, cl_command_queue queue, cl_command_type type)
{
    cl_event ev = aos_object_new(AOS_OBJ_EVENT, sizeof(*ev), event_cleanup);
    if (!ev)
        return NULL;
    ev->context = context;
    ev->queue = queue;
    ev->command_type = type;
    pthread_mutex_init(&ev->lock, NULL);
    aos_object_hold(context);
    if (queue)
        aos_object_hold(queue);
    return ev;
}

cl_int CL_API_CALL clRetainEvent(cl_event event)
{
    return aos_object_retain(event, AOS_OBJ_EVENT, CL_INVALID_EVENT);
}

cl_int CL_API_CALL clReleaseEvent(cl_event event)
{
    return aos_object_release(event, AOS_OBJ_EVENT, CL_INVALID_EVENT);
}

cl_int CL_API_CALL clWaitForEvents(cl_uint num_events, const cl_event *events)
{
    if (num_events == 0 || !events || num_events > AOS_MAX_WAIT_LIST)
        return CL_INVALID_VALUE;
    for (cl_uint i = 0; i < num_events; i++) {
        if (!aos_object_valid(events[i], AOS_OBJ_EVENT))
            return CL_INVALID_EVENT;
        if (events[i]->context != events[0]->context)
            return CL_INVALID_CONTEXT;
    }
    struct aos_req r;
    struct aos_req_wait_events *w = aos_req_begin(&r, (uint32_t)(sizeof(*w) + num_events * sizeof(uint64_t)), true);
    if (!w)
        return r.error;
    w->num = num_events;
    uint64_t *ids = (uint64_t *)(w + 1);
    for (cl_uint i = 0; i < num_events; i++)
        ids[i] = events[i]->obj.id;
    struct aos_reply rep;
    cl_int err = aos_req_call(&r, AOS_OP_WAIT_EVENTS, &rep);
    aos_reply_release(&rep);
    return err;
}

cl_int CL_API_CALL clGetEventInfo(cl_event event, cl_event_info param, size_t size, void *value, size_t *size_ret)
{
    if (!aos_object_valid(event, AOS_OBJ_EVENT))
        return CL_INVALID_EVENT;
    switch (param) {
    case CL_EVENT_COMMAND_QUEUE:
        return aos_info_value(&event->queue, sizeof(event->queue), size, value, size_ret);
    case CL_EVENT_CONTEXT:
        return aos_info_value(&event->context, sizeof(event->context), size, value, size_ret);
    case CL_EVENT_COMMAND_TYPE:
        return aos_info_value(&event->command_type, sizeof(event->command_type), size, value, size_ret);
    case CL_EVENT_REFERENCE_COUNT: {
        cl_uint refs = atomic_load(&event->obj.refs);
        return aos_info_value(&refs, sizeof(refs), size, value, size_ret);
    }
    case CL_EVENT_COMMAND_EXECUTION_STATUS:
        return aos_get_info(AOS_INFO_EVENT, event->obj.id, 0, param, size, value, size_ret);
    default:
        return CL_INVALID_VALUE;
    }
}

/* Index of param in the timestamps AOS_INFO_EVENT_PROFILING_ALL answers, or -1. */
static int profiling_index(cl_profiling_info param)
{
    switch (param) {
    case CL_PROFILING_COMMAND_QUEUED: return 0;
    case CL_PROFILING_COMMAND_SUBMIT: return 1;
    case CL_PROFILING_COMMAND_START: return 2;
    case CL_PROFILING_COMMAND_END: return 3;
    default: return -1;
    }
}

cl_int CL_API_CALL clGetEventProfilingInfo(cl_event event, cl_profiling_info param, size_t size, void *value,
                                           size_t *size_ret)
{
    if (!aos_object_valid(event, AOS_OBJ_EVENT))
        return CL_INVALID_EVENT;
    if (!event->queue)
        return CL_PROFILING_INFO_NOT_AVAILABLE;
    int i = profiling_index(param);
    if (i < 0)
        return aos_get_info(AOS_INFO_EVENT_PROFILING, event->obj.id, 0, param, size, value, size_ret);
    /* Applications that time commands ask for two to four values per event: a completed event's
     * come in one round trip and are kept, since they no longer change. */
    pthread_mutex_lock(&event->lock);
    bool known = event->times_known;
    cl_ulong v = event->times[i];
    pthread_mutex_unlock(&event->lock);
    if (!known) {
        cl_ulong times[AOS_PROFILING_ALL_COUNT];
        if (aos_get_info(AOS_INFO_EVENT_PROFILING_ALL, event->obj.id, 0, 0, sizeof(times), times, NULL) !=
            CL_SUCCESS)
            return aos_get_info(AOS_INFO_EVENT_PROFILING, event->obj.id, 0, param, size, value, size_ret);
        pthread_mutex_lock(&event->lock);
        memcpy(event->times, times, sizeof(times));
        event->times_known = true;
        pthread_mutex_unlock(&event->lock);
        v = times[i];
    }
    return aos_info_value(&v, sizeof(v), size, value, size_ret);
}

cl_event CL_API_CALL clCreateUserEvent(cl_context context, cl_int *errcode_ret)
{
    cl_int err = CL_SUCCESS;
    cl_event ev = NULL;
    if (!aos_object_valid(context, AOS_OBJ_CONTEXT))
        err = CL_INVALID_CONTEXT;
    else if (!(ev = aos_event_new(context, NULL, CL_COMMAND_USER)))
        err = CL_OUT_OF_HOST_MEMORY;
    if (err == CL_SUCCESS) {
        struct aos_req_create_user_event r = {.id = ev->obj.id, .context = context->obj.id};
        err = aos_send(AOS_OP_CREATE_USER_EVENT, &r, sizeof(r));
        if (err != CL_SUCCESS) {
            atomic_store(&ev->obj.refs, 1);
            clReleaseEvent(ev);
            ev = NULL;
        }
    }
    if (errcode_ret)
        *errcode_ret = err;
    return ev;
}

cl_int CL_API_CALL clSetUserEventStatus(cl_event event, cl_int status)
{
    if (!aos_object_valid(event, AOS_OBJ_EVENT) || event->command_type != CL_COMMAND_USER)
        return CL_INVALID_EVENT;
    if (status > 0 && status != CL_COMPLETE)
        return CL_INVALID_VALUE;
    pthread_mutex_lock(&event->lock);
    bool already = event->user_status_set;
    event->user_status_set = true;
    pthread_mutex_unlock(&event->lock);
    if (already)
        return CL_INVALID_OPERATION;
    struct aos_req_event_status r = {.event = event->obj.id, .status = status};
    return aos_send(AOS_OP_SET_USER_EVENT_STATUS, &r, sizeof(r));
}

cl_int CL_API_CALL clSetEventCallback(cl_event event, cl_int type,
                                      void(CL_CALLBACK *fn)(cl_event, cl_int, void *), void *user_data)
{
    if (!aos_object_valid(event, AOS_OBJ_EVENT))
        return CL_INVALID_EVENT;
    if (!fn || (type != CL_SUBMITTED && type != CL_RUNNING && type != CL_COMPLETE))
        return CL_INVALID_VALUE;
    struct aos_event_cb *cb = malloc(sizeof(*cb));
    if (!cb)
        return CL_OUT_OF_HOST_MEMORY;
    /* The callback's event stays valid until the callback has run. */
    aos_object_hold(event);
    pthread_mutex_lock(&callbacks_lock);
    *cb = (struct aos_event_cb){.next = pending_callbacks, .fn = fn, .user_data = user_data, .event = event,
                                .token = next_callback_token++};
    pending_callbacks = cb;
    pthread_mutex_unlock(&callbacks_lock);
    struct aos_req_event_callback r = {.event = event->obj.id, .token = cb->token, .callback_type = type};
    return aos_send(AOS_OP_SET_EVENT_CALLBACK, &r, sizeof(r));
}

void aos_event_callback_note(const struct aos_note_event_callback *n)
{
    pthread_mutex_lock(&callbacks_lock);
    struct aos_event_cb *cb = NULL;
    for (struct aos_event_cb **p = &pending_callbacks; *p; p = &(*p)->next)
        if ((*p)->token == n->token) {
            cb = *p;
            *p = cb->next;
            break;
        }
    pthread_mutex_unlock(&callbacks_lock);
    if (!cb)
        return;
    cb->fn(cb->event, n->status, cb->user_data);
    aos_object_unhold(cb->event);
    free(cb);
}

static cl_int enqueue_sync_point(cl_command_queue queue, cl_uint num_wait, const cl_event *wait, cl_event *event,
                                 uint32_t opcode, cl_command_type type)
{
    struct aos_enq e;
    cl_int err = aos_enq_prepare(&e, queue, num_wait, wait, type, event != NULL);
    if (err != CL_SUCCESS)
        return err;
    struct aos_req r;
    struct aos_req_enqueue_sync *q = aos_req_begin(&r, (uint32_t)sizeof(*q) + aos_enq_wait_bytes(&e), false);
    if (!q) {
        aos_enq_complete(&e, r.error, event);
        return r.error;
    }
    aos_enq_encode(&e, &q->enq, q + 1, false);
    err = aos_req_send(&r, opcode);
    aos_enq_complete(&e, err, event);
    return err;
}

cl_int CL_API_CALL clEnqueueMarkerWithWaitList(cl_command_queue queue, cl_uint num_wait, const cl_event *wait,
                                               cl_event *event)
{
    return enqueue_sync_point(queue, num_wait, wait, event, AOS_OP_ENQUEUE_MARKER, CL_COMMAND_MARKER);
}

cl_int CL_API_CALL clEnqueueBarrierWithWaitList(cl_command_queue queue, cl_uint num_wait, const cl_event *wait,
                                                cl_event *event)
{
    return enqueue_sync_point(queue, num_wait, wait, event, AOS_OP_ENQUEUE_BARRIER, CL_COMMAND_BARRIER);
}

cl_int CL_API_CALL clEnqueueMarker(cl_command_queue queue, cl_event *event)
{
    if (!event)
        return CL_INVALID_VALUE;
    return clEnqueueMarkerWithWaitList(queue, 0, NULL, event);
}

cl_int CL_API_CALL clEnqueueBarrier(cl_command_queue queue)
{
    return clEnqueueBarrierWithWaitList(queue, 0, NULL, NULL);
}

cl_int CL_API_CALL clEnqueueWaitForEvents(cl_command_queue queue, cl_uint num_events, const cl_event *events)
{
    if (num_events == 0 || !events)
        return CL_INVALID_VALUE;
    return enqueue_sync_point(queue, num_events, events, NULL, AOS_OP_ENQUEUE_BARRIER, CL_COMMAND_BARRIER);
}
