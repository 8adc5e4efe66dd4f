/*
 * Events. A client event id maps to a real "status" event (what waits and wait lists use) and a
 * "profiling" event (usually the same). Commands with a host step are the exception: their status
 * event is a real user event that completes only when the client reports that its host part is
 * done, while profiling comes from the device command.
 *
 * Nothing here blocks the service thread: waits, finishes and blocking transfers are answered
 * when real events end, from a completion that holds a session reference so a late one never
 * writes into an unmapped region.
 *
 * Design note: two PoCL defects shape this file.
 *   - PoCL never calls an event's callbacks when the event fails (a user event set to an error,
 *     or a command whose wait list failed). aos_event_when_done (event_watch.c) therefore pairs
 *     the real callback with a watcher thread, so waits, finishes, host steps and the
 *     application's callbacks also end on failure.
 *   - PoCL frees a failed event while it may still be linked from an event it waited on; when
 *     that one changes status later, PoCL touches freed memory and aborts the whole daemon. So
 *     the daemon never drops its last reference to an event that has not completed successfully
 *     (aos_event_drop keeps it), and at teardown it first drives every pending event of the
 *     session to an end (aos_session_quiesce), on the queues the client released too
 *     (queue_retire.h), and releases the kept events only a moment later: PoCL's clFinish returns
 *     before the last command's end has reached the events behind it.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "accelos/log.h"
#include "accelos/wire_event.h"
#include "callback_token.h"
#include "event_park.h"
#include "fail_gate.h"
#include "launch.h"
#include "logical.h"
#include "ops.h"
#include "solo.h"

/* How long the session's end waits, its queues finished, before it releases the events it kept:
 * time for PoCL's workers to finish spreading the last ends (aos_session_release_kept_events). */
#define KEPT_RELEASE_GRACE_NS 100000000

struct event_extra {
    struct aos_session *s;
    cl_event profiling;      /* retained separately when it differs from the status event */
    struct aos_logical *logical; /* an elastic launch: profiling is the logical launch's */
    struct aos_solo_fate *solo;  /* a solo launch: status from profiling, unless it was aborted */
    bool user;               /* a user event of the client's (clCreateUserEvent) */
    bool host_step;          /* status event is a user event completed by the client */
    bool host_step_done;
    bool host_step_ref;      /* our own reference, so the client may release before reporting */
};

/* ---- Kept events ---------------------------------------------------------------------------- */

struct aos_kept_events {
    cl_event *events;
    uint32_t count, cap;
    uint32_t sweep_at;       /* sweep for completed ones when count reaches this */
};

/* Releases the kept events that have completed successfully since. */
static void kept_sweep(struct aos_kept_events *k)
{
    uint32_t left = 0;
    for (uint32_t i = 0; i < k->count; i++) {
        if (aos_event_exec_status(k->events[i]) == CL_COMPLETE)
            NATIVE(k->events[i], clReleaseEvent)(k->events[i]);
        else
            k->events[left++] = k->events[i];
    }
    k->count = left;
    /* Amortized: the next sweep waits until as many events again have been kept. */
    k->sweep_at = left * 2 > 64 ? left * 2 : 64;
}

void aos_event_drop(struct aos_session *s, cl_event ev)
{
    if (aos_event_exec_status(ev) == CL_COMPLETE) {
        NATIVE(ev, clReleaseEvent)(ev);
        return;
    }
    struct aos_kept_events *k = s->kept_events;
    if (!k && (k = s->kept_events = calloc(1, sizeof(*k))))
        k->sweep_at = 64;
    if (k && k->count == k->cap) {
        uint32_t cap = k->cap ? k->cap * 2 : 64;
        cl_event *grown = realloc(k->events, cap * sizeof(*grown));
        if (grown) {
            k->events = grown;
            k->cap = cap;
        }
    }
    if (!k || k->count == k->cap) {
        /* Out of memory: leaking one reference is safe, releasing it is not. */
        aos_log(AOS_LOG_WARN, "event", "client %llu: cannot keep an event; leaking it",
                (unsigned long long)s->serial);
        return;
    }
    k->events[k->count++] = ev;
    if (k->count >= k->sweep_at)
        kept_sweep(k);
}

void aos_session_release_kept_events(struct aos_session *s)
{
    struct aos_kept_events *k = s->kept_events;
    bool release = !s->queue_undrained; /* else something may still reach them: leak */
    if (release && ((k && k->count) || aos_retired_queues_count(&s->retired_queues) || aos_retired_queues_count(&s->own_queues))) {
        /* PoCL 3.1 lets clFinish return once a queue's last command has ended, before that
         * command's end has reached the events that waited on it: kept ones, or a released
         * queue's failed barrier. */
        struct timespec grace = {0, KEPT_RELEASE_GRACE_NS};
        while (nanosleep(&grace, &grace) != 0 && errno == EINTR)
            ;
    }
    for (uint32_t i = 0; release && k && i < k->count; i++)
        NATIVE(k->events[i], clReleaseEvent)(k->events[i]);
    if (k) {
        free(k->events);
        free(k);
    }
    s->kept_events = NULL;
    aos_retired_queues_release(&s->retired_queues, release);
    aos_retired_queues_release(&s->own_queues, release);
    atomic_store(&s->released_queues_kept, 0);
}

/* A user event the client released before setting it: nobody can set it now. */
static void quiesce_kept_user_events(struct aos_kept_events *k)
{
    for (uint32_t i = 0; k && i < k->count; i++) {
        cl_command_type type = 0;
        if (NATIVE(k->events[i], clGetEventInfo)(k->events[i], CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL) ==
                CL_SUCCESS &&
            type == CL_COMMAND_USER && aos_event_exec_status(k->events[i]) > CL_COMPLETE)
            NATIVE(k->events[i], clSetUserEventStatus)(k->events[i], CL_OUT_OF_RESOURCES);
    }
}

static void quiesce_event(struct aos_handle *h, void *ctx)
{
    (void)ctx;
    struct event_extra *x = h->extra;
    bool pending = aos_event_exec_status(h->object) > CL_COMPLETE;
    /* Nothing waits on a client's user event but gates (fail_gate.h): it may fail. A host step's
     * event is ended as done: nobody can see it any more, and a failure could meet a completion. */
    if (x && x->user && pending)
        NATIVE(h->object, clSetUserEventStatus)(h->object, CL_OUT_OF_RESOURCES);
    if (x && x->host_step && !x->host_step_done && pending)
        NATIVE(h->object, clSetUserEventStatus)(h->object, CL_COMPLETE);
    if (x && x->host_step)
        x->host_step_done = true;
}

/* Bounded, as for released queues (queue_retire.c): should PoCL never run or fail a command, an
 * unbounded clFinish would hold the session, and all it owns, for good. */
static void quiesce_queue(struct aos_handle *h, void *ctx)
{
    bool *undrained = ctx;
    if (!aos_queue_drain_bounded(h->object))
        *undrained = true;
}

void aos_session_quiesce(struct aos_session *s)
{
    /* The client is gone: whatever waits for its user events or host steps fails, and then every
     * command of its queues, released ones included, has ended one way or the other. */
    aos_handles_for_each(&s->handles, AOS_OBJ_EVENT, quiesce_event, NULL);
    quiesce_kept_user_events(s->kept_events);
    aos_fail_gates_drain(s); /* the commands behind those events can now end */
    bool undrained = false;
    aos_handles_for_each(&s->handles, AOS_OBJ_QUEUE, quiesce_queue, &undrained);
    bool own_drained = aos_retired_queues_finish(&s->own_queues);
    s->queue_undrained = !aos_retired_queues_finish(&s->retired_queues) || !own_drained || undrained;
}

/* ---- Client event ids ------------------------------------------------------------------------ */

static void event_dtor(struct aos_handle *h)
{
    struct event_extra *x = h->extra;
    cl_event ev = h->object;
    if (x && x->host_step && !x->host_step_done) {
        /* The client is gone before finishing its part: end the event so nothing waits forever
         * (as done: a failure could meet a completion, fail_gate.h). */
        NATIVE(ev, clSetUserEventStatus)(ev, CL_COMPLETE);
    }
    if (x && x->profiling && x->profiling != ev)
        aos_event_drop(x->s, x->profiling);
    if (x && x->logical)
        aos_logical_unref(x->logical);
    if (x && x->solo)
        aos_solo_fate_unref(x->solo);
    if (x)
        aos_event_drop(x->s, ev);
    else
        NATIVE(ev, clReleaseEvent)(ev); /* never happens: every event id has its extra */
    free(x);
}

/* Takes over the references to status_event, profiling_event (NULL: the status event's), l and
 * solo. */
static int event_register(struct aos_session *s, uint64_t id, cl_event status_event, cl_event profiling_event,
                          struct aos_logical *l, struct aos_solo_fate *solo)
{
    struct event_extra *x = calloc(1, sizeof(*x));
    if (!x) {
        aos_event_drop(s, status_event);
        if (profiling_event && profiling_event != status_event)
            aos_event_drop(s, profiling_event);
        if (l)
            aos_logical_unref(l);
        aos_solo_fate_unref(solo);
        return -ENOMEM;
    }
    x->s = s;
    x->profiling = profiling_event;
    x->logical = l;
    x->solo = solo;
    int rc = aos_handles_add(&s->handles, id, AOS_OBJ_EVENT, status_event, x);
    if (rc < 0) {
        struct aos_handle tmp = {.object = status_event, .extra = x};
        event_dtor(&tmp);
    }
    return rc;
}

int aos_event_register(struct aos_session *s, uint64_t id, cl_event status_event, cl_event profiling_event)
{
    return event_register(s, id, status_event, profiling_event, NULL, NULL);
}

bool aos_event_status_override(struct aos_session *s, uint64_t id, cl_int *status)
{
    struct aos_handle *h = aos_handles_find(&s->handles, id, AOS_OBJ_EVENT);
    struct event_extra *x = h ? h->extra : NULL;
    if (!x)
        return false;
    cl_int failed = x->logical ? aos_logical_failed(x->logical) : x->solo ? aos_solo_fate_failed(x->solo) : 0;
    if (failed < 0) {
        *status = failed;
        return true;
    }
    /* A solo launch's user event is set by the command's end a moment later: after a clFinish
     * the command's own status is the true one. */
    if (x->solo && x->profiling) {
        *status = aos_event_exec_status(x->profiling);
        return true;
    }
    return false;
}

struct aos_logical *aos_event_logical(struct aos_session *s, uint64_t id)
{
    struct aos_handle *h = aos_handles_find(&s->handles, id, AOS_OBJ_EVENT);
    struct event_extra *x = h ? h->extra : NULL;
    return x ? x->logical : NULL;
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

static void waiter_done(cl_int status, void *data)
{
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
cl_int aos_reply_when_all_complete(struct aos_session *s, uint32_t slot, cl_event *events, cl_uint n)
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
        cl_int err = aos_event_when_done(events[i], waiter_done, w);
        if (err != CL_SUCCESS)
            waiter_done(err, w);
    }
    waiter_done(CL_COMPLETE, w);
    return CL_SUCCESS;
}

cl_int aos_reply_when_complete(struct aos_session *s, uint32_t slot, cl_event ev)
{
    return aos_reply_when_all_complete(s, slot, &ev, 1);
}

/* ---- Enqueue helpers ------------------------------------------------------------------------ */

/* True when one of the events has already failed (a negative execution status). */
static bool wait_list_failed(cl_event *events, cl_uint n)
{
    for (cl_uint i = 0; i < n; i++)
        if (aos_event_failed(events[i]))
            return true;
    return false;
}

static cl_int enqueue_parse(struct aos_session *s, const void *payload, struct aos_tail *tail, uint32_t slot,
                            struct aos_enqueue *e, bool *proto, enum aos_gate_kind kind)
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
        if (wait_list_failed(e->wait, e->num_wait)) {
            /* The command fails here, never enqueued, its event with the spec's status. PoCL 3.1
             * would neither run nor fail it: linked behind an event whose failure has already
             * spread, it waits forever, and clFinish with it. (A user event failed after the
             * enqueue instead, as until session 38, races with a completion of the command's other
             * dependencies: docs/architecture.md section 7.) Failures start only on this thread
             * (status_mailbox.h), so none can start between this check and the enqueue. */
            free(e->wait);
            e->wait = NULL;
            e->num_wait = 0;
            return CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
        }
    }
    return aos_fail_gate_prepare(s, e, kind);
}

cl_int aos_enqueue_parse(struct aos_session *s, const void *payload, struct aos_tail *tail, uint32_t slot,
                         struct aos_enqueue *e, bool *proto)
{
    return enqueue_parse(s, payload, tail, slot, e, proto, AOS_GATE_COMMAND);
}

static int enqueue_parse_fixed(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len,
                               uint32_t fixed, struct aos_enqueue *e, cl_int *err, enum aos_gate_kind kind)
{
    struct aos_tail tail;
    aos_tail_init(&tail, payload, len, fixed);
    bool proto = false;
    *err = enqueue_parse(s, payload, &tail, slot, e, &proto, kind);
    return proto ? -EPROTO : 0;
}

void aos_enqueue_abandon(struct aos_session *s, struct aos_enqueue *e)
{
    aos_fail_gate_commit(s, e, NULL);
    free(e->wait);
    e->wait = NULL;
}

int aos_enqueue_parse_fixed(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len, uint32_t fixed,
                            struct aos_enqueue *e, cl_int *err)
{
    return enqueue_parse_fixed(s, slot, payload, len, fixed, e, err, AOS_GATE_COMMAND);
}

int aos_enqueue_fixed_command(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len, uint32_t fixed,
                              aos_fixed_command_fn command)
{
    struct aos_enqueue e;
    cl_int err;
    if (aos_enqueue_parse_fixed(s, slot, payload, len, fixed, &e, &err) < 0)
        return -EPROTO;
    cl_event ev = NULL;
    if (err == CL_SUCCESS)
        err = command(s, payload, &e, &ev);
    aos_enqueue_done(s, &e, err, ev);
    return 0;
}

void aos_enqueue_done(struct aos_session *s, struct aos_enqueue *e, cl_int err, cl_event ev)
{
    aos_fail_gate_commit(s, e, err == CL_SUCCESS ? ev : NULL);
    free(e->wait);
    e->wait = NULL;
    if (err != CL_SUCCESS) {
        if (ev)
            aos_event_drop(s, ev);
        if (e->event_id)
            aos_event_register_failed(s, e->event_id, e->context, err);
        if (e->blocking)
            aos_reply_status(s, e->slot, err);
        else if (!e->event_id)
            aos_async_error(s, "enqueue", err);
        return;
    }
    aos_launch_command_enqueued(s, e->queue);
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
        aos_event_drop(s, ev);
    }
}

void aos_enqueue_done_logical(struct aos_session *s, struct aos_enqueue *e, cl_event ev, struct aos_logical *l)
{
    aos_fail_gate_commit(s, e, ev);
    free(e->wait);
    e->wait = NULL;
    if (e->event_id) {
        if (event_register(s, e->event_id, ev, NULL, l, NULL) < 0)
            aos_session_kill(s, "reused an event id");
    } else {
        aos_event_drop(s, ev);
        aos_logical_unref(l);
    }
}

void aos_enqueue_done_solo(struct aos_session *s, struct aos_enqueue *e, struct aos_solo_launch *launch)
{
    /* A watched launch's status is the daemon's user event, which its watchdog may fail. */
    if (aos_fail_gate_commit(s, e, launch->command) || launch->fate)
        aos_fail_gate_mark(s, launch->status);
    free(e->wait);
    e->wait = NULL;
    if (e->event_id) {
        if (event_register(s, e->event_id, launch->status, launch->command, NULL, launch->fate) < 0)
            aos_session_kill(s, "reused an event id");
        return;
    }
    if (launch->command != launch->status)
        aos_event_drop(s, launch->command);
    aos_event_drop(s, launch->status);
    aos_solo_fate_unref(launch->fate);
}

struct host_step_watch {
    struct aos_session *s;
    uint64_t event_id;
    uint64_t token;     /* 0: a blocking request, answered on slot */
    uint32_t slot;
};

static void host_step_done(cl_int status, void *data)
{
    struct host_step_watch *w = data;
    if (w->token) {
        struct aos_note_host_step note = {.event = w->event_id, .token = w->token, .status = status};
        aos_note_send(w->s, AOS_NOTE_HOST_STEP, &note, sizeof(note));
    } else {
        /* value 1: the host step is armed, the client must complete it whatever the status. */
        aos_reply(w->s, w->slot, status < 0 ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST : CL_SUCCESS, 1, 0, 0);
    }
    aos_session_unref(w->s);
    free(w);
}

/* A host step that cannot wait for its device part: the client still has to hear of it, or its step
 * (and every clFinish on the queue) would wait forever. */
static void host_step_failed(struct aos_session *s, const struct aos_enqueue *e, uint64_t token, cl_int err)
{
    if (token) {
        struct aos_note_host_step note = {.event = e->event_id, .token = token, .status = err};
        aos_note_send(s, AOS_NOTE_HOST_STEP, &note, sizeof(note));
    } else {
        aos_reply_status(s, e->slot, err);
    }
}

cl_int aos_host_step_begin(struct aos_session *s, struct aos_enqueue *e, cl_event dev_event, uint64_t token)
{
    /* The host step's event fails only when its device part fails (op_complete_host_step). */
    bool may_fail = aos_fail_gate_commit(s, e, dev_event);
    free(e->wait);
    e->wait = NULL;
    cl_int err;
    struct host_step_watch *w = malloc(sizeof(*w));
    cl_event user = w ? NATIVE(e->context, clCreateUserEvent)(e->context, &err) : NULL;
    if (!user) {
        free(w);
        aos_event_drop(s, dev_event);
        aos_event_register_failed(s, e->event_id, e->context, CL_OUT_OF_HOST_MEMORY);
        struct aos_handle *h = aos_handles_find(&s->handles, e->event_id, AOS_OBJ_EVENT);
        struct event_extra *failed = h ? h->extra : NULL;
        if (failed) /* a host step already over: the client's report of it is no error */
            failed->host_step = failed->host_step_done = true;
        host_step_failed(s, e, token, CL_OUT_OF_HOST_MEMORY);
        return CL_OUT_OF_HOST_MEMORY;
    }
    NATIVE(dev_event, clRetainEvent)(dev_event);
    if (aos_event_register(s, e->event_id, user, dev_event) < 0) {
        aos_event_drop(s, dev_event);
        free(w);
        aos_session_kill(s, "reused an event id");
        return CL_INVALID_VALUE;
    }
    struct event_extra *x = aos_handles_find(&s->handles, e->event_id, AOS_OBJ_EVENT)->extra;
    x->host_step = true;
    if (may_fail)
        aos_fail_gate_mark(s, user);
    x->host_step_ref = aos_handles_retain(&s->handles, e->event_id, AOS_OBJ_EVENT) == 0;
    *w = (struct host_step_watch){.s = s, .event_id = e->event_id, .token = token, .slot = e->slot};
    aos_session_ref(s);
    NATIVE(e->queue, clFlush)(e->queue);
    err = aos_event_when_done(dev_event, host_step_done, w);
    aos_event_drop(s, dev_event);
    if (err != CL_SUCCESS) {
        aos_session_unref(s);
        free(w);
        x->host_step_done = true;
        host_step_failed(s, e, token, err);
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
        err = aos_reply_when_all_complete(s, slot, events, r->num);
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
    if (aos_event_register(s, r->id, ev, ev) < 0)
        return -EPROTO;
    struct event_extra *x = aos_handles_find(&s->handles, r->id, AOS_OBJ_EVENT)->extra;
    x->user = true;
    aos_fail_gate_mark(s, ev); /* what waits on it waits on a gate (fail_gate.h) */
    return 0;
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
    else if (r->status < 0)
        aos_event_watch_poke(); /* PoCL calls no callback of a failed event: its gates poll for it */
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
    /* The event fails only when its device part failed, whatever the client says: then all that
     * waits on it is gated (fail_gate.h); an event that cannot fail has waiters that are not, and
     * its failure could meet their other events' completions. A client reports after hearing of
     * the device part's end; one that reports earlier has its event ended as done. */
    cl_int dev = x->profiling ? aos_event_exec_status(x->profiling) : CL_COMPLETE;
    cl_int status = dev < 0 && r->status < 0 ? r->status : CL_COMPLETE;
    NATIVE(h->object, clSetUserEventStatus)(h->object, status);
    if (x->host_step_ref) {
        x->host_step_ref = false;
        aos_handles_release(&s->handles, r->event, AOS_OBJ_EVENT);
    }
    return 0;
}

static int enqueue_sync_point(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len, bool barrier)
{
    struct aos_enqueue e;
    cl_int err;
    if (enqueue_parse_fixed(s, slot, payload, len, sizeof(struct aos_req_enqueue_sync), &e, &err,
                            barrier ? AOS_GATE_BARRIER : AOS_GATE_MARKER) < 0)
        return -EPROTO;
    cl_event ev = NULL;
    /* A barrier is a marker whose wait list holds the queue's order, which later commands of the
     * queue wait for in turn (fail_gate.h); on a queue that the device orders itself, a barrier. */
    if (err == CL_SUCCESS)
        err = aos_fail_gate_enqueue_marker(s, &e, barrier, &ev);
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

/* An application callback. It fires once: from the real callback for its type, or when the event
 * ends (the only way a failure is noticed). */
struct callback_watch {
    struct aos_session *s;
    uint64_t event_id;
    uint64_t token;
    _Atomic bool fired;
    _Atomic int refs;  /* the completion watch, and the real callback's token while out */
    uint64_t early_token; /* the real callback's for CL_SUBMITTED or CL_RUNNING; 0 = none */
};

static void callback_watch_unref(struct callback_watch *w)
{
    if (atomic_fetch_sub(&w->refs, 1) == 1)
        free(w);
}

static void callback_fire(struct callback_watch *w, cl_int status)
{
    if (atomic_exchange(&w->fired, true))
        return;
    struct aos_note_event_callback note = {.event = w->event_id, .token = w->token, .status = status};
    aos_note_send(w->s, AOS_NOTE_EVENT_CALLBACK, &note, sizeof(note));
    aos_session_unref(w->s);
}

static void CL_CALLBACK event_callback(cl_event ev, cl_int status, void *data)
{
    struct callback_watch *w = aos_token_claim(aos_token_of_data(data));
    if (!w)
        return; /* the event ended first and fired it */
    callback_fire(w, aos_event_callback_status(ev, status));
    callback_watch_unref(w);
}

static void event_callback_done(cl_int status, void *data)
{
    struct callback_watch *w = data;
    callback_fire(w, status);
    /* An event that failed before reaching the early state may never call the real callback. */
    if (aos_token_withdraw(w->early_token))
        callback_watch_unref(w);
    callback_watch_unref(w);
}

static int op_set_event_callback(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    (void)slot, (void)len;
    const struct aos_req_event_callback *r = payload;
    cl_event ev = aos_handles_object(&s->handles, r->event, AOS_OBJ_EVENT);
    if (!ev)
        return -EPROTO;
    cl_int err = r->callback_type == CL_SUBMITTED || r->callback_type == CL_RUNNING || r->callback_type == CL_COMPLETE
                     ? CL_SUCCESS
                     : CL_INVALID_VALUE;
    struct callback_watch *w = err == CL_SUCCESS ? calloc(1, sizeof(*w)) : NULL;
    if (w) {
        w->s = s;
        w->event_id = r->event;
        w->token = r->token;
        /* Earlier states come from the real callback; the completion watch still covers a failure.
         * Its token exists before the watch does: an event that has already ended may run the
         * watch, and free w, before aos_event_when_done returns. */
        w->early_token = r->callback_type != CL_COMPLETE ? aos_token_issue(w) : 0;
        uint64_t early_token = w->early_token;
        atomic_init(&w->refs, early_token ? 2 : 1);
        aos_session_ref(s);
        err = aos_event_when_done(ev, event_callback_done, w);
        if (err != CL_SUCCESS) {
            aos_token_withdraw(early_token);
            aos_session_unref(s);
            free(w);
        } else if (early_token &&
                   NATIVE(ev, clSetEventCallback)(ev, r->callback_type, event_callback, aos_token_as_data(early_token)) !=
                       CL_SUCCESS &&
                   aos_token_withdraw(early_token)) {
            callback_watch_unref(w);
        }
    } else if (err == CL_SUCCESS) {
        err = CL_OUT_OF_HOST_MEMORY;
    }
    if (err != CL_SUCCESS) {
        /* The client validated the type; tell it anyway so its callback record is not lost. */
        struct aos_note_event_callback note = {.event = r->event, .token = r->token, .status = err};
        aos_note_send(s, AOS_NOTE_EVENT_CALLBACK, &note, sizeof(note));
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
