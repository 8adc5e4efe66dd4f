/*
 * ICD entry points. Every OpenCL entry point in ProxyCL carries its standard name but is hidden
 * (-fvisibility=hidden); proxycl.map exports only what the ICD loader looks up, and the loader
 * reaches everything else through aos_dispatch_table (icd_table.c, generated from cl_icd.h).
 */
#include <string.h>

#include "object.h"

__attribute__((visibility("default"))) void *CL_API_CALL clGetExtensionFunctionAddressForPlatform(cl_platform_id platform, const char *name)
{
    (void)platform;
    if (name && strcmp(name, "clIcdGetPlatformIDsKHR") == 0) {
        extern cl_int CL_API_CALL clIcdGetPlatformIDsKHR(cl_uint, cl_platform_id *, cl_uint *);
        return (void *)clIcdGetPlatformIDsKHR;
    }
    return NULL;
}

__attribute__((visibility("default"))) void *CL_API_CALL clGetExtensionFunctionAddress(const char *name)
{
    return clGetExtensionFunctionAddressForPlatform(NULL, name);
}
