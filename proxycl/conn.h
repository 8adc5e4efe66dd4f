/*
 * The connection to accelosd and the request/reply machinery every entry point uses.
 *
 * The connection is made lazily by the first clIcdGetPlatformIDsKHR and lives for the process.
 * A request is built in place in the shared request ring:
 *     struct aos_req r;
 *     struct aos_req_x *x = aos_req_begin(&r, sizeof(*x) + tail, true);   // sync: reserves a slot
 *     if (!x) return r.error;
 *     ... fill x and its tail ...
 *     struct aos_reply rep;
 *     cl_int err = aos_req_call(&r, AOS_OP_X, &rep);   // or aos_req_send(&r, op) for async
 *     ... read rep.value / rep.payload ...
 *     aos_reply_release(&rep);
 * Between begin and send/call the ring's producer lock is held: do no blocking work there.
 * When the daemon dies, every waiting and later call returns CL_OUT_OF_RESOURCES within
 * AOS_DEAD_DAEMON_TIMEOUT_MS.
 */
#ifndef PROXYCL_CONN_H
#define PROXYCL_CONN_H

#include <stdbool.h>
#include <stdint.h>

#include "accelos/info_value.h"
#include "accelos/wire_core.h"
#include "object.h"

#define AOS_DEAD_DAEMON_TIMEOUT_MS 2000

/* CL_SUCCESS when connected (connecting first if needed), else CL_OUT_OF_RESOURCES.
 * With ACCELOS_DEBUG set, a failed connect prints one line explaining why. */
cl_int aos_conn_ensure(void);
bool aos_conn_alive(void);
uint32_t aos_conn_device_count(void);

struct aos_req {
    uint32_t slot;   /* AOS_NO_SLOT for async requests */
    cl_int error;    /* set when begin fails */
    void *payload;
    uint32_t len;
};

struct aos_reply {
    cl_int status;
    uint64_t value;
    uint64_t value2;
    const void *payload; /* valid until aos_reply_release */
    uint32_t size;
    uint32_t slot;
};

/* Reserves len payload bytes (and a reply slot when sync). Returns the payload, zeroed, or NULL
 * with r->error set. */
void *aos_req_begin(struct aos_req *r, uint32_t len, bool sync);
/* Publishes an async request. */
cl_int aos_req_send(struct aos_req *r, uint32_t opcode);
/* Publishes a sync request and waits for its reply. The caller must call aos_reply_release
 * afterwards whatever the result (an error reply holds its slot too; after a transport failure the
 * release does nothing). Returns the reply's status or the transport error. */
cl_int aos_req_call(struct aos_req *r, uint32_t opcode, struct aos_reply *rep);
void aos_reply_release(struct aos_reply *rep);

/* One-shot helpers for requests without a tail. */
cl_int aos_send(uint32_t opcode, const void *req, uint32_t len);
cl_int aos_call(uint32_t opcode, const void *req, uint32_t len, struct aos_reply *rep);

/* Largest request payload the ring takes. */
uint32_t aos_req_max_len(void);
/* Capacity of a reply slot's payload. */
uint32_t aos_reply_capacity(void);

/* ---- Staging area for bulk data ------------------------------------------------------------ */

/* Allocates between min_len and want bytes (rounded to chunks) of the data area, waiting until
 * min_len is available. Returns a pointer into the region and fills span, or NULL when the
 * daemon is gone. want larger than the data area is clamped. */
void *aos_staging_alloc(uint32_t want, uint32_t min_len, struct aos_span *span);
void aos_staging_free(struct aos_span span);
/* Size of the whole data area and of one chunk. */
uint32_t aos_staging_size(void);
uint32_t aos_staging_chunk(void);

/* ---- Shared-buffer arena -------------------------------------------------------------------- */

/* This process's address of [off, off + size) of the arena, or NULL when the connection has no
 * arena mapped or the range is outside it. Unset with ACCELOS_SHARED_BUFFERS=0. */
void *aos_arena_ptr(uint64_t off, uint64_t size);

/* ---- Info queries -------------------------------------------------------------------------- */

/* Generic clGet*Info through the daemon (AOS_OP_GET_INFO); handles values of any size. */
cl_int aos_get_info(uint32_t kind, uint64_t id, uint64_t aux, cl_uint param, size_t size, void *value,
                    size_t *size_ret);
/* Same with input bytes (sub-group info). */
cl_int aos_get_info_in(uint32_t kind, uint64_t id, uint64_t aux, cl_uint param, const void *in, size_t in_size,
                       size_t size, void *value, size_t *size_ret);

#endif
