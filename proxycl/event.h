/* Client event objects (event.c). */
#ifndef PROXYCL_EVENT_H
#define PROXYCL_EVENT_H

#include "types.h"

/* A new event with one reference, holding its context (and queue). The daemon learns of it
 * through the command that carries its id. */
cl_event aos_event_new(cl_context context, cl_command_queue queue, cl_command_type type);

#endif
