/*
 * accelOS wire protocol: programs (0x06xx) and kernels (0x07xx).
 *
 * Bulk parts (sources, binaries, IL, build options) travel either inline after the fixed struct
 * or, when they do not fit a request, in a staging span of the data area (span.len != 0). The
 * daemon copies what it needs out of the span before it answers; the client frees the span when
 * the reply has arrived.
 *
 * Builds never block the daemon's per-client service thread: build and compile run on a worker
 * thread. Without a callback (token == 0) the worker answers the slot when the build ends; with
 * one (token != 0) the slot is answered as soon as the build has started and the worker sends
 * AOS_NOTE_BUILD_DONE carrying the token when it ends.
 *
 * Kernel arguments are validated on the client from the argument descriptions the daemon returns
 * when the kernel is created; the values set since the last launch ride along with the next
 * AOS_OP_ENQUEUE_NDRANGE, so clSetKernelArg never costs a round trip.
 */
#ifndef ACCELOS_WIRE_PROGRAM_H
#define ACCELOS_WIRE_PROGRAM_H

#include <stdint.h>

#include "accelos/wire_core.h"

/* AOS_OP_CREATE_PROGRAM_SOURCE and AOS_OP_CREATE_PROGRAM_IL (sync).
 * Followed by len bytes of source / IL when span.len == 0, else the bytes are in span. */
struct aos_req_create_program_blob {
    uint64_t id;
    uint64_t context;
    uint64_t len;
    struct aos_span span;
};

/* AOS_OP_CREATE_PROGRAM_BINARY (sync). Followed by num_devices uint64 device ids, then
 * num_devices uint64 binary lengths, then the binaries back to back (inline when span.len == 0,
 * else in span). Reply: payload = num_devices int32 binary statuses (also on failure). */
struct aos_req_create_program_binary {
    uint64_t id;
    uint64_t context;
    uint32_t num_devices;
    uint32_t reserved;
    struct aos_span span;
};

/* AOS_OP_CREATE_PROGRAM_BUILTIN (sync). Followed by num_devices uint64 device ids, then
 * names_len bytes of the kernel name list (no terminator). */
struct aos_req_create_program_builtin {
    uint64_t id;
    uint64_t context;
    uint32_t num_devices;
    uint32_t names_len;
};

/* AOS_OP_BUILD_PROGRAM, AOS_OP_COMPILE_PROGRAM, AOS_OP_LINK_PROGRAM (sync).
 * Followed by num_devices uint64 device ids (0: all devices of the program / context), then
 * num_inputs uint64 program ids (compile: embedded headers; link: input programs), then the text
 * blob: options_len bytes of options, then names_len bytes of header include names, each
 * NUL-terminated (compile only). The text blob is inline when span.len == 0, else in span.
 * Link: program is the id of the new program; reply value = 1 when the program was created
 * (possibly with a link failure in status). */
struct aos_req_build {
    uint64_t program;
    uint64_t context;   /* link only */
    uint64_t token;     /* 0: answer when the build ends; else answer at once, then a note */
    uint32_t num_devices;
    uint32_t num_inputs;
    uint32_t options_len;
    uint32_t names_len;
    struct aos_span span;
};

/* AOS_OP_GET_PROGRAM_BINARY (sync): copies [offset, offset + span.len) of the binary for device
 * into span (clamped to the binary's end). Reply: value = whole binary size, value2 = bytes
 * copied. */
struct aos_req_program_binary {
    uint64_t program;
    uint64_t device;
    uint64_t offset;
    struct aos_span span;
};

/* AOS_OP_CREATE_KERNEL (sync). Followed by name_len bytes of the name (no terminator).
 * Reply payload: struct aos_kernel_desc, num_args struct aos_arg_desc, num_devices struct
 * aos_kernel_device. */
struct aos_req_create_kernel {
    uint64_t id;
    uint64_t program;
    uint32_t name_len;
    uint32_t reserved;
};

/* AOS_OP_CLONE_KERNEL (sync). Reply: status only; the client copies the source's descriptions
 * and argument values (the real clone has the same values set). */
struct aos_req_clone_kernel {
    uint64_t id;
    uint64_t source;
};

/* How a kernel argument is passed, as the daemon found out from the real kernel. */
enum aos_arg_kind {
    AOS_ARG_UNKNOWN = 0, /* no argument info: the client passes it through as given */
    AOS_ARG_VALUE = 1,   /* by value (private): size bytes */
    AOS_ARG_MEM = 2,     /* buffer, image or pipe: a cl_mem id (0 = NULL) */
    AOS_ARG_LOCAL = 3,   /* __local pointer: a size, no value */
    AOS_ARG_SAMPLER = 4, /* sampler_t: a cl_sampler id */
};

struct aos_kernel_desc {
    uint32_t num_args;
    uint32_t num_devices;
};

/* Flags of an argument description. */
#define AOS_ARG_F_VEC3 1u  /* 3-component vector: 3/4 of size is accepted too */
#define AOS_ARG_F_IMAGE 2u /* AOS_ARG_MEM that must be an image */
#define AOS_ARG_F_INFO 4u  /* the real kernel had argument info (else the kind was probed) */

struct aos_arg_desc {
    uint32_t kind;    /* enum aos_arg_kind */
    uint32_t address; /* cl_kernel_arg_address_qualifier, 0 when unknown */
    uint32_t size;    /* AOS_ARG_VALUE: exact size in bytes, 0 when unknown */
    uint32_t flags;   /* AOS_ARG_F_* */
};

/* Per device the kernel's program was built for: limits for client-side launch checks. */
struct aos_kernel_device {
    uint64_t device;          /* device wire id */
    uint64_t wg_size;         /* CL_KERNEL_WORK_GROUP_SIZE */
    uint64_t compile_wg[3];   /* CL_KERNEL_COMPILE_WORK_GROUP_SIZE, zeros when not declared */
    uint64_t max_wg;          /* CL_DEVICE_MAX_WORK_GROUP_SIZE */
    uint64_t max_items[3];    /* CL_DEVICE_MAX_WORK_ITEM_SIZES */
    uint32_t max_dims;        /* CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS */
    uint32_t non_uniform;     /* CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT */
};

/* AOS_OP_ENQUEUE_NDRANGE (async, blocking never set). Followed by hdr.num_wait uint64 event ids,
 * then num_args changed arguments, each a struct aos_wire_arg followed (AOS_ARG_VALUE only) by
 * size bytes of value padded to a multiple of 8. */
struct aos_req_ndrange {
    struct aos_enqueue_hdr hdr;
    uint64_t kernel;
    uint32_t work_dim;
    uint32_t num_args;
    uint32_t has_offset;
    uint32_t has_local;
    uint64_t offset[3];
    uint64_t global[3];
    uint64_t local[3];
};

struct aos_wire_arg {
    uint32_t index;
    uint32_t kind;  /* enum aos_arg_kind, never AOS_ARG_UNKNOWN on the wire */
    uint64_t size;  /* value bytes (VALUE) or local size (LOCAL) */
    uint64_t id;    /* MEM / SAMPLER: client id, 0 for a NULL buffer */
};

#define AOS_ARG_VALUE_ALIGN 8u

_Static_assert(sizeof(struct aos_req_create_program_blob) == 32, "create program blob layout");
_Static_assert(sizeof(struct aos_req_create_program_binary) == 32, "create program binary layout");
_Static_assert(sizeof(struct aos_req_create_program_builtin) == 24, "create program builtin layout");
_Static_assert(sizeof(struct aos_req_build) == 48, "build layout");
_Static_assert(sizeof(struct aos_req_program_binary) == 32, "program binary layout");
_Static_assert(sizeof(struct aos_req_create_kernel) == 24, "create kernel layout");
_Static_assert(sizeof(struct aos_req_clone_kernel) == 16, "clone kernel layout");
_Static_assert(sizeof(struct aos_kernel_desc) == 8, "kernel desc layout");
_Static_assert(sizeof(struct aos_arg_desc) == 16, "arg desc layout");
_Static_assert(sizeof(struct aos_kernel_device) == 80, "kernel device layout");
_Static_assert(sizeof(struct aos_req_ndrange) == 120, "ndrange layout");
_Static_assert(sizeof(struct aos_wire_arg) == 24, "wire arg layout");

#endif
