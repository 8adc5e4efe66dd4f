/*
 * accelOS wire protocol: what ProxyCL (client) and accelosd (daemon) exchange.
 *
 * Design note. The Unix socket carries only the handshake (hello/welcome plus the region fd via
 * SCM_RIGHTS) and then stays open so each side notices the other's death. Every OpenCL call after
 * that travels through one shared-memory region per client:
 *   - a request ring (client -> daemon) of framed messages,
 *   - a notification ring (daemon -> client) for callbacks and asynchronous completions,
 *   - reply slots, one per outstanding synchronous call, each with a futex word,
 *   - a data area for bulk transfers, carved into chunks by the client,
 *   - after the region, in the same memfd, the shared-buffer arena: on devices whose memory is
 *     host memory (CPU devices) the daemon places the storage of the client's buffers there, so
 *     the client copies large transfers straight into the buffer (docs/architecture.md).
 * The region holds no pointers and no bitfields: only fixed-width integers and offsets. The daemon
 * keeps its own private copy of the layout and never trusts what the client may have written into
 * the header. Object handles are 64-bit ids chosen by the client; the daemon resolves them in a
 * per-client table, so a client can never name another client's object.
 *
 * Opcode numbers are explicit and grouped by area (see wire_ops.h); never renumber, only append.
 */
#ifndef ACCELOS_WIRE_H
#define ACCELOS_WIRE_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define AOS_WIRE_MAGIC 0x534f4341u /* "ACOS" little endian */
#define AOS_WIRE_VERSION 2u

/* ---- Socket handshake ---------------------------------------------------------------------- */

enum aos_hello_kind {
    AOS_HELLO_CLIENT = 1, /* an OpenCL application: receives a region */
    AOS_HELLO_STATUS = 2, /* an operator query: receives a text status report, then EOF */
};

struct aos_hello {
    uint32_t magic;
    uint32_t version;
    uint32_t kind;
    uint32_t reserved;
};

struct aos_welcome {
    uint32_t magic;
    uint32_t version;
    int32_t status; /* 0, or a negative errno explaining the refusal */
    uint32_t region_size;
};

_Static_assert(sizeof(struct aos_hello) == 16, "hello layout");
_Static_assert(sizeof(struct aos_welcome) == 16, "welcome layout");

/* ---- Shared region ---------------------------------------------------------------------------- */

#define AOS_CACHELINE 64

/* Control block of one single-producer, single-consumer byte ring. Indices run freely and wrap
 * at 2^32; the ring size is a power of two. Each side waits on its own futex word. */
struct aos_ring_ctl {
    alignas(AOS_CACHELINE) _Atomic uint32_t head;   /* consumer position */
    _Atomic uint32_t consumer_sleeping;              /* consumer parked in futex_wait(doorbell) */
    _Atomic uint32_t doorbell;                       /* bumped by the producer to wake the consumer */
    alignas(AOS_CACHELINE) _Atomic uint32_t tail;   /* producer position */
    _Atomic uint32_t producer_sleeping;              /* producer parked waiting for space */
    _Atomic uint32_t space_bell;                     /* bumped by the consumer when it frees space */
};

/* Every message in a ring starts with this header. size covers the header and the payload and
 * is a multiple of AOS_MSG_ALIGN; a message never wraps around the end of the ring. */
struct aos_msg_hdr {
    uint32_t size;
    uint32_t opcode;
    uint32_t slot;  /* reply slot for synchronous calls, AOS_NO_SLOT otherwise */
    uint32_t flags;
};

#define AOS_MSG_ALIGN 16u
#define AOS_NO_SLOT 0xffffffffu
#define AOS_OP_PAD 0u /* filler up to the end of the ring; skipped by the consumer */

enum aos_slot_state {
    AOS_SLOT_FREE = 0,
    AOS_SLOT_PENDING = 1,
    AOS_SLOT_DONE = 2,
};

/* A reply slot. The client owns it while FREE, the daemon from PENDING until it publishes DONE. */
struct aos_slot {
    _Atomic uint32_t state;
    _Atomic uint32_t client_sleeping;
    int32_t status;       /* cl_int result of the call */
    uint32_t size;        /* bytes valid in payload */
    uint64_t value;       /* scalar result (size_ret, mapped offset, ...) */
    uint64_t value2;
    /* payload follows, slot_payload bytes */
};

struct aos_region_header {
    uint32_t magic;
    uint32_t version;
    uint32_t region_size;
    uint32_t device_count;
    uint32_t req_off, req_size;     /* request ring bytes (client -> daemon) */
    uint32_t note_off, note_size;   /* notification ring bytes (daemon -> client) */
    uint32_t slot_off, slot_count;  /* reply slots */
    uint32_t slot_stride, slot_payload;
    uint32_t data_off, data_size;   /* bulk staging area */
    uint32_t data_chunk;            /* allocation granule of the staging area */
    uint32_t reserved;
    struct aos_ring_ctl req;
    struct aos_ring_ctl note;
    uint64_t arena_off, arena_size; /* shared-buffer arena: memfd offset (past region_size, page
                                     * aligned) and bytes; arena_size 0 when there is none */
};

_Static_assert(offsetof(struct aos_ring_ctl, tail) == AOS_CACHELINE, "ring ctl layout");
_Static_assert(sizeof(struct aos_msg_hdr) == AOS_MSG_ALIGN, "message header layout");
_Static_assert(sizeof(struct aos_slot) == 32, "slot header layout");
_Static_assert(offsetof(struct aos_region_header, req) == AOS_CACHELINE, "region header layout");

/* Default geometry. The memfd is sparse, so unused parts cost nothing. */
#define AOS_REQ_RING_SIZE (1u << 20)
#define AOS_NOTE_RING_SIZE (1u << 18)
#define AOS_SLOT_COUNT 64u
#define AOS_SLOT_PAYLOAD (64u * 1024u)
#define AOS_DATA_CHUNK (1u << 20)
#define AOS_DATA_SIZE (64u << 20)
/* Shared-buffer arena: address space only, pages exist once a buffer touches them. */
#define AOS_ARENA_SIZE (64ull << 30)
#define AOS_ARENA_MAX (1ull << 40)     /* the most a client accepts */
#define AOS_ARENA_ALIGN (2ull << 20)   /* arena_off alignment */

/* A span inside the data area, as sent by the client. The daemon bounds-checks it. */
struct aos_span {
    uint32_t off;  /* relative to data_off */
    uint32_t len;
};

#endif
