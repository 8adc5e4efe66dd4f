/*
 * The bystander of the hostile-client tests: a well-behaved application through the real ICD
 * loader, with a buffer of known contents, checked after every attack.
 */
#ifndef ACCELOS_TEST_GOOD_CLIENT_H
#define ACCELOS_TEST_GOOD_CLIENT_H

#include "harness.h"

extern cl_context good_ctx;
extern cl_command_queue good_queue;
extern cl_mem good_buffer;

/* A Check fixture: creates (setup) and releases (teardown) the context, queue and buffer. */
void good_client_setup(void);
void good_client_teardown(void);
/* The buffer still holds its data, and a fresh buffer fills and reads back. */
void good_client_works(void);

#endif
