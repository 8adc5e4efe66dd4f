/* Discovery of the real OpenCL platforms and devices the daemon serves. */
#ifndef ACCELOSD_VENDOR_H
#define ACCELOSD_VENDOR_H

#include <stdint.h>

#include "native.h"

struct aos_device {
    cl_platform_id platform;
    cl_device_id device;
    uint32_t index;  /* position in the daemon's device list; wire id = AOS_DEVICE_ID_BASE + index */
    cl_device_type type;
};

/* Loads every vendor ICD listed in dir (*.icd files, default /etc/OpenCL/vendors), skipping
 * accelOS's own, and enumerates their devices. Returns the device count or a negative errno. */
int aos_vendor_load(const char *dir);
void aos_vendor_unload(void);

uint32_t aos_device_count(void);
/* Device by wire id, or NULL when the id names no device. */
const struct aos_device *aos_device_by_id(uint64_t id);
const struct aos_device *aos_device_at(uint32_t index);

#endif
