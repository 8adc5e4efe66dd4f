/*
 * A raw client for the hostile-client tests: it speaks the wire protocol itself (hello over the
 * socket, the region fd by SCM_RIGHTS, then requests in the shared ring, as proxycl/conn.c does),
 * so it can send what ProxyCL never would.
 */
#ifndef ACCELOS_TEST_RAW_CLIENT_H
#define ACCELOS_TEST_RAW_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "accelos/region.h"
#include "accelos/ring.h"
#include "harness.h"

struct raw {
    int sock;
    int fd; /* the region's memfd, kept to try what a hostile client could do with it */
    struct aos_region region;
    struct aos_ring req, note;
};

void raw_connect(struct raw *r);
void raw_close(struct raw *r);
/* True once the daemon has closed the raw client's socket (within timeout_ms). */
bool raw_hung_up(struct raw *r, int timeout_ms);
/* Puts one message in the request ring (fails the test when the ring has no room). */
void raw_send(struct raw *r, uint32_t opcode, uint32_t slot, const void *payload, uint32_t len);

enum raw_outcome { RAW_ANSWERED, RAW_HUNG_UP, RAW_NO_ANSWER };
/* A synchronous call on reply slot 0, waiting at most timeout_ms; on RAW_ANSWERED, the slot's
 * status and value (value may be NULL). */
enum raw_outcome raw_call_within(struct raw *r, uint32_t opcode, const void *payload, uint32_t len, int timeout_ms,
                                 cl_int *status, uint64_t *value);
/* The same within 5 s, failing the test when no answer comes. Returns false when the daemon hung
 * up instead of answering. */
bool raw_call(struct raw *r, uint32_t opcode, const void *payload, uint32_t len, cl_int *status, uint64_t *value);
/* The raw client is still served: a NOP round trip answers. */
void raw_still_served(struct raw *r);
/* An object id no raw client has used yet (any thread). */
uint64_t raw_fresh_id(void);
/* A context on device 0 with the given id, and an in-order queue in it; they fail the test unless
 * created. */
uint64_t raw_context(struct raw *r, uint64_t id);
uint64_t raw_queue(struct raw *r, uint64_t context);
/* A queue with CL_QUEUE_PROPERTIES = properties, whatever they are: *status gets the daemon's
 * answer. Returns the id asked for. */
uint64_t raw_queue_with(struct raw *r, uint64_t context, uint64_t properties, cl_int *status);

/* A buffer of size bytes in context, with flags; fails the test unless created. *shared (may be
 * NULL) gets whether the daemon placed it in the client's shared arena. Returns its id. */
uint64_t raw_buffer(struct raw *r, uint64_t context, uint64_t flags, uint64_t size, uint64_t *shared);

/* A program built from source in context and its kernel `name` (name at most 15 characters);
 * returns the kernel's id, or 0 when a step failed or the daemon hung up. *program gets the
 * program's id. */
uint64_t raw_kernel(struct raw *r, uint64_t context, const char *source, const char *name, uint64_t *program);

/* The daemon process is alive and answers a status request. */
void daemon_healthy(void);

#endif
