/*
 * Map and unmap. A buffer whose storage is in the shared-buffer arena is mapped in place: the
 * pointer is the storage itself, and map and unmap only order the queue, as on a native CPU device.
 * Otherwise the daemon's memory is not the application's, so a mapping is application memory
 * that ProxyCL fills and drains: host_ptr + offset for CL_MEM_USE_HOST_PTR objects (as the spec
 * requires), otherwise an allocation owned here. Mapping for read or write reads the device data
 * into it through the transfer engine (blocking, or as a host step for a non-blocking map);
 * CL_MAP_WRITE_INVALIDATE_REGION skips the read. Unmapping a write mapping writes it back.
 * Commands that move no data are sent as zero-length transfers, which the daemon runs as markers,
 * so wait lists and events behave like any other command.
 */
#include <stdlib.h>
#include <string.h>

#include "accelos/wire_image.h"
#include "accelos/wire_mem.h"
#include "conn.h"
#include "enqueue.h"
#include "mem.h"

#define MAP_ALIGN 128

static void *map_alloc(size_t size)
{
    size_t rounded = (size + MAP_ALIGN - 1) / MAP_ALIGN * MAP_ALIGN;
    return aligned_alloc(MAP_ALIGN, rounded ? rounded : MAP_ALIGN);
}

void aos_mem_free_mappings(cl_mem m)
{
    struct aos_mapping *map = m->maps;
    m->maps = NULL;
    while (map) {
        struct aos_mapping *next = map->next;
        if (map->owned)
            free(map->ptr);
        free(map);
        map = next;
    }
}

static void add_mapping(cl_mem m, struct aos_mapping *map)
{
    pthread_mutex_lock(&m->map_lock);
    map->next = m->maps;
    m->maps = map;
    atomic_fetch_add(&m->map_count, 1);
    pthread_mutex_unlock(&m->map_lock);
}

static void drop_mapping(cl_mem m, struct aos_mapping *map)
{
    pthread_mutex_lock(&m->map_lock);
    for (struct aos_mapping **p = &m->maps; *p; p = &(*p)->next)
        if (*p == map) {
            *p = map->next;
            atomic_fetch_sub(&m->map_count, 1);
            break;
        }
    pthread_mutex_unlock(&m->map_lock);
    if (map->owned)
        free(map->ptr);
    free(map);
}

static cl_int check_map_flags(cl_mem m, cl_map_flags flags)
{
    if (flags & ~(cl_map_flags)(CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION))
        return CL_INVALID_VALUE;
    if ((flags & CL_MAP_WRITE_INVALIDATE_REGION) && (flags & (CL_MAP_READ | CL_MAP_WRITE)))
        return CL_INVALID_VALUE;
    if ((flags & CL_MAP_READ) && !aos_mem_host_can_read(m))
        return CL_INVALID_OPERATION;
    if ((flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) && !aos_mem_host_can_write(m))
        return CL_INVALID_OPERATION;
    return CL_SUCCESS;
}

/* Does a mapping's data need reading from the device first? */
static bool map_reads(cl_map_flags flags)
{
    return !(flags & CL_MAP_WRITE_INVALIDATE_REGION);
}

static bool map_writes(cl_map_flags flags)
{
    return (flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) != 0;
}

void *CL_API_CALL clEnqueueMapBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, cl_map_flags flags,
                                     size_t offset, size_t size, cl_uint num_wait, const cl_event *wait,
                                     cl_event *event, cl_int *errcode_ret)
{
    cl_int err;
    struct aos_mapping *map = NULL;
    if (!aos_object_valid(queue, AOS_OBJ_QUEUE)) {
        err = CL_INVALID_COMMAND_QUEUE;
        goto fail;
    }
    if (!aos_object_valid(buffer, AOS_OBJ_MEM) || !aos_mem_is_buffer(buffer)) {
        err = CL_INVALID_MEM_OBJECT;
        goto fail;
    }
    if (buffer->context != queue->context) {
        err = CL_INVALID_CONTEXT;
        goto fail;
    }
    if (size == 0 || offset > buffer->size || size > buffer->size - offset) {
        err = CL_INVALID_VALUE;
        goto fail;
    }
    if ((err = check_map_flags(buffer, flags)) != CL_SUCCESS)
        goto fail;
    map = calloc(1, sizeof(*map));
    if (!map) {
        err = CL_OUT_OF_HOST_MEMORY;
        goto fail;
    }
    map->flags = flags;
    map->origin[0] = offset;
    map->region[0] = size;
    void *shared = buffer->shared ? aos_arena_ptr(buffer->arena_off + offset, size) : NULL;
    if (buffer->host_ptr) {
        map->ptr = (uint8_t *)buffer->host_ptr + offset;
    } else if (shared) {
        map->ptr = shared; /* as a native CPU device maps: the storage itself */
        map->in_place = true;
    } else {
        map->ptr = map_alloc(size);
        map->owned = true;
        if (!map->ptr) {
            err = CL_OUT_OF_HOST_MEMORY;
            goto fail;
        }
    }
    struct aos_xfer x;
    aos_xfer_buffer(&x, buffer, false, offset, map_reads(flags) && !map->in_place ? size : 0, map->ptr);
    add_mapping(buffer, map);
    err = aos_xfer_run(&x, queue, blocking, num_wait, wait, event, CL_COMMAND_MAP_BUFFER);
    if (err != CL_SUCCESS) {
        drop_mapping(buffer, map);
        map = NULL;
        goto fail;
    }
    if (errcode_ret)
        *errcode_ret = CL_SUCCESS;
    return map->ptr;

fail:
    if (map) {
        if (map->owned)
            free(map->ptr);
        free(map);
    }
    if (errcode_ret)
        *errcode_ret = err;
    return NULL;
}

/* Image geometry helpers shared with image.c live there; this only needs the host pitches. */
static void image_host_pitches(cl_mem image, size_t *row, size_t *slice)
{
    size_t w = image->desc.image_width * image->element_size;
    *row = image->desc.image_row_pitch ? image->desc.image_row_pitch : w;
    size_t rows = image->mem_type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 1 : image->desc.image_height;
    *slice = image->desc.image_slice_pitch ? image->desc.image_slice_pitch : *row * (rows ? rows : 1);
}

static bool image_is_1d_array(cl_mem image)
{
    return image->mem_type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
}

static bool image_has_slices(cl_mem image)
{
    return image->mem_type == CL_MEM_OBJECT_IMAGE3D || image->mem_type == CL_MEM_OBJECT_IMAGE2D_ARRAY ||
           image->mem_type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
}

void *CL_API_CALL clEnqueueMapImage(cl_command_queue queue, cl_mem image, cl_bool blocking, cl_map_flags flags,
                                    const size_t *origin, const size_t *region, size_t *row_pitch,
                                    size_t *slice_pitch, cl_uint num_wait, const cl_event *wait, cl_event *event,
                                    cl_int *errcode_ret)
{
    cl_int err;
    struct aos_mapping *map = NULL;
    if (!aos_object_valid(queue, AOS_OBJ_QUEUE)) {
        err = CL_INVALID_COMMAND_QUEUE;
        goto fail;
    }
    if (!aos_object_valid(image, AOS_OBJ_MEM) || aos_mem_is_buffer(image)) {
        err = CL_INVALID_MEM_OBJECT;
        goto fail;
    }
    if (image->context != queue->context) {
        err = CL_INVALID_CONTEXT;
        goto fail;
    }
    if (!row_pitch || (image_has_slices(image) && !slice_pitch)) {
        err = CL_INVALID_VALUE;
        goto fail;
    }
    if ((err = aos_image_check_region(image, origin, region)) != CL_SUCCESS)
        goto fail;
    if ((err = check_map_flags(image, flags)) != CL_SUCCESS)
        goto fail;
    map = calloc(1, sizeof(*map));
    if (!map) {
        err = CL_OUT_OF_HOST_MEMORY;
        goto fail;
    }
    map->flags = flags;
    memcpy(map->origin, origin, sizeof(map->origin));
    memcpy(map->region, region, sizeof(map->region));
    size_t px = image->element_size;
    if (image->host_ptr) {
        size_t row, slice;
        image_host_pitches(image, &row, &slice);
        map->row_pitch = row;
        map->slice_pitch = slice;
        size_t y_stride = image_is_1d_array(image) ? slice : row;
        map->ptr = (uint8_t *)image->host_ptr + origin[0] * px + origin[1] * y_stride + origin[2] * slice;
    } else {
        map->row_pitch = region[0] * px;
        map->slice_pitch = map->row_pitch * (image_is_1d_array(image) ? 1 : region[1]);
        size_t bytes = image_is_1d_array(image) ? map->slice_pitch * region[1]
                                                : map->slice_pitch * region[2];
        map->ptr = map_alloc(bytes);
        map->owned = true;
        if (!map->ptr) {
            err = CL_OUT_OF_HOST_MEMORY;
            goto fail;
        }
    }
    size_t y_stride = image_is_1d_array(image) ? map->slice_pitch : map->row_pitch;
    struct aos_xfer x;
    size_t none[3] = {0, 1, 1};
    aos_xfer_image(&x, image, false, origin, map_reads(flags) ? region : none, y_stride, map->slice_pitch, map->ptr);
    add_mapping(image, map);
    err = aos_xfer_run(&x, queue, blocking, num_wait, wait, event, CL_COMMAND_MAP_IMAGE);
    if (err != CL_SUCCESS) {
        drop_mapping(image, map);
        map = NULL;
        goto fail;
    }
    *row_pitch = map->row_pitch;
    if (slice_pitch)
        *slice_pitch = image_has_slices(image) ? map->slice_pitch : 0;
    if (errcode_ret)
        *errcode_ret = CL_SUCCESS;
    return map->ptr;

fail:
    if (map) {
        if (map->owned)
            free(map->ptr);
        free(map);
    }
    if (errcode_ret)
        *errcode_ret = err;
    return NULL;
}

cl_int CL_API_CALL clEnqueueUnmapMemObject(cl_command_queue queue, cl_mem mem, void *mapped_ptr, cl_uint num_wait,
                                           const cl_event *wait, cl_event *event)
{
    if (!aos_object_valid(queue, AOS_OBJ_QUEUE))
        return CL_INVALID_COMMAND_QUEUE;
    if (!aos_object_valid(mem, AOS_OBJ_MEM))
        return CL_INVALID_MEM_OBJECT;
    if (mem->context != queue->context)
        return CL_INVALID_CONTEXT;
    struct aos_mapping *map = NULL;
    pthread_mutex_lock(&mem->map_lock);
    for (struct aos_mapping **p = &mem->maps; *p; p = &(*p)->next)
        if ((*p)->ptr == mapped_ptr) {
            map = *p;
            *p = map->next;
            break;
        }
    pthread_mutex_unlock(&mem->map_lock);
    if (!map)
        return CL_INVALID_VALUE;

    struct aos_xfer x;
    bool wb = map_writes(map->flags) && !map->in_place;
    if (aos_mem_is_buffer(mem)) {
        aos_xfer_buffer(&x, mem, true, map->origin[0], wb ? map->region[0] : 0, map->ptr);
    } else {
        size_t none[3] = {0, 1, 1};
        size_t y_stride = image_is_1d_array(mem) ? map->slice_pitch : map->row_pitch;
        aos_xfer_image(&x, mem, true, map->origin, wb ? map->region : none, y_stride, map->slice_pitch, map->ptr);
    }
    /* The engine copies the data into staging before it returns, so the memory can go now. */
    x.host_gone_at_return = true;
    cl_int err = aos_xfer_run(&x, queue, CL_FALSE, num_wait, wait, event, CL_COMMAND_UNMAP_MEM_OBJECT);
    if (err != CL_SUCCESS) {
        pthread_mutex_lock(&mem->map_lock);
        map->next = mem->maps;
        mem->maps = map;
        pthread_mutex_unlock(&mem->map_lock);
        return err;
    }
    atomic_fetch_sub(&mem->map_count, 1);
    if (map->owned)
        free(map->ptr);
    free(map);
    return CL_SUCCESS;
}
