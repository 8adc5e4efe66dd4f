/*
 * How many physical work-groups one logical launch gets: the share solver of the scheduling core
 * (accelos/sched.h, CGO'16 §3) over the device's model and the launches in flight on it.
 *
 * Design note. Launches already running keep the groups they started with (a running kernel
 * cannot grow or shrink, §2.5), so the solver is asked for a fair division among all of them and
 * only the new launch's answer is used: with K launches in flight the newcomer gets about 1/K of
 * the device. The solver's WAIT (the device already holds one group of each) becomes one group:
 * the daemon has no queue of its own to hold a launch back, and one group still makes progress.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "accelos/log.h"
#include "accelos/sched.h"
#include "accelos/wire_core.h"
#include "launch.h"

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

static bool device_model(const struct aos_device *dev, struct aos_sched_device *out)
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

static struct aos_sched_kernel sched_kernel(const struct aos_launch_demand *d, uint64_t arrival)
{
    return (struct aos_sched_kernel){.wg_threads = d->wg_threads, .local_mem = d->local_mem,
                                     .total_groups = d->total_groups, .weight = 1.0, .arrival = arrival};
}

uint32_t aos_launch_physical_groups(const struct aos_device *dev, const struct aos_launch_demand *running, size_t n,
                                    const struct aos_launch_demand *mine)
{
    struct aos_sched_device model;
    if (!device_model(dev, &model))
        return mine->total_groups > UINT32_MAX ? UINT32_MAX : (uint32_t)mine->total_groups;
    struct aos_sched_kernel *k = malloc((n + 1) * sizeof(*k));
    struct aos_sched_share *out = malloc((n + 1) * sizeof(*out));
    int rc = k && out ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < n; i++)
        k[i] = sched_kernel(&running[i], i);
    if (rc == 0) {
        k[n] = sched_kernel(mine, n); /* the newest arrival */
        rc = aos_sched_share_solve(&model, k, n + 1, NULL, out);
    }
    uint32_t groups = 1;
    if (rc != 0 && model.compute_units / (n + 1) > 1)
        groups = (uint32_t)(model.compute_units / (n + 1)); /* the paper's T / K, groups per CU = 1 */
    else if (rc == 0 && out[n].status == AOS_SCHED_UNFIT)
        groups = 0; /* one work-group can never fit: the native launch reports why */
    else if (rc == 0 && out[n].status == AOS_SCHED_RUN && out[n].groups > 1)
        groups = out[n].groups > UINT32_MAX ? UINT32_MAX : (uint32_t)out[n].groups;
    free(k);
    free(out);
    if (groups > mine->total_groups)
        groups = (uint32_t)mine->total_groups;
    return groups;
}
