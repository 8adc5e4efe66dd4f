/*
 * The per-client shared-memory region: layout computation and typed access.
 * The daemon computes the layout, creates the memfd and keeps a private copy of the layout;
 * the client validates the header it receives before trusting any offset in it.
 */
#ifndef ACCELOS_REGION_H
#define ACCELOS_REGION_H

#include <stddef.h>
#include <stdint.h>

#include "accelos/ring.h"
#include "accelos/wire.h"

struct aos_region {
    uint8_t *base;
    size_t size;
    struct aos_region_header layout; /* private copy, never re-read from shared memory */
};

/* Fills layout with the default geometry for device_count devices and an arena of arena_size
 * bytes (0: none) after the region. */
void aos_region_layout_default(struct aos_region_header *layout, uint32_t device_count, uint64_t arena_size);
/* Checks that a layout is self-consistent and fits region_size. Returns 0 or -EPROTO. */
int aos_region_layout_check(const struct aos_region_header *layout, size_t region_size);

/* Creates an anonymous, sealed-size memfd region with the default layout (daemon side), sized to
 * hold the arena as well (arena_size 0: none; the arena is not mapped here).
 * Returns the fd (owned by the caller) and maps the region into *region, or a negative errno. */
int aos_region_create(struct aos_region *region, uint32_t device_count, uint64_t arena_size);
/* Maps a region received from the daemon and validates its header (client side). */
int aos_region_attach(struct aos_region *region, int fd, size_t size);
void aos_region_unmap(struct aos_region *region);

struct aos_region_header *aos_region_shared_header(const struct aos_region *region);
struct aos_slot *aos_region_slot(const struct aos_region *region, uint32_t index);
void *aos_region_slot_payload(const struct aos_region *region, uint32_t index);
uint8_t *aos_region_data(const struct aos_region *region);
/* Returns a pointer to [off, off+len) of the data area, or NULL when out of bounds. */
void *aos_region_data_span(const struct aos_region *region, struct aos_span span);
void aos_region_ring(const struct aos_region *region, struct aos_ring *req, struct aos_ring *note,
                     int daemon_side);

#endif
