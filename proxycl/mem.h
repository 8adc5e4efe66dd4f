/*
 * Internal interface of the memory area (mem.c, transfer.c, map.c, image.c).
 *
 * The transfer engine moves a 3D box of bytes between application memory and a buffer or image
 * through the staging data area. The box is cut into pieces of at most a few MiB; each piece is
 * one request. A blocking transfer that fits one piece is a synchronous request (the daemon answers
 * when the real command completed). Everything else is sent asynchronously with a host step per
 * piece: its run() copies a read piece out to the application (reads) and frees the piece's staging
 * span, so the client fills piece i+1 while the device copies piece i and no round trip is needed.
 * The application's event is the last piece's event: pieces run in order on an in-order queue,
 * and on an out-of-order queue each piece waits for the previous one.
 * Buffers whose storage is in the shared-buffer arena skip all this for large transfers: the client
 * copies straight into or out of the buffer (direct.c).
 */
#ifndef PROXYCL_MEM_H
#define PROXYCL_MEM_H

#include <stdbool.h>
#include <stddef.h>

#include "accelos/wire_core.h"
#include "types.h"

struct aos_xfer;

/* Fills the area-specific part of a request for one piece (the enqueue prefix is already set). */
typedef void (*aos_xfer_encode_fn)(void *fixed, const struct aos_xfer *x, const size_t origin[3],
                                   const size_t region[3], uint64_t token, struct aos_span span);

struct aos_xfer {
    bool write;                 /* application -> device */
    uint32_t opcode;            /* asynchronous opcode; | AOS_OP_BLOCKING_BIT for the blocking form */
    uint32_t fixed_size;        /* size of the request's fixed struct */
    aos_xfer_encode_fn encode;
    cl_mem mem;                 /* the object transferred (for the encoder) */
    size_t origin[3];           /* device-side origin (x in units, y rows, z slices) */
    size_t region[3];           /* box size; region[0] in units */
    size_t unit;                /* bytes per x unit (1 for buffers, pixel size for images) */
    uint8_t *host;              /* application address of the box's first byte */
    size_t host_row;            /* application stride between rows (bytes) */
    size_t host_slice;          /* application stride between slices (bytes) */
    bool host_gone_at_return;   /* non-blocking writes: host is freed once aos_xfer_run returns, so
                                 * the data must be copied out of it before (map.c's write-back) */
    size_t dev_row_pitch;       /* buffer rect: device pitches (the encoder's business) */
    size_t dev_slice_pitch;
};

/* Runs a transfer as a command of command_type on queue (already validated by the caller).
 * Returns CL_SUCCESS or the error; event as clEnqueue* defines it. */
cl_int aos_xfer_run(const struct aos_xfer *x, cl_command_queue queue, cl_bool blocking, cl_uint num_wait,
                    const cl_event *wait, cl_event *event, cl_command_type command_type);

/* A box of rows in memory: its first byte, and the strides between rows and between slices. */
struct aos_rows {
    uint8_t *at;
    size_t row, slice;
};
/* Copies slices x rows rows of row_bytes each from one layout of a box to another (transfer.c);
 * one memcpy when both are contiguous. */
void aos_copy_rows(struct aos_rows dst, struct aos_rows src, size_t row_bytes, size_t rows, size_t slices);

/* Runs the transfer directly between application memory and the buffer when its storage is in the
 * shared-buffer arena and it is large enough to gain (direct.c): returns true with the result in
 * *err. Returns false, having done nothing, when the transfer must use the staging path. */
bool aos_xfer_try_direct(const struct aos_xfer *x, cl_command_queue queue, cl_bool blocking, cl_uint num_wait,
                         const cl_event *wait, cl_event *event, cl_command_type command_type, cl_int *err);

/* Sends a data-less enqueue: body is the fixed struct (its enqueue prefix is filled here), the wait
 * list follows it, then extra_size bytes of extra. */
cl_int aos_enqueue_simple(cl_command_queue queue, uint32_t opcode, const void *body, uint32_t fixed_size,
                          const void *extra, uint32_t extra_size, cl_uint num_wait, const cl_event *wait,
                          cl_event *event, cl_command_type type);

/* Piece encoders (transfer.c, image.c). */
void aos_xfer_encode_buffer(void *fixed, const struct aos_xfer *x, const size_t origin[3], const size_t region[3],
                            uint64_t token, struct aos_span span);
void aos_xfer_encode_image(void *fixed, const struct aos_xfer *x, const size_t origin[3], const size_t region[3],
                           uint64_t token, struct aos_span span);

/* Describes a transfer of size bytes at offset of buffer to/from host. */
void aos_xfer_buffer(struct aos_xfer *x, cl_mem buffer, bool write, size_t offset, size_t size, void *host);
/* Describes an image transfer with the application's pitches (already normalised: row = y stride,
 * slice = z stride, in bytes). */
void aos_xfer_image(struct aos_xfer *x, cl_mem image, bool write, const size_t origin[3], const size_t region[3],
                    size_t host_row, size_t host_slice, void *host);

/* ---- Memory objects (mem.c) -------------------------------------------------------------- */

/* True for CL_MEM_OBJECT_BUFFER. */
static inline bool aos_mem_is_buffer(cl_mem m)
{
    return m->mem_type == CL_MEM_OBJECT_BUFFER;
}

/* Validates the common flag rules of clCreateBuffer/clCreateImage; CL_SUCCESS or CL_INVALID_VALUE /
 * CL_INVALID_HOST_PTR. */
cl_int aos_mem_check_flags(cl_mem_flags flags, const void *host_ptr);
/* Allocates and registers a memory object of type with the common fields set (one hold on ctx). */
cl_mem aos_mem_alloc(cl_context ctx, cl_mem_object_type type, cl_mem_flags flags, size_t size, void *host_ptr);
/* Drops a memory object whose creation failed before the daemon knew it. */
void aos_mem_discard(cl_mem m);
/* Copies properties into m (for CL_MEM_PROPERTIES); returns false on allocation failure. */
bool aos_mem_set_props(cl_mem m, const cl_mem_properties *props);
/* Number of property entries before the terminator (0 for NULL). */
size_t aos_mem_props_count(const cl_mem_properties *props);

/* Host access checks for reads/writes/maps (CL_INVALID_OPERATION). */
bool aos_mem_host_can_read(cl_mem m);
bool aos_mem_host_can_write(cl_mem m);

/* Ids on the wire. */
static inline uint64_t aos_id(const void *handle)
{
    return handle ? ((const struct aos_object *)handle)->id : 0;
}

/* Bytes per pixel of a format, or 0 when the format is invalid. */
size_t aos_image_format_size(const cl_image_format *format);

/* Checks origin/region of an image command against the image's extent (CL_INVALID_VALUE). */
cl_int aos_image_check_region(cl_mem image, const size_t *origin, const size_t *region);

/* Mapping bookkeeping (map.c). */
struct aos_mapping {
    struct aos_mapping *next;
    void *ptr;                  /* what the application got */
    bool owned;                 /* ptr was allocated by ProxyCL */
    bool in_place;              /* ptr is the buffer's own storage (shared arena): nothing to copy */
    cl_map_flags flags;
    size_t origin[3];           /* buffers: origin[0] = offset */
    size_t region[3];           /* buffers: region[0] = size */
    size_t row_pitch;           /* images: pitches of ptr */
    size_t slice_pitch;
};

/* Frees every mapping still recorded for m (object destruction). */
void aos_mem_free_mappings(cl_mem m);

#endif
