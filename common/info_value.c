#include "accelos/info_value.h"

#include <string.h>

cl_int aos_info_value(const void *src, size_t src_size, size_t size, void *value, size_t *size_ret)
{
    if (value) {
        if (size < src_size)
            return CL_INVALID_VALUE;
        memcpy(value, src, src_size);
    }
    if (size_ret)
        *size_ret = src_size;
    return CL_SUCCESS;
}
