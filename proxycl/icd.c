/*
 * ICD entry points. Every OpenCL entry point in ProxyCL carries its standard name but is hidden
 * (-fvisibility=hidden); proxycl.map exports only what the ICD loader looks up, and the loader
 * reaches everything else through aos_dispatch_table (icd_table.c, generated from cl_icd.h).
 *
 * The exported functions never call each other: an exported name resolves through the global
 * scope, where the loader's libOpenCL defines the same symbols and would answer instead.
 */
#include <string.h>

#include "object.h"

cl_int CL_API_CALL clIcdGetPlatformIDsKHR(cl_uint, cl_platform_id *, cl_uint *);

static void *lookup_entry(const char *name)
{
    if (!name)
        return NULL;
    if (strcmp(name, "clIcdGetPlatformIDsKHR") == 0)
        return (void *)clIcdGetPlatformIDsKHR;
    /* ocl-icd also looks clGetPlatformInfo up this way and skips the ICD when it gets NULL. */
    if (strcmp(name, "clGetPlatformInfo") == 0)
        return (void *)aos_dispatch_table.clGetPlatformInfo;
    return NULL;
}

__attribute__((visibility("default"))) void *CL_API_CALL clGetExtensionFunctionAddressForPlatform(cl_platform_id platform,
                                                                                                  const char *name)
{
    (void)platform;
    return lookup_entry(name);
}

__attribute__((visibility("default"))) void *CL_API_CALL clGetExtensionFunctionAddress(const char *name)
{
    return lookup_entry(name);
}
