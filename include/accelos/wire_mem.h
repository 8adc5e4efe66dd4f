/*
 * accelOS wire protocol: buffers, sub-buffers and buffer transfers (0x04xx).
 *
 * Design note. Bulk data never travels in the request ring: the client copies it into a span of
 * the data area (struct aos_span) and the request names the span. The daemon bounds-checks every
 * span and never touches client pointers. Large transfers are cut by the client into pieces, one
 * request each, so the client fills piece i+1 while the device copies piece i.
 *
 * Blocking and non-blocking variants. The dispatcher requires an opcode to be either always
 * synchronous (has a reply slot) or always asynchronous. A transfer that may block therefore has
 * two opcodes: the base opcode from wire_ops.h is the asynchronous (non-blocking) form, and
 * base | AOS_OP_BLOCKING_BIT is the synchronous (blocking) form with the same payload; the daemon
 * answers it when the real command has completed.
 *
 * Enqueue requests: the fixed struct starts with struct aos_enqueue_hdr, the num_wait uint64 event
 * ids follow the fixed struct, then any other variable part the struct's comment lists.
 */
#ifndef ACCELOS_WIRE_MEM_H
#define ACCELOS_WIRE_MEM_H

#include <stdint.h>

#include "accelos/wire_core.h"

#define AOS_OP_BLOCKING_BIT 0x0080u

enum aos_opcode_mem_blocking {
    AOS_OP_WRITE_BUFFER_BLOCKING = AOS_OP_WRITE_BUFFER | AOS_OP_BLOCKING_BIT,           /* 0x0483 */
    AOS_OP_READ_BUFFER_BLOCKING = AOS_OP_READ_BUFFER | AOS_OP_BLOCKING_BIT,             /* 0x0484 */
    AOS_OP_WRITE_BUFFER_RECT_BLOCKING = AOS_OP_WRITE_BUFFER_RECT | AOS_OP_BLOCKING_BIT, /* 0x0487 */
    AOS_OP_READ_BUFFER_RECT_BLOCKING = AOS_OP_READ_BUFFER_RECT | AOS_OP_BLOCKING_BIT,   /* 0x0488 */
    AOS_OP_BUFFER_DIRECT_BLOCKING = AOS_OP_BUFFER_DIRECT | AOS_OP_BLOCKING_BIT,         /* 0x048b */
};

/* AOS_OP_CREATE_BUFFER (sync). Followed by num_props uint64 cl_mem_properties (terminator not
 * sent; num_props == 0 and has_props == 1 means an empty list was given). init names the initial
 * contents for CL_MEM_COPY_HOST_PTR / CL_MEM_USE_HOST_PTR (len == size), or has len 0. The daemon
 * creates the real buffer with CL_MEM_COPY_HOST_PTR in place of CL_MEM_USE_HOST_PTR.
 * Reply (also of AOS_OP_CREATE_SUB_BUFFER): value 1 when the buffer's storage lies in the client's
 * shared-buffer arena, at arena offset value2 (the daemon chose it; size bytes from there), else 0. */
struct aos_req_create_buffer {
    uint64_t id;
    uint64_t context;
    uint64_t flags;
    uint64_t size;
    struct aos_span init;
    uint32_t num_props;
    uint32_t has_props;
};

/* AOS_OP_CREATE_SUB_BUFFER (sync). */
struct aos_req_create_sub_buffer {
    uint64_t id;
    uint64_t parent;
    uint64_t flags;
    uint64_t origin;
    uint64_t size;
};

/* AOS_OP_WRITE_BUFFER / AOS_OP_READ_BUFFER (+ _BLOCKING). data.len bytes at offset. data.len == 0
 * is a marker (used by map/unmap commands that move no data). token != 0: a host step follows the
 * device part (non-blocking only). */
struct aos_req_buffer_rw {
    struct aos_enqueue_hdr enq;
    uint64_t buffer;
    uint64_t offset;
    uint64_t token;
    struct aos_span data;
};

/* AOS_OP_WRITE_BUFFER_RECT / AOS_OP_READ_BUFFER_RECT (+ _BLOCKING). The host side is packed
 * tightly in data: row pitch region[0], slice pitch region[0] * region[1]. */
struct aos_req_buffer_rect {
    struct aos_enqueue_hdr enq;
    uint64_t buffer;
    uint64_t origin[3];
    uint64_t region[3];
    uint64_t row_pitch;
    uint64_t slice_pitch;
    uint64_t token;
    struct aos_span data;
};

/* AOS_OP_BUFFER_DIRECT (+ _BLOCKING): the client itself copies size bytes at offset of a buffer
 * whose storage is in its arena (a protocol error otherwise). The daemon enqueues a marker after
 * the wait list (the point where the copy may start) and, behind it, a gate that holds the queue
 * until the client reports the copy done with AOS_OP_COMPLETE_HOST_STEP on the event id, which
 * must be non-zero. Blocking form: answered when the copy may start. Asynchronous form: token must
 * be non-zero; AOS_NOTE_HOST_STEP with it says the copy may start. The event completes with the
 * status the client reports. */
struct aos_req_buffer_direct {
    struct aos_enqueue_hdr enq;
    uint64_t buffer;
    uint64_t offset;
    uint64_t size;
    uint64_t token;
};

/* AOS_OP_COPY_BUFFER (async). */
struct aos_req_copy_buffer {
    struct aos_enqueue_hdr enq;
    uint64_t src;
    uint64_t dst;
    uint64_t src_offset;
    uint64_t dst_offset;
    uint64_t size;
};

/* AOS_OP_COPY_BUFFER_RECT (async). */
struct aos_req_copy_buffer_rect {
    struct aos_enqueue_hdr enq;
    uint64_t src;
    uint64_t dst;
    uint64_t src_origin[3];
    uint64_t dst_origin[3];
    uint64_t region[3];
    uint64_t src_row_pitch;
    uint64_t src_slice_pitch;
    uint64_t dst_row_pitch;
    uint64_t dst_slice_pitch;
};

#define AOS_FILL_PATTERN_MAX 128u

/* AOS_OP_FILL_BUFFER (async). Followed by the wait list, then pattern_size bytes of pattern. */
struct aos_req_fill_buffer {
    struct aos_enqueue_hdr enq;
    uint64_t buffer;
    uint64_t offset;
    uint64_t size;
    uint32_t pattern_size;
    uint32_t reserved;
};

/* AOS_OP_MIGRATE_MEM (async). Followed by the wait list, then num_mems uint64 mem ids. */
struct aos_req_migrate_mem {
    struct aos_enqueue_hdr enq;
    uint64_t flags;
    uint32_t num_mems;
    uint32_t reserved;
};

_Static_assert(sizeof(struct aos_req_create_buffer) == 48, "create_buffer layout");
_Static_assert(sizeof(struct aos_req_create_sub_buffer) == 40, "create_sub_buffer layout");
_Static_assert(sizeof(struct aos_req_buffer_rw) == 56, "buffer_rw layout");
_Static_assert(sizeof(struct aos_req_buffer_rect) == 112, "buffer_rect layout");
_Static_assert(sizeof(struct aos_req_buffer_direct) == 56, "buffer_direct layout");
_Static_assert(sizeof(struct aos_req_copy_buffer) == 64, "copy_buffer layout");
_Static_assert(sizeof(struct aos_req_copy_buffer_rect) == 144, "copy_buffer_rect layout");
_Static_assert(sizeof(struct aos_req_fill_buffer) == 56, "fill_buffer layout");
_Static_assert(sizeof(struct aos_req_migrate_mem) == 40, "migrate_mem layout");

#endif
