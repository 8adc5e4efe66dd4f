/*
 * Kernels: creation, arguments, info and launches.
 *
 * Design note. clSetKernelArg never talks to the daemon. When a kernel is created the daemon
 * describes every argument (value / buffer / local / sampler, the exact value size) and the
 * launch limits of each device; clSetKernelArg validates against that description, stores the
 * value and marks it dirty. clEnqueueNDRangeKernel then sends the dirty arguments together with
 * the launch in one asynchronous request, under the kernel's lock, so the values a launch uses
 * are exactly those set before it, whatever other threads do with the same kernel afterwards.
 * Launch sizes are checked here against the cached limits where they are known; anything else
 * is left to the daemon's real call, whose failure lands on the command's event.
 */
#include <stdlib.h>
#include <string.h>

#include "accelos/wire_program.h"
#include "conn.h"
#include "enqueue.h"
#include "types.h"

void aos_program_kernel_attach(cl_program p, int delta);

static void kernel_free_parts(cl_kernel k)
{
    if (k->args)
        for (cl_uint i = 0; i < k->num_args; i++)
            free(k->args[i].value);
    free(k->args);
    free(k->devices);
    free(k->name);
}

static void kernel_cleanup(struct aos_object *obj)
{
    cl_kernel k = (cl_kernel)obj;
    kernel_free_parts(k);
    pthread_mutex_destroy(&k->lock);
    if (k->program) {
        aos_program_kernel_attach(k->program, -1);
        aos_object_unhold(k->program);
    }
}

/* A kernel object not yet known to the daemon; attached to p. */
static cl_kernel kernel_new(cl_program p)
{
    cl_kernel k = aos_object_new(AOS_OBJ_KERNEL, sizeof(struct _cl_kernel), kernel_cleanup);
    if (!k)
        return NULL;
    pthread_mutex_init(&k->lock, NULL);
    k->program = p;
    k->context = p->context;
    aos_object_hold(p);
    aos_program_kernel_attach(p, +1);
    return k;
}

static void kernel_drop_local(cl_kernel k)
{
    atomic_store(&k->obj.refs, 0);
    aos_object_hold(k);
    aos_object_unhold(k);
}

/* Takes the daemon's description (reply payload of AOS_OP_CREATE_KERNEL). */
static cl_int kernel_take_desc(cl_kernel k, const void *payload, uint32_t size)
{
    const struct aos_kernel_desc *kd = payload;
    if (size < sizeof(*kd))
        return CL_OUT_OF_RESOURCES;
    uint64_t need = sizeof(*kd) + (uint64_t)kd->num_args * sizeof(struct aos_arg_desc) +
                    (uint64_t)kd->num_devices * sizeof(struct aos_kernel_device);
    if (need > size)
        return CL_OUT_OF_RESOURCES;
    const struct aos_arg_desc *ad = (const struct aos_arg_desc *)(kd + 1);
    const struct aos_kernel_device *dd = (const struct aos_kernel_device *)(ad + kd->num_args);
    k->args = calloc(kd->num_args ? kd->num_args : 1, sizeof(*k->args));
    k->devices = malloc((kd->num_devices ? kd->num_devices : 1) * sizeof(*dd));
    if (!k->args || !k->devices)
        return CL_OUT_OF_HOST_MEMORY;
    k->num_args = kd->num_args;
    for (cl_uint i = 0; i < k->num_args; i++)
        k->args[i] = (struct aos_kernel_arg){.kind = ad[i].kind, .flags = ad[i].flags, .size = ad[i].size};
    memcpy(k->devices, dd, kd->num_devices * sizeof(*dd));
    k->num_devices = kd->num_devices;
    return CL_SUCCESS;
}

cl_kernel CL_API_CALL clCreateKernel(cl_program p, const char *name, cl_int *errcode_ret)
{
    cl_int err = CL_SUCCESS;
    cl_kernel k = NULL;
    size_t name_len = name ? strlen(name) : 0;
    if (!aos_object_valid(p, AOS_OBJ_PROGRAM))
        err = CL_INVALID_PROGRAM;
    else if (!name || name_len > 65536)
        err = CL_INVALID_VALUE;
    else if (atomic_load(&p->building))
        err = CL_INVALID_PROGRAM_EXECUTABLE;
    if (err == CL_SUCCESS && (!(k = kernel_new(p)) || !(k->name = strdup(name))))
        err = CL_OUT_OF_HOST_MEMORY;
    if (err == CL_SUCCESS) {
        struct aos_req r;
        struct aos_req_create_kernel *q = aos_req_begin(&r, (uint32_t)(sizeof(*q) + name_len), true);
        if (!q) {
            err = r.error;
        } else {
            *q = (struct aos_req_create_kernel){.id = k->obj.id, .program = p->obj.id, .name_len = (uint32_t)name_len};
            memcpy(q + 1, name, name_len);
            struct aos_reply rep;
            err = aos_req_call(&r, AOS_OP_CREATE_KERNEL, &rep);
            cl_int derr = err == CL_SUCCESS ? kernel_take_desc(k, rep.payload, rep.size) : CL_SUCCESS;
            aos_reply_release(&rep);
            if (derr != CL_SUCCESS) {
                /* The daemon has the kernel: release it there too. */
                aos_object_release(k, AOS_OBJ_KERNEL, CL_INVALID_KERNEL);
                k = NULL;
                err = derr;
            }
        }
    }
    if (err != CL_SUCCESS && k) {
        kernel_drop_local(k);
        k = NULL;
    }
    if (errcode_ret)
        *errcode_ret = err;
    return k;
}

cl_int CL_API_CALL clCreateKernelsInProgram(cl_program p, cl_uint num_kernels, cl_kernel *kernels,
                                            cl_uint *num_kernels_ret)
{
    if (!aos_object_valid(p, AOS_OBJ_PROGRAM))
        return CL_INVALID_PROGRAM;
    if (atomic_load(&p->building))
        return CL_INVALID_PROGRAM_EXECUTABLE;
    size_t count = 0, names_size = 0;
    cl_int err = aos_get_info(AOS_INFO_PROGRAM, p->obj.id, 0, CL_PROGRAM_NUM_KERNELS, sizeof(count), &count, NULL);
    if (err == CL_SUCCESS)
        err = aos_get_info(AOS_INFO_PROGRAM, p->obj.id, 0, CL_PROGRAM_KERNEL_NAMES, 0, NULL, &names_size);
    if (err != CL_SUCCESS)
        return err;
    if (kernels && num_kernels < count)
        return CL_INVALID_VALUE;
    if (kernels && count) {
        char *names = malloc(names_size + 1);
        if (!names)
            return CL_OUT_OF_HOST_MEMORY;
        err = aos_get_info(AOS_INFO_PROGRAM, p->obj.id, 0, CL_PROGRAM_KERNEL_NAMES, names_size, names, NULL);
        names[names_size] = '\0';
        size_t made = 0;
        char *save = NULL;
        for (char *n = strtok_r(names, ";", &save); err == CL_SUCCESS && n && made < count;
             n = strtok_r(NULL, ";", &save))
            kernels[made++] = clCreateKernel(p, n, &err);
        if (err == CL_SUCCESS && made != count)
            err = CL_OUT_OF_RESOURCES;
        if (err != CL_SUCCESS)
            for (size_t i = 0; i < made; i++)
                if (kernels[i])
                    clReleaseKernel(kernels[i]);
        free(names);
        if (err != CL_SUCCESS)
            return err;
    }
    if (num_kernels_ret)
        *num_kernels_ret = (cl_uint)count;
    return CL_SUCCESS;
}

cl_kernel CL_API_CALL clCloneKernel(cl_kernel src, cl_int *errcode_ret)
{
    cl_int err = CL_SUCCESS;
    cl_kernel k = NULL;
    if (!aos_object_valid(src, AOS_OBJ_KERNEL))
        err = CL_INVALID_KERNEL;
    else if (!(k = kernel_new(src->program)))
        err = CL_OUT_OF_HOST_MEMORY;
    if (err == CL_SUCCESS) {
        pthread_mutex_lock(&src->lock);
        k->name = strdup(src->name);
        k->args = calloc(src->num_args ? src->num_args : 1, sizeof(*k->args));
        k->devices = malloc((src->num_devices ? src->num_devices : 1) * sizeof(*k->devices));
        if (!k->name || !k->args || !k->devices)
            err = CL_OUT_OF_HOST_MEMORY;
        for (cl_uint i = 0; err == CL_SUCCESS && i < src->num_args; i++) {
            k->args[i] = src->args[i];
            k->args[i].value = NULL;
            if (src->args[i].value) {
                if (!(k->args[i].value = malloc(src->args[i].value_cap)))
                    err = CL_OUT_OF_HOST_MEMORY;
                else
                    memcpy(k->args[i].value, src->args[i].value, src->args[i].value_cap);
            }
        }
        if (err == CL_SUCCESS) {
            k->num_args = src->num_args;
            memcpy(k->devices, src->devices, src->num_devices * sizeof(*k->devices));
            k->num_devices = src->num_devices;
            /* Sent under the source's lock: the real clone copies exactly the values the daemon has
             * seen, and the dirty flags copied above cover the rest. */
            struct aos_req_clone_kernel q = {.id = k->obj.id, .source = src->obj.id};
            struct aos_reply rep;
            err = aos_call(AOS_OP_CLONE_KERNEL, &q, sizeof(q), &rep);
            aos_reply_release(&rep);
        }
        pthread_mutex_unlock(&src->lock);
    }
    if (err != CL_SUCCESS && k) {
        kernel_drop_local(k);
        k = NULL;
    }
    if (errcode_ret)
        *errcode_ret = err;
    return k;
}

cl_int CL_API_CALL clRetainKernel(cl_kernel k)
{
    return aos_object_retain(k, AOS_OBJ_KERNEL, CL_INVALID_KERNEL);
}

cl_int CL_API_CALL clReleaseKernel(cl_kernel k)
{
    return aos_object_release(k, AOS_OBJ_KERNEL, CL_INVALID_KERNEL);
}

/* ---- Arguments ------------------------------------------------------------------------------ */

static cl_int arg_store_value(struct aos_kernel_arg *a, size_t size, const void *value)
{
    if (a->value_cap < size) {
        size_t cap = size < 16 ? 16 : size;
        uint8_t *v = realloc(a->value, cap);
        if (!v)
            return CL_OUT_OF_HOST_MEMORY;
        a->value = v;
        a->value_cap = cap;
    }
    memcpy(a->value, value, size);
    a->wire_kind = AOS_ARG_VALUE;
    a->wire_size = size;
    a->id = 0;
    return CL_SUCCESS;
}

/* Validates and stores one argument; kernel lock held. */
static cl_int arg_set(struct aos_kernel_arg *a, size_t size, const void *value)
{
    switch (a->kind) {
    case AOS_ARG_LOCAL:
        if (value)
            return CL_INVALID_ARG_VALUE;
        if (size == 0)
            return CL_INVALID_ARG_SIZE;
        a->wire_kind = AOS_ARG_LOCAL;
        a->wire_size = size;
        a->id = 0;
        return CL_SUCCESS;
    case AOS_ARG_MEM: {
        if (size != sizeof(cl_mem))
            return CL_INVALID_ARG_SIZE;
        cl_mem m = value ? *(const cl_mem *)value : NULL;
        if (m && !aos_object_valid(m, AOS_OBJ_MEM))
            return CL_INVALID_MEM_OBJECT;
        if ((a->flags & AOS_ARG_F_IMAGE) && (!m || m->mem_type == CL_MEM_OBJECT_BUFFER))
            return CL_INVALID_MEM_OBJECT;
        a->wire_kind = AOS_ARG_MEM;
        a->wire_size = sizeof(cl_mem);
        a->id = m ? m->obj.id : 0;
        return CL_SUCCESS;
    }
    case AOS_ARG_SAMPLER: {
        if (!value)
            return CL_INVALID_ARG_VALUE;
        if (size != sizeof(cl_sampler))
            return CL_INVALID_ARG_SIZE;
        cl_sampler smp = *(const cl_sampler *)value;
        if (!aos_object_valid(smp, AOS_OBJ_SAMPLER))
            return CL_INVALID_SAMPLER;
        a->wire_kind = AOS_ARG_SAMPLER;
        a->wire_size = sizeof(cl_sampler);
        a->id = smp->obj.id;
        return CL_SUCCESS;
    }
    case AOS_ARG_VALUE:
        if (!value)
            return CL_INVALID_ARG_VALUE;
        if (size == 0 || (a->size && size != a->size && !((a->flags & AOS_ARG_F_VEC3) && size == a->size / 4 * 3)))
            return CL_INVALID_ARG_SIZE;
        return arg_store_value(a, size, value);
    default:
        /* No description: recognise our own handles, pass everything else through as bytes and
         * let the real call judge. */
        if (size == 0)
            return CL_INVALID_ARG_SIZE;
        if (!value) {
            a->wire_kind = AOS_ARG_LOCAL;
            a->wire_size = size;
            a->id = 0;
            return CL_SUCCESS;
        }
        if (size == sizeof(void *)) {
            void *h = *(void *const *)value;
            if (h && aos_object_valid(h, AOS_OBJ_MEM)) {
                a->wire_kind = AOS_ARG_MEM;
                a->wire_size = size;
                a->id = ((cl_mem)h)->obj.id;
                return CL_SUCCESS;
            }
            if (h && aos_object_valid(h, AOS_OBJ_SAMPLER)) {
                a->wire_kind = AOS_ARG_SAMPLER;
                a->wire_size = size;
                a->id = ((cl_sampler)h)->obj.id;
                return CL_SUCCESS;
            }
        }
        return arg_store_value(a, size, value);
    }
}

cl_int CL_API_CALL clSetKernelArg(cl_kernel k, cl_uint index, size_t size, const void *value)
{
    if (!aos_object_valid(k, AOS_OBJ_KERNEL))
        return CL_INVALID_KERNEL;
    if (index >= k->num_args)
        return CL_INVALID_ARG_INDEX;
    pthread_mutex_lock(&k->lock);
    struct aos_kernel_arg *a = &k->args[index];
    cl_int err = arg_set(a, size, value);
    if (err == CL_SUCCESS) {
        a->set = true;
        a->dirty = true;
    }
    pthread_mutex_unlock(&k->lock);
    return err;
}

cl_int CL_API_CALL clSetKernelArgSVMPointer(cl_kernel k, cl_uint index, const void *value)
{
    (void)index, (void)value;
    if (!aos_object_valid(k, AOS_OBJ_KERNEL))
        return CL_INVALID_KERNEL;
    return CL_INVALID_OPERATION; /* SVM is not supported across processes */
}

cl_int CL_API_CALL clSetKernelExecInfo(cl_kernel k, cl_kernel_exec_info param, size_t size, const void *value)
{
    (void)param, (void)size, (void)value;
    if (!aos_object_valid(k, AOS_OBJ_KERNEL))
        return CL_INVALID_KERNEL;
    return CL_INVALID_OPERATION; /* only SVM parameters exist, and SVM is not supported */
}

/* ---- Info ------------------------------------------------------------------------------------ */

cl_int CL_API_CALL clGetKernelInfo(cl_kernel k, cl_kernel_info param, size_t size, void *value, size_t *size_ret)
{
    if (!aos_object_valid(k, AOS_OBJ_KERNEL))
        return CL_INVALID_KERNEL;
    switch (param) {
    case CL_KERNEL_FUNCTION_NAME:
        return aos_info_value(k->name, strlen(k->name) + 1, size, value, size_ret);
    case CL_KERNEL_NUM_ARGS:
        return aos_info_value(&k->num_args, sizeof(k->num_args), size, value, size_ret);
    case CL_KERNEL_REFERENCE_COUNT: {
        cl_uint refs = atomic_load(&k->obj.refs);
        return aos_info_value(&refs, sizeof(refs), size, value, size_ret);
    }
    case CL_KERNEL_CONTEXT:
        return aos_info_value(&k->context, sizeof(k->context), size, value, size_ret);
    case CL_KERNEL_PROGRAM:
        return aos_info_value(&k->program, sizeof(k->program), size, value, size_ret);
    default:
        return aos_get_info(AOS_INFO_KERNEL, k->obj.id, 0, param, size, value, size_ret);
    }
}

/* The device a per-device kernel query is about: NULL is allowed when the program has one. */
static cl_int kernel_device(cl_kernel k, cl_device_id *d)
{
    cl_program p = k->program;
    if (!*d) {
        if (p->num_devices != 1)
            return CL_INVALID_DEVICE;
        *d = p->devices[0];
        return CL_SUCCESS;
    }
    for (cl_uint i = 0; i < p->num_devices; i++)
        if (p->devices[i] == *d)
            return CL_SUCCESS;
    return CL_INVALID_DEVICE;
}

cl_int CL_API_CALL clGetKernelWorkGroupInfo(cl_kernel k, cl_device_id d, cl_kernel_work_group_info param,
                                            size_t size, void *value, size_t *size_ret)
{
    if (!aos_object_valid(k, AOS_OBJ_KERNEL))
        return CL_INVALID_KERNEL;
    cl_int err = kernel_device(k, &d);
    if (err != CL_SUCCESS)
        return err;
    return aos_get_info(AOS_INFO_KERNEL_WORK_GROUP, k->obj.id, d->obj.id, param, size, value, size_ret);
}

cl_int CL_API_CALL clGetKernelArgInfo(cl_kernel k, cl_uint index, cl_kernel_arg_info param, size_t size,
                                      void *value, size_t *size_ret)
{
    if (!aos_object_valid(k, AOS_OBJ_KERNEL))
        return CL_INVALID_KERNEL;
    if (index >= k->num_args)
        return CL_INVALID_ARG_INDEX;
    return aos_get_info(AOS_INFO_KERNEL_ARG, k->obj.id, index, param, size, value, size_ret);
}

cl_int CL_API_CALL clGetKernelSubGroupInfo(cl_kernel k, cl_device_id d, cl_kernel_sub_group_info param,
                                           size_t in_size, const void *in, size_t size, void *value,
                                           size_t *size_ret)
{
    if (!aos_object_valid(k, AOS_OBJ_KERNEL))
        return CL_INVALID_KERNEL;
    cl_int err = kernel_device(k, &d);
    if (err != CL_SUCCESS)
        return err;
    if ((in_size != 0) != (in != NULL))
        return CL_INVALID_VALUE;
    return aos_get_info_in(AOS_INFO_KERNEL_SUB_GROUP, k->obj.id, d->obj.id, param, in, in_size, size, value,
                           size_ret);
}

/* ---- Launch --------------------------------------------------------------------------------- */

static const struct aos_kernel_device *kernel_limits(cl_kernel k, cl_device_id d)
{
    for (cl_uint i = 0; i < k->num_devices; i++)
        if (k->devices[i].device == d->obj.id)
            return &k->devices[i];
    return NULL;
}

/* The spec's launch checks that cached information can answer. */
static cl_int check_work_sizes(cl_kernel k, cl_device_id d, cl_uint dim, const size_t *offset, const size_t *global,
                               const size_t *local)
{
    const struct aos_kernel_device *lim = kernel_limits(k, d);
    cl_uint max_dims = lim && lim->max_dims ? lim->max_dims : 3;
    if (dim < 1 || dim > max_dims)
        return CL_INVALID_WORK_DIMENSION;
    if (!global)
        return CL_INVALID_GLOBAL_WORK_SIZE;
    for (cl_uint i = 0; i < dim; i++)
        if (offset && global[i] > SIZE_MAX - offset[i])
            return CL_INVALID_GLOBAL_OFFSET;
    if (!lim)
        return CL_SUCCESS;
    bool compiled = lim->compile_wg[0] || lim->compile_wg[1] || lim->compile_wg[2];
    if (!local)
        return compiled ? CL_INVALID_WORK_GROUP_SIZE : CL_SUCCESS;
    uint64_t product = 1;
    for (cl_uint i = 0; i < dim; i++) {
        if (local[i] == 0)
            return CL_INVALID_WORK_GROUP_SIZE;
        if (compiled && local[i] != lim->compile_wg[i])
            return CL_INVALID_WORK_GROUP_SIZE;
        if (!lim->non_uniform && global[i] % local[i])
            return CL_INVALID_WORK_GROUP_SIZE;
        product *= local[i];
    }
    if ((lim->wg_size && product > lim->wg_size) || (lim->max_wg && product > lim->max_wg))
        return CL_INVALID_WORK_GROUP_SIZE;
    for (cl_uint i = 0; i < dim; i++)
        if (lim->max_items[i] && local[i] > lim->max_items[i])
            return CL_INVALID_WORK_ITEM_SIZE;
    return CL_SUCCESS;
}

static uint32_t wire_arg_bytes(const struct aos_kernel_arg *a)
{
    uint32_t n = sizeof(struct aos_wire_arg);
    if (a->wire_kind == AOS_ARG_VALUE)
        n += (uint32_t)((a->wire_size + AOS_ARG_VALUE_ALIGN - 1) & ~(uint64_t)(AOS_ARG_VALUE_ALIGN - 1));
    return n;
}

cl_int CL_API_CALL clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel k, cl_uint dim, const size_t *offset,
                                          const size_t *global, const size_t *local, cl_uint num_wait,
                                          const cl_event *wait, cl_event *event)
{
    if (!aos_object_valid(queue, AOS_OBJ_QUEUE))
        return CL_INVALID_COMMAND_QUEUE;
    if (!aos_object_valid(k, AOS_OBJ_KERNEL))
        return CL_INVALID_KERNEL;
    if (k->context != queue->context)
        return CL_INVALID_CONTEXT;
    cl_int err = check_work_sizes(k, queue->device, dim, offset, global, local);
    if (err != CL_SUCCESS)
        return err;
    /* Validate everything before the event exists: a client-side failure must not create one. */
    pthread_mutex_lock(&k->lock);
    for (cl_uint i = 0; i < k->num_args; i++)
        if (!k->args[i].set) {
            pthread_mutex_unlock(&k->lock);
            return CL_INVALID_KERNEL_ARGS;
        }
    pthread_mutex_unlock(&k->lock);
    struct aos_enq e;
    err = aos_enq_prepare(&e, queue, num_wait, wait, CL_COMMAND_NDRANGE_KERNEL, event != NULL);
    if (err != CL_SUCCESS)
        return err;

    pthread_mutex_lock(&k->lock);
    uint32_t len = (uint32_t)sizeof(struct aos_req_ndrange) + aos_enq_wait_bytes(&e);
    uint32_t num_dirty = 0;
    for (cl_uint i = 0; i < k->num_args; i++)
        if (k->args[i].dirty) {
            len += wire_arg_bytes(&k->args[i]);
            num_dirty++;
        }
    struct aos_req r;
    struct aos_req_ndrange *q = aos_req_begin(&r, len, false);
    if (!q) {
        err = r.error;
    } else {
        aos_enq_encode(&e, &q->hdr, q + 1, false);
        q->kernel = k->obj.id;
        q->work_dim = dim;
        q->num_args = num_dirty;
        q->has_offset = offset != NULL;
        q->has_local = local != NULL;
        for (cl_uint d = 0; d < dim; d++) {
            q->offset[d] = offset ? offset[d] : 0;
            q->global[d] = global[d];
            q->local[d] = local ? local[d] : 0;
        }
        uint8_t *at = (uint8_t *)(q + 1) + aos_enq_wait_bytes(&e);
        for (cl_uint i = 0; i < k->num_args; i++) {
            struct aos_kernel_arg *a = &k->args[i];
            if (!a->dirty)
                continue;
            struct aos_wire_arg *w = (struct aos_wire_arg *)at;
            *w = (struct aos_wire_arg){.index = i, .kind = a->wire_kind, .size = a->wire_size, .id = a->id};
            if (a->wire_kind == AOS_ARG_VALUE)
                memcpy(w + 1, a->value, a->wire_size); /* padding was zeroed by aos_req_begin */
            at += wire_arg_bytes(a);
        }
        err = aos_req_send(&r, AOS_OP_ENQUEUE_NDRANGE);
        if (err == CL_SUCCESS)
            for (cl_uint i = 0; i < k->num_args; i++)
                k->args[i].dirty = false;
    }
    pthread_mutex_unlock(&k->lock);
    aos_enq_complete(&e, err, event);
    return err;
}

cl_int CL_API_CALL clEnqueueTask(cl_command_queue queue, cl_kernel k, cl_uint num_wait, const cl_event *wait,
                                 cl_event *event)
{
    static const size_t one[1] = {1};
    return clEnqueueNDRangeKernel(queue, k, 1, NULL, one, one, num_wait, wait, event);
}

cl_int CL_API_CALL clEnqueueNativeKernel(cl_command_queue queue, void(CL_CALLBACK *fn)(void *), void *args,
                                         size_t cb_args, cl_uint num_mem, const cl_mem *mems, const void **mem_locs,
                                         cl_uint num_wait, const cl_event *wait, cl_event *event)
{
    (void)fn, (void)args, (void)cb_args, (void)num_mem, (void)mems, (void)mem_locs, (void)num_wait, (void)wait,
        (void)event;
    if (!aos_object_valid(queue, AOS_OBJ_QUEUE))
        return CL_INVALID_COMMAND_QUEUE;
    return CL_INVALID_OPERATION; /* a host function pointer means nothing in the daemon */
}
