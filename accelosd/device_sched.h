/*
 * The device scheduler (policy fair): one thread per device runs the logical launches of all
 * clients in waves, sizing each wave with the share solver and picking who runs next by fair
 * virtual time (accelos/sched.h). Design and policy: docs/scheduler.md.
 */
#ifndef ACCELOSD_DEVICE_SCHED_H
#define ACCELOSD_DEVICE_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "accelos/sched.h"
#include "logical.h"
#include "vendor.h"

struct aos_session;

/* The device's resource model; false when the device reports too little to build one. */
bool aos_device_model(const struct aos_device *dev, struct aos_sched_device *out);

/* False when one work-group of this size, local memory and registers per work-item (0 = unknown)
 * can never fit the device. */
bool aos_device_sched_fits(const struct aos_device *dev, uint32_t wg_threads, uint64_t local_mem,
                           uint32_t regs_per_thread);

/* Hands a launch (its gate and user event set, one reference taken over) to its device's
 * scheduler thread, started on first use. Any thread. */
void aos_device_sched_submit(struct aos_logical *l);

/*
 * Per-client in-flight limit (max_inflight_per_client): counts one launch of s in flight, first
 * blocking while s already has the limit in flight and they are making progress on the device.
 * A client whose in-flight launches all wait on something else (its own user events, say) is let
 * through after a short grace, so it cannot deadlock itself. Service thread of s.
 */
void aos_device_sched_admit(struct aos_session *s);
/* The same without blocking: false, and nothing counted, when s has the limit in flight. */
bool aos_device_sched_try_admit(struct aos_session *s);
/* Undoes an admit whose launch was never submitted, or ends a launch that bypassed the scheduler. */
void aos_device_sched_unadmit(struct aos_session *s);

/* How long a launch of virtual_groups groups of the code behind estimate_key should take on dev,
 * from the time per virtual group the scheduler measured there; 0 when nothing was measured. */
uint64_t aos_device_sched_expected_ns(const struct aos_device *dev, uint64_t estimate_key, uint64_t virtual_groups);
/* Whether a launch of virtual_groups groups of that code may run in cut waves (docs/scheduler.md
 * §6, *Cut waves*), as far as the device's estimates tell: the code is new, or its groups are long
 * enough to cut and the launch outlasts the cut quantum. Only such launches pay for a cuttable
 * twin and its record. */
bool aos_device_sched_may_cut(const struct aos_device *dev, uint64_t estimate_key, uint64_t virtual_groups);
/* A command of client's was just enqueued on dev: while a wave runs there, the client counts as
 * present for the next waves (it waits for them: PoCL runs commands in the order they came), and
 * if another client's cuttable wave runs, the scheduler may cut it so that the command need not
 * wait for the whole wave. Service threads; returns at once when no wave runs. */
void aos_device_sched_command_waits(const struct aos_device *dev, uint64_t client);

/* A solo launch of the code behind estimate_key ran virtual_groups groups in ran_ns (from its
 * enqueue to its end as the host saw them, as a wave is timed) while its client had the device to
 * itself: a measure of the code's speed alone, which the progress charge of its waves beside
 * other clients uses (docs/scheduler.md §6, step 4). */
void aos_device_sched_solo_alone(uint32_t device, uint64_t estimate_key, uint64_t virtual_groups, uint64_t ran_ns);

/* Whether a wave runs on any device: one atomic load, so that an enqueue looks up its queue's
 * device only then. */
bool aos_device_sched_wave_runs(void);
/* How long a launch of virtual_groups groups, expected to take expected_ns, may run on dev before
 * some virtual group counts as past vgroup_timeout_ms: the rule the watchdog applies to a wave,
 * for one that covers the whole range (solo.h). cold: the device may also compile the kernel in
 * it. 0 when there is no limit. */
uint64_t aos_device_sched_runaway_allowance_ns(const struct aos_device *dev, uint64_t virtual_groups,
                                               uint64_t expected_ns, bool cold);

/* Something outside the scheduler that it waits for has changed (solo launches ended): it plans
 * again, on this thread when nobody is stepping. Any thread. */
void aos_device_sched_nudge(uint32_t device);

/* Whether device is held for client's next launch (anticipation, docs/scheduler.md §6): how long
 * a launch of the client's may run natively now (a held solo launch, solo.h), else 0. Any thread. */
uint64_t aos_device_sched_held_for(uint32_t device, uint64_t client);
/* A held solo launch of client, claimed at claimed_ns, ended after running ran_ns (0: unknown): the
 * hold is charged up to now, and the device may be held again for the client's next launch. */
void aos_device_sched_held_solo_ended(uint32_t device, uint64_t client, uint64_t claimed_ns, uint64_t ran_ns);

/* A session died: its launches stop at their next wave boundary. Any thread. */
void aos_device_sched_poke(void);

/* A session ended: each device's scheduler forgets its client (virtual time, gap history) once
 * none of its launches is left there. Any thread. */
void aos_device_sched_client_gone(uint64_t client);

/* What accelosd --status shows of a device's scheduler; zeros when it never started. */
struct aos_device_sched_stats {
    size_t clients_known; /* clients whose virtual time it keeps */
    size_t parked_events; /* failed events kept until the daemon stops (PoCL, device_sched.c) */
    uint64_t waves_started, waves_cuttable, waves_cut;
    uint64_t alone_measures_waves, alone_measures_solo; /* measures of kernels' speed alone, by source */
    uint64_t holds, held_ns; /* anticipation: holds of the device for a client, and their time */
    uint64_t held_charged_ns; /* the whole-device time charged for them (hold_charge_pct) */
};
struct aos_device_sched_stats aos_device_sched_stats(uint32_t device);

/* Stops the scheduler threads; launches still in flight fail. At shutdown only. */
void aos_device_sched_shutdown(void);

#endif
