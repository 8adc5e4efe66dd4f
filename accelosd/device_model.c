/*
 * The resource model of each device (accelos/sched.h): what the device reports, plus the
 * scheduling core's architecture table. Read once per device, on first use.
 */
#include <pthread.h>

#include "accelos/log.h"
#include "accelos/sched.h"
#include "accelos/sched_query.h"
#include "accelos/wire_core.h"
#include "device_sched.h"

struct device_model {
    bool ready;
    bool usable;
    struct aos_sched_device model;
};

static pthread_mutex_t models_lock = PTHREAD_MUTEX_INITIALIZER;
static struct device_model models[AOS_MAX_DEVICES];

static void device_model_read(const struct aos_device *dev, struct device_model *m)
{
    struct aos_sched_device_info info;
    char vendor[AOS_SCHED_VENDOR_MAX];
    aos_sched_device_query(NATIVE(dev->device, clGetDeviceInfo), dev->device, &info, vendor);
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
