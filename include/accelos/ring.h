/*
 * Single-producer single-consumer message ring in shared memory (see wire.h for the framing).
 *
 * Each side keeps its own index privately and only reads the peer's index from shared memory, so
 * a peer that scribbles over the control block can corrupt only what it is itself allowed to
 * publish; every value read from the peer is validated and a violation is reported as -EPROTO.
 * Producers that may run on several threads serialize outside the ring.
 */
#ifndef ACCELOS_RING_H
#define ACCELOS_RING_H

#include <stdbool.h>
#include <stdint.h>

#include "accelos/wire.h"

struct aos_ring {
    struct aos_ring_ctl *ctl;
    uint8_t *buf;
    uint32_t size;  /* power of two, multiple of AOS_MSG_ALIGN */
    uint32_t pos;   /* private copy: tail for the producer, head for the consumer */
};

void aos_ring_attach(struct aos_ring *ring, struct aos_ring_ctl *ctl, void *buf, uint32_t size,
                     bool producer);
/* Resets the control block; only the creator of the region calls this. */
void aos_ring_ctl_init(struct aos_ring_ctl *ctl);

/* Largest payload a single message can carry. */
uint32_t aos_ring_max_payload(const struct aos_ring *ring);

/* Producer: returns a pointer to len payload bytes after a header, or NULL with *err = -EAGAIN
 * (full) or -EPROTO (peer corrupted its index). Writes padding when the message would wrap. */
void *aos_ring_reserve(struct aos_ring *ring, uint32_t len, int *err);
/* Producer: publishes the message reserved last with the given header fields, wakes the consumer. */
void aos_ring_commit(struct aos_ring *ring, uint32_t opcode, uint32_t slot, uint32_t flags);
/* Producer: waits until the consumer frees space or timeout_ns passes. */
int aos_ring_wait_space(struct aos_ring *ring, int64_t timeout_ns);

/* Consumer: copies the next message (header included) into out (capacity cap, at least the
 * ring's largest message). Returns its size, 0 when empty, -EPROTO on a malformed ring. */
int aos_ring_pop(struct aos_ring *ring, void *out, uint32_t cap);
/* Consumer: true when a message is waiting. */
bool aos_ring_has_data(const struct aos_ring *ring);
/* Consumer: sleeps until data arrives, the producer rings, or timeout_ns passes. */
int aos_ring_wait_data(struct aos_ring *ring, int64_t timeout_ns);
/* The same, and returns -ECANCELED at once when *stop is set. A thread that sets *stop and then
 * rings the doorbell (atomic_fetch_add + futex wake) cannot be missed, however the two race. */
int aos_ring_wait_data_unless(struct aos_ring *ring, int64_t timeout_ns, _Atomic bool *stop);

#endif
