/*
 * accelOS wire protocol: images and samplers (0x05xx).
 *
 * Image data on the wire is always packed tightly (row pitch = width * pixel size, slice pitch =
 * row pitch * height, or row pitch for 1D arrays); the client gathers and scatters with the
 * application's pitches. Blocking reads and writes use base | AOS_OP_BLOCKING_BIT as for buffers
 * (see wire_mem.h). Coordinates and regions are in pixels.
 */
#ifndef ACCELOS_WIRE_IMAGE_H
#define ACCELOS_WIRE_IMAGE_H

#include <stdint.h>

#include "accelos/wire_core.h"
#include "accelos/wire_mem.h"

enum aos_opcode_image_blocking {
    AOS_OP_WRITE_IMAGE_BLOCKING = AOS_OP_WRITE_IMAGE | AOS_OP_BLOCKING_BIT, /* 0x0583 */
    AOS_OP_READ_IMAGE_BLOCKING = AOS_OP_READ_IMAGE | AOS_OP_BLOCKING_BIT,   /* 0x0584 */
};

/* AOS_OP_CREATE_IMAGE (sync). Followed by num_props uint64 cl_mem_properties. init holds the
 * tightly packed initial contents (COPY_HOST_PTR / USE_HOST_PTR) or has len 0. */
struct aos_req_create_image {
    uint64_t id;
    uint64_t context;
    uint64_t flags;
    uint32_t channel_order;
    uint32_t channel_data_type;
    uint32_t image_type;
    uint32_t num_mip_levels;
    uint64_t width;
    uint64_t height;
    uint64_t depth;
    uint64_t array_size;
    uint64_t buffer;        /* id of the buffer of a 1D buffer image (or 2D from buffer), else 0 */
    uint64_t row_pitch;     /* only for images created from a buffer; otherwise 0 (tight) */
    uint32_t num_samples;
    uint32_t num_props;
    struct aos_span init;
    uint32_t has_props;
    uint32_t reserved;
};

/* AOS_OP_SUPPORTED_IMAGE_FORMATS (sync). Reply: value = number of formats the device supports;
 * payload = min(num_entries, value, capacity) pairs of uint32 (order, data type). */
struct aos_req_image_formats {
    uint64_t context;
    uint64_t flags;
    uint32_t image_type;
    uint32_t num_entries;
};

/* AOS_OP_WRITE_IMAGE / AOS_OP_READ_IMAGE (+ _BLOCKING). */
struct aos_req_image_rw {
    struct aos_enqueue_hdr enq;
    uint64_t image;
    uint64_t origin[3];
    uint64_t region[3];
    uint64_t token;
    struct aos_span data;
};

/* AOS_OP_COPY_IMAGE (async). */
struct aos_req_copy_image {
    struct aos_enqueue_hdr enq;
    uint64_t src;
    uint64_t dst;
    uint64_t src_origin[3];
    uint64_t dst_origin[3];
    uint64_t region[3];
};

/* AOS_OP_COPY_IMAGE_TO_BUFFER and AOS_OP_COPY_BUFFER_TO_IMAGE (async). image_origin and region
 * are in pixels, offset in bytes of the buffer. */
struct aos_req_copy_image_buffer {
    struct aos_enqueue_hdr enq;
    uint64_t image;
    uint64_t buffer;
    uint64_t image_origin[3];
    uint64_t region[3];
    uint64_t offset;
};

/* AOS_OP_FILL_IMAGE (async). color as the application gave it (float4, int4 or uint4). */
struct aos_req_fill_image {
    struct aos_enqueue_hdr enq;
    uint64_t image;
    uint64_t origin[3];
    uint64_t region[3];
    uint8_t color[16];
};

/* AOS_OP_CREATE_SAMPLER (sync). Followed by num_props pairs of uint64 (name, value). */
struct aos_req_create_sampler {
    uint64_t id;
    uint64_t context;
    uint32_t num_props;
    uint32_t reserved;
};

_Static_assert(sizeof(struct aos_req_create_image) == 112, "create_image layout");
_Static_assert(sizeof(struct aos_req_image_formats) == 24, "image_formats layout");
_Static_assert(sizeof(struct aos_req_image_rw) == 96, "image_rw layout");
_Static_assert(sizeof(struct aos_req_copy_image) == 112, "copy_image layout");
_Static_assert(sizeof(struct aos_req_copy_image_buffer) == 96, "copy_image_buffer layout");
_Static_assert(sizeof(struct aos_req_fill_image) == 96, "fill_image layout");
_Static_assert(sizeof(struct aos_req_create_sampler) == 24, "create_sampler layout");

#endif
