#include "accelos/region.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static uint32_t align_up(uint32_t v, uint32_t a) { return (v + a - 1) & ~(a - 1); }

void aos_region_layout_default(struct aos_region_header *l, uint32_t device_count, uint64_t arena_size)
{
    memset(l, 0, sizeof(*l));
    l->magic = AOS_WIRE_MAGIC;
    l->version = AOS_WIRE_VERSION;
    l->device_count = device_count;
    uint32_t at = align_up((uint32_t)sizeof(*l), 4096);
    l->req_off = at;
    l->req_size = AOS_REQ_RING_SIZE;
    at += l->req_size;
    l->note_off = at;
    l->note_size = AOS_NOTE_RING_SIZE;
    at += l->note_size;
    l->slot_off = at;
    l->slot_count = AOS_SLOT_COUNT;
    l->slot_payload = AOS_SLOT_PAYLOAD;
    l->slot_stride = align_up((uint32_t)sizeof(struct aos_slot) + AOS_SLOT_PAYLOAD, 4096);
    at += l->slot_count * l->slot_stride;
    l->data_off = align_up(at, 1u << 20);
    l->data_size = AOS_DATA_SIZE;
    l->data_chunk = AOS_DATA_CHUNK;
    l->region_size = l->data_off + l->data_size;
    l->arena_size = arena_size;
    l->arena_off = arena_size ? ((uint64_t)l->region_size + AOS_ARENA_ALIGN - 1) & ~(AOS_ARENA_ALIGN - 1) : 0;
}

static int span_ok(uint64_t off, uint64_t len, uint64_t total) { return off <= total && len <= total - off; }

int aos_region_layout_check(const struct aos_region_header *l, size_t size)
{
    if (l->magic != AOS_WIRE_MAGIC || l->version != AOS_WIRE_VERSION || l->region_size != size)
        return -EPROTO;
    int pow2 = l->req_size && !(l->req_size & (l->req_size - 1)) && l->note_size &&
               !(l->note_size & (l->note_size - 1));
    if (!pow2 || l->req_size < 4096 || l->note_size < 4096)
        return -EPROTO;
    if (l->slot_count == 0 || l->slot_count > 4096 || l->slot_stride < sizeof(struct aos_slot) + l->slot_payload ||
        l->slot_stride % 64)
        return -EPROTO;
    if (l->data_chunk == 0 || l->data_size % l->data_chunk)
        return -EPROTO;
    if (l->req_off < sizeof(*l) || !span_ok(l->req_off, l->req_size, size) || !span_ok(l->note_off, l->note_size, size) ||
        !span_ok(l->slot_off, (uint64_t)l->slot_count * l->slot_stride, size) || !span_ok(l->data_off, l->data_size, size))
        return -EPROTO;
    if (l->arena_size && (l->arena_size > AOS_ARENA_MAX || l->arena_size % 4096 || l->arena_off < size ||
                          l->arena_off % 4096 || l->arena_off > AOS_ARENA_MAX))
        return -EPROTO;
    return 0;
}

int aos_region_create(struct aos_region *region, uint32_t device_count, uint64_t arena_size)
{
    aos_region_layout_default(&region->layout, device_count, arena_size);
    region->size = region->layout.region_size;
    int fd = memfd_create("accelos-client", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return -errno;
    uint64_t file_size = arena_size ? region->layout.arena_off + arena_size : region->size;
    if (ftruncate(fd, (off_t)file_size) < 0 ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
        int err = -errno;
        close(fd);
        return err;
    }
    region->base = mmap(NULL, region->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (region->base == MAP_FAILED) {
        int err = -errno;
        close(fd);
        region->base = NULL;
        return err;
    }
    struct aos_region_header *shared = aos_region_shared_header(region);
    memcpy(shared, &region->layout, sizeof(region->layout));
    aos_ring_ctl_init(&shared->req);
    aos_ring_ctl_init(&shared->note);
    return fd;
}

int aos_region_attach(struct aos_region *region, int fd, size_t size)
{
    if (size < sizeof(struct aos_region_header))
        return -EPROTO;
    region->base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (region->base == MAP_FAILED) {
        region->base = NULL;
        return -errno;
    }
    region->size = size;
    memcpy(&region->layout, region->base, sizeof(region->layout));
    if (aos_region_layout_check(&region->layout, size) < 0) {
        aos_region_unmap(region);
        return -EPROTO;
    }
    return 0;
}

void aos_region_unmap(struct aos_region *region)
{
    if (region->base)
        munmap(region->base, region->size);
    region->base = NULL;
}

struct aos_region_header *aos_region_shared_header(const struct aos_region *region)
{
    return (struct aos_region_header *)region->base;
}

struct aos_slot *aos_region_slot(const struct aos_region *region, uint32_t index)
{
    if (index >= region->layout.slot_count)
        return NULL;
    return (struct aos_slot *)(region->base + region->layout.slot_off + (size_t)index * region->layout.slot_stride);
}

void *aos_region_slot_payload(const struct aos_region *region, uint32_t index)
{
    struct aos_slot *slot = aos_region_slot(region, index);
    return slot ? (void *)(slot + 1) : NULL;
}

uint8_t *aos_region_data(const struct aos_region *region)
{
    return region->base + region->layout.data_off;
}

void *aos_region_data_span(const struct aos_region *region, struct aos_span span)
{
    if (!span_ok(span.off, span.len, region->layout.data_size))
        return NULL;
    return aos_region_data(region) + span.off;
}

void aos_region_ring(const struct aos_region *region, struct aos_ring *req, struct aos_ring *note,
                     int daemon_side)
{
    struct aos_region_header *shared = aos_region_shared_header(region);
    const struct aos_region_header *l = &region->layout;
    aos_ring_attach(req, &shared->req, region->base + l->req_off, l->req_size, !daemon_side);
    aos_ring_attach(note, &shared->note, region->base + l->note_off, l->note_size, daemon_side);
}
