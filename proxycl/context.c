/* Contexts. Properties and callbacks stay in the client; the daemon backs the context with its
 * shared real context for the device set. The error callback (pfn_notify) reports what only the
 * client can see happen to a context: the loss of the daemon, after which the context is unusable. */
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "notify.h"
#include "types.h"

cl_platform_id aos_platform(void);
bool aos_device_valid(cl_device_id d);

/* Contexts with an error callback, linked through next_notify. */
static pthread_mutex_t notify_list_lock = PTHREAD_MUTEX_INITIALIZER;
static cl_context notify_list;

static void notify_list_remove(cl_context c)
{
    pthread_mutex_lock(&notify_list_lock);
    for (cl_context *p = &notify_list; *p; p = &(*p)->next_notify)
        if (*p == c) {
            *p = c->next_notify;
            break;
        }
    pthread_mutex_unlock(&notify_list_lock);
}

void aos_contexts_report_error(const char *message)
{
    /* Collect under the lock with a temporary reference each, then call without the lock: a
     * callback may release its context. */
    pthread_mutex_lock(&notify_list_lock);
    size_t n = 0;
    for (cl_context c = notify_list; c; c = c->next_notify)
        n++;
    cl_context *live = n ? malloc(n * sizeof(*live)) : NULL;
    size_t count = 0;
    for (cl_context c = notify_list; c && live; c = c->next_notify)
        if (aos_object_get(c))
            live[count++] = c;
    pthread_mutex_unlock(&notify_list_lock);
    for (size_t i = 0; i < count; i++) {
        live[i]->notify(message, NULL, 0, live[i]->notify_data);
        aos_object_put(live[i]);
    }
    free(live);
}

static void context_cleanup(struct aos_object *obj)
{
    cl_context c = (cl_context)obj;
    if (c->notify)
        notify_list_remove(c);
    for (struct aos_destructor_cb *cb = c->destructors, *next; cb; cb = next) {
        next = cb->next;
        cb->fn(c, cb->user_data);
        free(cb);
    }
    free(c->devices);
    free(c->props);
}

static cl_int check_properties(const cl_context_properties *props, size_t *bytes)
{
    *bytes = 0;
    if (!props)
        return CL_SUCCESS;
    size_t n = 0;
    bool seen_platform = false;
    for (; props[n]; n += 2) {
        if (props[n] == CL_CONTEXT_PLATFORM) {
            if (seen_platform)
                return CL_INVALID_PROPERTY;
            seen_platform = true;
            if ((cl_platform_id)props[n + 1] != aos_platform())
                return CL_INVALID_PLATFORM;
        } else if (props[n] != CL_CONTEXT_INTEROP_USER_SYNC) {
            return CL_INVALID_PROPERTY;
        }
        if (n > 64)
            return CL_INVALID_PROPERTY;
    }
    *bytes = (n + 1) * sizeof(*props);
    return CL_SUCCESS;
}

cl_context CL_API_CALL clCreateContext(const cl_context_properties *props, cl_uint num_devices,
                                       const cl_device_id *devices,
                                       void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *),
                                       void *user_data, cl_int *errcode_ret)
{
    cl_int err = CL_SUCCESS;
    cl_context c = NULL;
    size_t props_size = 0;
    if (!devices || num_devices == 0 || num_devices > AOS_MAX_DEVICES || (!notify && user_data))
        err = CL_INVALID_VALUE;
    else
        err = check_properties(props, &props_size);
    for (cl_uint i = 0; err == CL_SUCCESS && i < num_devices; i++)
        if (!aos_device_valid(devices[i]))
            err = CL_INVALID_DEVICE;
    if (err == CL_SUCCESS && !(c = aos_object_new(AOS_OBJ_CONTEXT, sizeof(*c), context_cleanup)))
        err = CL_OUT_OF_HOST_MEMORY;
    if (err == CL_SUCCESS) {
        c->num_devices = num_devices;
        c->devices = malloc(num_devices * sizeof(cl_device_id));
        c->props = props_size ? malloc(props_size) : NULL;
        c->props_size = props_size;
        c->notify = notify;
        c->notify_data = user_data;
        if (!c->devices || (props_size && !c->props))
            err = CL_OUT_OF_HOST_MEMORY;
    }
    if (err == CL_SUCCESS) {
        memcpy(c->devices, devices, num_devices * sizeof(cl_device_id));
        if (props_size)
            memcpy(c->props, props, props_size);
        struct aos_req r;
        struct aos_req_create_context *q = aos_req_begin(&r, (uint32_t)(sizeof(*q) + num_devices * sizeof(uint64_t)), true);
        if (!q) {
            err = r.error;
        } else {
            q->id = c->obj.id;
            q->num_devices = num_devices;
            uint64_t *ids = (uint64_t *)(q + 1);
            for (cl_uint i = 0; i < num_devices; i++)
                ids[i] = devices[i]->obj.id;
            struct aos_reply rep;
            err = aos_req_call(&r, AOS_OP_CREATE_CONTEXT, &rep);
            aos_reply_release(&rep);
        }
    }
    if (err != CL_SUCCESS && c) {
        /* Not known to the daemon: drop it locally only. */
        atomic_store(&c->obj.refs, 0);
        aos_object_hold(c);
        aos_object_unhold(c);
        c = NULL;
    }
    if (c && notify) {
        pthread_mutex_lock(&notify_list_lock);
        c->next_notify = notify_list;
        notify_list = c;
        pthread_mutex_unlock(&notify_list_lock);
    }
    if (errcode_ret)
        *errcode_ret = err;
    return c;
}

cl_context CL_API_CALL clCreateContextFromType(const cl_context_properties *props, cl_device_type type,
                                               void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *),
                                               void *user_data, cl_int *errcode_ret)
{
    cl_uint n = 0;
    cl_device_id devs[AOS_MAX_DEVICES];
    cl_platform_id p = aos_platform();
    cl_int err = p ? clGetDeviceIDs(p, type, AOS_MAX_DEVICES, devs, &n) : CL_INVALID_PLATFORM;
    if (err != CL_SUCCESS) {
        if (errcode_ret)
            *errcode_ret = err;
        return NULL;
    }
    return clCreateContext(props, n, devs, notify, user_data, errcode_ret);
}

cl_int CL_API_CALL clRetainContext(cl_context c)
{
    return aos_object_retain(c, AOS_OBJ_CONTEXT, CL_INVALID_CONTEXT);
}

cl_int CL_API_CALL clReleaseContext(cl_context c)
{
    return aos_object_release(c, AOS_OBJ_CONTEXT, CL_INVALID_CONTEXT);
}

cl_int CL_API_CALL clGetContextInfo(cl_context c, cl_context_info param, size_t size, void *value, size_t *size_ret)
{
    if (!aos_object_valid(c, AOS_OBJ_CONTEXT))
        return CL_INVALID_CONTEXT;
    switch (param) {
    case CL_CONTEXT_REFERENCE_COUNT: {
        cl_uint refs = atomic_load(&c->obj.refs);
        return aos_info_value(&refs, sizeof(refs), size, value, size_ret);
    }
    case CL_CONTEXT_NUM_DEVICES:
        return aos_info_value(&c->num_devices, sizeof(c->num_devices), size, value, size_ret);
    case CL_CONTEXT_DEVICES:
        return aos_info_value(c->devices, c->num_devices * sizeof(cl_device_id), size, value, size_ret);
    case CL_CONTEXT_PROPERTIES:
        return aos_info_value(c->props, c->props_size, size, value, size_ret);
    default:
        return CL_INVALID_VALUE;
    }
}

cl_int CL_API_CALL clSetContextDestructorCallback(cl_context c, void(CL_CALLBACK *fn)(cl_context, void *),
                                                  void *user_data)
{
    if (!aos_object_valid(c, AOS_OBJ_CONTEXT))
        return CL_INVALID_CONTEXT;
    if (!fn)
        return CL_INVALID_VALUE;
    struct aos_destructor_cb *cb = malloc(sizeof(*cb));
    if (!cb)
        return CL_OUT_OF_HOST_MEMORY;
    cb->fn = (void(CL_CALLBACK *)(void *, void *))fn;
    cb->user_data = user_data;
    cb->next = c->destructors; /* most recently registered runs first, as the spec asks */
    c->destructors = cb;
    return CL_SUCCESS;
}
