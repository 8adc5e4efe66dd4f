/*
 * Calling the real OpenCL platforms. accelosd does not link libOpenCL: vendor.c loads the vendor
 * ICDs itself (never libproxycl.so) and every call goes through the dispatch table that starts
 * each real object, exactly as an ICD loader would forward it.
 */
#ifndef ACCELOSD_NATIVE_H
#define ACCELOSD_NATIVE_H

#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_2_0_APIS
#include <CL/cl.h>
#include <CL/cl_icd.h>

/* Dispatch table of a real object (platform, device, context, queue, mem, ...). */
static inline const cl_icd_dispatch *aos_native(const void *object)
{
    return *(const cl_icd_dispatch *const *)object;
}

/* NATIVE(obj, clFoo)(args...) calls the real platform's clFoo for obj. */
#define NATIVE(object, fn) (aos_native(object)->fn)

#endif
