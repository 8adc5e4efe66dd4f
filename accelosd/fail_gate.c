/* Failure gates and the explicit order of a client's queues: see fail_gate.h. */
#include "fail_gate.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "accelos/futex.h"
#include "accelos/log.h"
#include "event_park.h"
#include "ops.h"

/* How long the session's end waits for the wait lists of its gates to end. */
#define DRAIN_TIMEOUT_NS 2000000000ull

struct aos_fail_gate {
    struct aos_fail_gate *next;  /* posted list */
    struct aos_session *s;       /* a reference while armed */
    cl_event gate;               /* the user event the command waits on; ours */
    _Atomic int pending;         /* events of the list not yet ended, +1 while arming */
    _Atomic cl_int failed;       /* the first failure among them, 0 if none */
};

/* struct aos_enqueue's gate: a gate not yet armed, and the list it stands for (retained). */
struct gate_plan {
    struct aos_fail_gate *g;
    cl_event *list;
    cl_uint n;
};

/* What the daemon knows of one of the client's queues. */
struct gate_queue {
    cl_command_queue queue;
    bool out_of_order;           /* as the client created it */
    bool explicit_order;         /* the device's queue is out-of-order: the daemon writes the order */
    cl_event prev;               /* in-order: the last command (ours) */
    cl_event barrier;            /* out-of-order: the last barrier (ours) */
    cl_event *pending;           /* out-of-order: commands not known to have ended (ours) */
    uint32_t npending, cap;
    cl_command_queue markers;    /* where its markers go (ours; NULL until the first) */
    cl_command_queue lone;       /* where its markers that may fail go, one at a time (ours) */
    cl_event lone_last;          /* the last of them (ours) */
};

struct aos_fail_gates {
    struct gate_queue *queues;
    uint32_t nqueues, qcap;
    cl_event *may_fail;          /* events that may fail, while unresolved (ours) */
    uint32_t nmay_fail, mcap;
    pthread_mutex_t post_lock;
    struct aos_fail_gate *posted;
    _Atomic uint32_t armed;
};

static struct aos_fail_gates *gates_of(struct aos_session *s)
{
    if (!s->fail_gates) {
        struct aos_fail_gates *f = calloc(1, sizeof(*f));
        if (!f)
            return NULL;
        pthread_mutex_init(&f->post_lock, NULL);
        s->fail_gates = f;
    }
    return s->fail_gates;
}

static bool unresolved(cl_event ev)
{
    return ev && aos_event_exec_status(ev) > CL_COMPLETE;
}

/* Appends ev (retained) to a growable array; false when out of memory. */
static bool push_event(cl_event **arr, uint32_t *n, uint32_t *cap, cl_event ev)
{
    if (*n == *cap) {
        uint32_t grown_cap = *cap ? *cap * 2 : 16;
        cl_event *grown = realloc(*arr, grown_cap * sizeof(*grown));
        if (!grown)
            return false;
        *arr = grown;
        *cap = grown_cap;
    }
    NATIVE(ev, clRetainEvent)(ev);
    (*arr)[(*n)++] = ev;
    return true;
}

/* Drops the events of arr that have ended. */
static void prune(struct aos_session *s, cl_event *arr, uint32_t *n)
{
    uint32_t left = 0;
    for (uint32_t i = 0; i < *n; i++) {
        if (unresolved(arr[i]))
            arr[left++] = arr[i];
        else
            aos_event_drop(s, arr[i]);
    }
    *n = left;
}

static void retain_into(struct aos_session *s, cl_event *slot, cl_event ev)
{
    if (ev)
        NATIVE(ev, clRetainEvent)(ev);
    if (*slot)
        aos_event_drop(s, *slot);
    *slot = ev;
}

/* ---- Queues ----------------------------------------------------------------------------------- */

/* PoCL's platform: the runtime whose implicit links the daemon replaces (fail_gate.h). Other
 * drivers keep the queues their clients asked for. */
static bool device_is_pocl(cl_device_id dev)
{
    cl_platform_id platform = NULL;
    char name[128] = "";
    return NATIVE(dev, clGetDeviceInfo)(dev, CL_DEVICE_PLATFORM, sizeof(platform), &platform, NULL) == CL_SUCCESS &&
           platform &&
           NATIVE(dev, clGetPlatformInfo)(platform, CL_PLATFORM_NAME, sizeof(name) - 1, name, NULL) == CL_SUCCESS &&
           strstr(name, "Portable Computing Language") != NULL;
}

cl_command_queue_properties aos_fail_gate_queue_props(cl_device_id dev, cl_command_queue_properties props)
{
    if (!device_is_pocl(dev))
        return props;
    cl_command_queue_properties allowed = 0;
    if (NATIVE(dev, clGetDeviceInfo)(dev, CL_DEVICE_QUEUE_PROPERTIES, sizeof(allowed), &allowed, NULL) != CL_SUCCESS)
        return props;
    /* Only the host queues the daemon orders itself; device-side queues are refused earlier. */
    if ((allowed & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) && !(props & CL_QUEUE_ON_DEVICE))
        props |= CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE;
    return props;
}

static struct gate_queue *queue_record(struct aos_fail_gates *f, cl_command_queue q, bool out_of_order,
                                       bool explicit_order)
{
    if (f->nqueues == f->qcap) {
        uint32_t cap = f->qcap ? f->qcap * 2 : 8;
        struct gate_queue *grown = realloc(f->queues, cap * sizeof(*grown));
        if (!grown)
            return NULL;
        f->queues = grown;
        f->qcap = cap;
    }
    struct gate_queue *gq = &f->queues[f->nqueues++];
    *gq = (struct gate_queue){.queue = q, .out_of_order = out_of_order, .explicit_order = explicit_order};
    return gq;
}

static cl_command_queue_properties device_queue_props(cl_command_queue q)
{
    cl_command_queue_properties props = 0;
    NATIVE(q, clGetCommandQueueInfo)(q, CL_QUEUE_PROPERTIES, sizeof(props), &props, NULL);
    return props;
}

cl_int aos_fail_gate_queue_add(struct aos_session *s, cl_command_queue q, cl_command_queue_properties client_props)
{
    struct aos_fail_gates *f = gates_of(s);
    bool device_ooo = (device_queue_props(q) & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
    bool client_ooo = (client_props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
    return f && queue_record(f, q, client_ooo, device_ooo) ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
}

/* Drops the events a queue's record holds (not its marker queue). */
static void queue_record_drop(struct aos_session *s, struct gate_queue *gq)
{
    if (gq->prev)
        aos_event_drop(s, gq->prev);
    if (gq->barrier)
        aos_event_drop(s, gq->barrier);
    for (uint32_t j = 0; j < gq->npending; j++)
        aos_event_drop(s, gq->pending[j]);
    free(gq->pending);
    gq->prev = gq->barrier = NULL;
    gq->pending = NULL;
    gq->npending = gq->cap = 0;
}

static struct gate_queue *queue_of(struct aos_session *s, cl_command_queue q)
{
    struct aos_fail_gates *f = gates_of(s);
    if (!f)
        return NULL;
    for (uint32_t i = 0; i < f->nqueues; i++)
        if (f->queues[i].queue == q)
            return &f->queues[i];
    /* Not created through op_create_queue: the device orders it as it was made. */
    bool ooo = (device_queue_props(q) & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
    return queue_record(f, q, ooo, false);
}

/* ---- Events that may fail ----------------------------------------------------------------------- */

void aos_fail_gate_mark(struct aos_session *s, cl_event ev)
{
    struct aos_fail_gates *f = gates_of(s);
    if (!f || !ev)
        return;
    if (f->nmay_fail == f->mcap)
        prune(s, f->may_fail, &f->nmay_fail);
    if (!push_event(&f->may_fail, &f->nmay_fail, &f->mcap, ev))
        aos_log(AOS_LOG_WARN, "event", "client %llu: cannot record an event that may fail",
                (unsigned long long)s->serial);
}

bool aos_fail_gate_may_fail(struct aos_session *s, cl_event ev)
{
    struct aos_fail_gates *f = s->fail_gates;
    if (!f || !ev)
        return false;
    for (uint32_t i = 0; i < f->nmay_fail; i++)
        if (f->may_fail[i] == ev)
            return unresolved(ev);
    return false;
}

/* ---- Preparing a command ------------------------------------------------------------------------ */

/* Builds the command's whole wait list: the client's, then the queue's order. */
static cl_event *order_list(struct aos_session *s, struct aos_enqueue *e, struct gate_queue *gq,
                            enum aos_gate_kind kind, cl_uint *n)
{
    uint32_t extra = 0;
    if (gq->explicit_order && !gq->out_of_order) {
        extra = 1;
    } else if (gq->explicit_order) {
        prune(s, gq->pending, &gq->npending);
        extra = 1 + (kind != AOS_GATE_COMMAND && !e->num_wait ? gq->npending : 0);
    }
    cl_event *list = malloc(((size_t)e->num_wait + extra + 1) * sizeof(cl_event));
    if (!list)
        return NULL;
    cl_uint k = 0;
    for (cl_uint i = 0; i < e->num_wait; i++)
        list[k++] = e->wait[i];
    if (gq->explicit_order && !gq->out_of_order) {
        if (unresolved(gq->prev))
            list[k++] = gq->prev;
    } else if (gq->explicit_order) {
        if (unresolved(gq->barrier))
            list[k++] = gq->barrier;
        if (kind != AOS_GATE_COMMAND && !e->num_wait)
            for (uint32_t i = 0; i < gq->npending; i++)
                list[k++] = gq->pending[i];
    }
    *n = k;
    return list;
}

static cl_int gate_install(struct aos_enqueue *e)
{
    struct gate_plan *plan = calloc(1, sizeof(*plan));
    struct aos_fail_gate *g = plan ? calloc(1, sizeof(*g)) : NULL;
    cl_event *one = g ? malloc(sizeof(cl_event)) : NULL;
    cl_int err = CL_OUT_OF_HOST_MEMORY;
    cl_event gate = one ? NATIVE(e->context, clCreateUserEvent)(e->context, &err) : NULL;
    if (!gate) {
        free(one);
        free(g);
        free(plan);
        return err == CL_SUCCESS ? CL_OUT_OF_HOST_MEMORY : err;
    }
    for (cl_uint i = 0; i < e->num_wait; i++)
        NATIVE(e->wait[i], clRetainEvent)(e->wait[i]);
    g->gate = gate;
    plan->g = g;
    plan->list = e->wait;
    plan->n = e->num_wait;
    one[0] = gate;
    e->wait = one;
    e->num_wait = 1;
    e->gate = plan;
    return CL_SUCCESS;
}

cl_int aos_fail_gate_prepare(struct aos_session *s, struct aos_enqueue *e, enum aos_gate_kind kind)
{
    struct gate_queue *gq = queue_of(s, e->queue);
    if (!gq)
        return CL_OUT_OF_HOST_MEMORY;
    e->gate_kind = kind;
    cl_uint n = 0;
    cl_event *list = order_list(s, e, gq, kind, &n);
    if (!list)
        return CL_OUT_OF_HOST_MEMORY;
    free(e->wait);
    e->wait = n ? list : NULL;
    e->num_wait = n;
    if (!n)
        free(list);
    e->may_fail = false;
    for (cl_uint i = 0; i < n && !e->may_fail; i++)
        e->may_fail = aos_fail_gate_may_fail(s, e->wait[i]);
    /* PoCL links no ended event, so a list with one open event is one edge: its failure meets no
     * completion, and the command only may fail in turn. */
    cl_uint open = 0;
    for (cl_uint i = 0; e->may_fail && i < n && open < 2; i++)
        open += unresolved(e->wait[i]);
    return open > 1 ? gate_install(e) : CL_SUCCESS;
}

/* ---- Arming and setting a gate ------------------------------------------------------------------ */

static void post(struct aos_fail_gate *g)
{
    struct aos_fail_gates *f = g->s->fail_gates;
    pthread_mutex_lock(&f->post_lock);
    g->next = f->posted;
    f->posted = g;
    pthread_mutex_unlock(&f->post_lock);
    aos_session_poke(g->s);
}

/* Any thread: one event of the gate's list has ended. */
static void list_event_done(cl_int status, void *data)
{
    struct aos_fail_gate *g = data;
    if (status < 0) {
        cl_int none = 0;
        atomic_compare_exchange_strong(&g->failed, &none, status);
    }
    if (atomic_fetch_sub(&g->pending, 1) == 1)
        post(g);
}

static void arm(struct aos_session *s, struct gate_plan *plan)
{
    struct aos_fail_gate *g = plan->g;
    g->s = s;
    aos_session_ref(s);
    atomic_fetch_add(&s->fail_gates->armed, 1);
    atomic_init(&g->pending, (int)plan->n + 1);
    atomic_init(&g->failed, 0);
    for (cl_uint i = 0; i < plan->n; i++)
        if (aos_event_when_done(plan->list[i], list_event_done, g) != CL_SUCCESS)
            list_event_done(CL_OUT_OF_HOST_MEMORY, g);
    list_event_done(CL_COMPLETE, g);
}

static void gate_set(struct aos_fail_gate *g)
{
    struct aos_session *s = g->s;
    struct aos_fail_gates *f = s->fail_gates;
    cl_int failed = atomic_load(&g->failed);
    if (failed)
        atomic_fetch_add(&s->gates_failed, 1);
    atomic_fetch_add(&s->gates_set, 1);
    NATIVE(g->gate, clSetUserEventStatus)(g->gate, failed ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST : CL_COMPLETE);
    if (failed)
        aos_event_watch_poke(); /* the gated command failed: what waits on it hears of it now */
    aos_event_drop(s, g->gate);
    atomic_fetch_sub(&f->armed, 1);
    free(g);
    aos_session_unref(s);
}

void aos_fail_gates_apply(struct aos_session *s)
{
    struct aos_fail_gates *f = s->fail_gates;
    if (!f)
        return;
    pthread_mutex_lock(&f->post_lock);
    struct aos_fail_gate *g = f->posted;
    f->posted = NULL;
    pthread_mutex_unlock(&f->post_lock);
    while (g) {
        struct aos_fail_gate *next = g->next;
        gate_set(g);
        g = next;
    }
}

/* ---- After the enqueue -------------------------------------------------------------------------- */

bool aos_fail_gate_commit(struct aos_session *s, struct aos_enqueue *e, cl_event queue_event)
{
    if (e->committed)
        return false;
    e->committed = true;
    struct gate_plan *plan = e->gate;
    e->gate = NULL;
    if (plan) {
        if (queue_event) {
            arm(s, plan);
        } else {
            /* Never enqueued: nothing waits on the gate. */
            NATIVE(plan->g->gate, clSetUserEventStatus)(plan->g->gate, CL_COMPLETE);
            NATIVE(plan->g->gate, clReleaseEvent)(plan->g->gate);
            free(plan->g);
        }
        for (cl_uint i = 0; i < plan->n; i++)
            NATIVE(plan->list[i], clReleaseEvent)(plan->list[i]);
        free(plan->list);
        free(plan);
    }
    if (!queue_event)
        return false;
    struct gate_queue *gq = queue_of(s, e->queue);
    if (gq && gq->explicit_order && !gq->out_of_order) {
        retain_into(s, &gq->prev, queue_event);
    } else if (gq && gq->explicit_order) {
        if (gq->npending == gq->cap)
            prune(s, gq->pending, &gq->npending);
        if (!push_event(&gq->pending, &gq->npending, &gq->cap, queue_event))
            aos_log(AOS_LOG_WARN, "event", "client %llu: cannot track a command of an out-of-order queue",
                    (unsigned long long)s->serial);
        if (e->gate_kind == AOS_GATE_BARRIER)
            retain_into(s, &gq->barrier, queue_event);
    }
    if (e->may_fail)
        aos_fail_gate_mark(s, queue_event);
    return e->may_fail;
}

/* ---- Markers ------------------------------------------------------------------------------------ */

/* A new out-of-order queue on gq's device, with its profiling: where markers of gq go. PoCL 3.1
 * links a marker on an out-of-order queue to every unfinished command of the queue, whatever its
 * wait list: a marker beside a gated command would meet the gate's failure. So the markers of a
 * client's queue go to a queue of their own, where nothing else is, and a marker that may fail
 * (gated or behind one event that may fail) to one where it is alone. NULL when none can be made. */
static cl_command_queue side_queue(struct gate_queue *gq, cl_context ctx)
{
    cl_device_id dev = NULL;
    if (NATIVE(gq->queue, clGetCommandQueueInfo)(gq->queue, CL_QUEUE_DEVICE, sizeof(dev), &dev, NULL) != CL_SUCCESS)
        return NULL;
    cl_int err;
    cl_command_queue_properties props = device_queue_props(gq->queue) & CL_QUEUE_PROFILING_ENABLE;
    return NATIVE(ctx, clCreateCommandQueue)(ctx, dev, props | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
}

/* Retires gq's lone queue: let go of once its last marker has completed (without one, once the
 * retired list's barrier has). */
static void lone_queue_retire(struct aos_session *s, struct gate_queue *gq)
{
    if (!gq->lone)
        return;
    aos_retired_queues_add(&s->own_queues, gq->lone, gq->lone_last);
    gq->lone = NULL;
    gq->lone_last = NULL;
}

/* gq's lone queue, for one marker: reused while nothing on it is unfinished (PoCL links no ended
 * command, so the marker is alone there), otherwise a new one. A last marker that failed retires
 * the queue too (a failed event's queue is kept until the session's end: queue_retire.h). NULL
 * when none can be made. */
static cl_command_queue lone_queue(struct aos_session *s, struct gate_queue *gq, cl_context ctx)
{
    if (gq->lone && (!gq->lone_last || aos_event_exec_status(gq->lone_last) == CL_COMPLETE))
        return gq->lone;
    lone_queue_retire(s, gq);
    gq->lone = side_queue(gq, ctx);
    return gq->lone;
}

cl_int aos_fail_gate_enqueue_marker(struct aos_session *s, struct aos_enqueue *e, bool barrier, cl_event *ev)
{
    struct gate_queue *gq = queue_of(s, e->queue);
    *ev = NULL;
    if ((!gq || !gq->explicit_order) && barrier)
        return NATIVE(e->queue, clEnqueueBarrierWithWaitList)(e->queue, e->num_wait, e->wait, ev);
    if (!gq || !gq->explicit_order)
        return NATIVE(e->queue, clEnqueueMarkerWithWaitList)(e->queue, e->num_wait, e->wait, ev);
    /* A marker that may fail must be alone: PoCL would link the next marker to it. */
    bool alone = e->gate || e->may_fail;
    if (!alone && !gq->markers)
        gq->markers = side_queue(gq, e->context);
    cl_command_queue q = alone ? lone_queue(s, gq, e->context) : gq->markers;
    if (!q)
        return CL_OUT_OF_RESOURCES;
    cl_int err = NATIVE(q, clEnqueueMarkerWithWaitList)(q, e->num_wait, e->wait, ev);
    if (err == CL_SUCCESS) {
        NATIVE(q, clFlush)(q);
        if (alone)
            retain_into(s, &gq->lone_last, *ev);
    }
    return err;
}

cl_command_queue aos_fail_gate_forget_queue(struct aos_session *s, cl_command_queue q)
{
    struct aos_fail_gates *f = s->fail_gates;
    for (uint32_t i = 0; f && i < f->nqueues; i++) {
        struct gate_queue *gq = &f->queues[i];
        if (gq->queue != q)
            continue;
        cl_command_queue markers = gq->markers;
        lone_queue_retire(s, gq);
        queue_record_drop(s, gq);
        f->queues[i] = f->queues[--f->nqueues];
        return markers;
    }
    return NULL;
}

/* ---- The daemon's own commands ------------------------------------------------------------------ */

cl_int aos_fail_gate_marker(struct aos_session *s, cl_command_queue q, cl_uint n, const cl_event *wait, cl_event *ev)
{
    struct aos_enqueue e = {.queue = q};
    *ev = NULL;
    NATIVE(q, clGetCommandQueueInfo)(q, CL_QUEUE_CONTEXT, sizeof(e.context), &e.context, NULL);
    if (n) {
        e.wait = malloc(n * sizeof(cl_event));
        if (!e.wait)
            return CL_OUT_OF_HOST_MEMORY;
        memcpy(e.wait, wait, n * sizeof(cl_event));
        e.num_wait = n;
    }
    cl_int err = aos_fail_gate_prepare(s, &e, n ? AOS_GATE_COMMAND : AOS_GATE_MARKER);
    if (err == CL_SUCCESS)
        err = aos_fail_gate_enqueue_marker(s, &e, false, ev);
    aos_fail_gate_commit(s, &e, err == CL_SUCCESS ? *ev : NULL);
    free(e.wait);
    return err;
}

cl_int aos_fail_gate_marker_after(struct aos_session *s, cl_command_queue q, cl_event ev_before, cl_event *ev)
{
    struct aos_enqueue e = {.queue = q, .wait = &ev_before, .num_wait = 1};
    *ev = NULL;
    NATIVE(q, clGetCommandQueueInfo)(q, CL_QUEUE_CONTEXT, sizeof(e.context), &e.context, NULL);
    e.may_fail = aos_fail_gate_may_fail(s, ev_before);
    cl_int err = aos_fail_gate_enqueue_marker(s, &e, false, ev);
    if (err == CL_SUCCESS && e.may_fail)
        aos_fail_gate_mark(s, *ev);
    return err;
}

cl_event *aos_fail_gate_finish_events(struct aos_session *s, cl_command_queue q, cl_uint *n)
{
    struct gate_queue *gq = queue_of(s, q);
    *n = 0;
    if (!gq || !gq->explicit_order)
        return NULL;
    /* What a marker without a wait list would wait for. */
    struct aos_enqueue e = {.queue = q};
    cl_event *list = order_list(s, &e, gq, AOS_GATE_MARKER, n);
    if (!list) {
        *n = 1;
        return NULL;
    }
    for (cl_uint i = 0; i < *n; i++)
        NATIVE(list[i], clRetainEvent)(list[i]);
    return list;
}

/* ---- Session end -------------------------------------------------------------------------------- */

void aos_fail_gates_drain(struct aos_session *s)
{
    struct aos_fail_gates *f = s->fail_gates;
    if (!f)
        return;
    uint64_t deadline = aos_now_ns() + DRAIN_TIMEOUT_NS;
    for (;;) {
        aos_fail_gates_apply(s);
        if (!atomic_load(&f->armed))
            return;
        if (aos_now_ns() > deadline)
            break;
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
    aos_log(AOS_LOG_WARN, "event", "client %llu: %u gated commands still wait at its end",
            (unsigned long long)s->serial, (unsigned)atomic_load(&f->armed));
}

void aos_fail_gates_destroy(struct aos_session *s)
{
    struct aos_fail_gates *f = s->fail_gates;
    if (!f)
        return;
    for (uint32_t i = 0; i < f->nqueues; i++) {
        struct gate_queue *gq = &f->queues[i];
        lone_queue_retire(s, gq);
        queue_record_drop(s, gq);
        if (gq->markers)
            aos_retired_queues_add(&s->own_queues, gq->markers, NULL);
    }
    free(f->queues);
    f->queues = NULL;
    f->nqueues = f->qcap = 0;
    for (uint32_t i = 0; i < f->nmay_fail; i++)
        aos_event_drop(s, f->may_fail[i]);
    free(f->may_fail);
    f->may_fail = NULL;
    f->nmay_fail = f->mcap = 0;
    /* The struct itself stays until the session is freed: gates still armed post into it. */
}

void aos_fail_gates_free(struct aos_session *s)
{
    struct aos_fail_gates *f = s->fail_gates;
    if (!f)
        return;
    pthread_mutex_destroy(&f->post_lock);
    free(f);
    s->fail_gates = NULL;
}

