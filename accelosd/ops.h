/*
 * Request handlers. Each ops_<area>.c defines its handlers and lists them in an
 * aos_op_entry table that dispatch.c merges into one opcode-indexed table at start-up.
 *
 * Handler contract:
 *   - payload/len is the private copy of the request after the header; the dispatcher already
 *     checked len >= min_len and that the slot is valid for sync ops (AOS_NO_SLOT for async).
 *   - a sync handler answers its slot exactly once, now or later (aos_reply_when_complete, ...).
 *   - return 0, or -EPROTO when the request is malformed: the client is then disconnected.
 *     OpenCL-level errors are not protocol errors; they go into the reply (or into the event
 *     of an async enqueue through aos_enqueue_done).
 */
#ifndef ACCELOSD_OPS_H
#define ACCELOSD_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "accelos/wire_core.h"
#include "session.h"

typedef int (*aos_op_fn)(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len);

struct aos_op_entry {
    uint32_t opcode;
    uint32_t min_len;  /* size of the fixed request struct */
    bool sync;         /* expects a reply slot */
    aos_op_fn fn;
    const char *name;
};

/* Tables, terminated by an entry with opcode 0. */
extern const struct aos_op_entry aos_ops_core[];     /* ops_core.c: retain/release, info, context */
extern const struct aos_op_entry aos_ops_queue[];    /* ops_queue.c: queues, flush, finish */
extern const struct aos_op_entry aos_ops_mem[];      /* ops_mem.c: buffers, transfers */
extern const struct aos_op_entry aos_ops_image[];    /* ops_image.c: images, samplers */
extern const struct aos_op_entry aos_ops_program[];  /* ops_program.c: programs */
extern const struct aos_op_entry aos_ops_kernel[];   /* ops_kernel.c: kernels, NDRange */
extern const struct aos_op_entry aos_ops_event[];    /* ops_event.c: events, markers, callbacks */

/* Handle destructors, registered by each area at start-up. */
void aos_ops_core_init(void);
void aos_ops_mem_init(void);
void aos_ops_image_init(void);
void aos_ops_program_init(void);
void aos_ops_kernel_init(void);
void aos_ops_event_init(void);

/* Builds the dispatch table; call once before serving. */
void aos_dispatch_init(void);
/* Handles one message (header included). Returns 0 or -EPROTO. */
int aos_dispatch(struct aos_session *s, const void *msg, uint32_t size);

/* ---- Helpers for handlers ------------------------------------------------------------------ */

/* Variable-length tail reader: hands out consecutive, bounds-checked pieces of a request. */
struct aos_tail {
    const uint8_t *at;
    uint32_t left;
};
void aos_tail_init(struct aos_tail *t, const void *payload, uint32_t len, uint32_t fixed);
/* Next n bytes, or NULL when the request is too short (a protocol error). n == 0 gives a
 * non-NULL pointer. */
const void *aos_tail_take(struct aos_tail *t, uint64_t n);

/* A parsed enqueue: queue, wait list and the event to register. */
struct aos_enqueue {
    cl_command_queue queue;
    cl_context context;     /* the queue's real context */
    uint64_t event_id;      /* 0: the application asked for no event */
    cl_uint num_wait;
    cl_event *wait;         /* NULL when num_wait == 0; freed by aos_enqueue_done */
    bool blocking;
    uint32_t slot;          /* reply slot for blocking enqueues */
    /* fail_gate.h: the gate put in place of the wait list (not yet armed), whether the command
     * may fail, what kind of command it is for the queue's order, and whether it was committed. */
    void *gate;
    bool may_fail;
    bool committed;
    int gate_kind;
};

/* Parses the aos_enqueue_hdr that starts payload and the wait list that follows the fixed struct
 * (tail must be positioned right after it). Returns CL_SUCCESS, a CL error for unknown objects
 * (CL_INVALID_COMMAND_QUEUE, CL_INVALID_EVENT_WAIT_LIST), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
 * for a blocking command behind an event that already failed, or CL_INVALID_VALUE; *proto is set
 * when the request itself is malformed. */
cl_int aos_enqueue_parse(struct aos_session *s, const void *payload, struct aos_tail *tail,
                         uint32_t slot, struct aos_enqueue *e, bool *proto);
/* aos_enqueue_parse for requests whose fixed struct (fixed bytes) is followed by the wait list
 * only. Returns -EPROTO for a malformed request, else 0 with the CL result in *err. */
int aos_enqueue_parse_fixed(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len, uint32_t fixed,
                            struct aos_enqueue *e, cl_int *err);
/* A request found malformed after aos_enqueue_parse succeeded: drops what the parse prepared. */
void aos_enqueue_abandon(struct aos_session *s, struct aos_enqueue *e);
/* Finishes an enqueue: registers ev under e->event_id (profiling from the same event), answers a
 * blocking request when ev completes, or on err != CL_SUCCESS records a failed event and answers
 * err. Always consumes ev and frees the wait list. */
void aos_enqueue_done(struct aos_session *s, struct aos_enqueue *e, cl_int err, cl_event ev);
/* A device command of a fixed-size request (req): enqueues it on e->queue after e's wait list,
 * its event in *ev; the CL result. */
typedef cl_int (*aos_fixed_command_fn)(struct aos_session *s, const void *req, const struct aos_enqueue *e,
                                       cl_event *ev);
/* The whole of a request whose fixed struct (fixed bytes) is followed by the wait list only and
 * which moves no host data (copies, fills): parses it, runs command when its queue and wait list
 * are valid, and finishes as aos_enqueue_done. -EPROTO for a malformed request, else 0. */
int aos_enqueue_fixed_command(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len, uint32_t fixed,
                              aos_fixed_command_fn command);
/* As aos_enqueue_done for a successful elastic launch: ev is the application's status event, and
 * the logical launch l (one reference, taken over) answers its profiling queries. */
struct aos_logical;
void aos_enqueue_done_logical(struct aos_session *s, struct aos_enqueue *e, cl_event ev, struct aos_logical *l);

/* As aos_enqueue_done for a solo launch (launch.h): the application's event waits on its status
 * event and reports the command's profiling, and the command's status unless the fate says it
 * was aborted. Takes over the launch's references. */
struct aos_solo_launch;
void aos_enqueue_done_solo(struct aos_session *s, struct aos_enqueue *e, struct aos_solo_launch *launch);
/* The execution status a client event id reports when it is not its status event's own: a logical
 * launch that failed, or a solo launch (its kernel command's, or the error it was aborted with).
 * False when the status event answers. */
bool aos_event_status_override(struct aos_session *s, uint64_t id, cl_int *status);

/* Registers a client event id for a real event (status) with a separate profiling event
 * (may equal status_event). Takes ownership of both references. Returns 0 or -EEXIST/-EINVAL
 * (protocol errors). */
int aos_event_register(struct aos_session *s, uint64_t id, cl_event status_event, cl_event profiling_event);
/* Records id as an event that already failed with err, so waits and queries report it. */
void aos_event_register_failed(struct aos_session *s, uint64_t id, cl_context ctx, cl_int err);
/* The real event that carries profiling info for a client event id, or NULL. */
cl_event aos_event_profiling(struct aos_session *s, uint64_t id);
/* The logical launch behind an event id, NULL when it is not an elastic launch. */
struct aos_logical *aos_event_logical(struct aos_session *s, uint64_t id);

/* Command with a host step (the client copies data after the device part): registers e->event_id
 * (which must be non-zero) as an event that completes when the client reports its host step done
 * (AOS_OP_COMPLETE_HOST_STEP), with profiling from dev_event. When dev_event ends: with token, sends
 * AOS_NOTE_HOST_STEP with it; without (a blocking request), answers e->slot with value 1, status
 * CL_SUCCESS or CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST. Consumes dev_event and the wait list.
 * Returns CL_SUCCESS or the error (the event then failed, and a blocking request was answered with
 * the error and value 0: no host step to complete). */
cl_int aos_host_step_begin(struct aos_session *s, struct aos_enqueue *e, cl_event dev_event, uint64_t token);

/* ---- Real events ------------------------------------------------------------------------ */

/* Calls fn exactly once, on some thread, when ev has ended: status is CL_COMPLETE or the negative
 * status it failed with. Unlike clSetEventCallback this also fires for events that fail (PoCL
 * never calls the callbacks of an event that failed). Takes its own reference to ev. Returns
 * CL_SUCCESS, or CL_OUT_OF_HOST_MEMORY (fn is then not called). */
typedef void (*aos_event_done_fn)(cl_int status, void *data);
cl_int aos_event_when_done(cl_event ev, aos_event_done_fn fn, void *data);
/* After setting a failure: the watcher looks at its events now rather than at its next poll, so
 * what waits on the failed event (a gate, fail_gate.h) hears of it at once. Any thread. */
void aos_event_watch_poke(void);

/* The status a real event's callback should act on: PoCL calls a callback set on an event that
 * already failed at once, but with the callback's type for a status; the event's own status is
 * the truth. */
cl_int aos_event_callback_status(cl_event ev, cl_int status);

/* A profiling time of a real event; false when the device has none for it (queue without profiling,
 * command not run). */
bool aos_event_profiled(cl_event ev, cl_profiling_info what, uint64_t *out);

/* Drops the daemon's reference to a real event. An event that has not completed successfully is
 * kept until the session is torn down: PoCL frees a failed event while it may still be linked
 * from an event it waited on, and a later status change of that one would touch freed memory.
 * Service thread only. */
void aos_event_drop(struct aos_session *s, cl_event ev);
/* Session teardown, before the handles are destroyed: fails the client's user events (released
 * ones too) and unrun host steps, then finishes every queue, released ones too, so nothing the client enqueued is still pending (or
 * reading its region). */
void aos_session_quiesce(struct aos_session *s);
/* Session teardown, after the handles are destroyed: releases the events aos_event_drop kept, a
 * moment after the queues were finished, and the queues the client had released. */
void aos_session_release_kept_events(struct aos_session *s);

/* Real context of a client context id, or NULL. */
cl_context aos_context_lookup(struct aos_session *s, uint64_t id);

/* Logs an error of an async request that has no event to carry it. */
void aos_async_error(struct aos_session *s, const char *op, cl_int err);

#endif
