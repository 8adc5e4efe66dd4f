/*
 * The runaway rule: a wave one of whose virtual groups runs past vgroup_timeout_ms is told to
 * take no more groups, and its launch fails with CL_OUT_OF_RESOURCES (docs/scheduler.md §6,
 * *Hostile clients*). How long a wave may take: each physical group runs about vgroups/groups
 * virtual groups (one more for the spread), each allowed the limit; when the kernel's time per
 * virtual group is known, a wave that runs the limit past twice its expected length has a group
 * that did, so long waves of short groups do not stretch the allowance to many limits.
 */
#include <stddef.h>

#include "accelos/futex.h"
#include "accelos/log.h"
#include "accelos/sched_config.h"
#include "daemon_config.h"
#include "dsched.h"
#include "ops.h"
#include "session.h"

/* The runaway rule's allowance for a run of per_unit - 1 virtual groups one after another on a
 * compute unit, expected to take expected_ns (0: unknown): the limit per virtual group plus one,
 * or twice the expected time plus one limit, whichever is less. cold: on PoCL the first waves of a
 * new kernel object also time the device's compile of its code, after the compiles of other new
 * kernels queued before it (one at a time): four new kernels launched at once took 300-400 ms
 * each in a sanitizer build. */
static uint64_t runaway_allowance_ns(uint64_t limit_ns, uint64_t per_unit, double expected_ns, bool cold)
{
    uint64_t allowance = per_unit > UINT64_MAX / limit_ns ? UINT64_MAX : limit_ns * per_unit;
    if (expected_ns > 0) {
        double bounded = 2.0 * expected_ns + (double)limit_ns;
        if (bounded < (double)allowance)
            allowance = (uint64_t)bounded;
    }
    if (cold)
        allowance += COMPILE_ALLOWANCE_NS;
    return allowance;
}

/* A wave of l's that may time the device's compile of its code. */
static bool wave_may_compile(const struct aos_logical *l)
{
    return l->cold && l->waves <= COMPILE_WAVES;
}

/* l's running wave gets the compile allowance when it may compile, and also when another wave that
 * may compile ran beside it: PoCL's compile holds a core, and the waves beside it run on the rest
 * (a warm wave ran 40.2 ms against a 40 ms allowance while five new kernels compiled). */
static uint64_t wave_allowance_ns(const struct device_sched *d, const struct aos_logical *l, uint64_t limit_ns)
{
    uint64_t per_group = (l->wave_vgroups + l->wave_groups - 1) / l->wave_groups + 1;
    double expected = l->ns_per_vgroup_one > 0 ? l->ns_per_vgroup_one * (double)per_group : 0;
    bool beside_compile = d->compile_seen_ns >= l->wave_running_ns;
    return runaway_allowance_ns(limit_ns, per_group, expected, wave_may_compile(l) || beside_compile);
}

/* Tells a running loop wave to take no more virtual groups: its record's `stop` field, written on a
 * queue of its own (the run queue is busy behind the wave; a write from another queue lands while a
 * kernel runs, on PoCL too). The groups in flight end; the ones not yet taken never run, so an
 * aborted launch leaves the device within a chunk per physical group. A direct wave has no
 * dequeue: its groups run out. */
static void wave_stop(struct device_sched *d, struct aos_logical *l)
{
    static const aos_u32 stop = 1;
    if (l->direct || !l->record || !l->wave)
        return;
    cl_command_queue q = dsched_queue_take(d, l->context);
    if (!q)
        return;
    if (NATIVE(q, clEnqueueWriteBuffer)(q, l->record, CL_FALSE, offsetof(struct aos_vndrange, stop), sizeof(stop),
                                        &stop, 0, NULL, NULL) == CL_SUCCESS)
        NATIVE(q, clFlush)(q);
    dsched_queue_give_back(d, l->context, q);
}

void dsched_watch(struct device_sched *d)
{
    uint64_t limit_ns = (uint64_t)aos_daemon_config_get()->vgroup_timeout_ms * 1000000ull;
    uint64_t now = aos_now_ns();
    for (struct aos_logical *l = d->launches; l; l = l->next)
        if (l->state == AOS_LOGICAL_RUNNING && wave_may_compile(l))
            d->compile_seen_ns = now;
    for (struct aos_logical *l = d->launches; l; l = l->next) {
        if (l->state == AOS_LOGICAL_READY && atomic_load(&l->s->dead)) {
            dsched_launch_end(d, l, CANCELLED_STATUS);
            continue;
        }
        if (l->state != AOS_LOGICAL_RUNNING)
            continue;
        if (!l->wave_running_ns) {
            cl_int st = CL_QUEUED;
            NATIVE(l->wave, clGetEventInfo)(l->wave, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL);
            if (st <= CL_RUNNING)
                l->wave_running_ns = now;
        }
        if (!limit_ns || !l->wave_running_ns)
            continue;
        uint64_t allowance = wave_allowance_ns(d, l, limit_ns);
        if (now - l->wave_running_ns > allowance) {
            aos_log(AOS_LOG_WARN, "sched",
                    "client %llu: %s: a virtual group ran past %u ms: launch aborted (its wave takes no "
                    "more groups and leaves the device when those running end; wave %u of %u virtual groups "
                    "on %u groups ran %.1f ms, allowed %.1f ms)",
                    (unsigned long long)l->client, l->kernel_name, aos_daemon_config_get()->vgroup_timeout_ms,
                    l->waves, l->wave_vgroups, l->wave_groups, (double)(now - l->wave_running_ns) / 1e6,
                    (double)allowance / 1e6);
            wave_stop(d, l);
            dsched_launch_end(d, l, RUNAWAY_STATUS);
        }
    }
}

uint64_t aos_device_sched_runaway_allowance_ns(const struct aos_device *dev, uint64_t virtual_groups,
                                               uint64_t expected_ns, bool cold)
{
    uint64_t limit_ns = (uint64_t)aos_daemon_config_get()->vgroup_timeout_ms * 1000000ull;
    struct device_sched *d = dsched_started(dev->index);
    if (!limit_ns || !virtual_groups)
        return 0;
    uint64_t width = d ? dsched_range_width(d, virtual_groups) : 1;
    return runaway_allowance_ns(limit_ns, (virtual_groups + width - 1) / width + 1, (double)expected_ns, cold);
}
