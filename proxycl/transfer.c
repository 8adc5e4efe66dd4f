/*
 * Buffer transfers and the transfer engine that reads, writes and maps share (see mem.h).
 *
 * Staging spans: the client allocates them and the client frees them. For a synchronous (blocking,
 * one-piece) request the span is freed after the reply. For asynchronous pieces the daemon sends
 * AOS_NOTE_HOST_STEP when the device part ended; the piece's run() (callback thread) copies read
 * data out and frees the span. When staging is exhausted aos_staging_alloc waits for those runs,
 * which throttles a long transfer to the device's pace.
 *
 * Reads on an in-order queue: when a piece's device part is done so are all earlier pieces', so the
 * last piece's run copies out any earlier piece whose run has not happened yet. The application's
 * event (the last piece's) therefore never completes before all data is in application memory.
 */
#include <stdlib.h>
#include <string.h>

#include "accelos/wire_mem.h"
#include "conn.h"
#include "enqueue.h"
#include "mem.h"

struct xfer_job;

struct xfer_piece {
    struct aos_host_step step; /* first: run() gets &step */
    struct xfer_job *job;
    struct aos_span span;
    uint8_t *stage;
    size_t off[3];             /* relative to the box origin */
    size_t reg[3];
    bool copied;
    bool last;
};

struct xfer_job {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    uint32_t refs;             /* pieces in flight + the creator */
    cl_int status;
    struct aos_xfer x;
    uint32_t count;
    struct xfer_piece pieces[];
};

/* ---- Geometry --------------------------------------------------------------------------------- */

/* Bytes per pipelined piece. 8 MiB (a staging area of 64 MiB holds eight in flight) amortises
 * the per-command cost of the device queue; 2 MiB pieces reached only 0.68-0.78x of direct
 * bandwidth at 64 MiB, 8 MiB pieces 0.83-0.87x (bench/RESULTS.md section 1). */
static size_t piece_limit(void)
{
    size_t staging = aos_staging_size();
    size_t chunk = aos_staging_chunk();
    size_t p = 8u << 20;
    if (p > staging / 8)
        p = staging / 8;
    if (p < chunk)
        p = chunk;
    return p;
}

/* Splits the box into pieces of at most limit bytes: whole slices, else rows of one slice, else
 * segments of one row. Returns the number of pieces and fills out[] when out is non-NULL. */
static uint32_t split(const struct aos_xfer *x, size_t limit, struct xfer_piece *out)
{
    size_t row = x->region[0] * x->unit, slice = row * x->region[1];
    uint32_t n = 0;
    if (slice <= limit) {
        size_t k = limit / slice;
        for (size_t z = 0; z < x->region[2]; z += k, n++)
            if (out) {
                out[n].off[0] = 0, out[n].off[1] = 0, out[n].off[2] = z;
                out[n].reg[0] = x->region[0], out[n].reg[1] = x->region[1];
                out[n].reg[2] = z + k > x->region[2] ? x->region[2] - z : k;
            }
    } else if (row <= limit) {
        size_t k = limit / row;
        for (size_t z = 0; z < x->region[2]; z++)
            for (size_t y = 0; y < x->region[1]; y += k, n++)
                if (out) {
                    out[n].off[0] = 0, out[n].off[1] = y, out[n].off[2] = z;
                    out[n].reg[0] = x->region[0], out[n].reg[2] = 1;
                    out[n].reg[1] = y + k > x->region[1] ? x->region[1] - y : k;
                }
    } else {
        size_t k = limit / x->unit ? limit / x->unit : 1;
        for (size_t z = 0; z < x->region[2]; z++)
            for (size_t y = 0; y < x->region[1]; y++)
                for (size_t px = 0; px < x->region[0]; px += k, n++)
                    if (out) {
                        out[n].off[0] = px, out[n].off[1] = y, out[n].off[2] = z;
                        out[n].reg[1] = 1, out[n].reg[2] = 1;
                        out[n].reg[0] = px + k > x->region[0] ? x->region[0] - px : k;
                    }
    }
    return n;
}

static size_t box_bytes(const struct aos_xfer *x, const size_t reg[3])
{
    return reg[0] * x->unit * reg[1] * reg[2];
}

static bool rows_contiguous(struct aos_rows r, size_t row_bytes, size_t rows, size_t slices)
{
    return r.row == row_bytes && (slices == 1 || r.slice == row_bytes * rows);
}

void aos_copy_rows(struct aos_rows dst, struct aos_rows src, size_t row_bytes, size_t rows, size_t slices)
{
    if (rows_contiguous(dst, row_bytes, rows, slices) && rows_contiguous(src, row_bytes, rows, slices)) {
        memcpy(dst.at, src.at, row_bytes * rows * slices);
        return;
    }
    for (size_t z = 0; z < slices; z++)
        for (size_t y = 0; y < rows; y++)
            memcpy(dst.at + z * dst.slice + y * dst.row, src.at + z * src.slice + y * src.row, row_bytes);
}

/* Copies between application memory and a tightly packed staging piece. */
static void pack(const struct aos_xfer *x, const size_t off[3], const size_t reg[3], uint8_t *stage, bool to_stage)
{
    size_t row = reg[0] * x->unit;
    struct aos_rows host = {x->host + off[0] * x->unit + off[1] * x->host_row + off[2] * x->host_slice, x->host_row,
                            x->host_slice};
    struct aos_rows packed = {stage, row, row * reg[1]};
    if (to_stage)
        aos_copy_rows(packed, host, row, reg[1], reg[2]);
    else
        aos_copy_rows(host, packed, row, reg[1], reg[2]);
}

/* ---- Engine ----------------------------------------------------------------------------------- */

static void job_unref_locked(struct xfer_job *job)
{
    if (--job->refs == 0) {
        pthread_mutex_unlock(&job->lock);
        pthread_mutex_destroy(&job->lock);
        pthread_cond_destroy(&job->cond);
        free(job);
        return;
    }
    pthread_cond_broadcast(&job->cond);
    pthread_mutex_unlock(&job->lock);
}

static void piece_run(struct aos_host_step *step, cl_int status)
{
    struct xfer_piece *p = (struct xfer_piece *)step;
    struct xfer_job *job = p->job;
    pthread_mutex_lock(&job->lock);
    if (status < 0 && job->status == CL_SUCCESS)
        job->status = status;
    if (!job->x.write && status >= 0) {
        if (!p->copied) {
            pack(&job->x, p->off, p->reg, p->stage, false);
            p->copied = true;
        }
        if (p->last)
            for (uint32_t i = 0; i < job->count; i++)
                if (!job->pieces[i].copied && job->pieces[i].stage) {
                    pack(&job->x, job->pieces[i].off, job->pieces[i].reg, job->pieces[i].stage, false);
                    job->pieces[i].copied = true;
                }
    }
    struct aos_span span = p->span;
    p->stage = NULL;
    if (span.len)
        aos_staging_free(span);
    job_unref_locked(job);
}

/* One synchronous request: blocking transfers that fit one piece, and data-less commands. */
static cl_int run_sync(const struct aos_xfer *x, cl_command_queue queue, bool blocking, cl_uint num_wait,
                       const cl_event *wait, cl_event *event, cl_command_type type)
{
    size_t total = box_bytes(x, x->region);
    struct aos_span span = {0, 0};
    uint8_t *stage = NULL;
    static const size_t zero[3] = {0, 0, 0};
    if (total) {
        stage = aos_staging_alloc((uint32_t)total, (uint32_t)total, &span);
        if (!stage)
            return CL_OUT_OF_RESOURCES;
        if (x->write)
            pack(x, zero, x->region, stage, true);
    }
    struct aos_enq e;
    cl_int err = aos_enq_prepare(&e, queue, num_wait, wait, type, event != NULL);
    if (err != CL_SUCCESS)
        goto out;
    struct aos_req r;
    uint32_t wait_bytes = aos_enq_wait_bytes(&e);
    uint8_t *fixed = aos_req_begin(&r, x->fixed_size + wait_bytes, blocking);
    if (!fixed) {
        err = r.error;
        aos_enq_complete(&e, err, NULL);
        goto out;
    }
    aos_enq_encode(&e, (struct aos_enqueue_hdr *)fixed, fixed + x->fixed_size, blocking);
    x->encode(fixed, x, x->origin, x->region, 0, span);
    if (blocking) {
        struct aos_reply rep;
        err = aos_req_call(&r, x->opcode | AOS_OP_BLOCKING_BIT, &rep);
        aos_reply_release(&rep);
        if (err == CL_SUCCESS && !x->write && total)
            pack(x, zero, x->region, stage, false);
    } else {
        err = aos_req_send(&r, x->opcode);
    }
    aos_enq_complete(&e, err, event);
out:
    if (span.len)
        aos_staging_free(span);
    return err;
}

cl_int aos_xfer_run(const struct aos_xfer *x, cl_command_queue queue, cl_bool blocking, cl_uint num_wait,
                    const cl_event *wait, cl_event *event, cl_command_type type)
{
    cl_int direct_err;
    if (aos_xfer_try_direct(x, queue, blocking, num_wait, wait, event, type, &direct_err))
        return direct_err;
    size_t total = box_bytes(x, x->region);
    size_t limit = piece_limit();
    if (total == 0 || (blocking && total <= limit))
        return run_sync(x, queue, blocking, num_wait, wait, event, type);

    uint32_t count = split(x, limit, NULL);
    struct xfer_job *job = calloc(1, sizeof(*job) + count * sizeof(struct xfer_piece));
    if (!job)
        return CL_OUT_OF_HOST_MEMORY;
    pthread_mutex_init(&job->lock, NULL);
    pthread_cond_init(&job->cond, NULL);
    job->refs = 1;
    job->x = *x;
    job->count = count;
    split(x, limit, job->pieces);
    bool ooo = (queue->props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;

    cl_int err = CL_SUCCESS;
    cl_event prev = NULL;
    for (uint32_t i = 0; i < count && err == CL_SUCCESS; i++) {
        struct xfer_piece *p = &job->pieces[i];
        size_t bytes = box_bytes(x, p->reg);
        uint8_t *stage = aos_staging_alloc((uint32_t)bytes, (uint32_t)bytes, &p->span);
        if (!stage) {
            err = CL_OUT_OF_RESOURCES;
            break;
        }
        if (x->write)
            pack(x, p->off, p->reg, stage, true);
        p->job = job;
        p->last = i + 1 == count;
        p->step.run = piece_run;
        struct aos_enq e;
        if (i == 0)
            err = aos_enq_prepare(&e, queue, num_wait, wait, type, true);
        else
            err = aos_enq_prepare(&e, queue, ooo && prev ? 1 : 0, ooo && prev ? &prev : NULL, type, true);
        if (err != CL_SUCCESS) {
            aos_staging_free(p->span);
            break;
        }
        pthread_mutex_lock(&job->lock);
        job->refs++;
        p->stage = stage; /* visible to the last piece's run from now on */
        pthread_mutex_unlock(&job->lock);
        uint64_t token = aos_host_step_arm(&p->step, queue, e.event);
        if (!token) {
            pthread_mutex_lock(&job->lock);
            p->stage = NULL;
            job->refs--;
            pthread_mutex_unlock(&job->lock);
            aos_staging_free(p->span);
            aos_enq_complete(&e, CL_OUT_OF_HOST_MEMORY, NULL);
            err = CL_OUT_OF_HOST_MEMORY;
            break;
        }
        struct aos_req r;
        uint32_t wait_bytes = aos_enq_wait_bytes(&e);
        uint8_t *fixed = aos_req_begin(&r, x->fixed_size + wait_bytes, false);
        if (fixed) {
            aos_enq_encode(&e, (struct aos_enqueue_hdr *)fixed, fixed + x->fixed_size, false);
            size_t origin[3] = {x->origin[0] + p->off[0], x->origin[1] + p->off[1], x->origin[2] + p->off[2]};
            x->encode(fixed, x, origin, p->reg, token, p->span);
            err = aos_req_send(&r, x->opcode);
        } else {
            err = r.error;
            aos_host_step_cancel(token, err); /* releases the piece's reference and span */
        }
        /* On a send failure the daemon is gone; the armed step still owns the piece's reference and
         * span and releases them when the connection fails its host steps. */
        cl_event ev = NULL;
        aos_enq_complete(&e, err, &ev);
        if (prev)
            aos_object_release(prev, AOS_OBJ_EVENT, CL_INVALID_EVENT);
        prev = ev;
    }

    pthread_mutex_lock(&job->lock);
    bool failed = false;
    if (blocking && err == CL_SUCCESS) {
        while (job->refs > 1)
            pthread_cond_wait(&job->cond, &job->lock);
        failed = job->status < 0;
    }
    job_unref_locked(job);
    /* A piece failed: in the device, or because the daemon is gone (conn.h's contract). */
    if (failed)
        err = aos_conn_alive() ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST : CL_OUT_OF_RESOURCES;

    if (prev && event && err == CL_SUCCESS)
        *event = prev;
    else if (prev)
        aos_object_release(prev, AOS_OBJ_EVENT, CL_INVALID_EVENT);
    return err;
}

/* ---- Buffers ---------------------------------------------------------------------------------- */

void aos_xfer_encode_buffer(void *fixed, const struct aos_xfer *x, const size_t origin[3], const size_t region[3],
                            uint64_t token, struct aos_span span)
{
    if (x->opcode == AOS_OP_WRITE_BUFFER || x->opcode == AOS_OP_READ_BUFFER) {
        struct aos_req_buffer_rw *q = fixed;
        q->buffer = x->mem->obj.id;
        q->offset = origin[0];
        q->token = token;
        q->data = span;
        (void)region;
        return;
    }
    struct aos_req_buffer_rect *q = fixed;
    q->buffer = x->mem->obj.id;
    for (int i = 0; i < 3; i++) {
        q->origin[i] = origin[i];
        q->region[i] = region[i];
    }
    q->row_pitch = x->dev_row_pitch;
    q->slice_pitch = x->dev_slice_pitch;
    q->token = token;
    q->data = span;
}

void aos_xfer_buffer(struct aos_xfer *x, cl_mem buffer, bool write, size_t offset, size_t size, void *host)
{
    *x = (struct aos_xfer){
        .write = write,
        .opcode = write ? AOS_OP_WRITE_BUFFER : AOS_OP_READ_BUFFER,
        .fixed_size = sizeof(struct aos_req_buffer_rw),
        .encode = aos_xfer_encode_buffer,
        .mem = buffer,
        .origin = {offset, 0, 0},
        .region = {size, 1, 1},
        .unit = 1,
        .host = host,
        .host_row = size,
        .host_slice = size,
    };
}

/* Common checks of a buffer command: queue, buffer, context. */
static cl_int check_buffer(cl_command_queue queue, cl_mem buffer)
{
    if (!aos_object_valid(queue, AOS_OBJ_QUEUE))
        return CL_INVALID_COMMAND_QUEUE;
    if (!aos_object_valid(buffer, AOS_OBJ_MEM) || !aos_mem_is_buffer(buffer))
        return CL_INVALID_MEM_OBJECT;
    if (buffer->context != queue->context)
        return CL_INVALID_CONTEXT;
    return CL_SUCCESS;
}

static bool range_ok(cl_mem m, size_t offset, size_t size)
{
    return size != 0 && offset <= m->size && size <= m->size - offset;
}

static cl_int read_write_buffer(cl_command_queue queue, cl_mem buffer, bool write, cl_bool blocking, size_t offset,
                                size_t size, void *ptr, cl_uint num_wait, const cl_event *wait, cl_event *event)
{
    cl_int err = check_buffer(queue, buffer);
    if (err != CL_SUCCESS)
        return err;
    if (!range_ok(buffer, offset, size) || !ptr)
        return CL_INVALID_VALUE;
    if (write ? !aos_mem_host_can_write(buffer) : !aos_mem_host_can_read(buffer))
        return CL_INVALID_OPERATION;
    struct aos_xfer x;
    aos_xfer_buffer(&x, buffer, write, offset, size, ptr);
    return aos_xfer_run(&x, queue, blocking, num_wait, wait, event,
                        write ? CL_COMMAND_WRITE_BUFFER : CL_COMMAND_READ_BUFFER);
}

cl_int CL_API_CALL clEnqueueReadBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset,
                                       size_t size, void *ptr, cl_uint num_wait, const cl_event *wait,
                                       cl_event *event)
{
    return read_write_buffer(queue, buffer, false, blocking, offset, size, ptr, num_wait, wait, event);
}

cl_int CL_API_CALL clEnqueueWriteBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset,
                                        size_t size, const void *ptr, cl_uint num_wait, const cl_event *wait,
                                        cl_event *event)
{
    return read_write_buffer(queue, buffer, true, blocking, offset, size, (void *)ptr, num_wait, wait, event);
}

/* Normalises rect pitches as the spec defines their defaults; false when they are invalid. */
static bool rect_pitches(const size_t region[3], size_t *row, size_t *slice)
{
    if (*row == 0)
        *row = region[0];
    else if (*row < region[0])
        return false;
    if (*slice == 0)
        *slice = *row * region[1];
    else if (*slice < *row * region[1] || *slice % *row != 0)
        return false;
    return true;
}

/* Last byte touched by a rect + 1, or SIZE_MAX on overflow. */
static size_t rect_end(const size_t origin[3], const size_t region[3], size_t row, size_t slice)
{
    size_t end = origin[0] + region[0] + (origin[1] + region[1] - 1) * row + (origin[2] + region[2] - 1) * slice;
    return end;
}

static cl_int read_write_rect(cl_command_queue queue, cl_mem buffer, bool write, cl_bool blocking,
                              const size_t *buffer_origin, const size_t *host_origin, const size_t *region,
                              size_t buffer_row_pitch, size_t buffer_slice_pitch, size_t host_row_pitch,
                              size_t host_slice_pitch, void *ptr, cl_uint num_wait, const cl_event *wait,
                              cl_event *event)
{
    cl_int err = check_buffer(queue, buffer);
    if (err != CL_SUCCESS)
        return err;
    if (!buffer_origin || !host_origin || !region || !ptr)
        return CL_INVALID_VALUE;
    if (region[0] == 0 || region[1] == 0 || region[2] == 0)
        return CL_INVALID_VALUE;
    if (!rect_pitches(region, &buffer_row_pitch, &buffer_slice_pitch) ||
        !rect_pitches(region, &host_row_pitch, &host_slice_pitch))
        return CL_INVALID_VALUE;
    if (rect_end(buffer_origin, region, buffer_row_pitch, buffer_slice_pitch) > buffer->size)
        return CL_INVALID_VALUE;
    if (write ? !aos_mem_host_can_write(buffer) : !aos_mem_host_can_read(buffer))
        return CL_INVALID_OPERATION;
    struct aos_xfer x = {
        .write = write,
        .opcode = write ? AOS_OP_WRITE_BUFFER_RECT : AOS_OP_READ_BUFFER_RECT,
        .fixed_size = sizeof(struct aos_req_buffer_rect),
        .encode = aos_xfer_encode_buffer,
        .mem = buffer,
        .origin = {buffer_origin[0], buffer_origin[1], buffer_origin[2]},
        .region = {region[0], region[1], region[2]},
        .unit = 1,
        .host = (uint8_t *)ptr + host_origin[0] + host_origin[1] * host_row_pitch + host_origin[2] * host_slice_pitch,
        .host_row = host_row_pitch,
        .host_slice = host_slice_pitch,
        .dev_row_pitch = buffer_row_pitch,
        .dev_slice_pitch = buffer_slice_pitch,
    };
    return aos_xfer_run(&x, queue, blocking, num_wait, wait, event,
                        write ? CL_COMMAND_WRITE_BUFFER_RECT : CL_COMMAND_READ_BUFFER_RECT);
}

cl_int CL_API_CALL clEnqueueReadBufferRect(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                           const size_t *buffer_origin, const size_t *host_origin,
                                           const size_t *region, size_t buffer_row_pitch, size_t buffer_slice_pitch,
                                           size_t host_row_pitch, size_t host_slice_pitch, void *ptr,
                                           cl_uint num_wait, const cl_event *wait, cl_event *event)
{
    return read_write_rect(queue, buffer, false, blocking, buffer_origin, host_origin, region, buffer_row_pitch,
                           buffer_slice_pitch, host_row_pitch, host_slice_pitch, ptr, num_wait, wait, event);
}

cl_int CL_API_CALL clEnqueueWriteBufferRect(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                            const size_t *buffer_origin, const size_t *host_origin,
                                            const size_t *region, size_t buffer_row_pitch,
                                            size_t buffer_slice_pitch, size_t host_row_pitch,
                                            size_t host_slice_pitch, const void *ptr, cl_uint num_wait,
                                            const cl_event *wait, cl_event *event)
{
    return read_write_rect(queue, buffer, true, blocking, buffer_origin, host_origin, region, buffer_row_pitch,
                           buffer_slice_pitch, host_row_pitch, host_slice_pitch, (void *)ptr, num_wait, wait,
                           event);
}

/* Sends a data-less enqueue whose fixed struct the caller filled after the prefix. */
static cl_int send_simple(cl_command_queue queue, uint32_t opcode, const void *body, uint32_t fixed_size,
                          const void *extra, uint32_t extra_size, cl_uint num_wait, const cl_event *wait,
                          cl_event *event, cl_command_type type)
{
    struct aos_enq e;
    cl_int err = aos_enq_prepare(&e, queue, num_wait, wait, type, event != NULL);
    if (err != CL_SUCCESS)
        return err;
    uint32_t wait_bytes = aos_enq_wait_bytes(&e);
    struct aos_req r;
    uint8_t *fixed = aos_req_begin(&r, fixed_size + wait_bytes + extra_size, false);
    if (!fixed) {
        aos_enq_complete(&e, r.error, NULL);
        return r.error;
    }
    memcpy(fixed, body, fixed_size);
    aos_enq_encode(&e, (struct aos_enqueue_hdr *)fixed, fixed + fixed_size, false);
    if (extra_size)
        memcpy(fixed + fixed_size + wait_bytes, extra, extra_size);
    err = aos_req_send(&r, opcode);
    aos_enq_complete(&e, err, event);
    return err;
}

cl_int aos_enqueue_simple(cl_command_queue queue, uint32_t opcode, const void *body, uint32_t fixed_size,
                          const void *extra, uint32_t extra_size, cl_uint num_wait, const cl_event *wait,
                          cl_event *event, cl_command_type type)
{
    return send_simple(queue, opcode, body, fixed_size, extra, extra_size, num_wait, wait, event, type);
}

static cl_int check_copy_pair(cl_command_queue queue, cl_mem src, cl_mem dst)
{
    if (!aos_object_valid(queue, AOS_OBJ_QUEUE))
        return CL_INVALID_COMMAND_QUEUE;
    if (!aos_object_valid(src, AOS_OBJ_MEM) || !aos_mem_is_buffer(src) || !aos_object_valid(dst, AOS_OBJ_MEM) ||
        !aos_mem_is_buffer(dst))
        return CL_INVALID_MEM_OBJECT;
    if (src->context != queue->context || dst->context != queue->context)
        return CL_INVALID_CONTEXT;
    return CL_SUCCESS;
}

/* Root buffer and absolute offset, for overlap checks across sub-buffers. */
static cl_mem root_of(cl_mem m, size_t *offset)
{
    if (m->parent) {
        *offset += m->origin;
        return m->parent;
    }
    return m;
}

cl_int CL_API_CALL clEnqueueCopyBuffer(cl_command_queue queue, cl_mem src, cl_mem dst, size_t src_offset,
                                       size_t dst_offset, size_t size, cl_uint num_wait, const cl_event *wait,
                                       cl_event *event)
{
    cl_int err = check_copy_pair(queue, src, dst);
    if (err != CL_SUCCESS)
        return err;
    if (!range_ok(src, src_offset, size) || !range_ok(dst, dst_offset, size))
        return CL_INVALID_VALUE;
    size_t so = src_offset, d_o = dst_offset;
    if (root_of(src, &so) == root_of(dst, &d_o) && so < d_o + size && d_o < so + size)
        return CL_MEM_COPY_OVERLAP;
    struct aos_req_copy_buffer q = {
        .src = src->obj.id, .dst = dst->obj.id, .src_offset = src_offset, .dst_offset = dst_offset, .size = size};
    return send_simple(queue, AOS_OP_COPY_BUFFER, &q, sizeof(q), NULL, 0, num_wait, wait, event,
                       CL_COMMAND_COPY_BUFFER);
}

cl_int CL_API_CALL clEnqueueCopyBufferRect(cl_command_queue queue, cl_mem src, cl_mem dst, const size_t *src_origin,
                                           const size_t *dst_origin, const size_t *region, size_t src_row_pitch,
                                           size_t src_slice_pitch, size_t dst_row_pitch, size_t dst_slice_pitch,
                                           cl_uint num_wait, const cl_event *wait, cl_event *event)
{
    cl_int err = check_copy_pair(queue, src, dst);
    if (err != CL_SUCCESS)
        return err;
    if (!src_origin || !dst_origin || !region || region[0] == 0 || region[1] == 0 || region[2] == 0)
        return CL_INVALID_VALUE;
    if (!rect_pitches(region, &src_row_pitch, &src_slice_pitch) ||
        !rect_pitches(region, &dst_row_pitch, &dst_slice_pitch))
        return CL_INVALID_VALUE;
    if (rect_end(src_origin, region, src_row_pitch, src_slice_pitch) > src->size ||
        rect_end(dst_origin, region, dst_row_pitch, dst_slice_pitch) > dst->size)
        return CL_INVALID_VALUE;
    if (src == dst && (src_row_pitch != dst_row_pitch || src_slice_pitch != dst_slice_pitch))
        return CL_INVALID_VALUE;
    struct aos_req_copy_buffer_rect q = {
        .src = src->obj.id,
        .dst = dst->obj.id,
        .src_row_pitch = src_row_pitch,
        .src_slice_pitch = src_slice_pitch,
        .dst_row_pitch = dst_row_pitch,
        .dst_slice_pitch = dst_slice_pitch,
    };
    for (int i = 0; i < 3; i++) {
        q.src_origin[i] = src_origin[i];
        q.dst_origin[i] = dst_origin[i];
        q.region[i] = region[i];
    }
    /* Overlap inside one buffer is left to the real call (CL_MEM_COPY_OVERLAP). */
    return send_simple(queue, AOS_OP_COPY_BUFFER_RECT, &q, sizeof(q), NULL, 0, num_wait, wait, event,
                       CL_COMMAND_COPY_BUFFER_RECT);
}

cl_int CL_API_CALL clEnqueueFillBuffer(cl_command_queue queue, cl_mem buffer, const void *pattern,
                                       size_t pattern_size, size_t offset, size_t size, cl_uint num_wait,
                                       const cl_event *wait, cl_event *event)
{
    cl_int err = check_buffer(queue, buffer);
    if (err != CL_SUCCESS)
        return err;
    if (!pattern || pattern_size == 0 || pattern_size > AOS_FILL_PATTERN_MAX ||
        (pattern_size & (pattern_size - 1)) != 0)
        return CL_INVALID_VALUE;
    if (!range_ok(buffer, offset, size) || offset % pattern_size || size % pattern_size)
        return CL_INVALID_VALUE;
    struct aos_req_fill_buffer q = {
        .buffer = buffer->obj.id, .offset = offset, .size = size, .pattern_size = (uint32_t)pattern_size};
    return send_simple(queue, AOS_OP_FILL_BUFFER, &q, sizeof(q), pattern, (uint32_t)pattern_size, num_wait, wait,
                       event, CL_COMMAND_FILL_BUFFER);
}
