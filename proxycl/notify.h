/* The client's notification thread: runs event callbacks and host steps in the client process. */
#ifndef PROXYCL_NOTIFY_H
#define PROXYCL_NOTIFY_H

#include "accelos/ring.h"
#include "object.h"
#include "accelos/wire_core.h"

int aos_notify_start(struct aos_ring *note);
void aos_notify_after_fork(void);

/* Handlers, defined by the areas. */
void aos_event_callback_note(const struct aos_note_event_callback *n);
void aos_host_step_note(const struct aos_note_host_step *n);
void aos_program_build_done_note(const struct aos_note_build_done *n);
/* Runs every armed host step with status (daemon gone); steps armed later fail at once. */
void aos_host_steps_fail_all(cl_int status);
/* Forgets the parent's host steps in a forked child. */
void aos_host_steps_after_fork(void);
/* Calls the error callback of every live context that has one, in this thread (context.c). */
void aos_contexts_report_error(const char *message);

#endif
