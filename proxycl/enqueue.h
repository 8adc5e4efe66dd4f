/*
 * Client side of every enqueue: validation of queue, wait list and event, the common wire prefix,
 * and host steps (work the client must do after the device part, like copying a non-blocking
 * read out of the staging area before the application's event may complete).
 */
#ifndef PROXYCL_ENQUEUE_H
#define PROXYCL_ENQUEUE_H

#include "accelos/wire_core.h"
#include "types.h"

struct aos_enq {
    cl_command_queue queue;
    cl_uint num_wait;
    const cl_event *wait;
    cl_event event;        /* client event created for this command, or NULL */
    cl_command_type command_type;
    bool encoded;          /* the request carrying the event id was built, so the daemon knows it */
};

/* Validates queue (CL_INVALID_COMMAND_QUEUE), the wait list (CL_INVALID_EVENT_WAIT_LIST: non-NULL
 * with 0 count, NULL with a count, invalid events, other contexts -> CL_INVALID_CONTEXT) and
 * creates the command's event when want_event (the application asked for one, or the command
 * needs one internally). */
cl_int aos_enq_prepare(struct aos_enq *e, cl_command_queue queue, cl_uint num_wait, const cl_event *wait,
                       cl_command_type command_type, bool want_event);
/* Bytes the wait list takes on the wire. */
uint32_t aos_enq_wait_bytes(const struct aos_enq *e);
/* Fills the wire prefix and writes the wait ids at wait_out. */
void aos_enq_encode(struct aos_enq *e, struct aos_enqueue_hdr *hdr, void *wait_out, bool blocking);
/* After the request went out: on success hands the event to the application when it asked for
 * one (app_event non-NULL), else drops it; on failure drops it. */
void aos_enq_complete(struct aos_enq *e, cl_int err, cl_event *app_event);

/* A host step: run() is called on the callback thread once the device part ended with status
 * (CL_COMPLETE or a negative error); then the command's event completes in the daemon. */
struct aos_host_step {
    void (*run)(struct aos_host_step *step, cl_int status);
    cl_command_queue queue;
    uint64_t event_id;
};
/* Registers a host step for an enqueue about to be sent and returns its wire token. */
uint64_t aos_host_step_arm(struct aos_host_step *step, cl_command_queue queue, cl_event event);
/* Tells the daemon the host side of event_id's command ended with status (CL_COMPLETE when not
 * negative); the command's event then completes. Returns the send's result. */
cl_int aos_host_step_report(uint64_t event_id, cl_int status);
/* Ends a step armed for a request that could not be sent: runs it with status (so it releases what
 * it holds) without telling the daemon, which never heard of it. Does nothing when the step was
 * already ended (the connection failed every step). */
void aos_host_step_cancel(uint64_t token, cl_int status);
/* Waits until every host step of queue has run (used by clFinish and blocking calls). */
void aos_host_steps_wait(cl_command_queue queue);

#endif
