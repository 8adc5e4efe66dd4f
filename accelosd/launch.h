/*
 * Elastic launches (policy fair): one application NDRange launch of a rewritten kernel becomes one
 * logical launch over a virtual NDRange (accelos/vndrange.h) on a share of the device.
 */
#ifndef ACCELOSD_LAUNCH_H
#define ACCELOSD_LAUNCH_H

#include <stdbool.h>
#include <stdint.h>

#include "elastic.h"
#include "native.h"
#include "vendor.h"

/* The launch as the application asked for it. */
struct aos_launch_shape {
    cl_uint work_dim;      /* 1..3 */
    const size_t *offset;  /* NULL: no global offset */
    const size_t *global;
    const size_t *local;   /* NULL: the daemon picks the work-group size */
};

/*
 * Enqueues the launch on the twin kernel when the rewrite can run it exactly: the virtual NDRange
 * record is written to a pooled device buffer (non-blocking, same queue), the kernel is launched
 * on aos_launch_physical_groups() work-groups of the original size, and *ev is the kernel's
 * event, so the application's event, waits and profiling are the kernel's. The wait list applies
 * to the kernel. Returns false, with nothing launched, when the launch must run natively:
 * non-uniform or unexpressible work-groups, another device, or any error of the elastic enqueue
 * (the native launch then gives the application the native outcome). Service thread of s only.
 */
struct aos_session;
bool aos_launch_elastic(struct aos_session *s, cl_command_queue queue, struct aos_elastic_kernel *ek,
                        const struct aos_launch_shape *shape, cl_uint num_wait, const cl_event *wait, cl_event *ev);

/* What one logical launch asks of the device, per physical work-group and in total. */
struct aos_launch_demand {
    uint32_t wg_threads;   /* work-items per work-group */
    uint64_t local_mem;    /* local memory per work-group, bytes */
    uint64_t total_groups; /* virtual groups */
};

/*
 * Physical work-groups for the launch `mine` on dev while the n launches in `running` are in
 * flight there (one per other busy queue). Lives in physical_groups.c, the one place where the
 * share is decided. Returns 1..total_groups, or 0 when one work-group can never fit the device
 * (the launch then runs natively, which reports the error).
 */
uint32_t aos_launch_physical_groups(const struct aos_device *dev, const struct aos_launch_demand *running, size_t n,
                                    const struct aos_launch_demand *mine);

/* Frees the pooled record buffers; call at shutdown when no launch is in flight. */
void aos_launch_shutdown(void);

#endif
