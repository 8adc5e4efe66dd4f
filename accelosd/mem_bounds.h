/*
 * Bounds of a client's transfer or copy inside a buffer, checked by the daemon before the runtime
 * sees them. The runtime checks them too, but in size_t arithmetic that a hostile offset or pitch
 * can wrap (PoCL 3.1 takes a row pitch of 2^64-1 and reads far outside the buffer, inside the
 * daemon's own process on a CPU device), and it misses some image sizes. Overflow-safe; pure.
 */
#ifndef ACCELOSD_MEM_BOUNDS_H
#define ACCELOSD_MEM_BOUNDS_H

#include <stdbool.h>
#include <stdint.h>

/* Whether [offset, offset + size) lies within total bytes. */
bool aos_bounds_range(uint64_t offset, uint64_t size, uint64_t total);

/* Whether the rectangle of a *BufferRect call lies within total bytes: origin and region in
 * (bytes, rows, slices), pitches as the application gave them (0 = tight). False also for what
 * OpenCL calls CL_INVALID_VALUE in the pitches: a zero region, a row pitch below region[0], a
 * slice pitch below region[1] * row pitch or not a multiple of it. */
bool aos_bounds_rect(const uint64_t origin[3], const uint64_t region[3], uint64_t row_pitch, uint64_t slice_pitch,
                     uint64_t total);

/* Whether the box (origin, region) of an image command lies within extent, the image's size in
 * each of the three coordinates OpenCL's image calls take (1 where the type has no such
 * coordinate: a 1D image's rows and slices, a 2D image's slices; an array's layers count as its
 * last coordinate). No region may be 0. PoCL 3.1 does not check a 1D array's layers and filled
 * past the image (found by test_fuzz). */
bool aos_bounds_image(const uint64_t origin[3], const uint64_t region[3], const uint64_t extent[3]);

/* The bytes of a box of region pixels of elem bytes each, or 0 when that overflows. */
uint64_t aos_bounds_box_bytes(const uint64_t region[3], uint64_t elem);

#endif
