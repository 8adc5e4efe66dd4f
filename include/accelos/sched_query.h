/*
 * Reading a device's resource facts for the share solver (scheduler/device_query.c).
 *
 * The daemon calls the vendor's clGetDeviceInfo through its dispatch table and the JIT
 * benchmark through the ICD loader, so the getter is a parameter: the scheduling core still
 * links no OpenCL library, and both see the device the same way.
 */
#ifndef ACCELOS_SCHED_QUERY_H
#define ACCELOS_SCHED_QUERY_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>

#include "accelos/sched.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef cl_int(CL_API_CALL *aos_get_device_info_fn)(cl_device_id, cl_device_info, size_t, void *, size_t *);

/* Room for CL_DEVICE_VENDOR; longer names are cut (only "NVIDIA" is looked for). */
#define AOS_SCHED_VENDOR_MAX 256

/*
 * Fills `info` from what `device` reports through `get`: type, vendor (copied into
 * `vendor`, which info->vendor then points to), compute units, local memory, work-group
 * size and, on NVIDIA, cl_nv_device_attribute_query. Queries that fail leave their field 0.
 */
void aos_sched_device_query(aos_get_device_info_fn get, cl_device_id device, struct aos_sched_device_info *info,
			    char vendor[AOS_SCHED_VENDOR_MAX]);

#ifdef __cplusplus
}
#endif
#endif
