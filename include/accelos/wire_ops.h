/*
 * accelOS wire protocol: object types and opcodes.
 * Numbers are part of the protocol: never renumber, only append within an area's range.
 * Request payload structs live next to their area (wire_core.h, wire_mem.h, wire_image.h,
 * wire_program.h, wire_event.h).
 */
#ifndef ACCELOS_WIRE_OPS_H
#define ACCELOS_WIRE_OPS_H

#include <stdint.h>

/* Types of objects a client can name by id. */
enum aos_obj_type {
    AOS_OBJ_NONE = 0,
    AOS_OBJ_PLATFORM = 1,
    AOS_OBJ_DEVICE = 2,
    AOS_OBJ_CONTEXT = 3,
    AOS_OBJ_QUEUE = 4,
    AOS_OBJ_MEM = 5,
    AOS_OBJ_SAMPLER = 6,
    AOS_OBJ_PROGRAM = 7,
    AOS_OBJ_KERNEL = 8,
    AOS_OBJ_EVENT = 9,
    AOS_OBJ_TYPE_COUNT = 10,
};

/* Which clGet*Info a generic info request maps to. */
enum aos_info_kind {
    AOS_INFO_PLATFORM = 1,
    AOS_INFO_DEVICE = 2,
    AOS_INFO_CONTEXT = 3,
    AOS_INFO_QUEUE = 4,
    AOS_INFO_MEM = 5,
    AOS_INFO_IMAGE = 6,
    AOS_INFO_SAMPLER = 7,
    AOS_INFO_PROGRAM = 8,
    AOS_INFO_PROGRAM_BUILD = 9,   /* aux = device id */
    AOS_INFO_KERNEL = 10,
    AOS_INFO_KERNEL_WORK_GROUP = 11, /* aux = device id */
    AOS_INFO_KERNEL_ARG = 12,     /* aux = arg index */
    AOS_INFO_EVENT = 13,
    AOS_INFO_EVENT_PROFILING = 14,
    AOS_INFO_KERNEL_SUB_GROUP = 15, /* aux = device id; input in the request tail */
    /* QUEUED, SUBMIT, START and END as cl_ulong[4] (param 0), answered only once the event has
     * completed, so the client may keep them. */
    AOS_INFO_EVENT_PROFILING_ALL = 16,
    AOS_INFO_KIND_COUNT = 17,
};

enum { AOS_PROFILING_ALL_COUNT = 4 };

enum aos_opcode {
    /* 0x00xx: session and generic object operations */
    AOS_OP_NOP = 0x0001,
    AOS_OP_RETAIN = 0x0002,          /* async */
    AOS_OP_RELEASE = 0x0003,         /* async */
    AOS_OP_GET_INFO = 0x0004,        /* sync */
    AOS_OP_GOODBYE = 0x0005,         /* async: orderly disconnect */

    /* 0x01xx: devices */
    AOS_OP_CREATE_SUB_DEVICES = 0x0101,

    /* 0x02xx: contexts */
    AOS_OP_CREATE_CONTEXT = 0x0201,

    /* 0x03xx: command queues */
    AOS_OP_CREATE_QUEUE = 0x0301,
    AOS_OP_FLUSH = 0x0302,           /* async */
    AOS_OP_FINISH = 0x0303,          /* sync, completed from a callback */

    /* 0x04xx: buffers and transfers */
    AOS_OP_CREATE_BUFFER = 0x0401,
    AOS_OP_CREATE_SUB_BUFFER = 0x0402,
    AOS_OP_WRITE_BUFFER = 0x0403,
    AOS_OP_READ_BUFFER = 0x0404,
    AOS_OP_COPY_BUFFER = 0x0405,
    AOS_OP_FILL_BUFFER = 0x0406,
    AOS_OP_WRITE_BUFFER_RECT = 0x0407,
    AOS_OP_READ_BUFFER_RECT = 0x0408,
    AOS_OP_COPY_BUFFER_RECT = 0x0409,
    AOS_OP_MIGRATE_MEM = 0x040a,
    AOS_OP_BUFFER_DIRECT = 0x040b, /* async; | AOS_OP_BLOCKING_BIT: sync (wire_mem.h) */

    /* 0x05xx: images and samplers */
    AOS_OP_CREATE_IMAGE = 0x0501,
    AOS_OP_SUPPORTED_IMAGE_FORMATS = 0x0502,
    AOS_OP_WRITE_IMAGE = 0x0503,
    AOS_OP_READ_IMAGE = 0x0504,
    AOS_OP_COPY_IMAGE = 0x0505,
    AOS_OP_COPY_IMAGE_TO_BUFFER = 0x0506,
    AOS_OP_COPY_BUFFER_TO_IMAGE = 0x0507,
    AOS_OP_FILL_IMAGE = 0x0508,
    AOS_OP_CREATE_SAMPLER = 0x0509,

    /* 0x06xx: programs */
    AOS_OP_CREATE_PROGRAM_SOURCE = 0x0601,
    AOS_OP_CREATE_PROGRAM_BINARY = 0x0602,
    AOS_OP_CREATE_PROGRAM_IL = 0x0603,
    AOS_OP_CREATE_PROGRAM_BUILTIN = 0x0604,
    AOS_OP_BUILD_PROGRAM = 0x0605,
    AOS_OP_COMPILE_PROGRAM = 0x0606,
    AOS_OP_LINK_PROGRAM = 0x0607,
    AOS_OP_GET_PROGRAM_BINARY = 0x0608,
    AOS_OP_UNLOAD_COMPILER = 0x0609,

    /* 0x07xx: kernels */
    AOS_OP_CREATE_KERNEL = 0x0701,
    AOS_OP_CREATE_KERNELS_IN_PROGRAM = 0x0702,
    AOS_OP_CLONE_KERNEL = 0x0703,
    AOS_OP_ENQUEUE_NDRANGE = 0x0704, /* async; carries the changed kernel arguments */

    /* 0x08xx: events */
    AOS_OP_WAIT_EVENTS = 0x0801,     /* sync, completed from callbacks */
    AOS_OP_CREATE_USER_EVENT = 0x0802, /* async */
    AOS_OP_SET_USER_EVENT_STATUS = 0x0803, /* async */
    AOS_OP_ENQUEUE_MARKER = 0x0804,  /* async */
    AOS_OP_ENQUEUE_BARRIER = 0x0805, /* async */
    AOS_OP_SET_EVENT_CALLBACK = 0x0806, /* async */
    AOS_OP_COMPLETE_HOST_STEP = 0x0807, /* async: client finished the host side of a command */
};

/* Notification kinds (daemon -> client ring); the header's opcode field carries these. */
enum aos_note_kind {
    AOS_NOTE_EVENT_CALLBACK = 1,  /* struct aos_note_event_callback */
    AOS_NOTE_HOST_STEP = 2,       /* struct aos_note_host_step: device side of a command done */
    AOS_NOTE_BUILD_DONE = 3,      /* struct aos_note_build_done */
    AOS_NOTE_CONTEXT_ERROR = 4,   /* struct aos_note_context_error + message */
};

#endif
