/*
 * One connected client: its shared region, rings, object table and service thread.
 *
 * Lifetime. A session is reference counted: the service thread holds one reference, and every
 * asynchronous completion (a real event callback that will write a reply slot or a notification)
 * holds another. When the client hangs up, the service thread releases the client's objects and
 * drops its reference; the region stays mapped until the last completion has run, so a late
 * callback never writes into unmapped memory.
 */
#ifndef ACCELOSD_SESSION_H
#define ACCELOSD_SESSION_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "accelos/region.h"
#include "handles.h"
#include "native.h"
#include "queue_retire.h"
#include "status_mailbox.h"

struct aos_note_queue;
struct aos_kept_events;
struct aos_arena;
struct aos_fail_gates;

struct aos_session {
    _Atomic int refs;
    _Atomic bool dead;      /* peer hung up or violated the protocol */
    _Atomic bool attention; /* the service thread must look: a kill, or a posted status */
    uint64_t serial;        /* for logs and status */
    int sock;
    pid_t pid;
    uid_t uid;
    struct aos_region region;
    struct aos_ring req;    /* consumed by the service thread only */
    struct aos_ring note;   /* produced under note_lock */
    pthread_mutex_t note_lock;
    struct aos_note_queue *note_backlog; /* notifications waiting for ring space */
    struct aos_handle_table handles;
    struct aos_arena *arena; /* shared-buffer arena (arena.h), NULL when the client has none */
    struct aos_kept_events *kept_events; /* see aos_event_drop (ops_event.c); service thread only */
    struct aos_retired_queues retired_queues; /* released by the client (queue_retire.h); service thread only */
    struct aos_retired_queues own_queues;     /* the daemon's queues beside the client's (fail_gate.h), done with */
    _Atomic uint32_t released_queues_kept;    /* its count, for the status report */
    bool queue_undrained; /* at the session's end a queue, released or not, did not drain: its kept events are never released */
    struct aos_status_mailbox statuses; /* user-event failures from other threads (status_mailbox.h) */
    struct aos_fail_gates *fail_gates;  /* gated commands and the order of the client's queues (fail_gate.h) */
    _Atomic uint64_t gates_set, gates_failed; /* its gates set so far, and of those set failed */
    uint8_t *msg;           /* private copy of the message being handled */
    pthread_t thread;
    uint64_t bytes_allocated; /* device memory the client holds (buffers and images) */
    uint64_t calls;
    _Atomic uint64_t elastic_kernels;  /* fair policy: kernels created with a rewritten twin */
    _Atomic uint64_t elastic_launches; /* launches that ran over a virtual NDRange */
    _Atomic uint64_t solo_launches;    /* short launches that ran natively, the client alone (solo.h) */
    uint64_t solo_devices;             /* devices it launched on, one bit each (solo.c, its lock) */
    _Atomic uint64_t launch_held_objects; /* argument objects its logical launches still retain */
    uint32_t launches_inflight;        /* logical launches not yet ended; under device_sched's admit lock */
    uint32_t launches_active;          /* of those, past their gate (ready or on the device) */
    uint32_t weight;                   /* fair policy: from the configuration at the first launch, 0 before */
};

/* shared_buffers: give the client a shared-buffer arena (arena.h). */
struct aos_session *aos_session_new(int sock, pid_t pid, uid_t uid, bool shared_buffers, int *region_fd);
/* Starts the service thread, which owns the reference from _new. */
int aos_session_start(struct aos_session *s);
void aos_session_ref(struct aos_session *s);
void aos_session_unref(struct aos_session *s);
/* Marks the peer gone and wakes the service thread (from the monitor or on a protocol error). */
void aos_session_kill(struct aos_session *s, const char *why);
/* Any thread but the service thread: fails the client's user event ev with status (an error) on the
 * service thread, between requests (status_mailbox.h), then releases it or parks it in park (NULL:
 * releases). Takes over the caller's reference. */
void aos_session_fail_user_event(struct aos_session *s, cl_event ev, cl_int status, struct aos_event_park *park);
/* Any thread: the service thread is to look at what was posted to it (fail_gate.h), between requests. */
void aos_session_poke(struct aos_session *s);

/* ---- Replies (any thread) --------------------------------------------------------------- */

/* Payload area of a reply slot and its capacity; NULL for an invalid slot. */
void *aos_reply_payload(struct aos_session *s, uint32_t slot, uint32_t *cap);
/* Publishes the reply for slot and wakes the waiting client thread. */
void aos_reply(struct aos_session *s, uint32_t slot, cl_int status, uint64_t value, uint64_t value2,
               uint32_t payload_size);
/* Shorthand for a reply with status only. */
void aos_reply_status(struct aos_session *s, uint32_t slot, cl_int status);
/* Completes slot with the real event's outcome once it has finished (CL_SUCCESS, or
 * CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST when it failed). Takes its own event reference.
 * Returns CL_SUCCESS or the error of clSetEventCallback (the slot is then not answered). */
cl_int aos_reply_when_complete(struct aos_session *s, uint32_t slot, cl_event ev);
/* As aos_reply_when_complete, once all n events have ended (failed: CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST). */
cl_int aos_reply_when_all_complete(struct aos_session *s, uint32_t slot, cl_event *events, cl_uint n);

/* Queues a notification for the client's callback thread. Never blocks; returns -EPIPE when the
 * session is dead, -ENOBUFS when the client has let too many notifications pile up (it is then
 * disconnected). */
int aos_note_send(struct aos_session *s, uint32_t kind, const void *payload, uint32_t len);

/* Data-area span sent by the client, bounds-checked; NULL when out of range. */
void *aos_session_span(struct aos_session *s, struct aos_span span);

#endif
