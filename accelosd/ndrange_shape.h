/*
 * The client's NDRange shape, checked before the runtime sees it. PoCL 3.1 takes a local size of 0
 * in a used dimension and crashes the daemon (found by test_fuzz); the sums of offsets and sizes
 * must not wrap either. Pure.
 */
#ifndef ACCELOSD_NDRANGE_SHAPE_H
#define ACCELOSD_NDRANGE_SHAPE_H

#include <stdbool.h>
#include <stdint.h>

/* CL_SUCCESS, or the error OpenCL gives clEnqueueNDRangeKernel for the shape: CL_INVALID_WORK_DIMENSION,
 * CL_INVALID_WORK_GROUP_SIZE (a local size of 0), CL_INVALID_GLOBAL_OFFSET (offset + global
 * past SIZE_MAX). offset and local may be NULL (none given). */
int32_t aos_ndrange_shape_check(uint32_t work_dim, const uint64_t *offset, const uint64_t *global,
                                const uint64_t *local);

#endif
