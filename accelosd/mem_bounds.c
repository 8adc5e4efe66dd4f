/* Overflow-safe bounds of transfers and copies (mem_bounds.h). */
#include "mem_bounds.h"

bool aos_bounds_range(uint64_t offset, uint64_t size, uint64_t total)
{
    return size <= total && offset <= total - size;
}

bool aos_bounds_rect(const uint64_t origin[3], const uint64_t region[3], uint64_t row_pitch, uint64_t slice_pitch,
                     uint64_t total)
{
    if (!region[0] || !region[1] || !region[2])
        return false;
    if (!row_pitch)
        row_pitch = region[0];
    else if (row_pitch < region[0])
        return false;
    uint64_t tight_slice;
    if (__builtin_mul_overflow(region[1], row_pitch, &tight_slice))
        return false;
    if (!slice_pitch)
        slice_pitch = tight_slice;
    else if (slice_pitch < tight_slice || slice_pitch % row_pitch)
        return false;
    /* One past the rectangle's last byte: (z_last * slice) + (y_last * row) + x_end. */
    uint64_t z_last, y_last, x_end, at_z, at_y, end;
    if (__builtin_add_overflow(origin[2], region[2] - 1, &z_last) ||
        __builtin_add_overflow(origin[1], region[1] - 1, &y_last) ||
        __builtin_add_overflow(origin[0], region[0], &x_end) ||
        __builtin_mul_overflow(z_last, slice_pitch, &at_z) || __builtin_mul_overflow(y_last, row_pitch, &at_y) ||
        __builtin_add_overflow(at_z, at_y, &end) || __builtin_add_overflow(end, x_end, &end))
        return false;
    return end <= total;
}

bool aos_bounds_image(const uint64_t origin[3], const uint64_t region[3], const uint64_t extent[3])
{
    for (int i = 0; i < 3; i++)
        if (!region[i] || !aos_bounds_range(origin[i], region[i], extent[i]))
            return false;
    return true;
}

uint64_t aos_bounds_box_bytes(const uint64_t region[3], uint64_t elem)
{
    uint64_t bytes = elem;
    for (int i = 0; i < 3; i++)
        if (__builtin_mul_overflow(bytes, region[i], &bytes))
            return 0;
    return bytes;
}
