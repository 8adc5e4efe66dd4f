#include "aos_clenv.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define AOS_MAX_PLATFORMS 16

static int contains_nocase(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	if (n == 0)
		return 1;
	for (; *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return 1;
	return 0;
}

int aos_clenv_open(struct aos_clenv *env, const char *substr, char *err, size_t errlen)
{
	cl_platform_id ids[AOS_MAX_PLATFORMS];
	cl_uint n = 0;
	cl_int rc;

	memset(env, 0, sizeof(*env));
	if (!substr)
		substr = "";
	rc = clGetPlatformIDs(AOS_MAX_PLATFORMS, ids, &n);
	if (rc != CL_SUCCESS && rc != -1001 /* CL_PLATFORM_NOT_FOUND_KHR: no ICD installed */) {
		snprintf(err, errlen, "clGetPlatformIDs: %s", aos_cl_strerror(rc));
		return -EIO;
	}
	if (n > AOS_MAX_PLATFORMS)
		n = AOS_MAX_PLATFORMS;
	for (cl_uint i = 0; i < n; i++) {
		char name[256] = "";
		clGetPlatformInfo(ids[i], CL_PLATFORM_NAME, sizeof(name) - 1, name, NULL);
		if (contains_nocase(name, substr)) {
			env->platform = ids[i];
			snprintf(env->platform_name, sizeof(env->platform_name), "%s", name);
			break;
		}
	}
	if (!env->platform) {
		size_t off = (size_t)snprintf(err, errlen, "no OpenCL platform matches \"%s\"; present:", substr);
		if (n == 0 && off < errlen)
			off += (size_t)snprintf(err + off, errlen - off, " (none)");
		for (cl_uint i = 0; i < n && off < errlen; i++) {
			char name[256] = "";
			clGetPlatformInfo(ids[i], CL_PLATFORM_NAME, sizeof(name) - 1, name, NULL);
			off += (size_t)snprintf(err + off, errlen - off, "%s \"%s\"", i ? "," : "", name);
		}
		return -ENOENT;
	}
	rc = clGetDeviceIDs(env->platform, CL_DEVICE_TYPE_ALL, 1, &env->device, NULL);
	if (rc != CL_SUCCESS) {
		snprintf(err, errlen, "platform \"%s\" has no device: %s", env->platform_name, aos_cl_strerror(rc));
		return -EIO;
	}
	clGetDeviceInfo(env->device, CL_DEVICE_NAME, sizeof(env->device_name) - 1, env->device_name, NULL);
	clGetDeviceInfo(env->device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof(cl_ulong), &env->global_mem, NULL);
	clGetDeviceInfo(env->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(cl_ulong), &env->max_alloc, NULL);
	cl_context_properties props[] = { CL_CONTEXT_PLATFORM, (cl_context_properties)env->platform, 0 };
	env->context = clCreateContext(props, 1, &env->device, NULL, NULL, &rc);
	if (!env->context) {
		snprintf(err, errlen, "clCreateContext: %s", aos_cl_strerror(rc));
		return -EIO;
	}
	return 0;
}

void aos_clenv_close(struct aos_clenv *env)
{
	if (env->context)
		clReleaseContext(env->context);
	env->context = NULL;
}

cl_command_queue aos_clenv_queue_new(const struct aos_clenv *env)
{
	cl_int rc;
	return clCreateCommandQueue(env->context, env->device, CL_QUEUE_PROFILING_ENABLE, &rc);
}

const char *aos_cl_strerror(cl_int code)
{
	switch (code) {
	case CL_SUCCESS: return "CL_SUCCESS";
	case CL_DEVICE_NOT_FOUND: return "CL_DEVICE_NOT_FOUND";
	case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
	case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY";
	case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
	case CL_BUILD_PROGRAM_FAILURE: return "CL_BUILD_PROGRAM_FAILURE";
	case CL_INVALID_VALUE: return "CL_INVALID_VALUE";
	case CL_INVALID_PLATFORM: return "CL_INVALID_PLATFORM";
	case CL_INVALID_CONTEXT: return "CL_INVALID_CONTEXT";
	case CL_INVALID_COMMAND_QUEUE: return "CL_INVALID_COMMAND_QUEUE";
	case CL_INVALID_MEM_OBJECT: return "CL_INVALID_MEM_OBJECT";
	case CL_INVALID_BUFFER_SIZE: return "CL_INVALID_BUFFER_SIZE";
	case CL_INVALID_PROGRAM: return "CL_INVALID_PROGRAM";
	case CL_INVALID_KERNEL_NAME: return "CL_INVALID_KERNEL_NAME";
	case CL_INVALID_KERNEL: return "CL_INVALID_KERNEL";
	case CL_INVALID_ARG_INDEX: return "CL_INVALID_ARG_INDEX";
	case CL_INVALID_ARG_VALUE: return "CL_INVALID_ARG_VALUE";
	case CL_INVALID_ARG_SIZE: return "CL_INVALID_ARG_SIZE";
	case CL_INVALID_KERNEL_ARGS: return "CL_INVALID_KERNEL_ARGS";
	case CL_INVALID_WORK_DIMENSION: return "CL_INVALID_WORK_DIMENSION";
	case CL_INVALID_WORK_GROUP_SIZE: return "CL_INVALID_WORK_GROUP_SIZE";
	case CL_INVALID_WORK_ITEM_SIZE: return "CL_INVALID_WORK_ITEM_SIZE";
	case CL_INVALID_GLOBAL_WORK_SIZE: return "CL_INVALID_GLOBAL_WORK_SIZE";
	case CL_INVALID_EVENT: return "CL_INVALID_EVENT";
	case CL_PROFILING_INFO_NOT_AVAILABLE: return "CL_PROFILING_INFO_NOT_AVAILABLE";
	default: return "CL error";
	}
}
