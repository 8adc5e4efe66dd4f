/*
 * The OpenCL handle types as ProxyCL implements them. Each starts with struct aos_object.
 * Areas own their struct's fields: platform/device/context/queue/event (core), mem/sampler
 * (mem, image), program/kernel (program, kernel).
 */
#ifndef PROXYCL_TYPES_H
#define PROXYCL_TYPES_H

#include <stddef.h>

#include "object.h"

struct _cl_platform_id {
    struct aos_object obj;
};

struct aos_info_cache_entry;

struct _cl_device_id {
    struct aos_object obj;
    uint32_t index;
    cl_device_type type;
    pthread_mutex_t cache_lock;
    struct aos_info_cache_entry *cache; /* device info never changes: answered locally after once */
};

struct _cl_context {
    struct aos_object obj;
    cl_uint num_devices;
    cl_device_id *devices;
    cl_context_properties *props; /* as the application gave them, 0-terminated; NULL if none */
    size_t props_size;            /* bytes including the terminator; 0 if none */
    void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *);
    void *notify_data;
    cl_context next_notify;       /* list of contexts with an error callback (context.c) */
    struct aos_destructor_cb *destructors; /* clSetContextDestructorCallback, run at last release */
};

struct _cl_command_queue {
    struct aos_object obj;
    cl_context context;
    cl_device_id device;
    cl_command_queue_properties props;
    cl_queue_properties *prop_list; /* clCreateCommandQueueWithProperties list, 0-terminated */
    size_t prop_list_size;
    /* Commands whose host side (copy-out of a non-blocking read/map) has not run yet;
     * clFinish waits for them too. */
    pthread_mutex_t host_lock;
    pthread_cond_t host_cond;
    uint32_t host_pending;
    /* Commands sent, and how many of them a successful clFinish has covered: a finish with
     * nothing new since the last one needs no round trip (PoCL answers that in nanoseconds). */
    _Atomic uint64_t commands_sent;
    _Atomic uint64_t commands_finished;
};

enum aos_map_kind { AOS_MAP_BUFFER = 1, AOS_MAP_IMAGE = 2 };

struct aos_mapping;

struct _cl_mem {
    struct aos_object obj;
    cl_context context;
    cl_mem_object_type mem_type;
    cl_mem_flags flags;
    size_t size;
    void *host_ptr;           /* CL_MEM_USE_HOST_PTR pointer (application memory) */
    cl_mem parent;            /* sub-buffers: the buffer they view */
    size_t origin;            /* sub-buffers: offset in parent */
    bool shared;              /* buffers: the storage is in the arena (conn.h), at arena_off */
    uint64_t arena_off;
    cl_image_format format;   /* images */
    cl_image_desc desc;       /* images */
    size_t element_size;      /* images: bytes per pixel */
    pthread_mutex_t map_lock;
    struct aos_mapping *maps; /* live mappings of this object */
    _Atomic uint32_t map_count;
    struct aos_destructor_cb *destructors; /* clSetMemObjectDestructorCallback */
    cl_mem_properties *props;  /* clCreate*WithProperties list incl. terminator, or NULL */
    size_t props_size;         /* bytes of props; 0 when none were given */
};

struct _cl_sampler {
    struct aos_object obj;
    cl_context context;
    cl_bool normalized;
    cl_addressing_mode addressing;
    cl_filter_mode filter;
    cl_sampler_properties *prop_list;
    size_t prop_list_size;
};

struct aos_kernel_arg;

struct _cl_program {
    struct aos_object obj;
    cl_context context;        /* held */
    pthread_mutex_t lock;
    cl_uint kernels_attached;  /* kernels alive: rebuilding is then CL_INVALID_OPERATION */
    struct aos_release_cb *release_cbs; /* clSetProgramReleaseCallback */
    cl_uint num_devices;       /* devices the program is associated with */
    cl_device_id *devices;
    _Atomic uint32_t building; /* builds in flight: CL_PROGRAM_BUILD_STATUS is answered locally */
};

/* One kernel argument as the client knows it (kernel.c). */
struct aos_kernel_arg {
    uint32_t kind;       /* enum aos_arg_kind from the daemon's description */
    uint32_t flags;      /* AOS_ARG_F_* */
    uint32_t size;       /* AOS_ARG_VALUE: expected size, 0 when unknown */
    bool set;            /* a value was given since creation */
    bool dirty;          /* not sent to the daemon yet */
    uint32_t wire_kind;  /* how the current value travels */
    uint64_t wire_size;  /* value bytes or local size */
    uint64_t id;         /* MEM / SAMPLER id, 0 for NULL */
    uint8_t *value;      /* AOS_ARG_VALUE bytes */
    size_t value_cap;
};

struct aos_kernel_device;

struct _cl_kernel {
    struct aos_object obj;
    cl_program program;          /* held */
    cl_context context;
    char *name;
    cl_uint num_args;
    struct aos_kernel_arg *args; /* cached arg info and pending values, sent with the next enqueue */
    pthread_mutex_t lock;
    cl_uint num_devices;
    struct aos_kernel_device *devices; /* per-device launch limits (wire_program.h) */
};

struct aos_event_cb;

struct _cl_event {
    struct aos_object obj;
    cl_context context;
    cl_command_queue queue;   /* NULL for user events */
    cl_command_type command_type;
    pthread_mutex_t lock;
    bool user_status_set;     /* user events: clSetUserEventStatus may be called once */
    bool times_known;         /* times holds QUEUED..END: final once the event completed */
    cl_ulong times[AOS_PROFILING_ALL_COUNT];
};

/* Generic callback list nodes. */
struct aos_destructor_cb {
    struct aos_destructor_cb *next;
    void(CL_CALLBACK *fn)(void *obj, void *user_data);
    void *user_data;
};

struct aos_release_cb {
    struct aos_release_cb *next;
    void(CL_CALLBACK *fn)(cl_program, void *);
    void *user_data;
};

#endif
