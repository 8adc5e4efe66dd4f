/* accelOS wire protocol: events, markers, barriers, callbacks and host steps (0x08xx). */
#ifndef ACCELOS_WIRE_EVENT_H
#define ACCELOS_WIRE_EVENT_H

#include <stdint.h>

#include "accelos/wire_core.h"

/* AOS_OP_WAIT_EVENTS. Followed by num uint64 event ids. */
struct aos_req_wait_events {
    uint32_t num;
    uint32_t reserved;
};

/* AOS_OP_CREATE_USER_EVENT */
struct aos_req_create_user_event {
    uint64_t id;
    uint64_t context;
};

/* AOS_OP_SET_USER_EVENT_STATUS / AOS_OP_COMPLETE_HOST_STEP */
struct aos_req_event_status {
    uint64_t event;
    int32_t status;
    uint32_t reserved;
};

/* AOS_OP_ENQUEUE_MARKER / AOS_OP_ENQUEUE_BARRIER. Followed by the wait list. */
struct aos_req_enqueue_sync {
    struct aos_enqueue_hdr enq;
};

/* AOS_OP_SET_EVENT_CALLBACK */
struct aos_req_event_callback {
    uint64_t event;
    uint64_t token;
    int32_t callback_type; /* CL_SUBMITTED, CL_RUNNING or CL_COMPLETE */
    uint32_t reserved;
};

#define AOS_MAX_WAIT_LIST 65536u

_Static_assert(sizeof(struct aos_req_event_status) == 16, "event status layout");
_Static_assert(sizeof(struct aos_req_event_callback) == 24, "event callback layout");

#endif
