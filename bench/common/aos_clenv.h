#ifndef AOS_CLENV_H
#define AOS_CLENV_H
#include "aos_cl.h"
#include <stddef.h>

/* The OpenCL platform/device/context one tenant (or the shared-context
 * runner) works in. The platform is chosen by a case-insensitive name
 * substring so the same binary runs on PoCL or on the "accelOS" platform. */
struct aos_clenv {
	cl_platform_id platform;
	cl_device_id device;
	cl_context context;
	char platform_name[256];
	char device_name[256];
	cl_ulong global_mem;
	cl_ulong max_alloc;
};

/* Returns 0, -ENOENT when no platform matches (err then lists the platforms
 * present), or -EIO on an OpenCL failure (err says which). */
int aos_clenv_open(struct aos_clenv *env, const char *platform_substr, char *err, size_t errlen);
void aos_clenv_close(struct aos_clenv *env);
/* In-order queue with profiling on; NULL on failure. Caller releases. */
cl_command_queue aos_clenv_queue_new(const struct aos_clenv *env);
const char *aos_cl_strerror(cl_int code);
#endif
