/*
 * Answering a clGet*Info query from a value at hand (common/info_value.c): ProxyCL for what it
 * knows locally, the daemon for values it keeps itself (logical launches, overridden statuses).
 */
#ifndef ACCELOS_INFO_VALUE_H
#define ACCELOS_INFO_VALUE_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>
#include <stddef.h>

/* Copies src_size bytes of src to value (when given) and the size to size_ret (when given), as
 * the clGet*Info contract says: CL_INVALID_VALUE when value is given and size is too small. */
cl_int aos_info_value(const void *src, size_t src_size, size_t size, void *value, size_t *size_ret);

#endif
