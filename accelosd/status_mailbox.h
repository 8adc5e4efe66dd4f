/*
 * Failures of a client's user events, posted by the daemon's other threads and applied by the
 * client's service thread. PoCL 3.1 fails a command whose wait list fails even while that command
 * is still inside its clEnqueue call, before its queue counts it; the command then ends twice or
 * runs failed, and PoCL aborts the whole daemon (an assertion in pocl_update_event_finished or
 * pocl_update_event_running_unlocked; test_api_fuzz under the fair policy). A user event's failure
 * spreads at once to every command behind it, so the daemon fails a client's user events only on
 * the thread that enqueues for that client. Completions need no such care: PoCL defers a command
 * that is not yet submitted.
 */
#ifndef ACCELOSD_STATUS_MAILBOX_H
#define ACCELOSD_STATUS_MAILBOX_H

#include <pthread.h>
#include <stdbool.h>

#include "event_park.h"
#include "native.h"

struct aos_status_post;

struct aos_status_mailbox {
    pthread_mutex_t lock;
    struct aos_status_post *head, *tail;
    bool closed; /* the service thread has stopped taking requests: posts apply at once */
};

void aos_status_mailbox_init(struct aos_status_mailbox *m);
/* Any thread: ev (a user event; the caller's reference, taken over) is to get status (an error),
 * then be released or parked in park (NULL: released). False when m is closed or out of memory:
 * the caller's thread applies it then, as nothing enqueues for the client any more (or to fail
 * late rather than never). */
bool aos_status_mailbox_post(struct aos_status_mailbox *m, cl_event ev, cl_int status, struct aos_event_park *park);
/* Sets, then releases or parks, ev as aos_status_mailbox_post describes. */
void aos_status_apply(cl_event ev, cl_int status, struct aos_event_park *park);
/* Service thread: applies every posted status, in order. */
void aos_status_mailbox_apply(struct aos_status_mailbox *m);
/* Service thread, at the session's end: applies the posted statuses and closes m. */
void aos_status_mailbox_close(struct aos_status_mailbox *m);

#endif
