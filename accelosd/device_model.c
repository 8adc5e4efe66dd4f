/*
 * The resource model of each device (accelos/sched.h): what the device reports, plus the
 * scheduling core's architecture table. Read once per device, on first use.
 */
#include <pthread.h>
#include <string.h>

#include "accelos/log.h"
#include "accelos/sched.h"
#include "accelos/wire_core.h"
#include "device_sched.h"

#define NV_COMPUTE_CAPABILITY_MAJOR 0x4000 /* cl_nv_device_attribute_query */
#define NV_COMPUTE_CAPABILITY_MINOR 0x4001
#define NV_REGISTERS_PER_BLOCK 0x4002
#define NV_WARP_SIZE 0x4003

struct device_model {
    bool ready;
    bool usable;
    struct aos_sched_device model;
};

static pthread_mutex_t models_lock = PTHREAD_MUTEX_INITIALIZER;
static struct device_model models[AOS_MAX_DEVICES];

static void device_model_read(const struct aos_device *dev, struct device_model *m)
{
    cl_device_id d = dev->device;
    struct aos_sched_device_info info = {.type = (uint64_t)dev->type};
    char vendor[256] = "";
    cl_uint cu = 0, u = 0;
    cl_ulong local = 0;
    size_t wg = 0;
    NATIVE(d, clGetDeviceInfo)(d, CL_DEVICE_VENDOR, sizeof(vendor) - 1, vendor, NULL);
    if (NATIVE(d, clGetDeviceInfo)(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(cu), &cu, NULL) == CL_SUCCESS)
        info.compute_units = cu;
    if (NATIVE(d, clGetDeviceInfo)(d, CL_DEVICE_LOCAL_MEM_SIZE, sizeof(local), &local, NULL) == CL_SUCCESS)
        info.local_mem_size = local;
    if (NATIVE(d, clGetDeviceInfo)(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(wg), &wg, NULL) == CL_SUCCESS)
        info.max_work_group_size = wg;
    info.vendor = vendor;
    if (strstr(vendor, "NVIDIA")) {
        if (NATIVE(d, clGetDeviceInfo)(d, NV_COMPUTE_CAPABILITY_MAJOR, sizeof(u), &u, NULL) == CL_SUCCESS)
            info.nv_cc_major = u;
        if (NATIVE(d, clGetDeviceInfo)(d, NV_COMPUTE_CAPABILITY_MINOR, sizeof(u), &u, NULL) == CL_SUCCESS)
            info.nv_cc_minor = u;
        if (NATIVE(d, clGetDeviceInfo)(d, NV_REGISTERS_PER_BLOCK, sizeof(u), &u, NULL) == CL_SUCCESS)
            info.nv_regs_per_block = u;
        if (NATIVE(d, clGetDeviceInfo)(d, NV_WARP_SIZE, sizeof(u), &u, NULL) == CL_SUCCESS)
            info.nv_warp_size = u;
    }
    m->usable = aos_sched_device_from_info(&info, &m->model) == 0;
    if (m->usable)
        aos_log(AOS_LOG_INFO, "launch", "device %u: %u compute units, model %s%s", dev->index,
                m->model.compute_units, m->model.arch, m->model.arch_exact ? "" : " (approximate)");
    else
        aos_log(AOS_LOG_WARN, "launch", "device %u: no resource model: each launch gets the whole device",
                dev->index);
    m->ready = true;
}

bool aos_device_model(const struct aos_device *dev, struct aos_sched_device *out)
{
    if (dev->index >= AOS_MAX_DEVICES)
        return false;
    pthread_mutex_lock(&models_lock);
    struct device_model *m = &models[dev->index];
    if (!m->ready)
        device_model_read(dev, m);
    if (m->usable)
        *out = m->model;
    bool usable = m->usable;
    pthread_mutex_unlock(&models_lock);
    return usable;
}

bool aos_device_sched_fits(const struct aos_device *dev, uint32_t wg_threads, uint64_t local_mem,
                           uint32_t regs_per_thread)
{
    struct aos_sched_device model;
    if (!aos_device_model(dev, &model))
        return true; /* no model: nothing to check against, the device decides */
    /* Registers included: the solver would never run a kernel it finds UNFIT for them. */
    struct aos_sched_kernel k = {.wg_threads = wg_threads, .local_mem = local_mem,
                                 .regs_per_thread = regs_per_thread, .total_groups = 1};
    return aos_sched_kernel_occupancy(&model, &k, NULL) > 0;
}
