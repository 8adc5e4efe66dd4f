/*
 * Failure gates: commands that wait for an event which may still fail.
 *
 * PoCL 3.1 can end a command twice when one event it waits for fails while another one completes
 * on a worker thread: the failing thread unlocks the command before it marks it failed, and the
 * completing thread, finding it still queued, submits it. The command then runs despite the
 * failure, or PoCL aborts on its own assertions or hangs (fixed after 3.1: pocl#2214, pocl#2216).
 * Through the daemon, one client that set its user event to an error while its other work
 * completed took the daemon down for every client (test_event_failure_race).
 * So no failure that PoCL spreads may meet a completion:
 *   - PoCL links no command implicitly. On PoCL a client's queue is out-of-order on the device,
 *     and the daemon writes the order into each command's wait list: the previous command of an
 *     in-order queue; on an out-of-order queue the last barrier, and for a barrier or marker
 *     without a wait list every unfinished command of the queue. A barrier is enqueued as a
 *     marker (PoCL links every later command to a barrier), and a finish is answered from the
 *     events themselves. PoCL 3.1 also links a marker on an out-of-order queue to every
 *     unfinished command of its queue, whatever its wait list: markers go to a queue of their
 *     own beside the client's, and one that may fail to a queue where it is alone.
 *   - An event *may fail* while it is unresolved and is a client's user event, the daemon's
 *     user event of a launch (the scheduler or the runaway watchdog may fail it), or belongs to a
 *     command whose wait list held an event that may fail (a host step's event: when its device
 *     part may fail, since it fails only with it).
 *   - A command whose list holds such an event and one more unresolved event waits on one gate
 *     (a daemon user event) instead of its list. The daemon watches the list and sets the gate on
 *     the service thread: complete when all of it completed, failed when one of it failed. The
 *     gate is then the command's only edge, so its failure meets nothing. A command with one
 *     unresolved event has one edge already (PoCL links no ended event) and waits on it. Either
 *     way the command may fail in turn, so whatever waits on it and on something else is gated:
 *     PoCL spreads a failure only along single edges. A marker that may fail goes to a queue
 *     where it is alone.
 * Failures start on the service thread only (status_mailbox.h), so two never meet, none starts
 * between a check of a wait list and its enqueue, and a completion meeting another completion
 * is PoCL's ordinary case.
 *
 * Service thread only, except where noted.
 */
#ifndef ACCELOSD_FAIL_GATE_H
#define ACCELOSD_FAIL_GATE_H

#include <stdbool.h>
#include <stdint.h>

#include "native.h"

struct aos_session;
struct aos_enqueue;
struct aos_fail_gates;

/* What a command is, for the order the daemon writes into wait lists. */
enum aos_gate_kind {
    AOS_GATE_COMMAND,  /* any command */
    AOS_GATE_MARKER,   /* a marker: without a wait list it waits for the whole queue */
    AOS_GATE_BARRIER,  /* a barrier: as a marker, and later commands of the queue wait for it */
};

/* Whether queue creation should ask the device for an out-of-order queue (what the device
 * allows, for a client queue with props). The client keeps its own view of its queue. */
cl_command_queue_properties aos_fail_gate_queue_props(cl_device_id dev, cl_command_queue_properties props);
/* Registers a client queue created with the client's properties client_props. */
cl_int aos_fail_gate_queue_add(struct aos_session *s, cl_command_queue q, cl_command_queue_properties client_props);

/* From aos_enqueue_parse once e's queue and wait list are valid: writes the queue's order into
 * e's wait list, and when the list holds an event that may fail puts a gate in its place.
 * CL_SUCCESS or CL_OUT_OF_HOST_MEMORY. */
cl_int aos_fail_gate_prepare(struct aos_session *s, struct aos_enqueue *e, enum aos_gate_kind kind);
/* The command of e was enqueued, queue_event its last command on e->queue, or was not (NULL):
 * arms or drops its gate and records queue_event for the queue's order. Returns whether the
 * command may fail (the caller marks its client event: aos_fail_gate_mark). Once per e. */
bool aos_fail_gate_commit(struct aos_session *s, struct aos_enqueue *e, cl_event queue_event);
/* ev (a client's user event, or the event of a command that may fail) may fail until it ends. */
void aos_fail_gate_mark(struct aos_session *s, cl_event ev);
/* Whether ev may still fail. */
bool aos_fail_gate_may_fail(struct aos_session *s, cl_event ev);
/* A marker for e (prepared), in *ev: PoCL 3.1 links a marker on an out-of-order queue to every
 * unfinished command of the queue, whatever its wait list, so on a queue the daemon orders the
 * marker goes to a queue of its own beside the client's (one that may fail to a queue where it
 * is alone). On a queue the device orders itself, a barrier when barrier is set. Finish e as
 * for any command (aos_enqueue_done). */
cl_int aos_fail_gate_enqueue_marker(struct aos_session *s, struct aos_enqueue *e, bool barrier, cl_event *ev);
/* The client released q: forgets its order, and returns its marker queue (NULL: none) for the
 * caller to retire with it (queue_retire.h). */
cl_command_queue aos_fail_gate_forget_queue(struct aos_session *s, cl_command_queue q);
/* A marker after everything enqueued so far on q, through the rules above (gated when needed),
 * in *ev (NULL on error); CL_SUCCESS or the error. For the daemon's own markers on a client queue. */
cl_int aos_fail_gate_marker(struct aos_session *s, cl_command_queue q, cl_uint n, const cl_event *wait, cl_event *ev);
/* A marker on q's device that waits for ev_before alone, outside q's order (the caller's command
 * records the order), in *ev; it may fail when ev_before may. CL_SUCCESS or the error. */
cl_int aos_fail_gate_marker_after(struct aos_session *s, cl_command_queue q, cl_event ev_before, cl_event *ev);
/* The events a finish of q waits for (the queue's order), retained, in a malloc'ed array; their
 * count in *n (0: nothing to wait for). NULL with *n > 0 when out of memory. */
cl_event *aos_fail_gate_finish_events(struct aos_session *s, cl_command_queue q, cl_uint *n);

/* Sets the gates whose wait lists have ended (posted from any thread). */
void aos_fail_gates_apply(struct aos_session *s);
/* Session end, once the client's user events have failed: sets every gate left, waiting for their
 * lists (at most a few seconds: a list that never ends leaves its gate, and the session, kept). */
void aos_fail_gates_drain(struct aos_session *s);
/* Session end: frees what the daemon knew of the client's queues (after aos_fail_gates_drain). */
void aos_fail_gates_destroy(struct aos_session *s);
/* The session is freed: frees the rest (no gate is armed any more). */
void aos_fail_gates_free(struct aos_session *s);

#endif
