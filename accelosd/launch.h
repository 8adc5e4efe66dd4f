/*
 * Elastic launches (policy fair): one application NDRange launch of a rewritten kernel becomes one
 * logical launch over a virtual NDRange (accelos/vndrange.h), which the device's scheduler thread
 * runs in waves on a changing share of the device (device_sched.h).
 */
#ifndef ACCELOSD_LAUNCH_H
#define ACCELOSD_LAUNCH_H

#include <stdbool.h>
#include <stdint.h>

#include "accelos/vndrange.h"
#include "elastic.h"
#include "logical.h"
#include "native.h"
#include "vendor.h"

/* The launch as the application asked for it. */
struct aos_launch_shape {
    cl_uint work_dim;      /* 1..3 */
    const size_t *offset;  /* NULL: no global offset */
    const size_t *global;
    const size_t *local;   /* NULL: the daemon picks the work-group size */
};

/* Where and how a launch of a rewritten kernel would run, found once for both ways of running it
 * (aos_launch_solo, aos_launch_elastic). */
struct aos_launch_target {
    const struct aos_device *dev;
    cl_context ctx;
    cl_command_queue_properties props; /* of the application's queue */
    struct aos_vndrange rec;           /* the launch as a virtual NDRange */
    size_t local[3];                   /* the work-group size it runs with */
    uint64_t estimate_key;             /* aos_elastic_estimate_key */
};

/* A command of s's was enqueued on queue: another client's cuttable wave on its device may be cut
 * for it (aos_device_sched_command_waits). */
void aos_launch_command_enqueued(struct aos_session *s, cl_command_queue queue);
/* Whether launches on the device run in the direct shape (wave_shape; auto: CPU devices). The
 * JIT leaves the direct twins out of programs for devices that do not (aos_jit_options). */
bool aos_launch_device_runs_direct(cl_device_id device);

/* Fills t; false when the rewrite cannot run the launch exactly, and it must run natively: the
 * queue is on another device, non-uniform or unexpressible work-groups, or any error on the way. */
bool aos_launch_target(cl_command_queue queue, const struct aos_elastic_kernel *ek,
                       const struct aos_launch_shape *shape, struct aos_launch_target *t);

/* A solo launch as enqueued: the application's event waits on status, reports profiling from
 * command, and its status from command unless fate says the launch was aborted. */
struct aos_solo_fate;
struct aos_solo_launch {
    cl_event status;  /* a user event: completes with command, or fails when aborted */
    cl_event command; /* the kernel command on the application's queue */
    struct aos_solo_fate *fate; /* NULL when the launch could not be watched */
};

/*
 * Runs the launch solo (solo.h) when its client has the device to itself and the scheduler
 * measured it short: on the application's queue, as the direct kernel over the whole range where
 * the direct shape runs, else as the native kernel. True with *out set (one reference each) when
 * it was enqueued so; false, with nothing enqueued, when it must go the other ways. Service
 * thread of s.
 */
struct aos_session;
bool aos_launch_solo(struct aos_session *s, cl_command_queue queue, struct aos_elastic_kernel *ek, cl_kernel native,
                     const struct aos_launch_shape *shape, const struct aos_launch_target *t, cl_uint num_wait,
                     const cl_event *wait, struct aos_solo_launch *out);

/*
 * Makes the launch a logical launch. *ev becomes the application's event (a marker on its queue
 * that completes after the last wave; one reference) and *logical the launch that answers the
 * event's profiling queries (one reference). held lists the argument objects to keep alive until
 * the launch ends. May block while the client has too many launches in flight
 * (max_inflight_per_client). Returns false, with nothing enqueued, when the launch must run
 * natively: a work-group that can never fit (the native launch reports the error), or any error
 * on the way. Service thread of s only.
 */
struct aos_enqueue;
bool aos_launch_elastic(struct aos_session *s, struct aos_enqueue *e, struct aos_elastic_kernel *ek,
                        const struct aos_launch_target *t, const struct aos_logical_held *held, uint32_t n_held,
                        cl_event *ev, struct aos_logical **logical);

#endif
