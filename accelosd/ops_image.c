/*
 * Images and samplers on the daemon side. Image data arrives packed tightly (zero pitches for the
 * real calls); its length is checked against the region and the image's pixel size, which the
 * daemon computes itself from the format at creation.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "accelos/log.h"
#include "accelos/wire_image.h"
#include "mem_bounds.h"
#include "fail_gate.h"
#include "ops.h"
#include "ops_mem.h"

static void sampler_dtor(struct aos_handle *h)
{
    if (h->object)
        NATIVE(h->object, clReleaseSampler)((cl_sampler)h->object);
}

void aos_ops_image_init(void)
{
    aos_handles_set_dtor(AOS_OBJ_SAMPLER, sampler_dtor);
}

static size_t pixel_size(cl_channel_order order, cl_channel_type type)
{
    size_t n;
    switch (order) {
    case CL_R: case CL_A: case CL_INTENSITY: case CL_LUMINANCE: case CL_DEPTH: case CL_Rx: n = 1; break;
    case CL_RG: case CL_RA: case CL_RGx: case CL_DEPTH_STENCIL: n = 2; break;
    case CL_RGB: case CL_RGBx: case CL_sRGB: case CL_sRGBx: n = 3; break;
    case CL_RGBA: case CL_BGRA: case CL_ARGB: case CL_ABGR: case CL_sRGBA: case CL_sBGRA: n = 4; break;
    default: return 0;
    }
    switch (type) {
    case CL_SNORM_INT8: case CL_UNORM_INT8: case CL_SIGNED_INT8: case CL_UNSIGNED_INT8: return n;
    case CL_SNORM_INT16: case CL_UNORM_INT16: case CL_SIGNED_INT16: case CL_UNSIGNED_INT16: case CL_HALF_FLOAT:
        return 2 * n;
    case CL_SIGNED_INT32: case CL_UNSIGNED_INT32: case CL_FLOAT: return 4 * n;
    case CL_UNORM_SHORT_565: case CL_UNORM_SHORT_555: return 2;
    case CL_UNORM_INT_101010: case CL_UNORM_INT_101010_2: case CL_UNORM_INT24: return 4;
    default: return 0;
    }
}

/* Product of three extents as a byte count times px, or UINT64_MAX when absurd. */
static uint64_t box_bytes(const uint64_t v[3], size_t px)
{
    uint64_t b = px;
    for (int i = 0; i < 3; i++) {
        if (v[i] == 0 || v[i] > (1u << 24))
            return UINT64_MAX;
        b *= v[i];
        if (b > (1ull << 40))
            return UINT64_MAX;
    }
    return b;
}

static int op_create_image(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    const struct aos_req_create_image *r = payload;
    struct aos_tail t;
    aos_tail_init(&t, payload, len, sizeof(*r));
    if (!aos_tail_take(&t, (uint64_t)r->num_props * sizeof(uint64_t)) || (r->flags & CL_MEM_USE_HOST_PTR))
        return -EPROTO;
    size_t px = pixel_size(r->channel_order, r->channel_data_type);
    uint64_t ext[3] = {r->width, 1, 1};
    switch (r->image_type) {
    case CL_MEM_OBJECT_IMAGE2D: ext[1] = r->height; break;
    case CL_MEM_OBJECT_IMAGE3D: ext[1] = r->height, ext[2] = r->depth; break;
    case CL_MEM_OBJECT_IMAGE1D_ARRAY: ext[1] = r->array_size; break;
    case CL_MEM_OBJECT_IMAGE2D_ARRAY: ext[1] = r->height, ext[2] = r->array_size; break;
    default: break;
    }
    uint64_t bytes = box_bytes(ext, px ? px : 1);
    const void *host = NULL;
    if (r->flags & CL_MEM_COPY_HOST_PTR) {
        if (!px || r->init.len != bytes || !(host = aos_session_span(s, r->init)))
            return -EPROTO;
    } else if (r->init.len) {
        return -EPROTO;
    }
    cl_context ctx = aos_context_lookup(s, r->context);
    if (!ctx) {
        aos_reply_status(s, slot, CL_INVALID_CONTEXT);
        return 0;
    }
    if (!px) {
        aos_reply_status(s, slot, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
        return 0;
    }
    cl_image_format fmt = {.image_channel_order = r->channel_order, .image_channel_data_type = r->channel_data_type};
    cl_image_desc desc = {
        .image_type = r->image_type,
        .image_width = (size_t)r->width,
        .image_height = (size_t)r->height,
        .image_depth = (size_t)r->depth,
        .image_array_size = (size_t)r->array_size,
        .image_row_pitch = r->buffer ? (size_t)r->row_pitch : 0,
    };
    if (r->buffer && !(desc.buffer = aos_handles_object(&s->handles, r->buffer, AOS_OBJ_MEM))) {
        aos_reply_status(s, slot, CL_INVALID_IMAGE_DESCRIPTOR);
        return 0;
    }
    cl_int err = CL_SUCCESS;
    cl_mem mem = NATIVE(ctx, clCreateImage)(ctx, r->flags, &fmt, &desc, (void *)host, &err);
    if (!mem) {
        aos_reply_status(s, slot, err ? err : CL_OUT_OF_RESOURCES);
        return 0;
    }
    return aos_mem_register(s, slot, r->id, mem, r->buffer ? 0 : bytes, px);
}

static int op_image_formats(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    (void)len;
    const struct aos_req_image_formats *r = payload;
    cl_context ctx = aos_context_lookup(s, r->context);
    if (!ctx) {
        aos_reply_status(s, slot, CL_INVALID_CONTEXT);
        return 0;
    }
    cl_uint n = 0;
    cl_int err = NATIVE(ctx, clGetSupportedImageFormats)(ctx, r->flags, r->image_type, 0, NULL, &n);
    if (err != CL_SUCCESS) {
        aos_reply_status(s, slot, err);
        return 0;
    }
    uint32_t cap = 0;
    uint32_t *out = aos_reply_payload(s, slot, &cap);
    uint32_t give = n < r->num_entries ? n : r->num_entries;
    if (give > cap / 8)
        give = cap / 8;
    cl_image_format *f = n ? calloc(n, sizeof(*f)) : NULL;
    if (n && !f) {
        aos_reply_status(s, slot, CL_OUT_OF_HOST_MEMORY);
        return 0;
    }
    if (n)
        err = NATIVE(ctx, clGetSupportedImageFormats)(ctx, r->flags, r->image_type, n, f, NULL);
    for (uint32_t i = 0; i < give && err == CL_SUCCESS; i++) {
        out[2 * i] = f[i].image_channel_order;
        out[2 * i + 1] = f[i].image_channel_data_type;
    }
    free(f);
    aos_reply(s, slot, err, n, 0, err == CL_SUCCESS ? give * 8u : 0);
    return 0;
}

/* The image's size in the three coordinates of its commands (mem_bounds.h), or false when the
 * object is no image. */
static bool image_extent(cl_mem im, uint64_t extent[3])
{
    cl_mem_object_type type = 0;
    size_t width = 0, height = 0, depth = 0, layers = 0;
    if (NATIVE(im, clGetMemObjectInfo)(im, CL_MEM_TYPE, sizeof(type), &type, NULL) != CL_SUCCESS ||
        NATIVE(im, clGetImageInfo)(im, CL_IMAGE_WIDTH, sizeof(width), &width, NULL) != CL_SUCCESS ||
        NATIVE(im, clGetImageInfo)(im, CL_IMAGE_HEIGHT, sizeof(height), &height, NULL) != CL_SUCCESS ||
        NATIVE(im, clGetImageInfo)(im, CL_IMAGE_DEPTH, sizeof(depth), &depth, NULL) != CL_SUCCESS ||
        NATIVE(im, clGetImageInfo)(im, CL_IMAGE_ARRAY_SIZE, sizeof(layers), &layers, NULL) != CL_SUCCESS)
        return false;
    extent[0] = width;
    extent[1] = extent[2] = 1;
    switch (type) {
    case CL_MEM_OBJECT_IMAGE1D:
    case CL_MEM_OBJECT_IMAGE1D_BUFFER:
        return true;
    case CL_MEM_OBJECT_IMAGE1D_ARRAY:
        extent[1] = layers;
        return true;
    case CL_MEM_OBJECT_IMAGE2D:
        extent[1] = height;
        return true;
    case CL_MEM_OBJECT_IMAGE2D_ARRAY:
        extent[1] = height;
        extent[2] = layers;
        return true;
    case CL_MEM_OBJECT_IMAGE3D:
        extent[1] = height;
        extent[2] = depth;
        return true;
    default:
        return false;
    }
}

/* Whether (origin, region) lies within image im. */
static bool image_box_fits(cl_mem im, const uint64_t origin[3], const uint64_t region[3])
{
    uint64_t extent[3];
    return image_extent(im, extent) && aos_bounds_image(origin, region, extent);
}

static int image_rw(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len, bool write)
{
    const struct aos_req_image_rw *r = payload;
    struct aos_enqueue e;
    cl_int err;
    if (aos_enqueue_parse_fixed(s, slot, payload, len, sizeof(*r), &e, &err) < 0)
        return -EPROTO;
    struct aos_mem_extra *x = aos_mem_extra(s, r->image);
    /* An empty box is how the client orders a command that moves no data (unmapping a read-only
     * map): it becomes a marker. */
    bool empty = !r->data.len && (!r->region[0] || !r->region[1] || !r->region[2]);
    void *data = empty ? NULL : aos_session_span(s, r->data);
    bool ok = aos_mem_token_ok(&e, r->token) && (data || empty);
    if (ok && !empty && x && x->elem && box_bytes(r->region, x->elem) != r->data.len)
        ok = false;
    if (!ok) {
        aos_log(AOS_LOG_DEBUG, "image", "bad image transfer: token %llu blocking %d event %llu data %u+%u elem %zu",
                (unsigned long long)r->token, e.blocking, (unsigned long long)e.event_id, r->data.off, r->data.len,
                x ? x->elem : 0);
        aos_enqueue_abandon(s, &e);
        return -EPROTO;
    }
    cl_event ev = NULL;
    if (err == CL_SUCCESS) {
        cl_mem im = aos_handles_object(&s->handles, r->image, AOS_OBJ_MEM);
        size_t origin[3], region[3];
        for (int i = 0; i < 3; i++)
            origin[i] = (size_t)r->origin[i], region[i] = (size_t)r->region[i];
        if (!im || !x->elem)
            err = CL_INVALID_MEM_OBJECT;
        else if (!empty && !image_box_fits(im, r->origin, r->region))
            err = CL_INVALID_VALUE;
        else if (empty)
            err = aos_fail_gate_enqueue_marker(s, &e, false, &ev);
        else if (write)
            err = NATIVE(e.queue, clEnqueueWriteImage)(e.queue, im, CL_FALSE, origin, region, 0, 0, data, e.num_wait,
                                                        e.wait, &ev);
        else
            err = NATIVE(e.queue, clEnqueueReadImage)(e.queue, im, CL_FALSE, origin, region, 0, 0, data, e.num_wait,
                                                       e.wait, &ev);
    }
    aos_mem_enqueue_finish(s, &e, err, ev, r->token);
    return 0;
}

static int op_write_image(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    return image_rw(s, slot, payload, len, true);
}

static int op_read_image(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    return image_rw(s, slot, payload, len, false);
}

static void to_size(const uint64_t in[3], size_t out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = (size_t)in[i];
}

static cl_int copy_image(struct aos_session *s, const void *req, const struct aos_enqueue *e, cl_event *ev)
{
    const struct aos_req_copy_image *r = req;
    cl_mem src = aos_handles_object(&s->handles, r->src, AOS_OBJ_MEM);
    cl_mem dst = aos_handles_object(&s->handles, r->dst, AOS_OBJ_MEM);
    if (!src || !dst)
        return CL_INVALID_MEM_OBJECT;
    if (!image_box_fits(src, r->src_origin, r->region) || !image_box_fits(dst, r->dst_origin, r->region))
        return CL_INVALID_VALUE;
    size_t so[3], d_o[3], reg[3];
    to_size(r->src_origin, so), to_size(r->dst_origin, d_o), to_size(r->region, reg);
    return NATIVE(e->queue, clEnqueueCopyImage)(e->queue, src, dst, so, d_o, reg, e->num_wait, e->wait, ev);
}

static int op_copy_image(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    return aos_enqueue_fixed_command(s, slot, payload, len, sizeof(struct aos_req_copy_image), copy_image);
}

static cl_int copy_image_buffer(struct aos_session *s, const void *req, const struct aos_enqueue *e, cl_event *ev,
                                bool to_buffer)
{
    const struct aos_req_copy_image_buffer *r = req;
    cl_mem im = aos_handles_object(&s->handles, r->image, AOS_OBJ_MEM);
    cl_mem buf = aos_handles_object(&s->handles, r->buffer, AOS_OBJ_MEM);
    size_t buf_size = 0;
    const struct aos_mem_extra *x = aos_mem_extra(s, r->image);
    if (!im || !buf || !x || !x->elem ||
        NATIVE(buf, clGetMemObjectInfo)(buf, CL_MEM_SIZE, sizeof(buf_size), &buf_size, NULL) != CL_SUCCESS)
        return CL_INVALID_MEM_OBJECT;
    uint64_t bytes = aos_bounds_box_bytes(r->region, x->elem);
    if (!image_box_fits(im, r->image_origin, r->region) || !bytes || !aos_bounds_range(r->offset, bytes, buf_size))
        return CL_INVALID_VALUE;
    size_t o[3], reg[3];
    to_size(r->image_origin, o), to_size(r->region, reg);
    if (to_buffer)
        return NATIVE(e->queue, clEnqueueCopyImageToBuffer)(e->queue, im, buf, o, reg, (size_t)r->offset, e->num_wait,
                                                            e->wait, ev);
    return NATIVE(e->queue, clEnqueueCopyBufferToImage)(e->queue, buf, im, (size_t)r->offset, o, reg, e->num_wait,
                                                        e->wait, ev);
}

static cl_int copy_image_to_buffer(struct aos_session *s, const void *req, const struct aos_enqueue *e, cl_event *ev)
{
    return copy_image_buffer(s, req, e, ev, true);
}

static cl_int copy_buffer_to_image(struct aos_session *s, const void *req, const struct aos_enqueue *e, cl_event *ev)
{
    return copy_image_buffer(s, req, e, ev, false);
}

static int op_copy_image_to_buffer(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    return aos_enqueue_fixed_command(s, slot, payload, len, sizeof(struct aos_req_copy_image_buffer),
                                     copy_image_to_buffer);
}

static int op_copy_buffer_to_image(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    return aos_enqueue_fixed_command(s, slot, payload, len, sizeof(struct aos_req_copy_image_buffer),
                                     copy_buffer_to_image);
}

static cl_int fill_image(struct aos_session *s, const void *req, const struct aos_enqueue *e, cl_event *ev)
{
    const struct aos_req_fill_image *r = req;
    cl_mem im = aos_handles_object(&s->handles, r->image, AOS_OBJ_MEM);
    if (!im)
        return CL_INVALID_MEM_OBJECT;
    if (!image_box_fits(im, r->origin, r->region))
        return CL_INVALID_VALUE;
    size_t o[3], reg[3];
    to_size(r->origin, o), to_size(r->region, reg);
    return NATIVE(e->queue, clEnqueueFillImage)(e->queue, im, r->color, o, reg, e->num_wait, e->wait, ev);
}

static int op_fill_image(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    return aos_enqueue_fixed_command(s, slot, payload, len, sizeof(struct aos_req_fill_image), fill_image);
}

static int op_create_sampler(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    const struct aos_req_create_sampler *r = payload;
    struct aos_tail t;
    aos_tail_init(&t, payload, len, sizeof(*r));
    const uint64_t *kv = r->num_props <= 16 ? aos_tail_take(&t, (uint64_t)r->num_props * 16u) : NULL;
    if (!kv)
        return -EPROTO;
    cl_context ctx = aos_context_lookup(s, r->context);
    if (!ctx) {
        aos_reply_status(s, slot, CL_INVALID_CONTEXT);
        return 0;
    }
    cl_sampler_properties props[33];
    cl_bool norm = CL_TRUE;
    cl_addressing_mode addr = CL_ADDRESS_CLAMP;
    cl_filter_mode filter = CL_FILTER_NEAREST;
    for (uint32_t i = 0; i < r->num_props; i++) {
        props[2 * i] = kv[2 * i];
        props[2 * i + 1] = kv[2 * i + 1];
        if (kv[2 * i] == CL_SAMPLER_NORMALIZED_COORDS)
            norm = (cl_bool)kv[2 * i + 1];
        else if (kv[2 * i] == CL_SAMPLER_ADDRESSING_MODE)
            addr = (cl_addressing_mode)kv[2 * i + 1];
        else if (kv[2 * i] == CL_SAMPLER_FILTER_MODE)
            filter = (cl_filter_mode)kv[2 * i + 1];
    }
    props[2 * r->num_props] = 0;
    cl_int err = CL_SUCCESS;
    cl_sampler smp = NATIVE(ctx, clCreateSamplerWithProperties)
                         ? NATIVE(ctx, clCreateSamplerWithProperties)(ctx, props, &err)
                         : NATIVE(ctx, clCreateSampler)(ctx, norm, addr, filter, &err);
    if (!smp) {
        aos_reply_status(s, slot, err ? err : CL_OUT_OF_RESOURCES);
        return 0;
    }
    int rc = aos_handles_add(&s->handles, r->id, AOS_OBJ_SAMPLER, smp, NULL);
    if (rc < 0) {
        NATIVE(smp, clReleaseSampler)(smp);
        if (rc != -ENOMEM)
            return -EPROTO;
        aos_reply_status(s, slot, CL_OUT_OF_HOST_MEMORY);
        return 0;
    }
    aos_reply_status(s, slot, CL_SUCCESS);
    return 0;
}

const struct aos_op_entry aos_ops_image[] = {
    {AOS_OP_CREATE_IMAGE, sizeof(struct aos_req_create_image), true, op_create_image, "create_image"},
    {AOS_OP_SUPPORTED_IMAGE_FORMATS, sizeof(struct aos_req_image_formats), true, op_image_formats,
     "supported_image_formats"},
    {AOS_OP_WRITE_IMAGE, sizeof(struct aos_req_image_rw), false, op_write_image, "write_image"},
    {AOS_OP_WRITE_IMAGE_BLOCKING, sizeof(struct aos_req_image_rw), true, op_write_image, "write_image_blocking"},
    {AOS_OP_READ_IMAGE, sizeof(struct aos_req_image_rw), false, op_read_image, "read_image"},
    {AOS_OP_READ_IMAGE_BLOCKING, sizeof(struct aos_req_image_rw), true, op_read_image, "read_image_blocking"},
    {AOS_OP_COPY_IMAGE, sizeof(struct aos_req_copy_image), false, op_copy_image, "copy_image"},
    {AOS_OP_COPY_IMAGE_TO_BUFFER, sizeof(struct aos_req_copy_image_buffer), false, op_copy_image_to_buffer,
     "copy_image_to_buffer"},
    {AOS_OP_COPY_BUFFER_TO_IMAGE, sizeof(struct aos_req_copy_image_buffer), false, op_copy_buffer_to_image,
     "copy_buffer_to_image"},
    {AOS_OP_FILL_IMAGE, sizeof(struct aos_req_fill_image), false, op_fill_image, "fill_image"},
    {AOS_OP_CREATE_SAMPLER, sizeof(struct aos_req_create_sampler), true, op_create_sampler, "create_sampler"},
    {0, 0, false, NULL, NULL},
};
