/*
 * accelOS wire protocol: request payloads shared by every area (objects, info, contexts, queues)
 * and the common prefix of every enqueue.
 *
 * Variable-length parts follow the fixed struct in the order the struct's comment gives; their
 * lengths are fields of the fixed struct, and the daemon checks them against the message size.
 */
#ifndef ACCELOS_WIRE_CORE_H
#define ACCELOS_WIRE_CORE_H

#include <stdint.h>

#include "accelos/wire.h"
#include "accelos/wire_ops.h"

/* Id of the single accelOS platform; device ids are AOS_DEVICE_ID_BASE + daemon device index. */
#define AOS_PLATFORM_ID 1u
#define AOS_DEVICE_ID_BASE 0x100u
#define AOS_MAX_DEVICES 64u
/* Client-chosen ids for other objects start here so they never collide with the ones above. */
#define AOS_FIRST_CLIENT_ID 0x10000u

/* AOS_OP_RETAIN / AOS_OP_RELEASE */
struct aos_req_object {
    uint32_t type; /* enum aos_obj_type */
    uint32_t reserved;
    uint64_t id;
};

/* AOS_OP_GET_INFO. Reply: slot value = size_ret; payload (or span out) = the value.
 * Followed by in_size bytes of input (sub-group info only). */
struct aos_req_get_info {
    uint32_t kind;   /* enum aos_info_kind */
    uint32_t param;
    uint64_t id;
    uint64_t aux;    /* device id or argument index, per kind */
    uint64_t value_size; /* 0: size query only */
    struct aos_span out; /* len 0: value returned inline in the slot payload */
    uint32_t in_size;
    uint32_t reserved;
};

/* AOS_OP_CREATE_CONTEXT. Followed by num_devices uint64 device ids. */
struct aos_req_create_context {
    uint64_t id;
    uint32_t num_devices;
    uint32_t reserved;
};

/* AOS_OP_CREATE_QUEUE. Followed by num_props pairs of uint64 (name, value). */
struct aos_req_create_queue {
    uint64_t id;
    uint64_t context;
    uint64_t device;
    uint32_t num_props;
    uint32_t reserved;
};

/* AOS_OP_FLUSH / AOS_OP_FINISH */
struct aos_req_queue {
    uint64_t queue;
};

/* Prefix of every enqueue request. The num_wait uint64 event ids follow the area's fixed struct,
 * before any other variable part. event is 0 when the application asked for no event. */
struct aos_enqueue_hdr {
    uint64_t queue;
    uint64_t event;
    uint32_t num_wait;
    uint32_t blocking;
};

/* Notification payloads (daemon -> client). */
struct aos_note_event_callback {
    uint64_t event;    /* client id of the event */
    uint64_t token;    /* client-side callback record, returned verbatim */
    int32_t status;    /* execution status the callback fires for */
    uint32_t reserved;
};

struct aos_note_host_step {
    uint64_t event;    /* client id of the command's event (the client's own record) */
    uint64_t token;    /* client-side host-step record, returned verbatim */
    int32_t status;    /* CL_COMPLETE or a negative error of the device part */
    uint32_t reserved;
};

struct aos_note_build_done {
    uint64_t program;
    uint64_t token;
};

_Static_assert(sizeof(struct aos_req_get_info) == 48, "get_info layout");
_Static_assert(sizeof(struct aos_enqueue_hdr) == 24, "enqueue header layout");

#endif
