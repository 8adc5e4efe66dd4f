/*
 * Buffers and sub-buffers: creation, reference counts, info and destructor callbacks, migration.
 *
 * Design note. The daemon can never read application memory, so CL_MEM_USE_HOST_PTR and
 * CL_MEM_COPY_HOST_PTR both send the initial contents through the staging area and the daemon
 * creates the real buffer with CL_MEM_COPY_HOST_PTR. For USE_HOST_PTR the application's pointer is
 * kept here: maps return host_ptr + offset and copy the device data into it (see map.c).
 * Contents too large for one staging allocation are written after creation through a private
 * queue. The reply says whether the daemon put the buffer's storage in the shared-buffer arena
 * (CPU devices); transfers of such buffers then copy directly (direct.c). clGetMemObjectInfo is
 * answered from what the client already knows; no round trip.
 * Destructor callbacks run here when the client object is really freed (last release and no
 * sub-buffer or image still holding it).
 */
#include <stdlib.h>
#include <string.h>

#include "accelos/wire_mem.h"
#include "conn.h"
#include "enqueue.h"
#include "mem.h"

#define KNOWN_MEM_FLAGS                                                                                    \
    (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | \
     CL_MEM_COPY_HOST_PTR | CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS |          \
     CL_MEM_KERNEL_READ_AND_WRITE)
#define ACCESS_FLAGS (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY)
#define HOST_ACCESS_FLAGS (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)
#define HOST_PTR_FLAGS (CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)

static bool more_than_one(cl_mem_flags f)
{
    return (f & (f - 1)) != 0;
}

cl_int aos_mem_check_flags(cl_mem_flags flags, const void *host_ptr)
{
    if (flags & ~(cl_mem_flags)KNOWN_MEM_FLAGS)
        return CL_INVALID_VALUE;
    if (more_than_one(flags & ACCESS_FLAGS) || more_than_one(flags & HOST_ACCESS_FLAGS))
        return CL_INVALID_VALUE;
    if ((flags & CL_MEM_USE_HOST_PTR) && (flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)))
        return CL_INVALID_VALUE;
    bool wants_ptr = (flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)) != 0;
    if (wants_ptr != (host_ptr != NULL))
        return CL_INVALID_HOST_PTR;
    return CL_SUCCESS;
}

bool aos_mem_host_can_read(cl_mem m)
{
    return !(m->flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS));
}

bool aos_mem_host_can_write(cl_mem m)
{
    return !(m->flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS));
}

static void run_destructors(cl_mem m)
{
    struct aos_destructor_cb *cb = m->destructors;
    m->destructors = NULL;
    while (cb) { /* registered at the head: most recent first, as the spec orders them */
        struct aos_destructor_cb *next = cb->next;
        void(CL_CALLBACK * fn)(cl_mem, void *) = (void(CL_CALLBACK *)(cl_mem, void *))cb->fn;
        fn(m, cb->user_data);
        free(cb);
        cb = next;
    }
}

static void mem_cleanup(struct aos_object *obj)
{
    cl_mem m = (cl_mem)obj;
    run_destructors(m);
    aos_mem_free_mappings(m);
    if (m->parent)
        aos_object_unhold(m->parent);
    if (m->desc.buffer)
        aos_object_unhold(m->desc.buffer);
    if (m->context)
        aos_object_unhold(m->context);
    free(m->props);
    pthread_mutex_destroy(&m->map_lock);
}

cl_mem aos_mem_alloc(cl_context ctx, cl_mem_object_type type, cl_mem_flags flags, size_t size, void *host_ptr)
{
    cl_mem m = aos_object_new(AOS_OBJ_MEM, sizeof(struct _cl_mem), mem_cleanup);
    if (!m)
        return NULL;
    pthread_mutex_init(&m->map_lock, NULL);
    m->context = ctx;
    aos_object_hold(ctx);
    m->mem_type = type;
    m->flags = flags;
    m->size = size;
    m->host_ptr = (flags & CL_MEM_USE_HOST_PTR) ? host_ptr : NULL;
    return m;
}

void aos_mem_discard(cl_mem m)
{
    /* The daemon never learnt of this id: drop it without mirroring a release. */
    aos_object_hold(m);
    atomic_store(&m->obj.refs, 0);
    aos_object_unhold(m);
}

size_t aos_mem_props_count(const cl_mem_properties *props)
{
    size_t n = 0;
    while (props && props[n])
        n++;
    return n;
}

bool aos_mem_set_props(cl_mem m, const cl_mem_properties *props)
{
    if (!props)
        return true;
    size_t n = aos_mem_props_count(props) + 1;
    m->props = malloc(n * sizeof(*props));
    if (!m->props)
        return false;
    memcpy(m->props, props, n * sizeof(*props));
    m->props_size = n * sizeof(*props);
    return true;
}

/* Where the daemon put the buffer's storage (wire_mem.h): in the arena, transfers copy directly. */
static void note_placement(cl_mem m, const struct aos_reply *rep)
{
    m->shared = rep->value == 1 && aos_arena_ptr(rep->value2, m->size) != NULL;
    m->arena_off = m->shared ? rep->value2 : 0;
}

/* Writes initial contents too large for one staging allocation through a private queue. */
static cl_int write_initial_contents(cl_mem m, const void *src)
{
    cl_context ctx = m->context;
    if (!ctx->num_devices)
        return CL_INVALID_CONTEXT;
    cl_int err;
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, ctx->devices[0], NULL, &err);
    if (!q)
        return err;
    struct aos_xfer x;
    aos_xfer_buffer(&x, m, true, 0, m->size, (void *)src);
    err = aos_xfer_run(&x, q, CL_TRUE, 0, NULL, NULL, CL_COMMAND_WRITE_BUFFER);
    clReleaseCommandQueue(q);
    return err;
}

static cl_mem create_buffer(cl_context ctx, const cl_mem_properties *props, cl_mem_flags flags, size_t size,
                            void *host_ptr, cl_int *errcode_ret)
{
    cl_int err = CL_SUCCESS;
    cl_mem m = NULL;
    struct aos_span init = {0, 0};
    if (!aos_object_valid(ctx, AOS_OBJ_CONTEXT)) {
        err = CL_INVALID_CONTEXT;
        goto out;
    }
    size_t num_props = aos_mem_props_count(props);
    if (num_props) { /* OpenCL 3.0 defines no buffer properties outside extensions */
        err = CL_INVALID_PROPERTY;
        goto out;
    }
    if ((err = aos_mem_check_flags(flags & ~(cl_mem_flags)CL_MEM_KERNEL_READ_AND_WRITE, host_ptr)) != CL_SUCCESS ||
        (flags & CL_MEM_KERNEL_READ_AND_WRITE)) {
        err = err ? err : CL_INVALID_VALUE;
        goto out;
    }
    if (size == 0 || size > UINT64_MAX / 2) {
        err = CL_INVALID_BUFFER_SIZE;
        goto out;
    }
    m = aos_mem_alloc(ctx, CL_MEM_OBJECT_BUFFER, flags, size, host_ptr);
    if (!m || !aos_mem_set_props(m, props)) {
        err = CL_OUT_OF_HOST_MEMORY;
        goto out;
    }

    cl_mem_flags wire_flags = flags & ~(cl_mem_flags)(CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
    bool late_init = false;
    if (host_ptr) {
        if (size <= aos_staging_size() / 2) {
            void *stage = aos_staging_alloc((uint32_t)size, (uint32_t)size, &init);
            if (!stage) {
                err = CL_OUT_OF_RESOURCES;
                goto out;
            }
            memcpy(stage, host_ptr, size);
            wire_flags |= CL_MEM_COPY_HOST_PTR;
        } else {
            late_init = true;
        }
    }

    struct aos_req r;
    struct aos_req_create_buffer *q = aos_req_begin(&r, sizeof(*q), true);
    if (!q) {
        err = r.error;
        goto out;
    }
    *q = (struct aos_req_create_buffer){
        .id = m->obj.id, .context = ctx->obj.id, .flags = wire_flags, .size = size, .init = init,
        .num_props = 0, .has_props = props != NULL};
    struct aos_reply rep;
    err = aos_req_call(&r, AOS_OP_CREATE_BUFFER, &rep);
    if (err == CL_SUCCESS)
        note_placement(m, &rep);
    aos_reply_release(&rep);
    if (init.len) {
        aos_staging_free(init);
        init.len = 0;
    }
    if (err != CL_SUCCESS)
        goto out;
    if (late_init && (err = write_initial_contents(m, host_ptr)) != CL_SUCCESS) {
        aos_object_release(m, AOS_OBJ_MEM, CL_INVALID_MEM_OBJECT);
        m = NULL;
        goto out;
    }
    if (errcode_ret)
        *errcode_ret = CL_SUCCESS;
    return m;

out:
    if (init.len)
        aos_staging_free(init);
    if (m)
        aos_mem_discard(m);
    if (errcode_ret)
        *errcode_ret = err;
    return NULL;
}

cl_mem CL_API_CALL clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size, void *host_ptr,
                                  cl_int *errcode_ret)
{
    return create_buffer(context, NULL, flags, size, host_ptr, errcode_ret);
}

cl_mem CL_API_CALL clCreateBufferWithProperties(cl_context context, const cl_mem_properties *properties,
                                                cl_mem_flags flags, size_t size, void *host_ptr,
                                                cl_int *errcode_ret)
{
    return create_buffer(context, properties, flags, size, host_ptr, errcode_ret);
}

/* Flags of a sub-buffer: what was given, with the rest inherited from the parent. */
static cl_int sub_buffer_flags(cl_mem parent, cl_mem_flags flags, cl_mem_flags *out)
{
    if (flags & ~(cl_mem_flags)(ACCESS_FLAGS | HOST_ACCESS_FLAGS))
        return CL_INVALID_VALUE; /* host pointer flags cannot be given to a sub-buffer */
    if (more_than_one(flags & ACCESS_FLAGS) || more_than_one(flags & HOST_ACCESS_FLAGS))
        return CL_INVALID_VALUE;
    cl_mem_flags p = parent->flags;
    if ((p & CL_MEM_WRITE_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY)))
        return CL_INVALID_VALUE;
    if ((p & CL_MEM_READ_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY)))
        return CL_INVALID_VALUE;
    if ((p & CL_MEM_HOST_WRITE_ONLY) && (flags & CL_MEM_HOST_READ_ONLY))
        return CL_INVALID_VALUE;
    if ((p & CL_MEM_HOST_READ_ONLY) && (flags & CL_MEM_HOST_WRITE_ONLY))
        return CL_INVALID_VALUE;
    if ((p & CL_MEM_HOST_NO_ACCESS) && (flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY)))
        return CL_INVALID_VALUE;
    if (!(flags & ACCESS_FLAGS))
        flags |= p & ACCESS_FLAGS;
    if (!(flags & HOST_ACCESS_FLAGS))
        flags |= p & HOST_ACCESS_FLAGS;
    flags |= p & HOST_PTR_FLAGS;
    *out = flags;
    return CL_SUCCESS;
}

cl_mem CL_API_CALL clCreateSubBuffer(cl_mem buffer, cl_mem_flags flags, cl_buffer_create_type type,
                                     const void *info, cl_int *errcode_ret)
{
    cl_int err;
    cl_mem m = NULL;
    const cl_buffer_region *region = info;
    cl_mem_flags eff = 0;
    if (!aos_object_valid(buffer, AOS_OBJ_MEM) || !aos_mem_is_buffer(buffer) || buffer->parent) {
        err = CL_INVALID_MEM_OBJECT;
        goto out;
    }
    if ((err = sub_buffer_flags(buffer, flags, &eff)) != CL_SUCCESS)
        goto out;
    if (type != CL_BUFFER_CREATE_TYPE_REGION || !region) {
        err = CL_INVALID_VALUE;
        goto out;
    }
    if (region->size == 0) {
        err = CL_INVALID_BUFFER_SIZE;
        goto out;
    }
    if (region->origin > buffer->size || region->size > buffer->size - region->origin) {
        err = CL_INVALID_VALUE;
        goto out;
    }
    m = aos_mem_alloc(buffer->context, CL_MEM_OBJECT_BUFFER, eff, region->size, NULL);
    if (!m) {
        err = CL_OUT_OF_HOST_MEMORY;
        goto out;
    }
    m->parent = buffer;
    aos_object_hold(buffer);
    m->origin = region->origin;
    if (buffer->host_ptr)
        m->host_ptr = (uint8_t *)buffer->host_ptr + region->origin;

    struct aos_req r;
    struct aos_req_create_sub_buffer *q = aos_req_begin(&r, sizeof(*q), true);
    if (!q) {
        err = r.error;
        goto out;
    }
    *q = (struct aos_req_create_sub_buffer){
        .id = m->obj.id, .parent = buffer->obj.id, .flags = flags, .origin = region->origin, .size = region->size};
    struct aos_reply rep;
    err = aos_req_call(&r, AOS_OP_CREATE_SUB_BUFFER, &rep);
    if (err == CL_SUCCESS)
        note_placement(m, &rep);
    aos_reply_release(&rep);
    if (err != CL_SUCCESS)
        goto out;
    if (errcode_ret)
        *errcode_ret = CL_SUCCESS;
    return m;

out:
    if (m)
        aos_mem_discard(m);
    if (errcode_ret)
        *errcode_ret = err;
    return NULL;
}

cl_int CL_API_CALL clRetainMemObject(cl_mem memobj)
{
    return aos_object_retain(memobj, AOS_OBJ_MEM, CL_INVALID_MEM_OBJECT);
}

cl_int CL_API_CALL clReleaseMemObject(cl_mem memobj)
{
    return aos_object_release(memobj, AOS_OBJ_MEM, CL_INVALID_MEM_OBJECT);
}

cl_int CL_API_CALL clGetMemObjectInfo(cl_mem m, cl_mem_info param, size_t size, void *value, size_t *size_ret)
{
    if (!aos_object_valid(m, AOS_OBJ_MEM))
        return CL_INVALID_MEM_OBJECT;
    union {
        cl_mem_object_type type;
        cl_mem_flags flags;
        size_t size;
        void *ptr;
        cl_uint u;
        cl_context ctx;
        cl_mem mem;
        cl_bool b;
    } v;
    size_t n;
    switch (param) {
    case CL_MEM_TYPE: v.type = m->mem_type; n = sizeof(v.type); break;
    case CL_MEM_FLAGS: v.flags = m->flags; n = sizeof(v.flags); break;
    case CL_MEM_SIZE: v.size = m->size; n = sizeof(v.size); break;
    case CL_MEM_HOST_PTR: v.ptr = m->host_ptr; n = sizeof(v.ptr); break;
    case CL_MEM_MAP_COUNT: v.u = atomic_load(&m->map_count); n = sizeof(v.u); break;
    case CL_MEM_REFERENCE_COUNT: v.u = atomic_load(&m->obj.refs); n = sizeof(v.u); break;
    case CL_MEM_CONTEXT: v.ctx = m->context; n = sizeof(v.ctx); break;
    case CL_MEM_ASSOCIATED_MEMOBJECT: v.mem = m->parent ? m->parent : m->desc.buffer; n = sizeof(v.mem); break;
    case CL_MEM_OFFSET: v.size = m->origin; n = sizeof(v.size); break;
    case CL_MEM_USES_SVM_POINTER: v.b = CL_FALSE; n = sizeof(v.b); break;
    case CL_MEM_PROPERTIES: return aos_info_value(m->props, m->props_size, size, value, size_ret);
    default: return CL_INVALID_VALUE;
    }
    return aos_info_value(&v, n, size, value, size_ret);
}

cl_int CL_API_CALL clSetMemObjectDestructorCallback(cl_mem m, void(CL_CALLBACK *fn)(cl_mem, void *),
                                                    void *user_data)
{
    if (!aos_object_valid(m, AOS_OBJ_MEM))
        return CL_INVALID_MEM_OBJECT;
    if (!fn)
        return CL_INVALID_VALUE;
    struct aos_destructor_cb *cb = malloc(sizeof(*cb));
    if (!cb)
        return CL_OUT_OF_HOST_MEMORY;
    cb->fn = (void(CL_CALLBACK *)(void *, void *))fn;
    cb->user_data = user_data;
    pthread_mutex_lock(&m->map_lock);
    cb->next = m->destructors;
    m->destructors = cb;
    pthread_mutex_unlock(&m->map_lock);
    return CL_SUCCESS;
}

cl_int CL_API_CALL clEnqueueMigrateMemObjects(cl_command_queue queue, cl_uint num_mems, const cl_mem *mems,
                                              cl_mem_migration_flags flags, cl_uint num_wait,
                                              const cl_event *wait, cl_event *event)
{
    if (!aos_object_valid(queue, AOS_OBJ_QUEUE))
        return CL_INVALID_COMMAND_QUEUE;
    if (num_mems == 0 || !mems)
        return CL_INVALID_VALUE;
    for (cl_uint i = 0; i < num_mems; i++) {
        if (!aos_object_valid(mems[i], AOS_OBJ_MEM))
            return CL_INVALID_MEM_OBJECT;
        if (mems[i]->context != queue->context)
            return CL_INVALID_CONTEXT;
    }
    if (flags & ~(cl_mem_migration_flags)(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED))
        return CL_INVALID_VALUE;
    struct aos_enq e;
    cl_int err = aos_enq_prepare(&e, queue, num_wait, wait, CL_COMMAND_MIGRATE_MEM_OBJECTS, event != NULL);
    if (err != CL_SUCCESS)
        return err;
    uint32_t wait_bytes = aos_enq_wait_bytes(&e);
    struct aos_req r;
    struct aos_req_migrate_mem *q = aos_req_begin(&r, sizeof(*q) + wait_bytes + num_mems * 8u, false);
    if (!q) {
        aos_enq_complete(&e, r.error, NULL);
        return r.error;
    }
    aos_enq_encode(&e, &q->enq, q + 1, false);
    q->flags = flags;
    q->num_mems = num_mems;
    uint64_t *ids = (uint64_t *)((uint8_t *)(q + 1) + wait_bytes);
    for (cl_uint i = 0; i < num_mems; i++)
        ids[i] = mems[i]->obj.id;
    err = aos_req_send(&r, AOS_OP_MIGRATE_MEM);
    aos_enq_complete(&e, err, event);
    return err;
}
