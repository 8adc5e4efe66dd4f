/* Shared by ops_mem.c and ops_image.c: registering real memory objects in a session. */
#ifndef ACCELOSD_OPS_MEM_H
#define ACCELOSD_OPS_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops.h"

/* Per-handle data of AOS_OBJ_MEM: what the object counts against the session, its pixel size, and
 * where its storage is when the client can reach it. */
struct aos_mem_extra {
    struct aos_session *s;
    uint64_t bytes;   /* added to s->bytes_allocated at creation, subtracted by the destructor */
    size_t elem;      /* images: bytes per pixel; buffers: 0 */
    bool shared;      /* buffers: the storage is in the client's arena (arena.h) */
    uint64_t arena_off; /* shared: the storage's arena offset */
    uint64_t size;    /* shared: the buffer's size */
};

/* Registers mem under id and answers slot. Takes the real reference; on failure releases it.
 * Returns 0 or -EPROTO (the id was invalid or taken). */
int aos_mem_register(struct aos_session *s, uint32_t slot, uint64_t id, cl_mem mem, uint64_t bytes, size_t elem);

/* Extra data of a memory id, or NULL. */
struct aos_mem_extra *aos_mem_extra(struct aos_session *s, uint64_t id);

/* A host-step token is only valid on a non-blocking request that carries an event id. */
bool aos_mem_token_ok(const struct aos_enqueue *e, uint64_t token);

/* Ends an enqueue of a transfer: with token, as a host step (a failed command still reaches the
 * client's host step, with the error); without, through aos_enqueue_done. */
void aos_mem_enqueue_finish(struct aos_session *s, struct aos_enqueue *e, cl_int err, cl_event ev, uint64_t token);

#endif
