/*
 * Buffers, sub-buffers and buffer transfers on the daemon side.
 *
 * Design note. Every id, span and length in a request is checked here before a real call sees it:
 * ids through the session's handle table (with the type), spans with aos_session_span, and data
 * lengths against the region the command touches. The real runtime then checks offsets against
 * the real buffer. Transfers are always enqueued non-blocking into the staging span; a blocking
 * request is answered when the real event completes, a non-blocking one with a host step token
 * completes through the client's host step. The daemon never frees staging: the client does.
 */
#include "fail_gate.h"
#include "ops_mem.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "accelos/log.h"
#include "accelos/wire_mem.h"
#include "arena.h"
#include "mem_bounds.h"
#include "ops.h"

static void mem_dtor(struct aos_handle *h)
{
    struct aos_mem_extra *x = h->extra;
    if (x) {
        x->s->bytes_allocated -= x->bytes;
        free(x);
    }
    if (h->object)
        NATIVE(h->object, clReleaseMemObject)((cl_mem)h->object);
}

void aos_ops_mem_init(void)
{
    aos_handles_set_dtor(AOS_OBJ_MEM, mem_dtor);
}

/* Registers mem with the extra data *init (s filled here) and answers slot with its placement. */
static int mem_register(struct aos_session *s, uint32_t slot, uint64_t id, cl_mem mem, const struct aos_mem_extra *init)
{
    struct aos_mem_extra *x = malloc(sizeof(*x));
    if (!x) {
        NATIVE(mem, clReleaseMemObject)(mem);
        aos_reply_status(s, slot, CL_OUT_OF_HOST_MEMORY);
        return 0;
    }
    *x = *init;
    x->s = s;
    uint64_t bytes = x->bytes;
    int rc = aos_handles_add(&s->handles, id, AOS_OBJ_MEM, mem, x);
    if (rc < 0) {
        free(x);
        NATIVE(mem, clReleaseMemObject)(mem);
        if (rc == -ENOMEM) {
            aos_reply_status(s, slot, CL_OUT_OF_HOST_MEMORY);
            return 0;
        }
        return -EPROTO;
    }
    s->bytes_allocated += bytes;
    aos_reply(s, slot, CL_SUCCESS, x->shared ? 1 : 0, x->shared ? x->arena_off : 0, 0);
    return 0;
}

int aos_mem_register(struct aos_session *s, uint32_t slot, uint64_t id, cl_mem mem, uint64_t bytes, size_t elem)
{
    return mem_register(s, slot, id, mem, &(struct aos_mem_extra){.bytes = bytes, .elem = elem});
}

struct aos_mem_extra *aos_mem_extra(struct aos_session *s, uint64_t id)
{
    struct aos_handle *h = aos_handles_find(&s->handles, id, AOS_OBJ_MEM);
    return h ? h->extra : NULL;
}

void aos_mem_enqueue_finish(struct aos_session *s, struct aos_enqueue *e, cl_int err, cl_event ev, uint64_t token)
{
    if (!token) {
        aos_enqueue_done(s, e, err, ev);
        return;
    }
    if (err != CL_SUCCESS)
        aos_fail_gate_commit(s, e, NULL); /* nothing was enqueued */
    if (err != CL_SUCCESS && e->context) {
        /* Carry the failure through an event so the client's host step still runs, with err. */
        cl_int rc;
        ev = NATIVE(e->context, clCreateUserEvent)(e->context, &rc);
        if (ev)
            NATIVE(ev, clSetUserEventStatus)(ev, err);
    }
    if (ev) {
        aos_host_step_begin(s, e, ev, token);
        return;
    }
    struct aos_note_host_step note = {.event = e->event_id, .token = token, .status = err};
    aos_enqueue_done(s, e, err, NULL);
    aos_note_send(s, AOS_NOTE_HOST_STEP, &note, sizeof(note));
}

/* ---- Creation --------------------------------------------------------------------------------- */

/* True when every device of ctx keeps its buffers in host memory the daemon can share: CPU
 * devices with unified memory. Elsewhere (GPUs) a host-pointer buffer would be slow for kernels. */
static bool context_host_memory(cl_context ctx)
{
    cl_device_id devices[16];
    size_t size = 0;
    if (NATIVE(ctx, clGetContextInfo)(ctx, CL_CONTEXT_DEVICES, sizeof(devices), devices, &size) != CL_SUCCESS ||
        size == 0)
        return false;
    for (size_t i = 0; i < size / sizeof(devices[0]); i++) {
        cl_device_type type = 0;
        cl_bool unified = CL_FALSE;
        if (NATIVE(devices[i], clGetDeviceInfo)(devices[i], CL_DEVICE_TYPE, sizeof(type), &type, NULL) != CL_SUCCESS ||
            NATIVE(devices[i], clGetDeviceInfo)(devices[i], CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof(unified), &unified,
                                                NULL) != CL_SUCCESS ||
            !(type & CL_DEVICE_TYPE_CPU) || !unified)
            return false;
    }
    return true;
}

struct shared_extent {
    struct aos_arena *arena;
    uint64_t off, bytes;
};

/* Destructor callback of a buffer stored in an arena: the runtime is done with the storage. */
static void CL_CALLBACK shared_extent_free(cl_mem mem, void *data)
{
    (void)mem;
    struct shared_extent *e = data;
    aos_arena_free(e->arena, e->off, e->bytes);
    free(e);
}

/* Creates the real buffer with its storage in the client's arena; NULL (and *err unchanged) when it
 * does not go there, so the caller creates it the usual way. */
static cl_mem create_shared_buffer(struct aos_session *s, cl_context ctx, const struct aos_req_create_buffer *r,
                                   const void *host, uint64_t *arena_off, cl_int *err)
{
    if (!s->arena || !context_host_memory(ctx))
        return NULL;
    struct shared_extent *e = malloc(sizeof(*e));
    if (!e)
        return NULL;
    if (aos_arena_alloc(s->arena, r->size, &e->off) < 0) {
        free(e);
        return NULL; /* arena full: an ordinary buffer */
    }
    e->arena = s->arena;
    e->bytes = r->size;
    void *storage = aos_arena_at(s->arena, e->off);
    if (host)
        memcpy(storage, host, (size_t)r->size);
    cl_mem_flags flags = (r->flags & ~(cl_mem_flags)(CL_MEM_COPY_HOST_PTR | CL_MEM_ALLOC_HOST_PTR)) | CL_MEM_USE_HOST_PTR;
    cl_mem mem = NATIVE(ctx, clCreateBuffer)(ctx, flags, (size_t)r->size, storage, err);
    if (!mem) {
        aos_arena_free(e->arena, e->off, e->bytes);
        free(e);
        return NULL;
    }
    if (NATIVE(mem, clSetMemObjectDestructorCallback)(mem, shared_extent_free, e) != CL_SUCCESS) {
        NATIVE(mem, clReleaseMemObject)(mem); /* without the callback the extent could not be reused */
        aos_arena_free(e->arena, e->off, e->bytes);
        free(e);
        return NULL;
    }
    *arena_off = e->off;
    return mem;
}

static int op_create_buffer(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    const struct aos_req_create_buffer *r = payload;
    struct aos_tail t;
    aos_tail_init(&t, payload, len, sizeof(*r));
    if (!aos_tail_take(&t, (uint64_t)r->num_props * sizeof(uint64_t)))
        return -EPROTO;
    if (r->flags & CL_MEM_USE_HOST_PTR)
        return -EPROTO; /* the daemon can never use a client pointer */
    const void *host = NULL;
    if (r->flags & CL_MEM_COPY_HOST_PTR) {
        if (r->init.len != r->size || !(host = aos_session_span(s, r->init)))
            return -EPROTO;
    } else if (r->init.len) {
        return -EPROTO;
    }
    cl_context ctx = aos_context_lookup(s, r->context);
    if (!ctx) {
        aos_reply_status(s, slot, CL_INVALID_CONTEXT);
        return 0;
    }
    if (r->num_props) {
        aos_reply_status(s, slot, CL_INVALID_PROPERTY);
        return 0;
    }
    cl_int err = CL_SUCCESS;
    struct aos_mem_extra place = {.bytes = r->size, .size = r->size};
    cl_mem mem = create_shared_buffer(s, ctx, r, host, &place.arena_off, &err);
    if (mem)
        place.shared = true;
    else
        mem = NATIVE(ctx, clCreateBuffer)(ctx, r->flags, (size_t)r->size, (void *)host, &err);
    if (!mem) {
        aos_reply_status(s, slot, err ? err : CL_OUT_OF_RESOURCES);
        return 0;
    }
    return mem_register(s, slot, r->id, mem, &place);
}

/* The client's memory object id, with its size for the bounds checks (mem_bounds.h); NULL when
 * the id names none. */
static cl_mem mem_sized(struct aos_session *s, uint64_t id, uint64_t *size)
{
    cl_mem m = aos_handles_object(&s->handles, id, AOS_OBJ_MEM);
    size_t bytes = 0;
    if (!m || NATIVE(m, clGetMemObjectInfo)(m, CL_MEM_SIZE, sizeof(bytes), &bytes, NULL) != CL_SUCCESS)
        return NULL;
    *size = bytes;
    return m;
}

static int op_create_sub_buffer(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    (void)len;
    const struct aos_req_create_sub_buffer *r = payload;
    uint64_t parent_size = 0;
    cl_mem parent = mem_sized(s, r->parent, &parent_size);
    if (!parent) {
        aos_reply_status(s, slot, CL_INVALID_MEM_OBJECT);
        return 0;
    }
    if (!aos_bounds_range(r->origin, r->size, parent_size)) {
        aos_reply_status(s, slot, CL_INVALID_VALUE);
        return 0;
    }
    cl_buffer_region region = {.origin = (size_t)r->origin, .size = (size_t)r->size};
    cl_int err = CL_SUCCESS;
    cl_mem mem = NATIVE(parent, clCreateSubBuffer)(parent, r->flags, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    if (!mem) {
        aos_reply_status(s, slot, err ? err : CL_OUT_OF_RESOURCES);
        return 0;
    }
    /* Shares the parent's memory: counts nothing, and lies in the arena where the parent does (the
     * runtime checked origin and size against the parent). */
    const struct aos_mem_extra *px = aos_mem_extra(s, r->parent);
    struct aos_mem_extra place = {.size = r->size};
    if (px && px->shared) {
        place.shared = true;
        place.arena_off = px->arena_off + r->origin;
    }
    return mem_register(s, slot, r->id, mem, &place);
}

/* ---- Transfers -------------------------------------------------------------------------------- */

bool aos_mem_token_ok(const struct aos_enqueue *e, uint64_t token)
{
    return !token || (!e->blocking && e->event_id);
}

static int buffer_rw(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len, bool write)
{
    const struct aos_req_buffer_rw *r = payload;
    struct aos_enqueue e;
    cl_int err;
    if (aos_enqueue_parse_fixed(s, slot, payload, len, sizeof(*r), &e, &err) < 0)
        return -EPROTO;
    void *data = r->data.len ? aos_session_span(s, r->data) : NULL;
    if (!aos_mem_token_ok(&e, r->token) || (r->data.len && !data)) {
        aos_enqueue_abandon(s, &e);
        return -EPROTO;
    }
    cl_event ev = NULL;
    if (err == CL_SUCCESS) {
        uint64_t size = 0;
        cl_mem buf = mem_sized(s, r->buffer, &size);
        if (!buf)
            err = CL_INVALID_MEM_OBJECT;
        else if (!aos_bounds_range(r->offset, r->data.len, size))
            err = CL_INVALID_VALUE;
        else if (!r->data.len)
            err = aos_fail_gate_enqueue_marker(s, &e, false, &ev);
        else if (write)
            err = NATIVE(e.queue, clEnqueueWriteBuffer)(e.queue, buf, CL_FALSE, (size_t)r->offset, r->data.len,
                                                         data, e.num_wait, e.wait, &ev);
        else
            err = NATIVE(e.queue, clEnqueueReadBuffer)(e.queue, buf, CL_FALSE, (size_t)r->offset, r->data.len, data,
                                                        e.num_wait, e.wait, &ev);
    }
    aos_mem_enqueue_finish(s, &e, err, ev, r->token);
    return 0;
}

static int op_write_buffer(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    return buffer_rw(s, slot, payload, len, true);
}

static int op_read_buffer(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    return buffer_rw(s, slot, payload, len, false);
}

static int buffer_rect(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len, bool write)
{
    const struct aos_req_buffer_rect *r = payload;
    struct aos_enqueue e;
    cl_int err;
    if (aos_enqueue_parse_fixed(s, slot, payload, len, sizeof(*r), &e, &err) < 0)
        return -EPROTO;
    size_t region[3], origin[3], host_origin[3] = {0, 0, 0};
    uint64_t bytes = 1;
    bool bad = false;
    for (int i = 0; i < 3; i++) {
        region[i] = (size_t)r->region[i];
        origin[i] = (size_t)r->origin[i];
        if (r->region[i] == 0 || r->region[i] > UINT32_MAX)
            bad = true;
        else
            bytes *= r->region[i];
    }
    void *data = aos_session_span(s, r->data);
    if (bad || bytes != r->data.len || !data || !aos_mem_token_ok(&e, r->token)) {
        aos_enqueue_abandon(s, &e);
        return -EPROTO;
    }
    cl_event ev = NULL;
    if (err == CL_SUCCESS) {
        uint64_t size = 0;
        cl_mem buf = mem_sized(s, r->buffer, &size);
        size_t hrow = region[0], hslice = region[0] * region[1];
        if (!buf)
            err = CL_INVALID_MEM_OBJECT;
        else if (!aos_bounds_rect(r->origin, r->region, r->row_pitch, r->slice_pitch, size))
            err = CL_INVALID_VALUE;
        else if (write)
            err = NATIVE(e.queue, clEnqueueWriteBufferRect)(e.queue, buf, CL_FALSE, origin, host_origin, region,
                                                             (size_t)r->row_pitch, (size_t)r->slice_pitch, hrow,
                                                             hslice, data, e.num_wait, e.wait, &ev);
        else
            err = NATIVE(e.queue, clEnqueueReadBufferRect)(e.queue, buf, CL_FALSE, origin, host_origin, region,
                                                            (size_t)r->row_pitch, (size_t)r->slice_pitch, hrow,
                                                            hslice, data, e.num_wait, e.wait, &ev);
    }
    aos_mem_enqueue_finish(s, &e, err, ev, r->token);
    return 0;
}

static int op_write_buffer_rect(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    return buffer_rect(s, slot, payload, len, true);
}

static int op_read_buffer_rect(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    return buffer_rect(s, slot, payload, len, false);
}

static void release_mem(cl_int status, void *data)
{
    (void)status;
    cl_mem mem = data;
    NATIVE(mem, clReleaseMemObject)(mem);
}

/* The client copies into or out of a shared buffer itself. ready (a marker after the wait list) says
 * when it may start; the application's event is a user event the client completes when the copy is
 * done (a host step), and a gate marker waiting for it holds the queue meanwhile, so later commands
 * see the written data and cannot overwrite data still being read. */
static int op_buffer_direct(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    const struct aos_req_buffer_direct *r = payload;
    struct aos_enqueue e;
    cl_int err;
    if (aos_enqueue_parse_fixed(s, slot, payload, len, sizeof(*r), &e, &err) < 0)
        return -EPROTO;
    struct aos_handle *h = aos_handles_find(&s->handles, r->buffer, AOS_OBJ_MEM);
    const struct aos_mem_extra *x = h ? h->extra : NULL;
    cl_mem buf = h ? h->object : NULL; /* h itself may move once the event id is added below */
    bool bad_token = e.blocking ? r->token != 0 : r->token == 0;
    bool bad_range = x && (!x->shared || r->size == 0 || r->offset > x->size || r->size > x->size - r->offset);
    if (!e.event_id || bad_token || bad_range) {
        aos_enqueue_abandon(s, &e);
        return -EPROTO;
    }
    cl_event ready = NULL;
    if (err == CL_SUCCESS && !x)
        err = CL_INVALID_MEM_OBJECT;
    if (err == CL_SUCCESS)
        err = aos_fail_gate_enqueue_marker(s, &e, false, &ready);
    if (err != CL_SUCCESS) {
        aos_mem_enqueue_finish(s, &e, err, NULL, r->token);
        return 0;
    }
    uint64_t event_id = e.event_id;
    cl_command_queue queue = e.queue;
    if (aos_host_step_begin(s, &e, ready, r->token) != CL_SUCCESS)
        return 0;
    cl_event user = aos_handles_object(&s->handles, event_id, AOS_OBJ_EVENT);
    cl_event gate = NULL;
    if (user && aos_fail_gate_marker(s, queue, 1, &user, &gate) == CL_SUCCESS)
        aos_event_drop(s, gate);
    else
        aos_async_error(s, "buffer_direct gate", CL_OUT_OF_RESOURCES);
    /* Markers hold no memory object, and the application may release the buffer at once: keep its
     * storage until the client's copy has ended. */
    NATIVE(buf, clRetainMemObject)(buf);
    if (!user || aos_event_when_done(user, release_mem, buf) != CL_SUCCESS)
        NATIVE(buf, clReleaseMemObject)(buf);
    return 0;
}

static cl_int copy_buffer(struct aos_session *s, const void *req, const struct aos_enqueue *e, cl_event *ev)
{
    const struct aos_req_copy_buffer *r = req;
    uint64_t src_size = 0, dst_size = 0;
    cl_mem src = mem_sized(s, r->src, &src_size);
    cl_mem dst = mem_sized(s, r->dst, &dst_size);
    if (!src || !dst)
        return CL_INVALID_MEM_OBJECT;
    if (!aos_bounds_range(r->src_offset, r->size, src_size) || !aos_bounds_range(r->dst_offset, r->size, dst_size))
        return CL_INVALID_VALUE;
    return NATIVE(e->queue, clEnqueueCopyBuffer)(e->queue, src, dst, (size_t)r->src_offset, (size_t)r->dst_offset,
                                                 (size_t)r->size, e->num_wait, e->wait, ev);
}

static int op_copy_buffer(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    return aos_enqueue_fixed_command(s, slot, payload, len, sizeof(struct aos_req_copy_buffer), copy_buffer);
}

static cl_int copy_buffer_rect(struct aos_session *s, const void *req, const struct aos_enqueue *e, cl_event *ev)
{
    const struct aos_req_copy_buffer_rect *r = req;
    uint64_t src_size = 0, dst_size = 0;
    cl_mem src = mem_sized(s, r->src, &src_size);
    cl_mem dst = mem_sized(s, r->dst, &dst_size);
    if (!src || !dst)
        return CL_INVALID_MEM_OBJECT;
    if (!aos_bounds_rect(r->src_origin, r->region, r->src_row_pitch, r->src_slice_pitch, src_size) ||
        !aos_bounds_rect(r->dst_origin, r->region, r->dst_row_pitch, r->dst_slice_pitch, dst_size))
        return CL_INVALID_VALUE;
    size_t so[3], d_o[3], reg[3];
    for (int i = 0; i < 3; i++)
        so[i] = (size_t)r->src_origin[i], d_o[i] = (size_t)r->dst_origin[i], reg[i] = (size_t)r->region[i];
    return NATIVE(e->queue, clEnqueueCopyBufferRect)(e->queue, src, dst, so, d_o, reg, (size_t)r->src_row_pitch,
                                                     (size_t)r->src_slice_pitch, (size_t)r->dst_row_pitch,
                                                     (size_t)r->dst_slice_pitch, e->num_wait, e->wait, ev);
}

static int op_copy_buffer_rect(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    return aos_enqueue_fixed_command(s, slot, payload, len, sizeof(struct aos_req_copy_buffer_rect), copy_buffer_rect);
}

static int op_fill_buffer(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    const struct aos_req_fill_buffer *r = payload;
    struct aos_tail t;
    aos_tail_init(&t, payload, len, sizeof(*r));
    bool proto = false;
    struct aos_enqueue e;
    cl_int err = aos_enqueue_parse(s, payload, &t, slot, &e, &proto);
    if (proto)
        return -EPROTO;
    const void *pattern = r->pattern_size <= AOS_FILL_PATTERN_MAX ? aos_tail_take(&t, r->pattern_size) : NULL;
    if (!pattern) {
        aos_enqueue_abandon(s, &e);
        return -EPROTO;
    }
    cl_event ev = NULL;
    if (err == CL_SUCCESS) {
        uint64_t size = 0;
        cl_mem buf = mem_sized(s, r->buffer, &size);
        if (!buf)
            err = CL_INVALID_MEM_OBJECT;
        else if (!aos_bounds_range(r->offset, r->size, size))
            err = CL_INVALID_VALUE;
        else
            err = NATIVE(e.queue, clEnqueueFillBuffer)(e.queue, buf, pattern, r->pattern_size, (size_t)r->offset,
                                                        (size_t)r->size, e.num_wait, e.wait, &ev);
    }
    aos_enqueue_done(s, &e, err, ev);
    return 0;
}

static int op_migrate_mem(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    const struct aos_req_migrate_mem *r = payload;
    struct aos_tail t;
    aos_tail_init(&t, payload, len, sizeof(*r));
    bool proto = false;
    struct aos_enqueue e;
    cl_int err = aos_enqueue_parse(s, payload, &t, slot, &e, &proto);
    if (proto)
        return -EPROTO;
    const uint64_t *ids = r->num_mems && r->num_mems <= 4096 ? aos_tail_take(&t, (uint64_t)r->num_mems * 8u) : NULL;
    if (!ids) {
        aos_enqueue_abandon(s, &e);
        return -EPROTO;
    }
    cl_event ev = NULL;
    cl_mem *mems = NULL;
    if (err == CL_SUCCESS && !(mems = malloc(r->num_mems * sizeof(*mems))))
        err = CL_OUT_OF_HOST_MEMORY;
    for (uint32_t i = 0; err == CL_SUCCESS && i < r->num_mems; i++)
        if (!(mems[i] = aos_handles_object(&s->handles, ids[i], AOS_OBJ_MEM)))
            err = CL_INVALID_MEM_OBJECT;
    if (err == CL_SUCCESS)
        err = NATIVE(e.queue, clEnqueueMigrateMemObjects)(e.queue, r->num_mems, mems, r->flags, e.num_wait, e.wait,
                                                           &ev);
    free(mems);
    aos_enqueue_done(s, &e, err, ev);
    return 0;
}

const struct aos_op_entry aos_ops_mem[] = {
    {AOS_OP_CREATE_BUFFER, sizeof(struct aos_req_create_buffer), true, op_create_buffer, "create_buffer"},
    {AOS_OP_CREATE_SUB_BUFFER, sizeof(struct aos_req_create_sub_buffer), true, op_create_sub_buffer,
     "create_sub_buffer"},
    {AOS_OP_WRITE_BUFFER, sizeof(struct aos_req_buffer_rw), false, op_write_buffer, "write_buffer"},
    {AOS_OP_WRITE_BUFFER_BLOCKING, sizeof(struct aos_req_buffer_rw), true, op_write_buffer, "write_buffer_blocking"},
    {AOS_OP_READ_BUFFER, sizeof(struct aos_req_buffer_rw), false, op_read_buffer, "read_buffer"},
    {AOS_OP_READ_BUFFER_BLOCKING, sizeof(struct aos_req_buffer_rw), true, op_read_buffer, "read_buffer_blocking"},
    {AOS_OP_WRITE_BUFFER_RECT, sizeof(struct aos_req_buffer_rect), false, op_write_buffer_rect, "write_buffer_rect"},
    {AOS_OP_WRITE_BUFFER_RECT_BLOCKING, sizeof(struct aos_req_buffer_rect), true, op_write_buffer_rect,
     "write_buffer_rect_blocking"},
    {AOS_OP_READ_BUFFER_RECT, sizeof(struct aos_req_buffer_rect), false, op_read_buffer_rect, "read_buffer_rect"},
    {AOS_OP_READ_BUFFER_RECT_BLOCKING, sizeof(struct aos_req_buffer_rect), true, op_read_buffer_rect,
     "read_buffer_rect_blocking"},
    {AOS_OP_BUFFER_DIRECT, sizeof(struct aos_req_buffer_direct), false, op_buffer_direct, "buffer_direct"},
    {AOS_OP_BUFFER_DIRECT_BLOCKING, sizeof(struct aos_req_buffer_direct), true, op_buffer_direct,
     "buffer_direct_blocking"},
    {AOS_OP_COPY_BUFFER, sizeof(struct aos_req_copy_buffer), false, op_copy_buffer, "copy_buffer"},
    {AOS_OP_COPY_BUFFER_RECT, sizeof(struct aos_req_copy_buffer_rect), false, op_copy_buffer_rect,
     "copy_buffer_rect"},
    {AOS_OP_FILL_BUFFER, sizeof(struct aos_req_fill_buffer), false, op_fill_buffer, "fill_buffer"},
    {AOS_OP_MIGRATE_MEM, sizeof(struct aos_req_migrate_mem), false, op_migrate_mem, "migrate_mem"},
    {0, 0, false, NULL, NULL},
};
