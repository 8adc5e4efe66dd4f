/* NDRange shapes checked before the runtime sees them (ndrange_shape.h). */
#include "ndrange_shape.h"

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

int32_t aos_ndrange_shape_check(uint32_t work_dim, const uint64_t *offset, const uint64_t *global,
                                const uint64_t *local)
{
    if (work_dim < 1 || work_dim > 3)
        return CL_INVALID_WORK_DIMENSION;
    for (uint32_t d = 0; d < work_dim; d++) {
        if (local && !local[d])
            return CL_INVALID_WORK_GROUP_SIZE;
        uint64_t end;
        if (global[d] > SIZE_MAX || (offset && (offset[d] > SIZE_MAX ||
                                                __builtin_add_overflow(offset[d], global[d], &end) || end > SIZE_MAX)))
            return CL_INVALID_GLOBAL_OFFSET;
    }
    return CL_SUCCESS;
}
