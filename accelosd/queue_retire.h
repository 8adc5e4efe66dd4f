/*
 * Queues the client has released. Commands may still be in such a queue, and an event the client
 * kept may wait on them (ops_event.c keeps failed events until the session ends); PoCL 3.1 frees a
 * failed event while a command it waited on can still reach it, so the session's end must first
 * see every command of every queue ended, released ones included. The daemon therefore keeps its
 * reference to a released queue, with a barrier behind its last command, until that barrier has
 * completed; at the session's end it finishes those still kept.
 * Service thread only.
 */
#ifndef ACCELOSD_QUEUE_RETIRE_H
#define ACCELOSD_QUEUE_RETIRE_H

#include <stdbool.h>
#include <stdint.h>

#include "native.h"

struct aos_retired_queue {
    cl_command_queue queue;
    cl_event drained; /* barrier behind the queue's last command; NULL when none could be enqueued */
};

struct aos_retired_queues {
    struct aos_retired_queue *items;
    uint32_t count, cap;
};

/* Takes over the daemon's reference to q, which the client has released, and drained: a marker
 * behind all of q's commands (fail_gate.h), or NULL for a barrier of q's own; first releases the
 * kept queues whose commands have all completed. */
void aos_retired_queues_add(struct aos_retired_queues *r, cl_command_queue q, cl_event drained);
/* Queues kept now (the last one released may be empty: its barrier has not run yet). */
uint32_t aos_retired_queues_count(const struct aos_retired_queues *r);
/* Session teardown: waits until every kept queue has run or failed all its commands, for at most
 * 2 s each. False when one has not: nothing it may reach can be released then. */
bool aos_retired_queues_finish(struct aos_retired_queues *r);
/* Session teardown of a queue the client still held: waits until every command in it has run or
 * failed, for at most 2 s (a barrier behind them all). False when they have not. */
bool aos_queue_drain_bounded(cl_command_queue q);
/* Session teardown: releases every kept queue once nothing can reach their events (release), else
 * leaks their references; frees the list either way. */
void aos_retired_queues_release(struct aos_retired_queues *r, bool release);

#endif
