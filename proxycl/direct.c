/*
 * Direct transfers. A buffer whose storage lies in the shared-buffer arena (conn.h) is read and
 * written by copying between application memory and the buffer itself: one copy, where the staging
 * path makes two (application to staging here, staging to the buffer in the daemon).
 *
 * The daemon orders the copy in the queue (AOS_OP_BUFFER_DIRECT in wire_mem.h): it says when the
 * copy may start (the wait list and, on an in-order queue, everything before it are done) and holds
 * later commands until the client reports the copy done. Blocking: a synchronous request answered
 * when the copy may start; the calling thread copies and reports. Non-blocking: a host step; the
 * callback thread copies when the daemon's note arrives, then reports.
 *
 * Small transfers stay on the staging path: the daemon's two extra markers cost more than the
 * second copy of a few KiB (bench/RESULTS.md section 1).
 */
#include <stdlib.h>

#include "accelos/wire_mem.h"
#include "conn.h"
#include "enqueue.h"
#include "mem.h"

#define DIRECT_MIN_BYTES (256u << 10)

/* The box in the buffer: device pitches (defaults for plain transfers), first byte and extent. */
struct box {
    size_t row_bytes;
    size_t dev_row, dev_slice;
    uint64_t first, span;
};

static struct box box_of(const struct aos_xfer *x)
{
    struct box b;
    b.row_bytes = x->region[0] * x->unit;
    b.dev_row = x->dev_row_pitch ? x->dev_row_pitch : b.row_bytes;
    b.dev_slice = x->dev_slice_pitch ? x->dev_slice_pitch : b.dev_row * x->region[1];
    b.first = x->origin[0] * x->unit + x->origin[1] * b.dev_row + x->origin[2] * b.dev_slice;
    b.span = (x->region[2] - 1) * b.dev_slice + (x->region[1] - 1) * b.dev_row + b.row_bytes;
    return b;
}

static void copy_box(const struct aos_xfer *x, const struct box *b, uint8_t *dev)
{
    struct aos_rows host = {x->host, x->host_row, x->host_slice}, buffer = {dev, b->dev_row, b->dev_slice};
    if (x->write)
        aos_copy_rows(buffer, host, b->row_bytes, x->region[1], x->region[2]);
    else
        aos_copy_rows(host, buffer, b->row_bytes, x->region[1], x->region[2]);
}

/* This process's address of the box's first byte when the transfer can go direct, else NULL. */
static uint8_t *direct_target(const struct aos_xfer *x, struct box *b)
{
    if (x->encode != aos_xfer_encode_buffer || !x->mem->shared)
        return NULL;
    *b = box_of(x);
    if (b->row_bytes * x->region[1] * x->region[2] < DIRECT_MIN_BYTES)
        return NULL;
    return aos_arena_ptr(x->mem->arena_off + b->first, b->span);
}

static void encode(struct aos_req_buffer_direct *q, struct aos_enq *e, const struct aos_xfer *x,
                   const struct box *b, bool blocking, uint64_t token)
{
    aos_enq_encode(e, &q->enq, q + 1, blocking);
    q->buffer = x->mem->obj.id;
    q->offset = b->first;
    q->size = b->span;
    q->token = token;
}

static cl_int run_blocking(const struct aos_xfer *x, const struct box *b, uint8_t *dev, cl_command_queue queue,
                           cl_uint num_wait, const cl_event *wait, cl_event *event, cl_command_type type)
{
    struct aos_enq e;
    cl_int err = aos_enq_prepare(&e, queue, num_wait, wait, type, true);
    if (err != CL_SUCCESS)
        return err;
    struct aos_req r;
    struct aos_req_buffer_direct *q = aos_req_begin(&r, sizeof(*q) + aos_enq_wait_bytes(&e), true);
    if (!q) {
        aos_enq_complete(&e, r.error, NULL);
        return r.error;
    }
    encode(q, &e, x, b, true, 0);
    struct aos_reply rep;
    err = aos_req_call(&r, AOS_OP_BUFFER_DIRECT_BLOCKING, &rep);
    bool armed = rep.value == 1; /* the daemon holds the queue until we report */
    aos_reply_release(&rep);
    if (armed) {
        if (err == CL_SUCCESS)
            copy_box(x, b, dev);
        cl_int sent = aos_host_step_report(e.event->obj.id, err);
        if (err == CL_SUCCESS)
            err = sent;
    }
    aos_enq_complete(&e, err, event);
    return err;
}

struct direct_step {
    struct aos_host_step step; /* first: run() gets &step */
    struct aos_xfer x;
    struct box box;
    uint8_t *dev;
};

static void direct_step_run(struct aos_host_step *step, cl_int status)
{
    struct direct_step *d = (struct direct_step *)step;
    if (status >= 0)
        copy_box(&d->x, &d->box, d->dev);
    free(d);
}

static cl_int run_async(const struct aos_xfer *x, const struct box *b, uint8_t *dev, cl_command_queue queue,
                        cl_uint num_wait, const cl_event *wait, cl_event *event, cl_command_type type)
{
    struct direct_step *d = malloc(sizeof(*d));
    if (!d)
        return CL_OUT_OF_HOST_MEMORY;
    *d = (struct direct_step){.step.run = direct_step_run, .x = *x, .box = *b, .dev = dev};
    struct aos_enq e;
    cl_int err = aos_enq_prepare(&e, queue, num_wait, wait, type, true);
    if (err != CL_SUCCESS) {
        free(d);
        return err;
    }
    uint64_t token = aos_host_step_arm(&d->step, queue, e.event);
    if (!token) {
        free(d);
        aos_enq_complete(&e, CL_OUT_OF_HOST_MEMORY, NULL);
        return CL_OUT_OF_HOST_MEMORY;
    }
    /* From here the armed step owns d: if the send fails the daemon is gone, and the connection
     * fails every armed step, which frees it. */
    struct aos_req r;
    struct aos_req_buffer_direct *q = aos_req_begin(&r, sizeof(*q) + aos_enq_wait_bytes(&e), false);
    if (q) {
        encode(q, &e, x, b, false, token);
        err = aos_req_send(&r, AOS_OP_BUFFER_DIRECT);
    } else {
        err = r.error; /* not sent (a wait list too long for one message, say): end the step here */
        aos_host_step_cancel(token, err);
    }
    aos_enq_complete(&e, err, event);
    return err;
}

bool aos_xfer_try_direct(const struct aos_xfer *x, cl_command_queue queue, cl_bool blocking, cl_uint num_wait,
                         const cl_event *wait, cl_event *event, cl_command_type type, cl_int *err)
{
    if (!blocking && x->write && x->host_gone_at_return)
        return false; /* a direct copy happens later, when the queue gets there */
    struct box b;
    uint8_t *dev = direct_target(x, &b);
    if (!dev)
        return false;
    *err = blocking ? run_blocking(x, &b, dev, queue, num_wait, wait, event, type)
                    : run_async(x, &b, dev, queue, num_wait, wait, event, type);
    return true;
}
