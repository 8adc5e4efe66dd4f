/*
 * Images: creation, formats, info, and image commands.
 *
 * Design note. Image data crosses the wire packed tightly; the client gathers and scatters with the
 * application's pitches (creation with a host pointer, reads, writes, maps). So the daemon creates
 * images from a host pointer with CL_MEM_COPY_HOST_PTR and zero pitches. clGetImageInfo is answered
 * here: the pitches reported are the application's for CL_MEM_USE_HOST_PTR images and the packed
 * ones otherwise.
 */
#include <stdlib.h>
#include <string.h>

#include "accelos/wire_image.h"
#include "conn.h"
#include "enqueue.h"
#include "mem.h"

/* ---- Formats and geometry --------------------------------------------------------------------- */

static size_t channel_count(cl_channel_order order)
{
    switch (order) {
    case CL_R: case CL_A: case CL_INTENSITY: case CL_LUMINANCE: case CL_DEPTH: case CL_Rx: return 1;
    case CL_RG: case CL_RA: case CL_RGx: case CL_DEPTH_STENCIL: return 2;
    case CL_RGB: case CL_RGBx: case CL_sRGB: case CL_sRGBx: return 3;
    case CL_RGBA: case CL_BGRA: case CL_ARGB: case CL_ABGR: case CL_sRGBA: case CL_sBGRA: return 4;
    default: return 0;
    }
}

size_t aos_image_format_size(const cl_image_format *f)
{
    size_t n = channel_count(f->image_channel_order);
    if (!n)
        return 0;
    switch (f->image_channel_data_type) {
    case CL_SNORM_INT8: case CL_UNORM_INT8: case CL_SIGNED_INT8: case CL_UNSIGNED_INT8: return n;
    case CL_SNORM_INT16: case CL_UNORM_INT16: case CL_SIGNED_INT16: case CL_UNSIGNED_INT16: case CL_HALF_FLOAT:
        return 2 * n;
    case CL_SIGNED_INT32: case CL_UNSIGNED_INT32: case CL_FLOAT: return 4 * n;
    case CL_UNORM_SHORT_565: case CL_UNORM_SHORT_555: return 2;
    case CL_UNORM_INT_101010: case CL_UNORM_INT_101010_2: return 4;
    case CL_UNORM_INT24: return 4;
    default: return 0;
    }
}

static bool is_image_type(cl_mem_object_type t)
{
    return t == CL_MEM_OBJECT_IMAGE1D || t == CL_MEM_OBJECT_IMAGE2D || t == CL_MEM_OBJECT_IMAGE3D ||
           t == CL_MEM_OBJECT_IMAGE1D_ARRAY || t == CL_MEM_OBJECT_IMAGE2D_ARRAY || t == CL_MEM_OBJECT_IMAGE1D_BUFFER;
}

/* Extent of an image in (x, y, z) as transfers address it. */
static void image_extent(cl_mem im, size_t ext[3])
{
    const cl_image_desc *d = &im->desc;
    ext[0] = d->image_width, ext[1] = 1, ext[2] = 1;
    switch (im->mem_type) {
    case CL_MEM_OBJECT_IMAGE2D: ext[1] = d->image_height; break;
    case CL_MEM_OBJECT_IMAGE3D: ext[1] = d->image_height, ext[2] = d->image_depth; break;
    case CL_MEM_OBJECT_IMAGE1D_ARRAY: ext[1] = d->image_array_size; break;
    case CL_MEM_OBJECT_IMAGE2D_ARRAY: ext[1] = d->image_height, ext[2] = d->image_array_size; break;
    default: break;
    }
}

cl_int aos_image_check_region(cl_mem image, const size_t *origin, const size_t *region)
{
    if (!origin || !region)
        return CL_INVALID_VALUE;
    size_t ext[3];
    image_extent(image, ext);
    for (int i = 0; i < 3; i++)
        if (region[i] == 0 || origin[i] > ext[i] || region[i] > ext[i] - origin[i])
            return CL_INVALID_VALUE;
    return CL_SUCCESS;
}

/* Application pitches of a transfer, defaults applied; returns the (y, z) strides. */
static cl_int host_strides(cl_mem im, const size_t region[3], size_t row_pitch, size_t slice_pitch, size_t *y,
                           size_t *z)
{
    size_t row = region[0] * im->element_size;
    if (row_pitch == 0)
        row_pitch = row;
    else if (row_pitch < row)
        return CL_INVALID_VALUE;
    bool arr1 = im->mem_type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
    bool slices = arr1 || im->mem_type == CL_MEM_OBJECT_IMAGE3D || im->mem_type == CL_MEM_OBJECT_IMAGE2D_ARRAY;
    if (!slices && slice_pitch != 0)
        return CL_INVALID_VALUE;
    size_t min_slice = arr1 ? row_pitch : row_pitch * region[1];
    if (slice_pitch == 0)
        slice_pitch = min_slice;
    else if (slice_pitch < min_slice)
        return CL_INVALID_VALUE;
    *y = arr1 ? slice_pitch : row_pitch;
    *z = slice_pitch;
    return CL_SUCCESS;
}

void aos_xfer_encode_image(void *fixed, const struct aos_xfer *x, const size_t origin[3], const size_t region[3],
                           uint64_t token, struct aos_span span)
{
    struct aos_req_image_rw *q = fixed;
    q->image = x->mem->obj.id;
    for (int i = 0; i < 3; i++) {
        q->origin[i] = origin[i];
        q->region[i] = region[i];
    }
    q->token = token;
    q->data = span;
}

void aos_xfer_image(struct aos_xfer *x, cl_mem image, bool write, const size_t origin[3], const size_t region[3],
                    size_t host_row, size_t host_slice, void *host)
{
    *x = (struct aos_xfer){
        .write = write,
        .opcode = write ? AOS_OP_WRITE_IMAGE : AOS_OP_READ_IMAGE,
        .fixed_size = sizeof(struct aos_req_image_rw),
        .encode = aos_xfer_encode_image,
        .mem = image,
        .origin = {origin[0], origin[1], origin[2]},
        .region = {region[0], region[1], region[2]},
        .unit = image->element_size,
        .host = host,
        .host_row = host_row,
        .host_slice = host_slice,
    };
}

/* ---- Creation --------------------------------------------------------------------------------- */

static cl_int check_desc(const cl_image_desc *d, const cl_image_format *fmt, cl_mem_flags *flags, void *host_ptr,
                         size_t px)
{
    if (!d || !is_image_type(d->image_type) || d->image_width == 0)
        return CL_INVALID_IMAGE_DESCRIPTOR;
    if ((d->image_type == CL_MEM_OBJECT_IMAGE2D || d->image_type == CL_MEM_OBJECT_IMAGE3D ||
         d->image_type == CL_MEM_OBJECT_IMAGE2D_ARRAY) &&
        d->image_height == 0)
        return CL_INVALID_IMAGE_DESCRIPTOR;
    if (d->image_type == CL_MEM_OBJECT_IMAGE3D && d->image_depth == 0)
        return CL_INVALID_IMAGE_DESCRIPTOR;
    if ((d->image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY || d->image_type == CL_MEM_OBJECT_IMAGE2D_ARRAY) &&
        d->image_array_size == 0)
        return CL_INVALID_IMAGE_DESCRIPTOR;
    if (d->num_mip_levels != 0 || d->num_samples != 0)
        return CL_INVALID_IMAGE_DESCRIPTOR;
    bool from_buffer = d->buffer != NULL;
    if (from_buffer) {
        if (d->image_type != CL_MEM_OBJECT_IMAGE1D_BUFFER && d->image_type != CL_MEM_OBJECT_IMAGE2D)
            return CL_INVALID_IMAGE_DESCRIPTOR;
        if (!aos_object_valid(d->buffer, AOS_OBJ_MEM) || !aos_mem_is_buffer(d->buffer))
            return CL_INVALID_IMAGE_DESCRIPTOR;
        if (host_ptr || (*flags & (CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)))
            return CL_INVALID_VALUE;
        cl_mem b = d->buffer;
        if (!(*flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY)))
            *flags |= b->flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY);
        if (!(*flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)))
            *flags |= b->flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS);
        *flags |= b->flags & (CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR);
        size_t row = d->image_row_pitch ? d->image_row_pitch : d->image_width * px;
        size_t h = d->image_type == CL_MEM_OBJECT_IMAGE2D ? d->image_height : 1;
        if (row * (h - 1) + d->image_width * px > b->size)
            return CL_INVALID_IMAGE_SIZE;
    } else if (d->image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER) {
        return CL_INVALID_IMAGE_DESCRIPTOR;
    }
    if (!from_buffer) {
        if (!host_ptr && (d->image_row_pitch || d->image_slice_pitch))
            return CL_INVALID_IMAGE_DESCRIPTOR;
        size_t row = d->image_width * px;
        if (d->image_row_pitch && (d->image_row_pitch < row || d->image_row_pitch % px))
            return CL_INVALID_IMAGE_DESCRIPTOR;
    }
    (void)fmt;
    return CL_SUCCESS;
}

static cl_mem create_image(cl_context ctx, const cl_mem_properties *props, cl_mem_flags flags,
                           const cl_image_format *fmt, const cl_image_desc *desc, void *host_ptr,
                           cl_int *errcode_ret)
{
    cl_int err;
    cl_mem m = NULL;
    struct aos_span init = {0, 0};
    size_t px = 0;
    if (!aos_object_valid(ctx, AOS_OBJ_CONTEXT)) {
        err = CL_INVALID_CONTEXT;
        goto out;
    }
    if (aos_mem_props_count(props)) {
        err = CL_INVALID_PROPERTY;
        goto out;
    }
    if ((err = aos_mem_check_flags(flags, host_ptr)) != CL_SUCCESS)
        goto out;
    if (!fmt || !(px = aos_image_format_size(fmt))) {
        err = CL_INVALID_IMAGE_FORMAT_DESCRIPTOR;
        goto out;
    }
    if ((err = check_desc(desc, fmt, &flags, host_ptr, px)) != CL_SUCCESS)
        goto out;

    m = aos_mem_alloc(ctx, desc->image_type, flags, 0, host_ptr);
    if (!m || !aos_mem_set_props(m, props)) {
        err = CL_OUT_OF_HOST_MEMORY;
        goto out;
    }
    m->format = *fmt;
    m->desc = *desc;
    m->element_size = px;
    if (desc->buffer) {
        aos_object_hold(desc->buffer);
        m->host_ptr = desc->buffer->host_ptr;
    }
    size_t ext[3];
    image_extent(m, ext);
    size_t packed = ext[0] * px * ext[1] * ext[2];
    m->size = packed;
    /* Pitches the application's host pointer uses, and what clGetImageInfo reports. */
    if (!desc->buffer) {
        m->desc.image_row_pitch = desc->image_row_pitch ? desc->image_row_pitch : ext[0] * px;
        if (m->mem_type == CL_MEM_OBJECT_IMAGE1D_ARRAY)
            m->desc.image_slice_pitch = desc->image_slice_pitch ? desc->image_slice_pitch : m->desc.image_row_pitch;
        else if (m->mem_type == CL_MEM_OBJECT_IMAGE3D || m->mem_type == CL_MEM_OBJECT_IMAGE2D_ARRAY)
            m->desc.image_slice_pitch =
                desc->image_slice_pitch ? desc->image_slice_pitch : m->desc.image_row_pitch * ext[1];
        else
            m->desc.image_slice_pitch = 0;
    } else {
        m->desc.image_row_pitch = desc->image_row_pitch ? desc->image_row_pitch : ext[0] * px;
        m->desc.image_slice_pitch = 0;
    }

    cl_mem_flags wire_flags = flags;
    if (host_ptr) {
        wire_flags = (flags & ~(cl_mem_flags)CL_MEM_USE_HOST_PTR) | CL_MEM_COPY_HOST_PTR;
        if (packed > aos_staging_size() / 2) {
            err = CL_OUT_OF_RESOURCES; /* not supported yet: initial data larger than the staging area */
            goto out;
        }
        void *stage = aos_staging_alloc((uint32_t)packed, (uint32_t)packed, &init);
        if (!stage) {
            err = CL_OUT_OF_RESOURCES;
            goto out;
        }
        struct aos_xfer x;
        size_t origin[3] = {0, 0, 0};
        size_t y = m->mem_type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? m->desc.image_slice_pitch : m->desc.image_row_pitch;
        aos_xfer_image(&x, m, true, origin, ext, y, m->desc.image_slice_pitch ? m->desc.image_slice_pitch : y,
                       host_ptr);
        /* Gather with the application's pitches into the packed staging copy. */
        size_t row = ext[0] * px;
        for (size_t z = 0; z < ext[2]; z++)
            for (size_t yy = 0; yy < ext[1]; yy++)
                memcpy((uint8_t *)stage + (z * ext[1] + yy) * row, x.host + yy * x.host_row + z * x.host_slice, row);
    }

    size_t num_props = 0;
    struct aos_req r;
    struct aos_req_create_image *q = aos_req_begin(&r, sizeof(*q) + num_props * 8u, true);
    if (!q) {
        err = r.error;
        goto out;
    }
    *q = (struct aos_req_create_image){
        .id = m->obj.id,
        .context = ctx->obj.id,
        .flags = wire_flags,
        .channel_order = fmt->image_channel_order,
        .channel_data_type = fmt->image_channel_data_type,
        .image_type = desc->image_type,
        .width = desc->image_width,
        .height = desc->image_height,
        .depth = desc->image_depth,
        .array_size = desc->image_array_size,
        .buffer = aos_id(desc->buffer),
        .row_pitch = desc->buffer ? desc->image_row_pitch : 0,
        .init = init,
        .has_props = props != NULL,
    };
    struct aos_reply rep;
    err = aos_req_call(&r, AOS_OP_CREATE_IMAGE, &rep);
    aos_reply_release(&rep);
    if (err != CL_SUCCESS)
        goto out;
    aos_staging_free(init);
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

cl_mem CL_API_CALL clCreateImage(cl_context context, cl_mem_flags flags, const cl_image_format *format,
                                 const cl_image_desc *desc, void *host_ptr, cl_int *errcode_ret)
{
    return create_image(context, NULL, flags, format, desc, host_ptr, errcode_ret);
}

cl_mem CL_API_CALL clCreateImageWithProperties(cl_context context, const cl_mem_properties *properties,
                                               cl_mem_flags flags, const cl_image_format *format,
                                               const cl_image_desc *desc, void *host_ptr, cl_int *errcode_ret)
{
    return create_image(context, properties, flags, format, desc, host_ptr, errcode_ret);
}

cl_mem CL_API_CALL clCreateImage2D(cl_context context, cl_mem_flags flags, const cl_image_format *format,
                                   size_t width, size_t height, size_t row_pitch, void *host_ptr,
                                   cl_int *errcode_ret)
{
    cl_image_desc d = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = width, .image_height = height,
                       .image_row_pitch = row_pitch};
    return create_image(context, NULL, flags, format, &d, host_ptr, errcode_ret);
}

cl_mem CL_API_CALL clCreateImage3D(cl_context context, cl_mem_flags flags, const cl_image_format *format,
                                   size_t width, size_t height, size_t depth, size_t row_pitch, size_t slice_pitch,
                                   void *host_ptr, cl_int *errcode_ret)
{
    cl_image_desc d = {.image_type = CL_MEM_OBJECT_IMAGE3D, .image_width = width, .image_height = height,
                       .image_depth = depth, .image_row_pitch = row_pitch, .image_slice_pitch = slice_pitch};
    return create_image(context, NULL, flags, format, &d, host_ptr, errcode_ret);
}

cl_int CL_API_CALL clGetSupportedImageFormats(cl_context context, cl_mem_flags flags, cl_mem_object_type type,
                                              cl_uint num_entries, cl_image_format *formats, cl_uint *num_formats)
{
    if (!aos_object_valid(context, AOS_OBJ_CONTEXT))
        return CL_INVALID_CONTEXT;
    if (!is_image_type(type) || (num_entries == 0 && formats))
        return CL_INVALID_VALUE;
    struct aos_req_image_formats q = {
        .context = context->obj.id, .flags = flags, .image_type = type, .num_entries = formats ? num_entries : 0};
    struct aos_reply rep;
    cl_int err = aos_call(AOS_OP_SUPPORTED_IMAGE_FORMATS, &q, sizeof(q), &rep);
    if (err != CL_SUCCESS) {
        aos_reply_release(&rep);
        return err;
    }
    if (formats) {
        size_t n = rep.size / 8;
        if (n > num_entries)
            n = num_entries;
        const uint32_t *p = rep.payload;
        for (size_t i = 0; i < n; i++) {
            formats[i].image_channel_order = p[2 * i];
            formats[i].image_channel_data_type = p[2 * i + 1];
        }
    }
    if (num_formats)
        *num_formats = (cl_uint)rep.value;
    aos_reply_release(&rep);
    return CL_SUCCESS;
}

cl_int CL_API_CALL clGetImageInfo(cl_mem image, cl_image_info param, size_t size, void *value, size_t *size_ret)
{
    if (!aos_object_valid(image, AOS_OBJ_MEM) || aos_mem_is_buffer(image))
        return CL_INVALID_MEM_OBJECT;
    const cl_image_desc *d = &image->desc;
    union {
        size_t s;
        cl_image_format f;
        cl_mem m;
        cl_uint u;
    } v;
    size_t n = sizeof(size_t);
    bool arr1 = image->mem_type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
    switch (param) {
    case CL_IMAGE_FORMAT: v.f = image->format; n = sizeof(v.f); break;
    case CL_IMAGE_ELEMENT_SIZE: v.s = image->element_size; break;
    case CL_IMAGE_ROW_PITCH: v.s = image->host_ptr || d->buffer ? d->image_row_pitch : d->image_width * image->element_size; break;
    case CL_IMAGE_SLICE_PITCH:
        if (image->host_ptr)
            v.s = d->image_slice_pitch;
        else if (arr1)
            v.s = d->image_width * image->element_size;
        else if (image->mem_type == CL_MEM_OBJECT_IMAGE3D || image->mem_type == CL_MEM_OBJECT_IMAGE2D_ARRAY)
            v.s = d->image_width * image->element_size * d->image_height;
        else
            v.s = 0;
        break;
    case CL_IMAGE_WIDTH: v.s = d->image_width; break;
    case CL_IMAGE_HEIGHT:
        v.s = (image->mem_type == CL_MEM_OBJECT_IMAGE2D || image->mem_type == CL_MEM_OBJECT_IMAGE3D ||
               image->mem_type == CL_MEM_OBJECT_IMAGE2D_ARRAY) ? d->image_height : 0;
        break;
    case CL_IMAGE_DEPTH: v.s = image->mem_type == CL_MEM_OBJECT_IMAGE3D ? d->image_depth : 0; break;
    case CL_IMAGE_ARRAY_SIZE:
        v.s = (arr1 || image->mem_type == CL_MEM_OBJECT_IMAGE2D_ARRAY) ? d->image_array_size : 0;
        break;
    case CL_IMAGE_BUFFER: v.m = d->buffer; n = sizeof(v.m); break;
    case CL_IMAGE_NUM_MIP_LEVELS: v.u = 0; n = sizeof(v.u); break;
    case CL_IMAGE_NUM_SAMPLES: v.u = 0; n = sizeof(v.u); break;
    default: return CL_INVALID_VALUE;
    }
    return aos_info_value(&v, n, size, value, size_ret);
}

/* ---- Commands --------------------------------------------------------------------------------- */

static cl_int check_image(cl_command_queue queue, cl_mem image)
{
    if (!aos_object_valid(queue, AOS_OBJ_QUEUE))
        return CL_INVALID_COMMAND_QUEUE;
    if (!aos_object_valid(image, AOS_OBJ_MEM) || aos_mem_is_buffer(image))
        return CL_INVALID_MEM_OBJECT;
    if (image->context != queue->context)
        return CL_INVALID_CONTEXT;
    return CL_SUCCESS;
}

static cl_int read_write_image(cl_command_queue queue, cl_mem image, bool write, cl_bool blocking,
                               const size_t *origin, const size_t *region, size_t row_pitch, size_t slice_pitch,
                               void *ptr, cl_uint num_wait, const cl_event *wait, cl_event *event)
{
    cl_int err = check_image(queue, image);
    if (err != CL_SUCCESS)
        return err;
    if ((err = aos_image_check_region(image, origin, region)) != CL_SUCCESS)
        return err;
    if (!ptr)
        return CL_INVALID_VALUE;
    size_t y, z;
    if ((err = host_strides(image, region, row_pitch, slice_pitch, &y, &z)) != CL_SUCCESS)
        return err;
    if (write ? !aos_mem_host_can_write(image) : !aos_mem_host_can_read(image))
        return CL_INVALID_OPERATION;
    struct aos_xfer x;
    aos_xfer_image(&x, image, write, origin, region, y, z, ptr);
    return aos_xfer_run(&x, queue, blocking, num_wait, wait, event,
                        write ? CL_COMMAND_WRITE_IMAGE : CL_COMMAND_READ_IMAGE);
}

cl_int CL_API_CALL clEnqueueReadImage(cl_command_queue queue, cl_mem image, cl_bool blocking, const size_t *origin,
                                      const size_t *region, size_t row_pitch, size_t slice_pitch, void *ptr,
                                      cl_uint num_wait, const cl_event *wait, cl_event *event)
{
    return read_write_image(queue, image, false, blocking, origin, region, row_pitch, slice_pitch, ptr, num_wait,
                            wait, event);
}

cl_int CL_API_CALL clEnqueueWriteImage(cl_command_queue queue, cl_mem image, cl_bool blocking, const size_t *origin,
                                       const size_t *region, size_t row_pitch, size_t slice_pitch, const void *ptr,
                                       cl_uint num_wait, const cl_event *wait, cl_event *event)
{
    return read_write_image(queue, image, true, blocking, origin, region, row_pitch, slice_pitch, (void *)ptr,
                            num_wait, wait, event);
}

cl_int CL_API_CALL clEnqueueCopyImage(cl_command_queue queue, cl_mem src, cl_mem dst, const size_t *src_origin,
                                      const size_t *dst_origin, const size_t *region, cl_uint num_wait,
                                      const cl_event *wait, cl_event *event)
{
    cl_int err = check_image(queue, src);
    if (err == CL_SUCCESS)
        err = check_image(queue, dst);
    if (err != CL_SUCCESS)
        return err;
    if (src->format.image_channel_order != dst->format.image_channel_order ||
        src->format.image_channel_data_type != dst->format.image_channel_data_type)
        return CL_IMAGE_FORMAT_MISMATCH;
    if ((err = aos_image_check_region(src, src_origin, region)) != CL_SUCCESS ||
        (err = aos_image_check_region(dst, dst_origin, region)) != CL_SUCCESS)
        return err;
    struct aos_req_copy_image q = {.src = src->obj.id, .dst = dst->obj.id};
    for (int i = 0; i < 3; i++) {
        q.src_origin[i] = src_origin[i];
        q.dst_origin[i] = dst_origin[i];
        q.region[i] = region[i];
    }
    return aos_enqueue_simple(queue, AOS_OP_COPY_IMAGE, &q, sizeof(q), NULL, 0, num_wait, wait, event,
                              CL_COMMAND_COPY_IMAGE);
}

cl_int CL_API_CALL clEnqueueFillImage(cl_command_queue queue, cl_mem image, const void *fill_color,
                                      const size_t *origin, const size_t *region, cl_uint num_wait,
                                      const cl_event *wait, cl_event *event)
{
    cl_int err = check_image(queue, image);
    if (err != CL_SUCCESS)
        return err;
    if (!fill_color)
        return CL_INVALID_VALUE;
    if ((err = aos_image_check_region(image, origin, region)) != CL_SUCCESS)
        return err;
    struct aos_req_fill_image q = {.image = image->obj.id};
    for (int i = 0; i < 3; i++) {
        q.origin[i] = origin[i];
        q.region[i] = region[i];
    }
    memcpy(q.color, fill_color, sizeof(q.color));
    return aos_enqueue_simple(queue, AOS_OP_FILL_IMAGE, &q, sizeof(q), NULL, 0, num_wait, wait, event,
                              CL_COMMAND_FILL_IMAGE);
}

static cl_int copy_image_buffer(cl_command_queue queue, cl_mem image, cl_mem buffer, const size_t *origin,
                                const size_t *region, size_t offset, bool to_buffer, cl_uint num_wait,
                                const cl_event *wait, cl_event *event)
{
    cl_int err = check_image(queue, image);
    if (err != CL_SUCCESS)
        return err;
    if (!aos_object_valid(buffer, AOS_OBJ_MEM) || !aos_mem_is_buffer(buffer))
        return CL_INVALID_MEM_OBJECT;
    if (buffer->context != queue->context)
        return CL_INVALID_CONTEXT;
    if ((err = aos_image_check_region(image, origin, region)) != CL_SUCCESS)
        return err;
    size_t bytes = region[0] * region[1] * region[2] * image->element_size;
    if (offset > buffer->size || bytes > buffer->size - offset)
        return CL_INVALID_VALUE;
    struct aos_req_copy_image_buffer q = {.image = image->obj.id, .buffer = buffer->obj.id, .offset = offset};
    for (int i = 0; i < 3; i++) {
        q.image_origin[i] = origin[i];
        q.region[i] = region[i];
    }
    return aos_enqueue_simple(queue, to_buffer ? AOS_OP_COPY_IMAGE_TO_BUFFER : AOS_OP_COPY_BUFFER_TO_IMAGE, &q,
                              sizeof(q), NULL, 0, num_wait, wait, event,
                              to_buffer ? CL_COMMAND_COPY_IMAGE_TO_BUFFER : CL_COMMAND_COPY_BUFFER_TO_IMAGE);
}

cl_int CL_API_CALL clEnqueueCopyImageToBuffer(cl_command_queue queue, cl_mem src_image, cl_mem dst_buffer,
                                              const size_t *src_origin, const size_t *region, size_t dst_offset,
                                              cl_uint num_wait, const cl_event *wait, cl_event *event)
{
    return copy_image_buffer(queue, src_image, dst_buffer, src_origin, region, dst_offset, true, num_wait, wait,
                             event);
}

cl_int CL_API_CALL clEnqueueCopyBufferToImage(cl_command_queue queue, cl_mem src_buffer, cl_mem dst_image,
                                              size_t src_offset, const size_t *dst_origin, const size_t *region,
                                              cl_uint num_wait, const cl_event *wait, cl_event *event)
{
    return copy_image_buffer(queue, dst_image, src_buffer, dst_origin, region, src_offset, false, num_wait, wait,
                             event);
}
