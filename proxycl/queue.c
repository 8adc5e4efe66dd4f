/* Command queues, flush and finish. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "enqueue.h"
#include "types.h"

static void queue_cleanup(struct aos_object *obj)
{
    cl_command_queue q = (cl_command_queue)obj;
    pthread_mutex_destroy(&q->host_lock);
    pthread_cond_destroy(&q->host_cond);
    free(q->prop_list);
    aos_object_unhold(q->context);
}

static bool context_has_device(cl_context c, cl_device_id d)
{
    for (cl_uint i = 0; i < c->num_devices; i++)
        if (c->devices[i] == d)
            return true;
    return false;
}

cl_command_queue CL_API_CALL clCreateCommandQueueWithProperties(cl_context c, cl_device_id d,
                                                                const cl_queue_properties *props, cl_int *errcode_ret)
{
    cl_int err = CL_SUCCESS;
    cl_command_queue q = NULL;
    cl_command_queue_properties flags = 0;
    size_t n = 0;
    if (!aos_object_valid(c, AOS_OBJ_CONTEXT))
        err = CL_INVALID_CONTEXT;
    else if (!aos_object_valid(d, AOS_OBJ_DEVICE) || !context_has_device(c, d))
        err = CL_INVALID_DEVICE;
    for (; err == CL_SUCCESS && props && props[n]; n += 2) {
        if (n >= 32)
            err = CL_INVALID_VALUE;
        else if (props[n] == CL_QUEUE_PROPERTIES)
            flags = (cl_command_queue_properties)props[n + 1];
        else if (props[n] != CL_QUEUE_SIZE)
            err = CL_INVALID_VALUE;
    }
    const cl_command_queue_properties known = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE |
                                              CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT;
    if (err == CL_SUCCESS && (flags & ~known))
        err = CL_INVALID_VALUE;
    if (err == CL_SUCCESS && (flags & CL_QUEUE_ON_DEVICE))
        err = CL_INVALID_QUEUE_PROPERTIES; /* device-side enqueue is not forwarded */
    if (err == CL_SUCCESS && !(q = aos_object_new(AOS_OBJ_QUEUE, sizeof(*q), queue_cleanup)))
        err = CL_OUT_OF_HOST_MEMORY;
    if (err == CL_SUCCESS) {
        q->context = c;
        q->device = d;
        q->props = flags;
        pthread_mutex_init(&q->host_lock, NULL);
        pthread_cond_init(&q->host_cond, NULL);
        aos_object_hold(c);
        if (props) {
            q->prop_list_size = (n + 1) * sizeof(*props);
            q->prop_list = malloc(q->prop_list_size);
            if (q->prop_list)
                memcpy(q->prop_list, props, q->prop_list_size);
        }
        struct aos_req r;
        struct aos_req_create_queue *m = aos_req_begin(&r, (uint32_t)(sizeof(*m) + n * sizeof(uint64_t)), true);
        if (!m) {
            err = r.error;
        } else {
            *m = (struct aos_req_create_queue){.id = q->obj.id, .context = c->obj.id, .device = d->obj.id,
                                               .num_props = (uint32_t)(n / 2)};
            uint64_t *pairs = (uint64_t *)(m + 1);
            for (size_t i = 0; i < n; i++)
                pairs[i] = (uint64_t)props[i];
            struct aos_reply rep;
            err = aos_req_call(&r, AOS_OP_CREATE_QUEUE, &rep);
            aos_reply_release(&rep);
        }
        if (err != CL_SUCCESS) {
            atomic_store(&q->obj.refs, 0);
            aos_object_hold(q);
            aos_object_unhold(q);
            q = NULL;
        }
    }
    if (errcode_ret)
        *errcode_ret = err;
    return q;
}

cl_command_queue CL_API_CALL clCreateCommandQueue(cl_context c, cl_device_id d, cl_command_queue_properties flags,
                                                  cl_int *errcode_ret)
{
    cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, (cl_queue_properties)flags, 0};
    return clCreateCommandQueueWithProperties(c, d, flags ? props : NULL, errcode_ret);
}

cl_int CL_API_CALL clRetainCommandQueue(cl_command_queue q)
{
    return aos_object_retain(q, AOS_OBJ_QUEUE, CL_INVALID_COMMAND_QUEUE);
}

cl_int CL_API_CALL clReleaseCommandQueue(cl_command_queue q)
{
    if (aos_object_valid(q, AOS_OBJ_QUEUE) && atomic_load(&q->obj.refs) == 1)
        clFlush(q); /* the spec's implicit flush on the last release */
    return aos_object_release(q, AOS_OBJ_QUEUE, CL_INVALID_COMMAND_QUEUE);
}

cl_int CL_API_CALL clGetCommandQueueInfo(cl_command_queue q, cl_command_queue_info param, size_t size, void *value,
                                         size_t *size_ret)
{
    if (!aos_object_valid(q, AOS_OBJ_QUEUE))
        return CL_INVALID_COMMAND_QUEUE;
    switch (param) {
    case CL_QUEUE_CONTEXT:
        return aos_info_value(&q->context, sizeof(q->context), size, value, size_ret);
    case CL_QUEUE_DEVICE:
        return aos_info_value(&q->device, sizeof(q->device), size, value, size_ret);
    case CL_QUEUE_REFERENCE_COUNT: {
        cl_uint refs = atomic_load(&q->obj.refs);
        return aos_info_value(&refs, sizeof(refs), size, value, size_ret);
    }
    case CL_QUEUE_PROPERTIES:
        return aos_info_value(&q->props, sizeof(q->props), size, value, size_ret);
    case CL_QUEUE_PROPERTIES_ARRAY:
        return aos_info_value(q->prop_list, q->prop_list_size, size, value, size_ret);
    case CL_QUEUE_DEVICE_DEFAULT: {
        cl_command_queue none = NULL;
        return aos_info_value(&none, sizeof(none), size, value, size_ret);
    }
    default:
        return aos_get_info(AOS_INFO_QUEUE, q->obj.id, 0, param, size, value, size_ret);
    }
}

cl_int CL_API_CALL clSetCommandQueueProperty(cl_command_queue q, cl_command_queue_properties p, cl_bool enable,
                                             cl_command_queue_properties *old)
{
    (void)p, (void)enable, (void)old;
    return aos_object_valid(q, AOS_OBJ_QUEUE) ? CL_INVALID_OPERATION : CL_INVALID_COMMAND_QUEUE;
}

cl_int CL_API_CALL clSetDefaultDeviceCommandQueue(cl_context c, cl_device_id d, cl_command_queue q)
{
    (void)d, (void)q;
    return aos_object_valid(c, AOS_OBJ_CONTEXT) ? CL_INVALID_OPERATION : CL_INVALID_CONTEXT;
}

cl_int CL_API_CALL clFlush(cl_command_queue q)
{
    if (!aos_object_valid(q, AOS_OBJ_QUEUE))
        return CL_INVALID_COMMAND_QUEUE;
    struct aos_req_queue r = {.queue = q->obj.id};
    return aos_send(AOS_OP_FLUSH, &r, sizeof(r));
}

cl_int CL_API_CALL clFinish(cl_command_queue q)
{
    if (!aos_object_valid(q, AOS_OBJ_QUEUE))
        return CL_INVALID_COMMAND_QUEUE;
    uint64_t sent = atomic_load_explicit(&q->commands_sent, memory_order_acquire);
    if (sent == atomic_load_explicit(&q->commands_finished, memory_order_acquire) && aos_conn_alive()) {
        aos_host_steps_wait(q);
        return CL_SUCCESS;
    }
    struct aos_req_queue r = {.queue = q->obj.id};
    struct aos_reply rep;
    cl_int err = aos_call(AOS_OP_FINISH, &r, sizeof(r), &rep);
    aos_reply_release(&rep);
    if (err == CL_SUCCESS || err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) {
        aos_host_steps_wait(q);
        /* Everything sent before this finish is done; later commands keep the count ahead. */
        uint64_t done = atomic_load_explicit(&q->commands_finished, memory_order_relaxed);
        while (done < sent && !atomic_compare_exchange_weak(&q->commands_finished, &done, sent))
            ;
    }
    return err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST ? CL_SUCCESS : err;
}
