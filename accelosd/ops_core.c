/*
 * Generic object operations (retain, release, info queries) and contexts.
 *
 * Contexts: every client context on a set of devices is backed by one real context per device
 * set, shared by all clients (on GPUs only kernels in one context run side by side). Client
 * contexts are entries in the client's table pointing at that shared real context; the client's
 * properties and callbacks stay on the client side.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "accelos/info_value.h"
#include "logical.h"
#include "ops.h"
#include "vendor.h"

/* ---- Shared real contexts ----------------------------------------------------------------- */

struct shared_context {
    uint64_t device_mask;
    cl_context context;
};

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct shared_context pool[64];
static uint32_t pool_count;

/* Returns the real context for the device set, creating it on first use. Real contexts live as
 * long as the daemon, so programs and allocations of later clients reuse them. */
static cl_int shared_context_get(uint64_t mask, const struct aos_device **devs, cl_uint n, cl_context *out)
{
    cl_int err = CL_SUCCESS;
    pthread_mutex_lock(&pool_lock);
    for (uint32_t i = 0; i < pool_count; i++)
        if (pool[i].device_mask == mask) {
            *out = pool[i].context;
            pthread_mutex_unlock(&pool_lock);
            return CL_SUCCESS;
        }
    if (pool_count == sizeof(pool) / sizeof(pool[0])) {
        pthread_mutex_unlock(&pool_lock);
        return CL_OUT_OF_HOST_MEMORY;
    }
    cl_device_id ids[AOS_MAX_DEVICES];
    for (cl_uint i = 0; i < n; i++)
        ids[i] = devs[i]->device;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)devs[0]->platform, 0};
    cl_context ctx = NATIVE(devs[0]->platform, clCreateContext)(props, n, ids, NULL, NULL, &err);
    if (err == CL_SUCCESS) {
        pool[pool_count++] = (struct shared_context){.device_mask = mask, .context = ctx};
        *out = ctx;
    }
    pthread_mutex_unlock(&pool_lock);
    return err;
}

static int op_create_context(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    const struct aos_req_create_context *r = payload;
    struct aos_tail tail;
    aos_tail_init(&tail, payload, len, sizeof(*r));
    if (r->num_devices == 0 || r->num_devices > AOS_MAX_DEVICES)
        return -EPROTO;
    const uint64_t *ids = aos_tail_take(&tail, (uint64_t)r->num_devices * sizeof(uint64_t));
    if (!ids)
        return -EPROTO;
    const struct aos_device *devs[AOS_MAX_DEVICES];
    uint64_t mask = 0;
    cl_uint n = 0;
    for (uint32_t i = 0; i < r->num_devices; i++) {
        const struct aos_device *d = aos_device_by_id(ids[i]);
        if (!d) {
            aos_reply_status(s, slot, CL_INVALID_DEVICE);
            return 0;
        }
        if (d->platform != aos_device_by_id(ids[0])->platform) {
            /* A real context cannot span vendors. */
            aos_reply_status(s, slot, CL_INVALID_DEVICE);
            return 0;
        }
        if (!(mask & (1ull << d->index)))
            devs[n++] = d;
        mask |= 1ull << d->index;
    }
    cl_context ctx = NULL;
    cl_int err = shared_context_get(mask, devs, n, &ctx);
    if (err == CL_SUCCESS && aos_handles_add(&s->handles, r->id, AOS_OBJ_CONTEXT, ctx, NULL) < 0)
        return -EPROTO;
    aos_reply_status(s, slot, err);
    return 0;
}

static void context_dtor(struct aos_handle *h)
{
    /* The real context is shared and stays in the pool. */
    (void)h;
}

cl_context aos_context_lookup(struct aos_session *s, uint64_t id)
{
    return aos_handles_object(&s->handles, id, AOS_OBJ_CONTEXT);
}

/* ---- Retain / release ----------------------------------------------------------------------- */

static bool client_managed_type(uint32_t type)
{
    return type >= AOS_OBJ_CONTEXT && type < AOS_OBJ_TYPE_COUNT;
}

static int op_retain(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    (void)slot, (void)len;
    const struct aos_req_object *r = payload;
    if (!client_managed_type(r->type) || aos_handles_retain(&s->handles, r->id, r->type) < 0)
        return -EPROTO; /* the client validated the handle; a miss means a confused or hostile client */
    return 0;
}

static int op_release(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    (void)slot, (void)len;
    const struct aos_req_object *r = payload;
    if (!client_managed_type(r->type) || aos_handles_release(&s->handles, r->id, r->type) < 0)
        return -EPROTO;
    return 0;
}

static int op_nop(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    (void)payload, (void)len;
    if (slot != AOS_NO_SLOT)
        aos_reply_status(s, slot, CL_SUCCESS);
    return 0;
}

static int op_goodbye(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    (void)slot, (void)payload, (void)len;
    aos_session_kill(s, "said goodbye");
    return 0;
}

/* ---- Info ----------------------------------------------------------------------------------- */

/* Parameters whose values are handles or host pointers: answered by the client, never forwarded,
 * because a real handle must never leave the daemon. */
static bool param_is_handle(uint32_t kind, cl_uint p)
{
    switch (kind) {
    case AOS_INFO_DEVICE: return p == CL_DEVICE_PLATFORM || p == CL_DEVICE_PARENT_DEVICE;
    case AOS_INFO_CONTEXT: return p == CL_CONTEXT_DEVICES || p == CL_CONTEXT_PROPERTIES;
    case AOS_INFO_QUEUE: return p == CL_QUEUE_CONTEXT || p == CL_QUEUE_DEVICE || p == CL_QUEUE_DEVICE_DEFAULT;
    case AOS_INFO_MEM: return p == CL_MEM_CONTEXT || p == CL_MEM_ASSOCIATED_MEMOBJECT || p == CL_MEM_HOST_PTR;
    case AOS_INFO_IMAGE: return p == CL_IMAGE_BUFFER;
    case AOS_INFO_SAMPLER: return p == CL_SAMPLER_CONTEXT;
    case AOS_INFO_PROGRAM: return p == CL_PROGRAM_CONTEXT || p == CL_PROGRAM_DEVICES || p == CL_PROGRAM_BINARIES;
    case AOS_INFO_KERNEL: return p == CL_KERNEL_CONTEXT || p == CL_KERNEL_PROGRAM;
    case AOS_INFO_EVENT: return p == CL_EVENT_COMMAND_QUEUE || p == CL_EVENT_CONTEXT;
    default: return false;
    }
}

/* The execution status the application sees for event id. */
static cl_int event_status(struct aos_session *s, uint64_t id, cl_int *status)
{
    cl_event ev = aos_handles_object(&s->handles, id, AOS_OBJ_EVENT);
    if (!ev)
        return CL_INVALID_EVENT;
    if (aos_event_status_override(s, id, status))
        return CL_SUCCESS;
    return NATIVE(ev, clGetEventInfo)(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(*status), status, NULL);
}

static cl_int event_profiling(struct aos_session *s, uint64_t id, cl_uint param, size_t size, void *value,
                              size_t *size_ret)
{
    struct aos_logical *logical = aos_event_logical(s, id);
    if (logical)
        return aos_logical_profiling(logical, param, size, value, size_ret);
    cl_event ev = aos_event_profiling(s, id);
    if (!ev)
        return CL_INVALID_EVENT;
    return NATIVE(ev, clGetEventProfilingInfo)(ev, param, size, value, size_ret);
}

/* One round trip instead of four for applications that time their commands. Only for a completed
 * event, whose timestamps no longer change; otherwise the client asks param by param as before. */
static cl_int event_profiling_all(struct aos_session *s, uint64_t id, cl_uint param, size_t size, void *value,
                                  size_t *size_ret)
{
    static const cl_profiling_info params[AOS_PROFILING_ALL_COUNT] = {
        CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT, CL_PROFILING_COMMAND_START,
        CL_PROFILING_COMMAND_END};
    cl_ulong times[AOS_PROFILING_ALL_COUNT];
    if (param != 0 || (value && size < sizeof(times)))
        return CL_INVALID_VALUE;
    cl_int status;
    cl_int err = event_status(s, id, &status);
    if (err != CL_SUCCESS)
        return err;
    if (status != CL_COMPLETE)
        return CL_PROFILING_INFO_NOT_AVAILABLE;
    for (size_t i = 0; i < AOS_PROFILING_ALL_COUNT; i++) {
        size_t got = 0;
        err = event_profiling(s, id, params[i], sizeof(times[i]), &times[i], &got);
        if (err != CL_SUCCESS)
            return err;
        if (got != sizeof(times[i]))
            return CL_PROFILING_INFO_NOT_AVAILABLE;
    }
    return aos_info_value(times, sizeof(times), size, value, size_ret);
}

static cl_int query(struct aos_session *s, const struct aos_req_get_info *r, const void *in, size_t in_size,
                    size_t size, void *value, size_t *size_ret)
{
    struct aos_handle_table *t = &s->handles;
    void *obj;
    switch (r->kind) {
    case AOS_INFO_PLATFORM: {
        if (r->id != AOS_PLATFORM_ID || !aos_device_at(0))
            return CL_INVALID_PLATFORM;
        cl_platform_id p = aos_device_at(0)->platform;
        return NATIVE(p, clGetPlatformInfo)(p, r->param, size, value, size_ret);
    }
    case AOS_INFO_DEVICE: {
        const struct aos_device *d = aos_device_by_id(r->id);
        if (!d)
            return CL_INVALID_DEVICE;
        return NATIVE(d->device, clGetDeviceInfo)(d->device, r->param, size, value, size_ret);
    }
    case AOS_INFO_CONTEXT:
        if (!(obj = aos_handles_object(t, r->id, AOS_OBJ_CONTEXT)))
            return CL_INVALID_CONTEXT;
        return NATIVE(obj, clGetContextInfo)(obj, r->param, size, value, size_ret);
    case AOS_INFO_QUEUE:
        if (!(obj = aos_handles_object(t, r->id, AOS_OBJ_QUEUE)))
            return CL_INVALID_COMMAND_QUEUE;
        return NATIVE(obj, clGetCommandQueueInfo)(obj, r->param, size, value, size_ret);
    case AOS_INFO_MEM:
        if (!(obj = aos_handles_object(t, r->id, AOS_OBJ_MEM)))
            return CL_INVALID_MEM_OBJECT;
        return NATIVE(obj, clGetMemObjectInfo)(obj, r->param, size, value, size_ret);
    case AOS_INFO_IMAGE:
        if (!(obj = aos_handles_object(t, r->id, AOS_OBJ_MEM)))
            return CL_INVALID_MEM_OBJECT;
        return NATIVE(obj, clGetImageInfo)(obj, r->param, size, value, size_ret);
    case AOS_INFO_SAMPLER:
        if (!(obj = aos_handles_object(t, r->id, AOS_OBJ_SAMPLER)))
            return CL_INVALID_SAMPLER;
        return NATIVE(obj, clGetSamplerInfo)(obj, r->param, size, value, size_ret);
    case AOS_INFO_PROGRAM:
        if (!(obj = aos_handles_object(t, r->id, AOS_OBJ_PROGRAM)))
            return CL_INVALID_PROGRAM;
        return NATIVE(obj, clGetProgramInfo)(obj, r->param, size, value, size_ret);
    case AOS_INFO_PROGRAM_BUILD: {
        const struct aos_device *d = aos_device_by_id(r->aux);
        if (!(obj = aos_handles_object(t, r->id, AOS_OBJ_PROGRAM)))
            return CL_INVALID_PROGRAM;
        if (!d)
            return CL_INVALID_DEVICE;
        return NATIVE(obj, clGetProgramBuildInfo)(obj, d->device, r->param, size, value, size_ret);
    }
    case AOS_INFO_KERNEL:
        if (!(obj = aos_handles_object(t, r->id, AOS_OBJ_KERNEL)))
            return CL_INVALID_KERNEL;
        return NATIVE(obj, clGetKernelInfo)(obj, r->param, size, value, size_ret);
    case AOS_INFO_KERNEL_WORK_GROUP: {
        const struct aos_device *d = aos_device_by_id(r->aux);
        if (!(obj = aos_handles_object(t, r->id, AOS_OBJ_KERNEL)))
            return CL_INVALID_KERNEL;
        return NATIVE(obj, clGetKernelWorkGroupInfo)(obj, d ? d->device : NULL, r->param, size, value, size_ret);
    }
    case AOS_INFO_KERNEL_ARG:
        if (!(obj = aos_handles_object(t, r->id, AOS_OBJ_KERNEL)))
            return CL_INVALID_KERNEL;
        if (r->aux > UINT32_MAX)
            return CL_INVALID_ARG_INDEX;
        return NATIVE(obj, clGetKernelArgInfo)(obj, (cl_uint)r->aux, r->param, size, value, size_ret);
    case AOS_INFO_KERNEL_SUB_GROUP: {
        const struct aos_device *d = aos_device_by_id(r->aux);
        if (!(obj = aos_handles_object(t, r->id, AOS_OBJ_KERNEL)))
            return CL_INVALID_KERNEL;
        if (!NATIVE(obj, clGetKernelSubGroupInfo))
            return CL_INVALID_OPERATION;
        return NATIVE(obj, clGetKernelSubGroupInfo)(obj, d ? d->device : NULL, r->param, in_size, in_size ? in : NULL,
                                                    size, value, size_ret);
    }
    case AOS_INFO_EVENT: {
        if (r->param == CL_EVENT_COMMAND_EXECUTION_STATUS) {
            cl_int status;
            cl_int err = event_status(s, r->id, &status);
            return err == CL_SUCCESS ? aos_info_value(&status, sizeof(status), size, value, size_ret) : err;
        }
        if (!(obj = aos_handles_object(t, r->id, AOS_OBJ_EVENT)))
            return CL_INVALID_EVENT;
        return NATIVE(obj, clGetEventInfo)(obj, r->param, size, value, size_ret);
    }
    case AOS_INFO_EVENT_PROFILING:
        return event_profiling(s, r->id, r->param, size, value, size_ret);
    case AOS_INFO_EVENT_PROFILING_ALL:
        return event_profiling_all(s, r->id, r->param, size, value, size_ret);
    default:
        return CL_INVALID_VALUE;
    }
}

static int op_get_info(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    const struct aos_req_get_info *r = payload;
    struct aos_tail tail;
    aos_tail_init(&tail, payload, len, sizeof(*r));
    const void *in = aos_tail_take(&tail, r->in_size);
    if (!in)
        return -EPROTO;
    uint32_t cap;
    void *dst = aos_reply_payload(s, slot, &cap);
    bool inline_value = r->out.len == 0;
    if (!inline_value) {
        dst = aos_session_span(s, r->out);
        if (!dst || r->value_size > r->out.len)
            return -EPROTO;
    } else if (r->value_size > cap) {
        return -EPROTO;
    }
    if (param_is_handle(r->kind, r->param)) {
        aos_reply_status(s, slot, CL_INVALID_VALUE);
        return 0;
    }
    size_t size_ret = 0;
    cl_int err = query(s, r, in, r->in_size, (size_t)r->value_size, r->value_size ? dst : NULL, &size_ret);
    uint32_t copied = 0;
    if (err == CL_SUCCESS && inline_value && r->value_size)
        copied = (uint32_t)(size_ret < r->value_size ? size_ret : r->value_size);
    aos_reply(s, slot, err, size_ret, 0, copied);
    return 0;
}

void aos_ops_queue_init(void);

void aos_ops_core_init(void)
{
    aos_handles_set_dtor(AOS_OBJ_CONTEXT, context_dtor);
    aos_ops_queue_init();
}

const struct aos_op_entry aos_ops_core[] = {
    {AOS_OP_NOP, 0, true, op_nop, "nop"},
    {AOS_OP_RETAIN, sizeof(struct aos_req_object), false, op_retain, "retain"},
    {AOS_OP_RELEASE, sizeof(struct aos_req_object), false, op_release, "release"},
    {AOS_OP_GET_INFO, sizeof(struct aos_req_get_info), true, op_get_info, "get_info"},
    {AOS_OP_GOODBYE, 0, false, op_goodbye, "goodbye"},
    {AOS_OP_CREATE_CONTEXT, sizeof(struct aos_req_create_context), true, op_create_context, "create_context"},
    {0, 0, false, NULL, NULL},
};
