/* What a device reports, for the resource model (accelos/sched_query.h). */
#include "accelos/sched_query.h"

#include <string.h>

#define NV_COMPUTE_CAPABILITY_MAJOR 0x4000 /* cl_nv_device_attribute_query */
#define NV_COMPUTE_CAPABILITY_MINOR 0x4001
#define NV_REGISTERS_PER_BLOCK 0x4002
#define NV_WARP_SIZE 0x4003

static uint32_t query_uint(aos_get_device_info_fn get, cl_device_id d, cl_device_info what)
{
	cl_uint v = 0;
	return get(d, what, sizeof(v), &v, NULL) == CL_SUCCESS ? v : 0;
}

void aos_sched_device_query(aos_get_device_info_fn get, cl_device_id d, struct aos_sched_device_info *info,
			    char vendor[AOS_SCHED_VENDOR_MAX])
{
	cl_device_type type = 0;
	cl_ulong local = 0;
	size_t wg = 0;
	memset(info, 0, sizeof(*info));
	memset(vendor, 0, AOS_SCHED_VENDOR_MAX);
	get(d, CL_DEVICE_VENDOR, AOS_SCHED_VENDOR_MAX - 1, vendor, NULL);
	vendor[AOS_SCHED_VENDOR_MAX - 1] = '\0';
	info->vendor = vendor;
	if (get(d, CL_DEVICE_TYPE, sizeof(type), &type, NULL) == CL_SUCCESS)
		info->type = (uint64_t)type;
	info->compute_units = query_uint(get, d, CL_DEVICE_MAX_COMPUTE_UNITS);
	if (get(d, CL_DEVICE_LOCAL_MEM_SIZE, sizeof(local), &local, NULL) == CL_SUCCESS)
		info->local_mem_size = local;
	if (get(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(wg), &wg, NULL) == CL_SUCCESS)
		info->max_work_group_size = wg;
	if (strstr(vendor, "NVIDIA")) {
		info->nv_cc_major = query_uint(get, d, NV_COMPUTE_CAPABILITY_MAJOR);
		info->nv_cc_minor = query_uint(get, d, NV_COMPUTE_CAPABILITY_MINOR);
		info->nv_regs_per_block = query_uint(get, d, NV_REGISTERS_PER_BLOCK);
		info->nv_warp_size = query_uint(get, d, NV_WARP_SIZE);
	}
}
